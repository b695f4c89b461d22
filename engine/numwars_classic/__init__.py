"""`numwars-classic` — Num Wars, classic edition (rules/numwars-classic.md): one folder, one game.

`cards` (deck and card facts) ← `tricks` (legal cards, the trump duel) ← `scoring` (piles held
as integers) ← `round` (the state machine) ← `rules` (options and the
rules object); see pyproject.toml's import-linter contracts.
"""

from engine.numwars_classic.round import ClassicRound as ClassicRound
from engine.numwars_classic.rules import (
    ClassicOptions as ClassicOptions,
    NumWarsClassic as NumWarsClassic,
)
from engine.numwars_classic.scoring import ClassicPile as ClassicPile
