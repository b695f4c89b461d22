"""`numking` — Num King (rules/numking.md). STUB."""

from __future__ import annotations

from typing import ClassVar

import msgspec

from engine.base import (
    Deal,
    DeckInfo,
    LegalMoves,
    MatchResult,
    MoveCheck,
    RoundScore,
    RoundSetup,
    TrickCard,
    TrickResult,
)


class NumKingOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    zeros: bool = False  # add rainbow-0 and shadow-0 (38 cards, the seed's total)
    max_cards: int | None = None  # last round's hand size, 1..k_max (default k_max)
    first_bidder: int = 0  # first bidder (and leader) of round 1


class NumKingBid(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's round for score-round: bid, tricks taken, streak before the round."""

    bid: int
    tricks: int
    streak: int = 0


class NumKing:
    id: ClassVar[str] = "numking"
    name: ClassVar[str] = "Num King"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    Options: ClassVar[type[NumKingOptions]] = NumKingOptions

    def __init__(self, options: NumKingOptions | None = None) -> None:
        self.options = options or NumKingOptions()

    def deck(self, players: int) -> DeckInfo:
        raise NotImplementedError

    def deal(self, setup: RoundSetup) -> Deal:
        raise NotImplementedError

    def legal_moves(self, players: int, hand: list[str], trick: list[TrickCard]) -> LegalMoves:
        raise NotImplementedError

    def validate_move(
        self,
        players: int,
        hand: list[str],
        trick: list[TrickCard],
        card: str,
        declared: int | None = None,
    ) -> MoveCheck:
        raise NotImplementedError

    def resolve_trick(self, players: int, trick: list[TrickCard]) -> TrickResult:
        raise NotImplementedError

    def score_round(self, cards: int, bids: list[NumKingBid]) -> RoundScore:
        raise NotImplementedError

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        raise NotImplementedError
