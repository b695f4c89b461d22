"""`numwars` — Num Wars, secret-roles edition (rules/numwars.md): one folder, one game.

`options` (the options value) ← `cards` (deck, card facts and the seeded deal) ← `tricks`
(legal cards, trick resolution) ← `scoring` ← `kernel` (the state machine, compiled) ← `view`
← `round` (the public round, built from values) ← `rules` (the rules object); see
pyproject.toml's import-linter contracts.
"""

from engine.numwars.options import NumWarsOptions as NumWarsOptions
from engine.numwars.round import NumWarsRound as NumWarsRound
from engine.numwars.rules import NumWars as NumWars
from engine.numwars.scoring import NumWarsPile as NumWarsPile
