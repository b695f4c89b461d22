"""The options of Num Wars, classic edition (rules/numwars-classic.md "Match and variants"):
a value the rules object is built from and hands down to each round (the bottom of the
game's layers: every module may read it)."""

from __future__ import annotations

import msgspec


class ClassicOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    speed: bool = False  # "Speed Wars": 10 cards each, exchange 2
    alliance: bool = False  # 4, 6 or 8 players; partners opposite, team scores
    tiebreak: bool = True  # a tied match total calls for tie-break rounds (at most 3)
