"""`numwars` — Num Wars, secret-roles edition (rules/numwars.md): one folder, one game.

`cards` (deck and card facts) ← `tricks` (legal cards, trick resolution) ← `scoring` ←
`round` (the state machine) ← `rules` (options and the rules object); see pyproject.toml's
import-linter contracts.
"""

from engine.numwars.round import NumWarsRound as NumWarsRound
from engine.numwars.rules import NumWars as NumWars, NumWarsOptions as NumWarsOptions
from engine.numwars.scoring import NumWarsPile as NumWarsPile
