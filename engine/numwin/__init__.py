"""`numwin` — Num Win (rules/numwin.md): one folder, one game.

`cards` (deck and card facts) ← `scoring` ← `round` (the state machine) ← `rules` (options and
the rules object); see pyproject.toml's import-linter contracts.
"""

from engine.numwin.round import NumWinRound as NumWinRound
from engine.numwin.rules import NumWin as NumWin, NumWinOptions as NumWinOptions
from engine.numwin.scoring import NumWinHand as NumWinHand
