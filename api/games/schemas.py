"""Request and response bodies of the stored-games endpoints (api-contract.md, "Stored games").

`view` is the engine's typed match view (one `View` struct per ruleset) and an action is the
engine's `Action` union: their OpenAPI schemas are msgspec's own, put in by
:mod:`api.games.spec`, so the spec states exactly what the server sends and takes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from api.accounts.schemas import PseudoRef
from engine.registry import RULESETS

#: The largest table of any ruleset, and the seed range of the contract (63 random bits).
MAX_PLAYERS = max(cls.max_players for cls in RULESETS.values())
SEED_LIMIT = 1 << 63
NAME_LENGTH = 40

#: A ruleset id: checked against the registry by the service when a request comes
#: (`api.http.body.check_ruleset`), so a ruleset registered after this module was imported
#: is taken; the spec lists the registered ids as its enum (`ruleset_enum`, set when the spec
#: is built).
RulesetId = str
#: `waiting`: a game with open seats, not started (issue 26): no actions until it starts.
Status = Literal["waiting", "active", "over", "abandoned"]
#: The bot levels (engine.bots.LEVELS; `GET /v1/rulesets/{id}` lists them under `bots`).
BotLevel = Literal["random", "basic", "expert"]


class PlayerIn(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    #: Blank names and control or formatting characters (a NUL, RTL overrides, zero-width
    #: spaces) are refused by the service (`bad-name`): JSON Schema cannot say it. Required
    #: but for an open seat (its claimer's pseudo then names it).
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=NAME_LENGTH)] | None = None
    #: An account's pseudo: the seat is bound to it once that account joins
    #: (`POST /v1/games/{id}/seats/{seat}/join`); it may then act with its session too, and
    #: the finished game counts in its history and stats.
    account: PseudoRef | None = None
    #: A bot plays this seat (issue 25): the server plays its turns; it gets no token.
    bot: BotLevel | None = None
    #: An open seat (issue 26): no token now; an account claims it
    #: (`POST /v1/games/{id}/seats/{seat}/claim`). Needs the creator's session.
    open: bool = False


#: A turn clock's bounds (issue 26): 1 s (blitz and bot tables) … one day per turn.
TURN_SECONDS_MIN = 1
TURN_SECONDS_MAX = 86_400
OnTimeout = Literal["auto", "abandon"]


class Clock(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A stored game's turn clock (issue 26). Each seat that owes a move (the seat whose turn
    it is; in a simultaneous phase every seat still to act; never a bot's) has `turn_seconds`
    from the start of its turn, read from the database's clock. A turn starts when the seat
    comes to owe a move; its own further steps of that turn (numwin's draw then discard, an
    exchange passed card by card) and the other seats' moves of a simultaneous phase do not
    restart it; a new round, a new phase, a trick taken or a new numwin turn do. When the
    deadline passes, `on_timeout` "auto" completes the seat's whole turn with the `basic`
    bot's choice (logged as the seat's actions, marked `timeout` in the export), "abandon"
    ends the game as abandoned; either way a public `timeout` event is logged."""

    turn_seconds: Annotated[int, msgspec.Meta(ge=TURN_SECONDS_MIN, le=TURN_SECONDS_MAX)]
    on_timeout: OnTimeout = "auto"


class SeatDeadline(msgspec.Struct, frozen=True, kw_only=True):
    """When a clocked seat's turn times out (RFC 3339, UTC, from the database's clock)."""

    seat: int
    at: datetime


class CreateGame(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A new stored game: the ruleset, its players in seat order, options and (optionally) the
    seed; without one the server draws 63 random bits."""

    ruleset: RulesetId
    players: Annotated[list[PlayerIn], msgspec.Meta(min_length=1, max_length=MAX_PLAYERS)]
    options: dict[str, Any] = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=SEED_LIMIT - 1)] | None = None
    #: A turn clock (issue 26); none by default.
    clock: Clock | None = None


class SeatOut(msgspec.Struct, frozen=True, omit_defaults=True):
    seat: int
    #: Empty for an open seat opened without a name (its claimer's pseudo will name it).
    name: str
    #: The bot level playing this seat (absent for a person).
    bot: str | None = None
    #: Nobody holds this seat yet (a waiting game's open seat).
    open: bool = False


class SeatToken(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A seat and its secret token (returned once, at creation; stored only hashed); the
    account it is bound to, if any (pending until that account joins)."""

    seat: int
    name: str
    #: Absent for a bot's seat: the server plays it, nobody acts for it.
    token: str | None = None
    account: str | None = None
    bot: BotLevel | None = None
    #: An open seat: no token until an account claims it.
    open: bool = False


class SeatJoined(msgspec.Struct, frozen=True, kw_only=True):
    """A seat now bound to the account that joined it."""

    game_id: str
    seat: int
    name: str
    account: str
    joined: bool


class GameCreated(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    id: str
    ruleset: str
    options: dict[str, Any]
    rules_version: int
    version: int
    status: Status
    seed_commitment: str
    seats: list[SeatToken]
    view: Any
    #: The seats nobody holds yet (status `waiting`); absent when none.
    open_seats: list[int] = []
    #: The creator chose the seed (absent: the server drew it).
    seeded_by_creator: bool = False
    #: Clocked games only (absent without a clock): the clock and each clocked seat's deadline.
    clock: Clock | UnsetType = UNSET
    deadlines: list[SeatDeadline] | UnsetType = UNSET
    creator_token: (
        Annotated[
            str,
            msgspec.Meta(
                description="A game of bots only created without a session: its creator's "
                "secret token, returned only here (stored only hashed; an `Idempotency-Key` "
                "retry returns it again), which ends the game: `POST /v1/games/{id}/abandon` "
                "with `Authorization: Bearer <creator_token>`. Nothing else takes it (it is "
                "no seat's). Absent for any other game: a seat's token, or the creator's "
                "session, ends those"
            ),
        ]
        | None
    ) = None


class GameOut(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A game as one viewer sees it: `seat` None for a spectator; `result`, `seed` and `salt`
    once it is over (`seed`, `seed_decimal` and `salt` also once abandoned)."""

    id: str
    ruleset: str
    options: dict[str, Any]
    rules_version: int
    version: int
    status: Status
    seat: int | None
    players: list[SeatOut]
    seed_commitment: str
    view: Any
    result: dict[str, Any] | None = None
    seed: int | None = None
    salt: str | None = None
    #: The seats nobody holds yet (status `waiting`); absent when none.
    open_seats: list[int] = []
    #: The creator chose the seed (absent: the server drew it).
    seeded_by_creator: bool = False
    #: The id of this game's rematch, once asked for (`POST /v1/games/{id}/rematch`).
    rematch: str | None = None
    seed_decimal: (
        Annotated[
            str,
            msgspec.Meta(
                description="`seed` in decimal, as a string: the very text `seed_commitment` "
                'hashes (`"<seed_decimal>:<salt>"`). A JavaScript number is exact only up to '
                "2^53 and a seed goes up to 2^63 - 1: a browser checks the deal with this one"
            ),
        ]
        | None
    ) = None
    #: Clocked games only (all three absent without a clock): the clock, each clocked seat's
    #: deadline (one per seat that owes a move; [] once over) and the caller's (null when its
    #: seat owes no move, or for a spectator).
    clock: Clock | UnsetType = UNSET
    deadlines: list[SeatDeadline] | UnsetType = UNSET
    deadline: datetime | UnsetType | None = UNSET


class EventOut(msgspec.Struct, frozen=True, kw_only=True):
    """One event of the game's log: `seq` 1, 2, … over all its events; `to` the seats that may
    see it (null: everyone); `seat` who acted; `cards` shown; `data` the kind's details, typed
    per kind (:mod:`engine.core.events`; the spec states one schema per `kind`, with a
    discriminator: api.games.spec). A kind this code does not know (a newer replica's row)
    is passed on as stored."""

    seq: int
    kind: str
    seat: int | None = None
    cards: list[str] = []
    data: Any = {}
    to: list[int] | None = None


class ActionOut(msgspec.Struct, frozen=True, kw_only=True):
    """An applied action: the game's new `version`, the events it made that the seat may see,
    and the seat's view."""

    version: int
    events: list[EventOut]
    view: Any
    #: Clocked games only (absent without a clock), as `GameOut` has them.
    deadlines: list[SeatDeadline] | UnsetType = UNSET
    deadline: datetime | UnsetType | None = UNSET


class EventsOut(msgspec.Struct, frozen=True, kw_only=True):
    """Events after `after`, as this viewer may see them. `more`: the page was cut at `limit`
    events; ask again with `after=next_after`."""

    events: list[EventOut]
    version: int
    status: Status
    more: bool
    next_after: int


class AbandonOut(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    status: Status
    version: int
    seed: int
    salt: str


class TicketOut(msgspec.Struct, frozen=True, kw_only=True):
    """A single-use ticket for `GET /v1/games/{id}/stream?ticket=…` (browsers' EventSource
    sends no headers), valid `expires_in` seconds."""

    ticket: str
    expires_in: int


class ExportAction(msgspec.Struct, frozen=True, omit_defaults=True):
    seq: int
    seat: int
    action: dict[str, Any]
    #: The server played it for a bot's seat.
    bot: bool = False
    #: The seat had asked for a hint at the version this action was played from.
    hint_used: bool = False
    #: The server played it for the seat when its turn clock ran out (issue 26).
    timeout: bool = False


class ExportOut(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Everything to replay the game offline (`engine.core.match.MatchRecord.from_export`);
    `v`: the export's format (more fields may come, with defaults: readers ignore the fields
    they do not know)."""

    id: str
    ruleset: str
    options: dict[str, Any]
    rules_version: int
    status: Status
    players: list[SeatOut]
    seed_commitment: str
    seed: int
    salt: str
    actions: list[ExportAction]
    result: dict[str, Any] | None = None
    v: Annotated[
        int,
        msgspec.Meta(
            description="the export's format version (1): later versions only add fields, "
            "which readers ignore when they do not know them"
        ),
    ]


class HintValue(msgspec.Struct, frozen=True, kw_only=True):
    """A legal action and its estimated value: the seat's mean round score over the worlds
    searched (its team's under teams; in numwin that score less the mean of the others' three
    turns a seat ahead, short combinations charged their fill-up: the lowest best)."""

    action: Any
    value: float


class HintOut(msgspec.Struct, frozen=True, kw_only=True):
    """The expert's suggestion for the seat (issue 25) and every legal action's value, best
    first; `samples`: the worlds searched."""

    action: Any
    values: list[HintValue]
    level: str
    samples: int


class ClaimedSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A claimed open seat and its token (secret, stored only hashed; the same session
    claiming again gets the same token back)."""

    seat: int
    token: str
    #: The game started with this claim (its last open seat) or earlier.
    status: Status


class LeftSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat left before the start: open again, its token revoked."""

    seat: int
    open: bool
    open_seats: list[int]


class StartGame(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Start a waiting game now; its open seats, if any, are played by bots of this level."""

    fill_with_bots: BotLevel | None = None


class OpenTable(msgspec.Struct, frozen=True, kw_only=True):
    """A waiting game as the open tables' list shows it: nothing hidden (no token, hand,
    seed or account)."""

    id: str
    ruleset: str
    options: dict[str, Any]
    players: list[SeatOut]
    open_seats: list[int]
    created_at: str


class OpenTables(msgspec.Struct, frozen=True, kw_only=True):
    """A page of open tables, newest first; `next_cursor` the next page's (null on the
    last)."""

    items: list[OpenTable]
    next_cursor: str | None
