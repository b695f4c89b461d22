"""numwin's request bodies: the stateless operations' and the score sheet's round body, as
strict bounded structs (engine/core/requests.py says how they are bounded)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from engine.core.requests import (
    DEALER_DOC,
    PAIR,
    PLAYERS,
    SHEET_OPTIONS_DOC,
    Dealer,
    Request,
    RoundBody,
    Seat,
    Seed,
    at_least,
    card,
    deck_players,
    pairs,
    players_range,
)
from engine.numwin.cards import MAX_COMBINATION, TARGET_SIZE
from engine.numwin.options import NumWinOptions
from engine.numwin.rules import MAX_TURNS, NumWin
from engine.numwin.scoring import NumWinHand

NumWinCard = Annotated[str, card(NumWin)]
NumWinPlayers = Annotated[int, players_range(NumWin)]


class NumWinDeckQuery(msgspec.Struct, frozen=True, kw_only=True):
    players: Annotated[int, deck_players(NumWin)]


class NumWinOptionsInput(NumWinOptions, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max_turns: Annotated[
        int, msgspec.Meta(ge=0, le=MAX_TURNS, description="end the round after this many turns")
    ] = 0


class NumWinHandInput(NumWinHand, frozen=True, kw_only=True, forbid_unknown_fields=True):
    combination: Annotated[
        list[NumWinCard],
        msgspec.Meta(
            max_length=MAX_COMBINATION, description="the final combination, locked pairs apart"
        ),
    ]
    locked: Annotated[list[Annotated[list[NumWinCard], PAIR]], pairs(NumWin, "locked pairs")] = (
        msgspec.field(default_factory=list)
    )


class NumWinDealRequest(Request, frozen=True):
    players: NumWinPlayers
    seed: Seed
    options: NumWinOptionsInput = NumWinOptionsInput()


class NumWinScoreRequest(Request, frozen=True):
    players: Annotated[list[Annotated[NumWinHandInput, at_least(TARGET_SIZE)]], PLAYERS]
    caller: Seat | None = None
    options: NumWinOptionsInput = NumWinOptionsInput()


class NumWinRoundIn(RoundBody, frozen=True, kw_only=True):
    players: Annotated[list[Annotated[NumWinHandInput, at_least(TARGET_SIZE)]], PLAYERS]
    caller: Seat | None = None
    options: Annotated[NumWinOptionsInput, msgspec.Meta(description=SHEET_OPTIONS_DOC)] | None = (
        None
    )
    dealer: Annotated[Dealer, msgspec.Meta(description=DEALER_DOC)] = None
