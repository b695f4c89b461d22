"""Request and response bodies of the score-sheet, history and stats endpoints
(api-contract.md, "Accounts, score sheets, history").

A round's body is the ruleset's `score-round` request (the same bounded input structs) plus an
optional `dealer`, declared by the game's spec (`SheetRounds.body`, engine/core/spec.py); what
the sheet already knows is optional there and checked against it by the game (numking's
`cards` and `streak`) and here (every ruleset's `options`: the sheet's own; a round that sends
other options is refused).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec

from api.accounts.schemas import PseudoRef
from api.games.schemas import MAX_PLAYERS, NAME_LENGTH
from api.http.structs import Strict
from engine.core.base import RoundScore, TeamScore
from engine.registry import SPECS

#: A ruleset id: checked against the registry by the service when a request comes
#: (`api.http.body.check_ruleset`), so a ruleset registered after this module was imported
#: is taken; the spec lists the registered ids as its enum (`ruleset_enum`, set when the spec
#: is built).
RulesetId = str
#: The most rounds a sheet plans (a numking sheet: at most its ruleset's match length).
MAX_PLANNED = 100


Name = Annotated[str, msgspec.Meta(min_length=1, max_length=NAME_LENGTH)]
Planned = Annotated[
    int,
    msgspec.Meta(
        ge=1,
        le=MAX_PLANNED,
        description="regular rounds of the match (default: the ruleset's match length)",
    ),
]


class SheetPlayerIn(Strict, frozen=True, kw_only=True):
    #: Blank names and control or formatting characters are refused (`bad-name`).
    name: Name
    #: An account's pseudo (case-insensitive): that account may read the sheet, and it
    #: counts in its stats once it confirms it.
    account: PseudoRef | None = None


class CreateSheet(Strict, frozen=True, kw_only=True):
    """A new score sheet: the ruleset, the players in seat order, and its options."""

    ruleset: RulesetId
    players: Annotated[list[SheetPlayerIn], msgspec.Meta(min_length=1, max_length=MAX_PLAYERS)]
    planned_rounds: Planned | None = None
    options: dict[str, Any] = {}  # noqa: RUF012 (a msgspec Struct copies its default)


class SheetPlayerName(Strict, frozen=True, kw_only=True):
    name: Name


class PatchSheet(Strict, frozen=True, kw_only=True):
    """What may change on a sheet: the players' names (all of them, in order) and the number
    of planned rounds. Accounts named on a sheet stay as they are."""

    players: (
        Annotated[list[SheetPlayerName], msgspec.Meta(min_length=1, max_length=MAX_PLAYERS)] | None
    ) = None
    planned_rounds: Planned | None = None


class ClaimSheet(Strict, frozen=True, kw_only=True):
    token: Annotated[str, msgspec.Meta(min_length=1, max_length=200, description="the sheet token")]
    #: The claimer's own player, bound to its account: the sheet then counts in its history
    #: and stats.
    player: (
        Annotated[
            int,
            msgspec.Meta(
                ge=0,
                le=MAX_PLAYERS - 1,
                description="the index in `players` of the claimer's own player, bound to its "
                "account (a player of the sheet, held by no other account)",
            ),
        ]
        | None
    ) = None


class ShareSheet(Strict, frozen=True, kw_only=True):
    """A player of the sheet named as an account after the sheet was made: that account then
    reads the sheet (and finds it in its history), and confirms it to count it in its stats."""

    player: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=MAX_PLAYERS - 1,
            description="the index in `players` of the player the account plays (a player held "
            "by no other account)",
        ),
    ]
    #: The account's pseudo (case-insensitive).
    account: PseudoRef


# --- rounds: the ruleset's score-round body plus `dealer` --------------------------------------


def round_bodies() -> dict[str, type[msgspec.Struct]]:
    """Each registered ruleset's round body, as its spec declares it."""
    return {ruleset_id: spec.sheet.body for ruleset_id, spec in SPECS.items()}


# --- answers ------------------------------------------------------------------------------------


class SheetPlayerOut(msgspec.Struct, frozen=True, kw_only=True):
    """A player: `account` the pseudo of the account named for it (null: a name only),
    `confirmed` once that account confirmed the sheet."""

    name: str
    account: str | None
    confirmed: bool


class RoundOut(msgspec.Struct, frozen=True, kw_only=True):
    """A round: `input` is the complete `score-round` request it was scored from (derived
    fields and the sheet's options filled in), `scores` the engine's answer to it."""

    n: int
    dealer: int
    input: dict[str, Any]
    scores: RoundScore


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """Totals by player over the regular rounds; `leader` an index into `players` (null
    before the first round); `winners` empty until `finished`; `teams` in team variants."""

    totals: list[int]
    leader: int | None
    finished: bool
    winners: list[int]
    teams: list[TeamScore] | None


class SheetOut(msgspec.Struct, frozen=True, kw_only=True):
    """A sheet; `version` counts its changes (its `ETag` is `"<version>"`, the value a write's
    `If-Match` names)."""

    id: str
    ruleset: str
    options: dict[str, Any]
    owner: str | None  # the owner's pseudo; null for an anonymous sheet
    players: list[SheetPlayerOut]
    planned_rounds: int
    rounds: list[RoundOut]
    totals: list[int]
    leader: int | None
    finished: bool
    winners: list[int]
    teams: list[TeamScore] | None
    version: int
    created_at: datetime
    updated_at: datetime


class SheetCreated(SheetOut, frozen=True, kw_only=True, omit_defaults=True):
    """The new sheet; `token` (an anonymous Num Wars sheet only) is shown here once."""

    token: str | None = None


class RoundAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The round scored, and the sheet's standing and new `version` (its `ETag`) after it."""

    n: int
    dealer: int
    input: dict[str, Any]
    scores: RoundScore
    totals: list[int]
    leader: int | None
    finished: bool
    winners: list[int]
    teams: list[TeamScore] | None
    version: int
