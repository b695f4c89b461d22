"""The options of Num King (rules/numking.md "Rounds", "Bids"): a value the rules object is
built from and hands down to each round (the bottom of the game's layers: every module may
read it)."""

from __future__ import annotations

import msgspec


class NumKingOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    zeros: bool = False  # add rainbow-0 and shadow-0 (38 cards, the seed's total)
    max_cards: int | None = None  # last round's hand size, 1..k_max (default k_max)
    first_bidder: int = 0  # first bidder (and leader) of round 1
