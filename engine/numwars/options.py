"""The options of Num Wars (rules/numwars.md): a value the rules object is built from and
hands down to each round (the bottom of the game's layers: every module may read it)."""

from __future__ import annotations

import msgspec


class NumWarsOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    exchange: int = 0  # cards each player passes to the right neighbour before play (0-5)
    tiebreak: bool = False  # break a tied match total as numwars-classic does
