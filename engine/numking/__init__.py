"""`numking` — Num King (rules/numking.md): one folder, one game.

`cards` (deck and card facts) ← `tricks` (strength, legal cards, cancellation) ← `scoring` ←
`round` (the state machine) ← `rules` (options and the rules object);
see pyproject.toml's import-linter contracts.
"""

from engine.numking.round import NumKingRound as NumKingRound
from engine.numking.rules import NumKing as NumKing, NumKingOptions as NumKingOptions
from engine.numking.scoring import NumKingBid as NumKingBid
