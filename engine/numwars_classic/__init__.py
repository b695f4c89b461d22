"""`numwars-classic` — Num Wars, classic edition (rules/numwars-classic.md): one folder, one game.

`options` (the options value) ← `cards` (deck and card facts, sizes, the seeded deal) ←
`tricks` (legal cards, the trump duel) ← `scoring` (piles held as integers) ← `kernel` (the
state machine, compiled) ← `view` ← `round` (the public round, built from values) ← `rules`
(the rules object); see pyproject.toml's import-linter contracts.
"""

from engine.numwars_classic.options import ClassicOptions as ClassicOptions
from engine.numwars_classic.round import ClassicRound as ClassicRound
from engine.numwars_classic.rules import NumWarsClassic as NumWarsClassic
from engine.numwars_classic.scoring import ClassicPile as ClassicPile
