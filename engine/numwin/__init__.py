"""`numwin` — Num Win (rules/numwin.md): one folder, one game.

`options` (the options value) ← `cards` (deck and card facts, the seeded deal) ← `scoring` ←
`kernel` (the state machine, compiled) ← `view` ← `round` (the public round, built from
values) ← `rules` (the rules object); see pyproject.toml's import-linter contracts.
"""

from engine.numwin.options import NumWinOptions as NumWinOptions
from engine.numwin.round import NumWinRound as NumWinRound
from engine.numwin.rules import NumWin as NumWin
from engine.numwin.scoring import NumWinHand as NumWinHand
