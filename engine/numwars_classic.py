"""`numwars-classic` — Num Wars, classic edition (rules/numwars-classic.md). STUB."""

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


class ClassicOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    speed: bool = False  # "Speed Wars": 10 cards each, exchange 2
    alliance: bool = False  # 4, 6 or 8 players; partners opposite, team scores
    tiebreak: bool = True  # a tied match total calls for tie-break rounds (at most 3)


class ClassicPile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's captured cards for score-round."""

    captured: list[str]


class NumWarsClassic:
    id: ClassVar[str] = "numwars-classic"
    name: ClassVar[str] = "Num Wars (classic edition)"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 8
    Options: ClassVar[type[ClassicOptions]] = ClassicOptions

    def __init__(self, options: ClassicOptions | None = None) -> None:
        self.options = options or ClassicOptions()

    def deck(self, players: int) -> DeckInfo:
        raise NotImplementedError

    def deal(self, setup: RoundSetup) -> Deal:
        raise NotImplementedError

    def legal_moves(self, players: int, hand: list[str], trick: list[TrickCard]) -> LegalMoves:
        raise NotImplementedError

    def validate_move(
        self, players: int, hand: list[str], trick: list[TrickCard], card: str
    ) -> MoveCheck:
        raise NotImplementedError

    def resolve_trick(self, players: int, trick: list[TrickCard]) -> TrickResult:
        raise NotImplementedError

    def score_round(self, piles: list[ClassicPile]) -> RoundScore:
        raise NotImplementedError

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        raise NotImplementedError
