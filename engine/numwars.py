"""`numwars` — Num Wars, secret-roles edition (rules/numwars.md). STUB: being implemented."""

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

ROLES = ("poseur", "complice", "demineur", "agent", "civil")
BOMB_OUTCOMES = (
    "numx-capture",
    "stolen",
    "civil-capture",
    "complice-capture",
    "protected",
    "protected-quantum",
    "kept",
)


class NumWarsOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    exchange: int = 0  # cards each player passes to the right neighbour before play (0-5)
    tiebreak: bool = False  # break a tied match total as numwars-classic does


class NumWarsPile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's round for score-round: cards won, pairs captured as pairs, role."""

    captured: list[str]
    pairs: list[list[str]] = []
    role: str


class NumWars:
    id: ClassVar[str] = "numwars"
    name: ClassVar[str] = "Num Wars"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 8
    Options: ClassVar[type[NumWarsOptions]] = NumWarsOptions

    def __init__(self, options: NumWarsOptions | None = None) -> None:
        self.options = options or NumWarsOptions()

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

    def resolve_trick(
        self,
        players: int,
        trick: list[TrickCard],
        roles: list[str] | None = None,
        joker_neutralizes: bool = True,
    ) -> TrickResult:
        raise NotImplementedError

    def score_round(self, piles: list[NumWarsPile], bomb_outcome: str) -> RoundScore:
        raise NotImplementedError

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        raise NotImplementedError
