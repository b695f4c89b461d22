"""numwars-classic's request bodies: the stateless operations' and the score sheet's round
body, as strict bounded structs (engine/core/requests.py says how they are bounded)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from engine.core.base import TrickCard
from engine.core.requests import (
    DEALER_DOC,
    PLAYERS,
    SHEET_OPTIONS_DOC,
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
    players_range,
)
from engine.numwars_classic.options import ClassicOptions
from engine.numwars_classic.rules import NumWarsClassic
from engine.numwars_classic.scoring import ClassicPile

ClassicCard = Annotated[str, card(NumWarsClassic)]
ClassicPlayers = Annotated[int, players_range(NumWarsClassic)]


class ClassicDeckQuery(msgspec.Struct, frozen=True, kw_only=True):
    players: Annotated[int, deck_players(NumWarsClassic)]
    speed: Annotated[bool, msgspec.Meta(description="the `speed` option (Speed Wars)")] = False


class ClassicTrickCard(TrickCard, frozen=True, forbid_unknown_fields=True):
    seat: Seat
    card: ClassicCard
    declared: NotDeclared = None


class ClassicPileInput(ClassicPile, frozen=True, kw_only=True, forbid_unknown_fields=True):
    captured: Annotated[list[ClassicCard], cards(NumWarsClassic, "every card won")]


class ClassicDealRequest(Request, frozen=True):
    players: ClassicPlayers
    seed: Seed
    options: ClassicOptions = ClassicOptions()


class ClassicHandRequest(Request, frozen=True):
    players: ClassicPlayers
    hand: Annotated[list[ClassicCard], cards(NumWarsClassic, "the player's hand")]
    trick: Annotated[list[ClassicTrickCard], TRICK] = []  # noqa: RUF012 (a msgspec default: copied)


class ClassicMoveRequest(ClassicHandRequest, frozen=True, kw_only=True):
    card: ClassicCard


class ClassicTrickRequest(Request, frozen=True):
    players: ClassicPlayers
    trick: Annotated[list[ClassicTrickCard], TRICK]


class ClassicScoreRequest(Request, frozen=True):
    players: Annotated[list[ClassicPileInput], PLAYERS]
    options: ClassicOptions = ClassicOptions()


class ClassicRoundIn(RoundBody, frozen=True, kw_only=True):
    players: Annotated[list[ClassicPileInput], PLAYERS]
    options: Annotated[ClassicOptions, msgspec.Meta(description=SHEET_OPTIONS_DOC)] | None = None
    dealer: Annotated[Dealer, msgspec.Meta(description=DEALER_DOC)] = None
