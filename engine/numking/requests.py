"""numking's request bodies: the stateless operations' and the score sheet's round body, as
strict bounded structs (engine/core/requests.py says how they are bounded)."""

from __future__ import annotations

from functools import cache
from typing import Annotated

import msgspec

from engine.core.base import TrickCard
from engine.core.requests import (
    DEALER_DOC,
    MAX_SEATS,
    PLAYERS,
    SHEET_OPTIONS_DOC,
    TRICK,
    Dealer,
    Request,
    RoundBody,
    Seat,
    Seed,
    card,
    cards,
    deck_players,
    players_range,
)
from engine.numking.cards import MAX_STREAK
from engine.numking.options import NumKingOptions
from engine.numking.rules import NumKing
from engine.numking.scoring import NumKingBid

#: numking: the most cards per player that score-round takes (k_max of the smallest table,
#: 36 // 2, as the engine scores it); `round` of a deal reaches 19 with `zeros` at 2 players.
NUMKING_MAX_CARDS = NumKing().k_max(NumKing.min_players)
NUMKING_MAX_ROUND = NumKing(NumKingOptions(zeros=True)).k_max(NumKing.min_players)

NumKingCard = Annotated[str, card(NumKing)]
NumKingPlayers = Annotated[int, players_range(NumKing)]

#: numking's `infinity` declaration: 17 or 0, required on `infinity` only.
Declared = (
    Annotated[
        int,
        msgspec.Meta(
            description="infinity only, and then required: 17 or 0",
            extra_json_schema={"enum": [17, 0]},
        ),
    ]
    | None
)


class NumKingDeckQuery(msgspec.Struct, frozen=True, kw_only=True):
    players: Annotated[int, deck_players(NumKing)]
    zeros: Annotated[bool, msgspec.Meta(description="the `zeros` option")] = False
    max_cards: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=NUMKING_MAX_ROUND,
                description="the `max_cards` option: the last round's hand size (default: the "
                "most the deck gives that table)",
            ),
        ]
        | None
    ) = None


class NumKingTrickCard(TrickCard, frozen=True, forbid_unknown_fields=True):
    seat: Seat
    card: NumKingCard
    declared: Declared = None


@cache
def _numking_deck_rules(zeros: bool) -> NumKing:
    """The two rules objects the trick and scoring endpoints need, built once."""
    return NumKing(NumKingOptions(zeros=zeros))


class NumKingDeckInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The one numking option that changes the deck, for the trick and scoring endpoints."""

    zeros: bool = msgspec.field(default=False)

    def rules(self) -> NumKing:
        return _numking_deck_rules(self.zeros)


class NumKingOptionsInput(NumKingOptions, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max_cards: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=NUMKING_MAX_ROUND,
                description="last round's hand size (default: the most the deck allows)",
            ),
        ]
        | None
    ) = None
    first_bidder: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEATS - 1)] = 0


class NumKingBidInput(NumKingBid, frozen=True, kw_only=True, forbid_unknown_fields=True):
    bid: Annotated[int, msgspec.Meta(ge=0, le=NUMKING_MAX_ROUND, description="at most `cards`")]
    tricks: Annotated[
        int, msgspec.Meta(ge=0, le=NUMKING_MAX_ROUND, description="tricks taken, at most `cards`")
    ]
    streak: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=MAX_STREAK,
            description=f"rounds in a row with the bid met before this one (a match has at "
            f"most {MAX_STREAK + 1} rounds)",
        ),
    ] = 0


class NumKingDealRequest(Request, frozen=True):
    players: NumKingPlayers
    seed: Seed
    options: NumKingOptionsInput = NumKingOptionsInput()
    round: Annotated[
        int, msgspec.Meta(ge=1, le=NUMKING_MAX_ROUND, description="cards per player (round k)")
    ] = 1
    first_bidder: Seat | None = None  # the leader; default options.first_bidder


class NumKingHandRequest(Request, frozen=True):
    players: NumKingPlayers
    hand: Annotated[list[NumKingCard], cards(NumKing, "the player's hand")]
    trick: Annotated[list[NumKingTrickCard], TRICK] = []  # noqa: RUF012 (a msgspec default: copied)
    options: NumKingDeckInput = NumKingDeckInput()


class NumKingMoveRequest(NumKingHandRequest, frozen=True, kw_only=True):
    card: NumKingCard
    declared: Declared = None


class NumKingTrickRequest(Request, frozen=True):
    players: NumKingPlayers
    trick: Annotated[list[NumKingTrickCard], TRICK]
    options: NumKingDeckInput = NumKingDeckInput()


class NumKingScoreRequest(Request, frozen=True):
    cards: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=NUMKING_MAX_ROUND,
            description="cards per player this round (19 at most: two players with `zeros`)",
        ),
    ]
    players: Annotated[list[NumKingBidInput], PLAYERS]
    options: NumKingDeckInput = NumKingDeckInput()


# --- the score sheet's round body: what the sheet derives is optional ----------------------


class NumKingRoundBid(RoundBody, frozen=True, kw_only=True):
    bid: Annotated[int, msgspec.Meta(ge=0, le=NUMKING_MAX_ROUND, description="at most `cards`")]
    tricks: Annotated[
        int, msgspec.Meta(ge=0, le=NUMKING_MAX_ROUND, description="tricks taken, at most `cards`")
    ]
    streak: (
        Annotated[
            int,
            msgspec.Meta(
                ge=0,
                le=MAX_STREAK,
                description="derived from the earlier rounds: may be left out; sent and "
                "different, refused",
            ),
        ]
        | None
    ) = None


class NumKingRoundIn(RoundBody, frozen=True, kw_only=True):
    cards: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=NUMKING_MAX_ROUND,
                description="the round number n: may be left out; sent and different, refused",
            ),
        ]
        | None
    ) = None
    players: Annotated[list[NumKingRoundBid], PLAYERS]
    options: Annotated[NumKingOptionsInput, msgspec.Meta(description=SHEET_OPTIONS_DOC)] | None = (
        None
    )
    dealer: Annotated[Dealer, msgspec.Meta(description=DEALER_DOC)] = None
