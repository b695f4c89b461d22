"""The options of Num Win (rules/numwin.md "Match and variant"): a value the rules object is
built from and hands down to each round (the bottom of the game's layers: every module may
read it)."""

from __future__ import annotations

import msgspec


class NumWinOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    teams: bool = False  # 4 players, partners opposite, team totals
    max_turns: int = 0  # end the round unscored-caller after this many turns (0: no limit)
