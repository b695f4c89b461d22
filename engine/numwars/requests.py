"""numwars' request bodies: the stateless operations' (api-contract.md, "Stateless rules
endpoints") and the score sheet's round body, as strict bounded structs (engine/core/requests.py
says how they are bounded)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from engine.core.base import BombOutcome, Role, TrickCard
from engine.core.requests import (
    DEALER_DOC,
    MAX_SEATS,
    PAIR,
    TRICK,
    Dealer,
    NotDeclared,
    Request,
    RoundBody,
    Seat,
    Seed,
    card,
    cards,
    deck_players,
    pairs,
    players_range,
)
from engine.numwars.options import NumWarsOptions
from engine.numwars.rules import NumWars
from engine.numwars.scoring import NumWarsPile

NumWarsCard = Annotated[str, card(NumWars)]
NumWarsPlayers = Annotated[int, players_range(NumWars)]


class NumWarsDeckQuery(msgspec.Struct, frozen=True, kw_only=True):
    players: Annotated[int, deck_players(NumWars)]


class NumWarsTrickCard(TrickCard, frozen=True, forbid_unknown_fields=True):
    seat: Seat
    card: NumWarsCard
    declared: NotDeclared = None


class NumWarsOptionsInput(NumWarsOptions, frozen=True, kw_only=True, forbid_unknown_fields=True):
    exchange: Annotated[
        int, msgspec.Meta(ge=0, le=5, description="cards each player passes right (0-5)")
    ] = 0


class NumWarsPileInput(NumWarsPile, frozen=True, kw_only=True, forbid_unknown_fields=True):
    captured: Annotated[
        list[NumWarsCard], cards(NumWars, "every card won, except pairs captured as pairs")
    ]
    pairs: Annotated[
        list[Annotated[list[NumWarsCard], PAIR]],
        pairs(NumWars, "trump pairs captured as pairs: rainbow-X with shadow-X"),
    ] = msgspec.field(default_factory=list)
    role: Role


class NumWarsDealRequest(Request, frozen=True):
    players: NumWarsPlayers
    seed: Seed
    options: NumWarsOptionsInput = NumWarsOptionsInput()


class NumWarsHandRequest(Request, frozen=True):
    players: NumWarsPlayers
    hand: Annotated[list[NumWarsCard], cards(NumWars, "the player's hand")]
    trick: Annotated[list[NumWarsTrickCard], TRICK] = []  # noqa: RUF012 (a msgspec default: copied)


class NumWarsMoveRequest(NumWarsHandRequest, frozen=True, kw_only=True):
    card: NumWarsCard


class NumWarsTrickRequest(Request, frozen=True):
    players: NumWarsPlayers
    trick: Annotated[list[NumWarsTrickCard], TRICK]
    roles: (
        Annotated[
            list[Role],
            msgspec.Meta(
                max_length=MAX_SEATS, description="role by seat; required when the Bomb is played"
            ),
        ]
        | None
    ) = None
    joker_neutralizes: bool = True  # the complice's choice when Bomb + Joker + a threat


class NumWarsScoreRequest(Request, frozen=True):
    players: Annotated[
        list[NumWarsPileInput],
        msgspec.Meta(min_length=3, max_length=MAX_SEATS, description="the whole table, 3-8"),
    ]
    bomb_outcome: BombOutcome


class NumWarsRoundIn(RoundBody, frozen=True, kw_only=True):
    players: Annotated[
        list[NumWarsPileInput],
        msgspec.Meta(min_length=3, max_length=MAX_SEATS, description="the whole table, 3-8"),
    ]
    bomb_outcome: BombOutcome
    dealer: Annotated[Dealer, msgspec.Meta(description=DEALER_DOC)] = None
