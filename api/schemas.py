"""Request bodies of the public API (api-contract.md), as strict msgspec structs.

Responses are the engine's own result structs (engine/base.py). Limits keep every list
bounded by the largest deck: 8 seats, 111 cards.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from engine.core.base import TrickCard
from engine.core.cards import CardCode
from engine.numking import NumKingBid, NumKingOptions
from engine.numwars import NumWarsOptions, NumWarsPile
from engine.numwars_classic import ClassicOptions, ClassicPile
from engine.numwin import NumWinHand, NumWinOptions

MAX_CARDS = 111
Seed = Annotated[
    int,
    msgspec.Meta(
        ge=0,
        le=2**53 - 1,
        description="0 to 2^53-1 (exact in every JSON client): the same seed, the same deal",
    ),
]
Seat = Annotated[int, msgspec.Meta(ge=0, le=7)]
Hand = Annotated[list[CardCode], msgspec.Meta(max_length=MAX_CARDS, description="card codes")]
Trick = Annotated[
    list[TrickCard],
    msgspec.Meta(
        max_length=8, description="the trick so far, in play order; the first is the leader"
    ),
]


def players_range(low: int, high: int) -> object:
    return msgspec.Meta(ge=low, le=high, description=f"number of players ({low}-{high})")


Players3to8 = Annotated[int, players_range(3, 8)]
Players2to8 = Annotated[int, players_range(2, 8)]


class Request(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


# --- deal -----------------------------------------------------------------------------------


class NumWarsDealRequest(Request, frozen=True):
    players: Players3to8
    seed: Seed
    options: NumWarsOptions = NumWarsOptions()


class ClassicDealRequest(Request, frozen=True):
    players: Players3to8
    seed: Seed
    options: ClassicOptions = ClassicOptions()


class NumKingDealRequest(Request, frozen=True):
    players: Players2to8
    seed: Seed
    options: NumKingOptions = NumKingOptions()
    round: Annotated[int, msgspec.Meta(ge=1, le=19, description="cards per player (round k)")] = 1
    first_bidder: Seat | None = None  # the leader; default options.first_bidder


class NumWinDealRequest(Request, frozen=True):
    players: Players2to8
    seed: Seed
    options: NumWinOptions = NumWinOptions()


# --- legal-moves, validate-move, resolve-trick -----------------------------------------------


class NumWarsHandRequest(Request, frozen=True):
    players: Players3to8
    hand: Hand
    trick: Trick = []


class NumKingHandRequest(Request, frozen=True):
    players: Players2to8
    hand: Hand
    trick: Trick = []


class NumWarsMoveRequest(NumWarsHandRequest, frozen=True, kw_only=True):
    card: CardCode


class NumKingMoveRequest(NumKingHandRequest, frozen=True, kw_only=True):
    card: CardCode
    declared: Annotated[int, msgspec.Meta(description="infinity only: 17 or 0")] | None = None


class NumWarsTrickRequest(Request, frozen=True):
    players: Players3to8
    trick: Trick
    roles: (
        Annotated[
            list[str],
            msgspec.Meta(
                max_length=8, description="role by seat; required when the Bomb is played"
            ),
        ]
        | None
    ) = None
    joker_neutralizes: bool = True  # the complice's choice when Bomb + Joker + a threat


class ClassicTrickRequest(Request, frozen=True):
    players: Players3to8
    trick: Trick


class NumKingTrickRequest(Request, frozen=True):
    players: Players2to8
    trick: Trick


# --- score-round ------------------------------------------------------------------------------


class NumWarsScoreRequest(Request, frozen=True):
    players: Annotated[list[NumWarsPile], msgspec.Meta(min_length=3, max_length=8)]
    bomb_outcome: str


class ClassicScoreRequest(Request, frozen=True):
    players: Annotated[list[ClassicPile], msgspec.Meta(min_length=1, max_length=8)]
    options: ClassicOptions = ClassicOptions()


class NumKingScoreRequest(Request, frozen=True):
    cards: Annotated[int, msgspec.Meta(ge=1, le=19, description="cards per player this round")]
    players: Annotated[list[NumKingBid], msgspec.Meta(min_length=1, max_length=8)]


class NumWinScoreRequest(Request, frozen=True):
    players: Annotated[list[NumWinHand], msgspec.Meta(min_length=1, max_length=8)]
    caller: Seat | None = None
    options: NumWinOptions = NumWinOptions()


# --- catalogue --------------------------------------------------------------------------------


class PlayerRange(msgspec.Struct, frozen=True):
    min: int
    max: int


class RulesetInfo(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    id: str
    name: str
    players: PlayerRange
    options: dict[str, object]
    rules_version: int  # engine.core.match "Rules versions": what a stored game is replayed by
    description: str | None = None
    summary: dict[str, str] | None = None
    language: str | None = None


class Catalogue(msgspec.Struct, frozen=True):
    rulesets: list[RulesetInfo]


class Health(msgspec.Struct, frozen=True):
    status: str
