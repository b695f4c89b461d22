"""`numking` — Num King (rules/numking.md): one folder, one game.

`options` (the options value) ← `cards` (deck and card facts, the setup's checks, the deal)
← `tricks` (strength, legal cards, cancellation) ← `scoring` ← `kernel` (the state machine,
pure Python) ← `view` ← `round` (the public round, built from values) ← `rules` (the rules
object); see pyproject.toml's import-linter contracts.
"""

from engine.numking.options import NumKingOptions as NumKingOptions
from engine.numking.round import NumKingRound as NumKingRound
from engine.numking.rules import NumKing as NumKing
from engine.numking.scoring import NumKingBid as NumKingBid
