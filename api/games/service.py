"""Stored games' flow (api-contract.md, "Stored games"; STYLE 14, boardgame.io's `master.ts`):
create, read, act, events, abandon, export, joins and stream tickets, refusing with domain
errors (:mod:`api.http.domain`) and never naming an HTTP status or header; the storage is
:class:`api.games.repository.GameRepository` (chosen by the database's dialect:
`repository_for`), the HTTP :mod:`api.games.routes`.

The current match is rebuilt from the log and kept in a per-process cache keyed by game **and
version**: whatever another replica did, a cached match is used only if its version is the
row's, so it always equals the replay of the log. A rebuild starts from the checkpoint the
action that began the current round saved (:class:`MatchCheckpoint`) with the round's
actions so far that every `PROGRESS_EVERY`-th action of the round stores (`progress`), and
applies the log's actions since; without a usable checkpoint, the whole log is replayed
(:func:`engine.core.match.replay`). Reads take no transaction on PostgreSQL (see `reader`).

One transaction per action (the repository's `transact`; with shared commits, one a batch
of actions on other games shares, answered after its COMMIT): lock the game row (`SELECT … FOR
UPDATE`; on SQLite every transaction is `BEGIN IMMEDIATE`), authenticate the seat, check
`Idempotency-Key` and the expected version, apply the action to the match, append the action,
its events and the kept answer and move the game's row to the next version (on PostgreSQL in
one statement), commit. The cached match is taken out of the cache before it is changed and put back
only after the commit, so an error at any point leaves neither a partial game in the database
nor a changed match in the cache.

The hot action (issue 27, PostgreSQL): when this process holds a game's match at its last
version (it wrote the game's last action, or read the game since), the game is active and
without bots, and the caller's seat token is one this process has seen, an action (without
`If-Match` or `Idempotency-Key`) is applied to the cached match and written by one statement
in autocommit, which writes only if the game is still active at that version and the token
is the seat's (`APPEND_HOT_PG`): one round trip where the locked path makes four. A clocked game's new turns start at the database's clock as the
last game row read gave it, plus the time since (read again when that is over
`DB_CLOCK_FRESH` old); the statement checks on the database's own clock that no deadline has
passed. When it does not write (another replica moved the game, it was abandoned, a deadline
passed), or the engine refuses the action, the locked path runs as above.

Turn clocks (issue 26; who is clocked and when a turn starts: :mod:`api.games.clock`): each
write moves the game's deadlines on in the statement that moves its row, by the database's
clock read with the locked row. A passed deadline is applied once, by whoever locks the row
first and finds it still passed: a read or an action of the game (first, in a transaction of
its own: :meth:`GameService.expire`) or any replica's sweep (:meth:`GameService.sweep_clocks`,
`FOR UPDATE SKIP LOCKED`).

The caller comes resolved (:class:`Credential`, by the routes' resolver): the hash of its
bearer token and, for an account's live session, the account; the service finds the seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import hmac
import logging
import math
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, NamedTuple, Protocol, TypeVar

import msgspec
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts.sessions import (
    Caller,
    accounts_by_pseudo,
    community_locked,
    is_community,
    lock_account,
)
from api.db.engine import aware, unavailable
from api.db.sole import SoleLease
from api.games.bots import Limits, OwnerLocks, Thinker, move_seed, owner_of
from api.games.clock import (
    clock_document,
    clock_of,
    deadlines_moved,
    due,
    earliest,
    entry_of,
    epoch_of,
    from_epoch,
    is_due,
    own_deadline,
    parsed,
    start_deadlines,
)
from api.games.creation import CreationAnswers, creation_hash, purge as purge_creations
from api.games.fanout import Fanout
from api.games.formats import (
    EXPORT_FORMAT,
    decode_event,
    encode_checkpoint,
    event_document,
    event_out,
    stored_event_out,
)
from api.games.repository import (
    EventRow,
    GameRow,
    Kept,
    Move,
    SharedReads,
    StoredEvent,
    deadline_values,
    repository_for,
)
from api.games.schemas import (
    MAX_PLAYERS,
    AbandonOut,
    ActionOut,
    Clock,
    CreateGame,
    EventOut,
    EventsOut,
    ExportOut,
    GameCreated,
    GameOut,
    HintOut,
    HintValue,
    SeatDeadline,
    SeatJoined,
    SeatOut,
    SeatToken,
    Status,
    TicketOut,
)
from api.games.seating import (
    GAME_WAITING,
    NOT_THE_CREATOR,
    WAITING_HOURS,
    NewSeat,
    check_players,
    creation_record,
)
from api.http.body import check_ruleset
from api.http.conditions import IfMatch
from api.http.domain import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    TooManyAttempts,
    Unauthenticated,
    VersionMismatch,
    field_error,
    refuse_body,
)
from api.http.fields import made_rules
from api.http.problems import cut_quotes, shorten
from api.http.tokens import (
    CREATOR_PREFIX,
    SEAT_PREFIX,
    check_names,
    new_id,
    new_token,
    token_hash,
)
from engine import registry
from engine.bots import choose
from engine.core.actions import Action
from engine.core.errors import TURN_REASONS, EngineError, IllegalMove
from engine.core.events import EventBase, TimeoutData, TimeoutEvent
from engine.core.match import Match, MatchCheckpoint, MatchRecord, replay
from engine.core.texts import ACTION_WORDS, BY_RULESET, DEFAULT_LANGUAGE, Message, Text, say, text
from engine.core.view import BaseView

#: Who may act and when is a conflict with the game's state, not an illegal move (the contract).
STATUS_REASONS = frozenset(TURN_REASONS)
TICKET_SECONDS = 60
EVENTS_PAGE = 1000
#: The most actions a timeout plays for one seat's turn (a bound, never reached: a turn has a
#: few steps).
TIMEOUT_STEPS = 64
#: Every this many actions into a round, the action's write also stores the round's actions so
#: far (`Match.progress`) in the game's `progress` column, so a cold load reads at most this
#: many rows of the log less one; the round's actions are still applied, read from that one
#: column (issue 27's growth: a row of the log cost a cold load about 1.4 µs, an action of
#: the column 0.3 µs before it is applied). It costs a column of up to a few KB rewritten
#: every this many actions (the checkpoint, with the finished rounds' scores, is not).
PROGRESS_EVERY = 16
log = logging.getLogger("numrules.games")


def _distrusted(game: GameRow, exc: Exception) -> None:
    """Log that `game`'s checkpoint does not fit its log (the error's type only: its message
    could name the cards of the round's start)."""
    log.warning(
        "game %s: its checkpoint does not fit its log (%s), replaying the whole log",
        game.id,
        type(exc).__name__,
    )


_T = TypeVar("_T")


class Connects(Protocol):
    """What reads connect with: the engine, or the connections kept between uses
    (:class:`api.db.engine.HeldConnections`)."""

    def connect(self) -> AbstractAsyncContextManager[AsyncConnection]: ...


class Credential(NamedTuple):
    """A resolved caller: the hash of its bearer token (a seat token's, or a session's) and,
    when the token is an account's live session, that account (it acts for the seat it
    joined)."""

    digest: str
    account_id: str | None = None


def seat_credential(token: str) -> Credential:
    """The credential of a seat token (tests and benchmarks call the service with one)."""
    return Credential(token_hash(token))


class Expected(NamedTuple):
    """The version a write expects (`If-Match`), and how the caller said it (quoted back)."""

    condition: IfMatch
    said: str


class GameMoved(VersionMismatch):
    """The game left the expected version; `version` is where it is now."""

    def __init__(self, detail: Message, version: int) -> None:
        super().__init__(detail)
        self.version = version


class GameStateConflict(Conflict):
    """Who may act and when (`not-your-turn`, `wrong-phase`, `game-over`): the code is the
    reason, also given as the problem's `reason`."""

    def __init__(self, reason: str, detail: Message) -> None:
        super().__init__(detail, code=reason, extra={"reason": reason})

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return cut_quotes(super().render(language))  # as every problem's detail


class TurnTimedOut(Conflict):
    """A move of a seat whose turn ended by timeout after what it last saw (issue 26)."""

    default_code = "turn-timed-out"

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return cut_quotes(super().render(language))  # as every problem's detail


class KeyReused(Invalid):
    default_code = "idempotency-key-reused"


class IllegalAction(Invalid):
    """An action the rules forbid now: `reason` and the seat's `legal_actions`."""

    default_code = "illegal-move"

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return cut_quotes(super().render(language))  # as every problem's detail


def commitment(seed: int, salt: str) -> str:
    """The contract's `seed_commitment`: lowercase hex sha256 of ``"<seed>:<salt>"``."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def _not_found(game_id: str) -> NotFound:
    return NotFound(say(NO_GAME, game=shorten(game_id)))


def _visible(visibility: Sequence[int] | None, seat: int | None) -> bool:
    return visibility is None or (seat is not None and seat in visibility)


def _page(
    game: GameRow,
    rows: list[Any],
    seat: int | None,
    after: int,
    decoded: Sequence[EventOut] | None = None,
) -> EventsOut:
    """The page `seat` may see of the event rows after `after` (`decoded`: the rows' events,
    decoded once for every stream that shares the read)."""
    if decoded is None:
        events = [stored_event_out(r.seq, r.payload) for r in rows if _visible(r.visibility, seat)]
    else:
        events = [e for r, e in zip(rows, decoded, strict=True) if _visible(r.visibility, seat)]
    last = rows[-1].seq if rows else after
    return EventsOut(
        events=events,
        version=game.version,
        status=game.status,
        more=last < game.event_seq,
        next_after=last,
    )


def ruleset_actions(ruleset_id: str) -> tuple[str, ...]:
    """The action types a ruleset has, as its spec declares them (engine/core/actions.py):
    another type can never be legal in that game, so it is invalid on the body's `type`, not
    a `wrong-phase` conflict."""
    return registry.spec(ruleset_id).actions


class _WrittenRow(SimpleNamespace):
    """A game's row as this process wrote it (:meth:`GameService._announce`), read as a
    read's row (`GameRecord`) is: its columns by attribute, `_asdict()`."""

    def _asdict(self) -> dict[str, Any]:
        return dict(vars(self))


def _row_after(base: Any, row: _HotRow, move: Move) -> _WrittenRow:
    """The game's row after the hot action `move` written on `row` (its version, events'
    count), from `base`, the row as read at that version (:meth:`GameService._announce`
    says why it is right)."""
    columns = base._asdict()
    columns.update(
        version=row.version + 1,
        event_seq=row.event_seq + len(move.events),
        status=move.status,
        result=_as_read(move.result),
        bot_pending=move.bot_pending,
        # the stored deadlines are read back as they are written (objects of an integer seat,
        # a string and an integer): the same list, never changed in place
        deadlines=move.deadlines,
        deadline=move.deadline,
        db_now=None,  # not read: never taken for the database's clock
    )
    return _WrittenRow(**columns)


def _alone(body: CreateGame) -> bool:
    """Whether a new game of `body` needs nothing read or locked before its rows are written
    (by a creation without a caller's session): no seat names an account, none is open (a
    table's seats are claimed by sessions) and no `expert` bot spends a quota."""
    return not any(p.account is not None or p.open or p.bot == "expert" for p in body.players)


def _soleable(game: Any) -> bool:
    """Whether :meth:`GameService.get` may answer from `game`'s row while the lease holds:
    an active game, no bot's move owed (a deadline is checked when the read comes)."""
    return game.status == "active" and not game.bot_pending


def _as_read(value: Any) -> Any:
    """A JSON column's value as a read gives it back (its JSON text decoded)."""
    if value is None:  # JSON null (most of them: an active game's result)
        return None
    return msgspec.json.decode(msgspec.json.encode(value))


@dataclass
class _Flight:
    """A read of a game's log that streams share (GameService.events_for)."""

    started: float
    task: asyncio.Future[tuple[GameRow, list[Any], list[EventOut]]]


class StreamPage(NamedTuple):
    """An event stream's page of events, and the game's row it was read with."""

    page: EventsOut
    game: GameRow


class _Hot(NamedTuple):
    """What an action on a hot game needs of its row besides the match (:meth:`_act_hot`):
    known once this process wrote the game's last action or read its row at the cached
    version, if the game is active and without bots: its events' count, ruleset, turn clock
    (None: none; converted once, :func:`api.games.clock.clock_of`) and deadlines."""

    event_seq: int
    ruleset: str
    clock: Clock | None = None
    deadlines: list[Any] | None = None
    deadline: datetime | None = None
    #: `deadlines` as answers show them, when made by the action that wrote them (a read's
    #: row parses them where it shows them).
    shown: list[SeatDeadline] | None = None
    #: `deadline` in seconds since the epoch, None for none
    due_at: float | None = None


#: The execution option (and connection info key) of a new game's transaction.
_NEW_GAME = "numrules_new_game"


class _Sole(NamedTuple):
    """A game's row as a read found it or this process's hot action wrote it, while it held
    the lease's `epoch` (:mod:`api.db.sole`), with the seats' tokens (hash → seat) a read
    then found: what :meth:`GameService.get` answers from without a statement."""

    epoch: int
    row: Any
    seats: dict[str, int]
    #: the row's next deadline in seconds since the epoch (`deadline`'s), None for none
    due_at: float | None


class _HotRow(NamedTuple):
    """A hot game's row as the write of an action reads it (`_move`, `is_due`, the
    repository's `append_hot`), with the database's clock when the game has a turn clock."""

    id: str
    version: int
    event_seq: int
    ruleset: str
    clock: Any
    deadlines: list[Any] | None
    deadline: datetime | None
    db_now: float = 0.0  # read only for a clocked game
    status: str = "active"
    #: `deadlines` as the action that wrote them showed them (`_Hot.shown`), if known
    shown: list[SeatDeadline] | None = None


@dataclass
class _Cached:
    version: int
    match: Match
    #: Set when the next action may be written without a lock read (:meth:`GameService._act_hot`).
    hot: _Hot | None = None


class _Due(NamedTuple):
    """An action's first try found a passed deadline: whether it was the acting seat's."""

    late: bool


class _Applied(NamedTuple):
    """An action applied and written, to be answered once its transaction committed: the
    answer, the match at the answer's version (back to the cache then), a bot's move owed."""

    answer: ActionOut
    match: Match
    bot_pending: bool
    hot: _Hot | None = None


class _Expired(NamedTuple):
    """What applying a game's timeouts did: the seats timed out, each one's `on_timeout`, the
    match (None: unchanged) at `version`, a bot's move owed."""

    seats: tuple[int, ...] = ()
    kinds: tuple[str, ...] = ()
    match: Match | None = None
    version: int = 0
    owed: bool = False


#: A clocked hot action estimates the database's clock from a read at most this old (s).
DB_CLOCK_FRESH = 10.0
#: A read answered without a statement (:meth:`GameService._sole_read`) is one of a game
#: whose next deadline is at least this far (s) ahead of the database's estimated clock:
#: far more than the estimate's error (how late the read it comes from was handled: its
#: way back, a pause of the event loop or the collector), so a timeout the database would
#: apply is never shown pending, and the clock sweep (whose writes are not watched) never
#: writes a row so answered.
SOLE_CLOCK_MARGIN = 1.0
#: The sweep bounds a clock sweep moves on at most (`GameRepository.catch_up_sweep`).
CATCH_UP_BATCH = 500


def _hot_after(move: Move, events: int, game: Any) -> _Hot | None:
    """What the next action on a game needs to be hot after `move` (written on `game`'s row,
    making `events` events), None if it may not be (the game over, a bot's move owed)."""
    if move.status != "active" or move.bot_pending:
        return None
    return _Hot(
        game.event_seq + events,
        game.ruleset,
        clock_of(game),
        move.deadlines,
        move.deadline,
        move.shown,
        move.due_at,
    )


def _answer(
    version: int,
    events: list[EventOut],
    view: BaseView,
    clocked: bool,
    shown: list[SeatDeadline],
    seat: int,
) -> ActionOut:
    """An action's answer; a clocked game's with its `deadlines` and the seat's own."""
    if not clocked:
        return ActionOut(version=version, events=events, view=view)
    return ActionOut(
        version=version,
        events=events,
        view=view,
        deadlines=shown,
        deadline=own_deadline(shown, seat),
    )


def _hot_of(game: Any, names: Sequence[tuple[str, str | None]]) -> _Hot | None:
    """A game row's :class:`_Hot`, for its match cached at the row's version; None if its next
    action may not be hot (not active, a bot's move owed, a bot seated)."""
    if game.status != "active" or game.bot_pending or any(bot is not None for _, bot in names):
        return None
    deadline = game.deadline
    return _Hot(
        game.event_seq,
        game.ruleset,
        clock_of(game),
        game.deadlines,
        deadline,
        due_at=None if deadline is None else epoch_of(deadline),
    )


NO_GAME = text("no-game", "no game {game!r}", "aucune partie {game!r}")
NOT_A_SEAT = text(
    "game-not-a-seat",
    "the token is not a seat token of this game, nor the session of an account that joined "
    "one of its seats",
    "le jeton n’est pas un jeton de place de cette partie, ni la session d’un compte qui a "
    "rejoint l’une de ses places",
)
GAME_ACTIVE = text(
    "game-active",
    "the game is still being played: its actions hold hidden cards; the export is available "
    "once it is over or abandoned",
    "la partie est en cours\u00a0: ses actions contiennent des cartes cachées\u202f; l’export est "
    "disponible une fois la partie terminée ou abandonnée",
)
ACTING_NEEDS_TOKEN = text(
    "acting-needs-token",
    "acting needs the seat's token: Authorization: Bearer <token>",
    "agir demande le jeton de la place\u00a0: Authorization: Bearer <jeton>",
)
CREATION_KEY_REUSED = text(
    "idempotency-key-reused-creation",
    "this Idempotency-Key was used for another game: use a new key for a new game",
    "cette Idempotency-Key a servi à une autre partie\u00a0: utilisez une nouvelle clé pour une "
    "nouvelle partie",
)
KEY_REUSED = text(
    "idempotency-key-reused-action",
    "this Idempotency-Key was used by this seat for another action: use a new key for a new action",
    "cette Idempotency-Key a servi à cette place pour une autre action\u00a0: utilisez une "
    "nouvelle clé pour une nouvelle action",
)
GAME_MOVED = text(
    "game-moved",
    "the game is at version {version}, not the one in If-Match ({said}): read it again",
    "la partie est à la version {version}, pas celle de If-Match ({said})\u00a0: relisez-la",
)
#: A game's status as a sentence says it (`over`, `abandoned`).
STATUS_WORDS = {
    "over": text("game-status-over", "over", "terminée"),
    "abandoned": text("game-status-abandoned", "abandoned", "abandonnée"),
}
NO_MORE_ACTIONS = text(
    "game-over-actions",
    "the game is {status}: no more actions",
    "la partie est {status}\u00a0: plus aucune action",
)
ALREADY = text("game-over-already", "the game is already {status}", "la partie est déjà {status}")
NO_SUCH_ACTION = text(
    "no-such-action",
    "{ruleset} has no {kind!r} action: its actions are {kinds}",
    "{ruleset} n’a pas d’action «\u00a0{kind}\u00a0» (ses actions\u00a0: {kinds})",
    {**BY_RULESET, "kind": ACTION_WORDS, "kinds": ACTION_WORDS},
)
ABANDONING_NEEDS_TOKEN = text(
    "abandoning-needs-token",
    "abandoning needs a seat's token: Authorization: Bearer <token>",
    "abandonner demande le jeton d’une place\u00a0: Authorization: Bearer <jeton>",
)
TICKET_NEEDS_TOKEN = text(
    "ticket-needs-token",
    "a stream ticket needs a seat's token: Authorization: Bearer",
    "un ticket de flux demande le jeton d’une place\u00a0: Authorization: Bearer",
)
TICKET_UNKNOWN = text(
    "ticket-unknown",
    "the stream ticket is unknown, used or expired, or its token no longer holds the seat: "
    "ask for a new one",
    "le ticket de flux est inconnu, utilisé ou expiré, ou son jeton ne tient plus la place\u00a0: "
    "demandez-en un nouveau",
)
NO_SEAT = text(
    "no-seat", "game {game} has no seat {seat}", "la partie {game} n’a pas de place {seat}"
)
NOT_YOUR_SEAT = text(
    "not-your-seat",
    "seat {seat} is not bound to {pseudo!r}: only the account named for a seat at creation may "
    "join it",
    "la place {seat} n’est pas liée à {pseudo!r}\u00a0: seul le compte nommé pour une place à la "
    "création peut la rejoindre",
)

TURN_TIMED_OUT = text(
    "turn-timed-out",
    "seat {seat}'s clock ran out: its turn ended by timeout at version {version} ({how}); "
    "read the game again",
    "le temps de la place {seat} est écoulé\u00a0: son tour a pris fin à la version {version} "
    "({how})\u202f; relisez la partie",
)
TIMEOUT_HOW = {
    "auto": text(
        "timeout-auto",
        "the server played its turn",
        "le serveur a joué son tour",
    ),
    "abandon": text(
        "timeout-abandon",
        "the game was abandoned",
        "la partie a été abandonnée",
    ),
}

HINTS_OFF = text(
    "hints-off",
    "hints are off in this game (its option hints: false)",
    "les conseils sont désactivés dans cette partie (son option hints: false)",
)
HINT_IN_FLIGHT = text(
    "hint-in-flight",
    "a hint for this seat is being computed: wait for its answer",
    "un conseil pour cette place est en cours de calcul\u00a0: attendez sa réponse",
)
NOT_YOUR_TURN_HINT = text(
    "hint-not-your-turn",
    "a hint is for a seat that may act now: seat {seat} may not",
    "un conseil est pour une place qui peut jouer maintenant\u00a0: la place {seat} ne le peut pas",
)
HINTS_OPTION = text(
    "hints-option",
    "the option hints is true or false",
    "l’option hints vaut true ou false",
)
HINT_RATE_LIMITED = text(
    "hint-rate-limited",
    "this seat asked its {limit} hints of the minute: ask again in {seconds} s",
    "cette place a demandé ses {limit} conseils de la minute\u00a0: redemandez dans {seconds} s",
)
BOT_QUOTA = text(
    "bot-quota",
    "the bots of the games created by this {owner}, and its hints, spent their think time "
    "({quota} s per {minutes} min): a game with an expert bot may be created again in "
    "{seconds} s (random and basic bots now)",
    "les bots des parties créées par ce {owner}, et ses conseils, ont dépensé leur temps de "
    "réflexion ({quota} s par {minutes} min)\u00a0: une partie avec un bot expert pourra être créée "
    "dans {seconds} s (des bots random et basic dès maintenant)",
    {
        "owner": {
            "account": text("owner-account", "account", "compte"),
            "network": text("owner-network", "network", "réseau"),
        }
    },
)
HINT_QUOTA = text(
    "hint-quota",
    "the bots and hints of this {owner} spent their think time ({quota} s per {minutes} min): "
    "ask for a hint again in {seconds} s",
    "les bots et les conseils de ce {owner} ont dépensé leur temps de réflexion ({quota} s par "
    "{minutes} min)\u00a0: redemandez un conseil dans {seconds} s",
    {
        "owner": {
            "account": text("hint-owner-account", "account", "compte"),
            "network": text("hint-owner-network", "network", "réseau"),
        }
    },
)
HINT_NEEDS_TOKEN = text(
    "hint-needs-token",
    "a hint needs the seat's token: Authorization: Bearer <token>",
    "un conseil demande le jeton de la place\u00a0: Authorization: Bearer <jeton>",
)


def bot_seat(match: Match, bots: Sequence[str | None]) -> int | None:
    """The first bot among the match's actors that has a legal action (its move is owed)."""
    if match.result() is not None:
        return None
    for seat in match.actors():
        if bots[seat] is not None and match.legal_actions(seat):
            return seat
    return None


def _status(status: str) -> Message:
    words = STATUS_WORDS.get(status)
    return status if words is None else say(words)


#: Seconds a shutdown waits for a bot move, a shared commit or read under way to finish
#: before cancelling it (:meth:`GameService.close`): a move thinks `bot_seconds` at most (1 s).
CLOSE_GRACE_SECONDS = 5.0


#: The finished games whose match the cache keeps (the last to end: their players' last
#: reads). A match holds thousands of objects by its end, and each one the collector must
#: scan in every full collection: 2,048 finished matches cached made each full collection
#: about a second long, where the active games' alone take milliseconds (issue 27).
FINISHED_KEPT = 64


class GameService:
    """The stored games of one database; `fanout` wakes their event streams."""

    def __init__(
        self,
        engine: AsyncEngine,
        fanout: Fanout,
        cache_size: int = 2048,
        thinker: Thinker | None = None,
        hold: bool = False,
        waiting_hours: float = WAITING_HOURS,
        limits: Limits | None = None,
        group_commit_ms: float = 0.0,
        hot_actions: bool = True,
    ) -> None:
        self.engine = engine
        #: Whether an action may be hot (:meth:`_act_hot`); False: every action takes the
        #: locked path (where shared commits apply: their tests).
        self.hot_actions = hot_actions
        #: Where bots and hints think (api.games.bots); `hold`: this process never plays a
        #: bot move itself (the two-process test's first process).
        self.thinker = thinker or Thinker(workers=0, samples=4, seconds=0.2)
        self.hold = hold
        #: Hours a waiting game waits for its players (`NUMRULES_WAITING_HOURS`).
        self.waiting_hours = waiting_hours
        #: Hints a minute per seat and the bots' CPU quota per owner (api.games.bots.Limits).
        self.limits = limits or Limits()
        #: One expert move or hint thinking at a time per quota owner (api.games.bots).
        self.owner_locks = OwnerLocks()
        self._driving: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self.fanout = fanout
        self.notify = engine.dialect.name == "postgresql"
        #: `group_commit_ms` (`NUMRULES_GROUP_COMMIT_MS`, PostgreSQL): the most an action
        #: waits for others to share its commit (api.games.repository.GroupCommit); 0: none.
        self.repository = repository_for(
            engine, group_commit_ms / 1000, refusals=(DomainError, EngineError)
        )
        #: Reads run without a transaction on PostgreSQL (no BEGIN and ROLLBACK round trips):
        #: each reads the game row first, then only what that row says is committed (the log
        #: up to its version, the events up to its `event_seq`), which never changes after.
        #: SQLite keeps transactions: its every transaction is `BEGIN IMMEDIATE` (api.db.engine).
        #: On PostgreSQL they take the connections the hot paths keep between uses.
        held = getattr(self.repository, "held", None)
        self.reader: Connects = held if held is not None else engine
        #: On PostgreSQL, seats' reads of their games share statements (`SharedReads`).
        self._seat_reads: SharedReads | None = getattr(self.repository, "seat_reads", None)
        self.cache_size = cache_size
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        #: The games over whose match the cache holds, the last `FINISHED_KEPT` to end.
        self._finished: OrderedDict[str, None] = OrderedDict()
        self._names_cache: OrderedDict[str, list[tuple[str, str | None]]] = OrderedDict()
        #: The seats of the games' tokens this process has seen (hash → seat), which the hot
        #: action trusts only as far as its statement checks them again.
        self._tokens: OrderedDict[str, dict[str, int]] = OrderedDict()
        #: The database's clock in the last game row read, and `time.monotonic()` then.
        self._db_clock: tuple[float, float] | None = None
        self._flights: dict[tuple[str, int, int], _Flight] = {}
        #: The viewers (seats; None: a spectator) of the streams that show each game
        #: (`view=true`), and their views rendered whenever the cache took the game's match
        #: (its version, view by viewer): a stream shows them without the match, which the
        #: game's next action may have taken meanwhile (:meth:`shown`); the matches loaded for
        #: the streams of a game at a version no view was kept for (:meth:`_load_views`).
        self._watchers: dict[str, Counter[int | None]] = {}
        self._views: dict[str, tuple[int, dict[int | None, BaseView]]] = {}
        self._loading: dict[tuple[str, int], asyncio.Future[dict[int | None, BaseView]]] = {}
        #: How many reads of the log streams made (shared ones count once).
        self.shared_reads = 0
        #: Called after an action's rows are written, before the commit (tests inject faults).
        self.before_commit: Callable[[], None] | None = None
        #: Called once per timeout applied, with its `on_timeout` (the app's counter).
        self.on_timeout: Callable[[str], None] | None = None
        #: Set at shutdown: the sweep ends after its current pass (:meth:`stop_sweeping`).
        self._stop_sweeping = asyncio.Event()
        #: Whether this process is its database's only client (the app sets it: issue 27).
        self.lease: SoleLease | None = None
        #: The games' rows a seat's read may be answered from while the lease holds
        #: (:meth:`get`), and how many times a write other than a hot action began or ended
        #: here (each one forgets them all: a read or an action under way then keeps nothing).
        self._sole: OrderedDict[str, _Sole] = OrderedDict()
        self._writes = 0
        #: The engine of a new game's transaction, which writes no other game's rows.
        self._creating = engine.execution_options(**{_NEW_GAME: True})
        #: How many seats' reads were answered so.
        self.sole_reads = 0
        if self.repository.hot:
            self.repository.on_write = self._written
            self.watch_writes(engine)

    def watch_writes(self, engine: AsyncEngine) -> None:
        """Forget the rows of :meth:`get` whenever a transaction of `engine` (one this
        process writes games with) begins or its connection comes back to the pool."""
        event.listen(engine.sync_engine, "begin", self._written_begin)
        event.listen(engine.sync_engine, "checkin", self._written_checkin)

    def _written(self) -> None:
        """A write other than a hot action begins or ends here (a transaction begins or its
        connection comes back to the pool; but a new game's, which writes no other game's
        rows): the rows of :meth:`get` are forgotten."""
        self._writes += 1
        self._sole.clear()

    def _written_begin(self, connection: Any) -> None:
        if connection.get_execution_options().get(_NEW_GAME):
            connection.info[_NEW_GAME] = True  # its check-in too (the same record's info)
            return
        self._written()

    def _written_checkin(self, _dbapi_connection: Any, record: Any) -> None:
        if record.info.pop(_NEW_GAME, False):
            return
        self._written()

    # -- creating -------------------------------------------------------------------------

    async def create(
        self, body: CreateGame, caller: Caller | None = None, network: str | None = None
    ) -> GameCreated:
        """A new game of `body` (:meth:`create_once` without a key)."""
        created, _ = await self.create_once(body, caller, network)
        return created

    async def create_once(
        self,
        body: CreateGame,
        caller: Caller | None = None,
        network: str | None = None,
        key: str | None = None,
    ) -> tuple[GameCreated, bool]:
        """Community lock (rules/app.md, Ruling): a community game (its spec says so) needs a
        session. Open seats (issue 26) need one too, and leave the game `waiting`. Its bots
        spend the quota of the caller's account, else of `network` (the caller's): a game
        with an `expert` seat is refused past it (`bot-quota`).

        With an `Idempotency-Key` (api-contract.md, "Idempotent creation"; `api.games.
        creation`): a retry of the same body gets the first answer again (the second of the
        pair returned: replayed) and creates nothing; another body is `KeyReused`. Concurrent
        retries each write a game, but only one key row: the other's insert fails on the
        unique digest, its transaction (and game) rolls back, and it replays the winner's."""
        check_ruleset(body.ruleset)
        if is_community(body.ruleset) and caller is None:
            raise community_locked(body.ruleset)
        check_players(body, caller is not None)
        check_names([player.name for player in body.players])  # an open seat's may be None
        rules, hints = self.rules_of(body)
        owner = owner_of(None if caller is None else caller.account_id, network)
        if key is None and caller is None and self.repository.hot and _alone(body):
            # a new game's rows only, in one statement (PostgreSQL's): the rows `get` answers
            # from stay right
            created, match, owed = await self._insert(None, body, caller, rules, hints, owner)
        elif key is None:  # likewise, in a transaction (its reads and locks first)
            async with self._creating.begin() as conn:
                created, match, owed = await self._insert(conn, body, caller, rules, hints, owner)
        else:
            request = creation_hash(body)
            for attempt in range(2):
                try:
                    async with self.engine.begin() as conn:
                        answers = CreationAnswers(conn, caller, key, request)
                        stored = await answers.replay()
                        if stored is not None:
                            return stored, True
                        if answers.reused:
                            raise KeyReused(say(CREATION_KEY_REUSED))
                        created, match, owed = await self._insert(
                            conn, body, caller, rules, hints, owner
                        )
                        await answers.remember(created)
                    break
                except IntegrityError:
                    if attempt:
                        raise
            await purge_creations(self.engine)
        self._put(created.id, 0, match)
        if owed:
            self.kick(created.id)
        return created, False

    async def _insert(
        self,
        conn: AsyncConnection | None,
        body: CreateGame,
        caller: Caller | None,
        rules: Any,
        hints: bool,
        owner: str | None,
    ) -> tuple[GameCreated, Match, bool]:
        """Write a new game of `body` in `conn`'s transaction (None: one of its own, for a
        game :func:`_alone` says needs nothing read first, without a caller): the answer, the
        match and whether a bot's move is owed."""
        accounts: list[str | None] = [None] * len(body.players)
        if conn is not None:
            if owner is not None and any(p.bot == "expert" for p in body.players):
                await self._check_bot_quota(conn, owner)
            if caller is not None:  # its deletion waits for the game (else refused)
                await lock_account(conn, caller.account_id)
            accounts = await accounts_by_pseudo(conn, [p.account for p in body.players], "players")
        seats = [
            NewSeat(
                name=p.name or "",
                account_id=accounts[i],
                bot=p.bot,
                open=p.open,
                open_name=p.name if p.open else None,
                issue=p.bot is None and not p.open,
                pseudo=p.account,
            )
            for i, p in enumerate(body.players)
        ]
        created, match, owed = await self.insert_game(
            conn,
            body,
            rules,
            hints,
            seats,
            None if caller is None else caller.account_id,
            owner,
            # bots only and no session: no seat's token and no account would end it
            creator_token=caller is None and all(p.bot is not None for p in body.players),
        )
        return created, match, owed

    @staticmethod
    def rules_of(body: CreateGame) -> tuple[Any, bool]:
        """The ruleset's rules of a creation's options, and the service's own `hints`."""
        options_in = dict(body.options)
        hints = options_in.pop("hints", True)  # the service's option, not the rules'
        if not isinstance(hints, bool):
            raise field_error(Invalid, "bad-option", "options.hints", say(HINTS_OPTION))
        # the engine's refusals (options, players, seed) pass through: the problem map words
        # them (a bad option named at its field: `made_rules`)
        return made_rules(body.ruleset, options_in), hints

    async def insert_game(
        self,
        conn: AsyncConnection | None,
        body: CreateGame,
        rules: Any,
        hints: bool,
        seats: Sequence[NewSeat],
        creator_id: str | None,
        bot_owner: str | None = None,
        creator_token: bool = False,
    ) -> tuple[GameCreated, Match, bool]:
        """Write a new game of `body` (its ruleset, options and seed: the creation request
        wholesale, so that a rematch, which passes its game's, keeps every creation option)
        with `seats`; the answer, the match and whether a bot's move is owed. A game with an
        open seat is `waiting`: no event yet (its round is dealt when it starts). Without
        `conn` (PostgreSQL's repository only, which is `hot`: `create_once`), the game is
        written in a statement of its own (`add_game_alone`). `creator_token`: the answer
        carries a creator's token that ends the game (its hash stored: :meth:`abandon`)."""
        seed = secrets.randbits(63) if body.seed is None else body.seed
        match = Match(rules, len(seats), seed)
        game_id = new_id()
        salt = secrets.token_hex(16)
        tokens = [new_token(SEAT_PREFIX) for _ in seats]  # given only to the `issue` seats
        host = new_token(CREATOR_PREFIX) if creator_token else None
        waiting = any(s.open for s in seats)
        bots = [s.bot for s in seats]
        owed = not waiting and bot_seat(match, bots) is not None
        clock = body.clock
        options: dict[str, Any] = msgspec.to_builtins(rules.options)
        opening = [] if waiting else match.round_start_events()  # round 1's start and hands
        stored = [StoredEvent(i + 1, event_document(e), e.to) for i, e in enumerate(opening)]
        status: Status = "waiting" if waiting else "active"
        deadlines = None
        if clock is not None and not waiting:  # the turns start now, by the database's clock
            # (estimated as a hot action's is, else read: :meth:`_db_now`)
            now = await self._db_now(conn)
            deadlines = start_deadlines(match, bots, clock, from_epoch(now), 0)
        rows = (
            {
                "id": game_id,
                "ruleset": rules.id,
                "options": options,
                "rules_version": match.rules_version,
                "seed": seed,
                "salt": salt,
                "seed_commitment": commitment(seed, salt),
                "players": len(seats),
                "status": status,
                "version": 0,
                "event_seq": len(stored),
                "result": None,
                "creator_id": creator_id,
                "bot_seed": secrets.randbits(63),
                "bot_pending": owed,
                "hints": hints,
                "created_with": creation_record(body),
                "seeded_by_creator": body.seed is not None,
                "clock": clock_document(clock),
                "deadlines": deadlines,
                **deadline_values(earliest(deadlines)),
                "bot_owner": bot_owner if any(b is not None for b in bots) else None,
                # round 1's, as each round's start writes its own: the round's progress
                # continues it (a game without one replays its whole log)
                "checkpoint": encode_checkpoint(match.checkpoint()),
                "creator_token_hash": None if host is None else token_hash(host),
            },
            [
                {
                    "game_id": game_id,
                    "seat": i,
                    "name": s.name,
                    "token_hash": token_hash(t),
                    "account_id": s.account_id,
                    "joined": s.joined,
                    "bot": s.bot,
                    "open": s.open,
                    "open_name": s.open_name,
                    "token_pending": s.pending,
                }
                for i, (s, t) in enumerate(zip(seats, tokens, strict=True))
            ],
            stored,
        )
        if conn is None:
            await self.repository.add_game_alone(self._creating, *rows)
        else:
            await self.repository.add_game(conn, *rows)
        created = GameCreated(
            id=game_id,
            ruleset=rules.id,
            options=options,
            rules_version=match.rules_version,
            version=0,
            status=status,
            seed_commitment=commitment(seed, salt),
            seats=[
                SeatToken(
                    seat=i,
                    name=s.name,
                    token=t if s.issue and s.bot is None and not s.open else None,
                    account=s.pseudo,
                    bot=s.bot,
                    open=s.open,
                )
                for i, (s, t) in enumerate(zip(seats, tokens, strict=True))
            ],
            view=match.view(None),
            open_seats=[i for i, s in enumerate(seats) if s.open],
            seeded_by_creator=body.seed is not None,
            creator_token=host,
        )
        if clock is not None:
            created = msgspec.structs.replace(created, clock=clock, deadlines=parsed(deadlines))
        return created, match, owed

    # -- reading --------------------------------------------------------------------------

    async def get(self, game_id: str, caller: Credential | None) -> GameOut:
        """The game as the caller sees it; a deadline passed is applied first (its own
        transaction: :meth:`expire`), then the game read again.

        On PostgreSQL a seat token's read is shared with the other games' reads under way
        (:class:`api.games.repository.SharedReads`); a game in play is then answered from
        the match this process holds at the row's version, with no connection of its own,
        and any other case goes on from that row as before (a session's read is read as
        before)."""
        shared = self._seat_reads
        if shared is not None and caller is not None and caller.account_id is None:
            epoch = None if self.lease is None else self.lease.current()
            if epoch is not None:
                sole = self._sole_read(game_id, caller.digest, epoch)
                if sole is not None:
                    self.sole_reads += 1
                    return sole
            writes = self._writes
            game = await shared.read(game_id, caller.digest)
            if game is None:
                raise _not_found(game_id)
            if game.token_seat is None:  # no seat's token (and no account's session)
                self._tokens.get(game_id, {}).pop(caller.digest, None)  # revoked, if it was
                raise Unauthenticated(say(NOT_A_SEAT))
            seat: int | None = self._seat_of(game_id, caller, game)
            lapsed = game.status == "waiting" and self.lapsed(game)
            if not lapsed and not is_due(game):
                held = self._game_held(game, seat)
                if held is not None:
                    if epoch is not None and seat is not None and writes == self._writes:
                        self._remember(game, caller.digest, seat, epoch)
                    return held
                async with self.reader.connect() as conn:
                    return await self._game_read(conn, game, seat)
        else:
            async with self.reader.connect() as conn:
                game, seat = await self._game_and_seat(conn, game_id, caller)
                lapsed = game.status == "waiting" and self.lapsed(game)
                if not lapsed and not is_due(game):
                    return await self._game_read(conn, game, seat)
        # the read's connection let go first (on SQLite every transaction holds the file's
        # write lock): a waiting game past its wait is abandoned on access, a passed deadline
        # applied (its own transaction: :meth:`expire`); then the game is read again
        if lapsed:
            await self.lapse(game_id)
        else:
            await self.expire(game_id)
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller)
            return await self._game_read(conn, game, seat)

    def _sole_read(self, game_id: str, digest: str, epoch: int) -> GameOut | None:
        """The game as the seat of `digest` sees it, answered from the row this process
        read or wrote last while it held the lease's `epoch`, which it still holds (no other
        client may have written since, nor did this process but by that row's write): when
        the game is active, no bot's move owed, its next deadline (if any) well ahead, and
        its match cached at the row's version; None otherwise (the database is asked)."""
        kept = self._sole.get(game_id)
        if kept is None or kept.epoch != epoch:
            return None
        seat = kept.seats.get(digest)
        if seat is None:
            return None
        due_at = kept.due_at
        if due_at is not None:
            now = self._db_now_estimated()
            if now is None or due_at <= now + SOLE_CLOCK_MARGIN:
                return None  # the database is asked: it applies the timeouts once it passed
        return self._game_held(kept.row, seat)

    def _remember(self, game: GameRow, digest: str, seat: int, epoch: int) -> None:
        """Keep a seat's read of an active game, no bot's move owed, read while the
        lease held `epoch` (and still holds it) and no other write began or ended here, with
        the seats of the reads of the same row kept before."""
        if self.lease is None or self.lease.current() != epoch or not _soleable(game):
            return
        kept = self._sole.get(game.id)
        seats = {digest: seat}
        if kept is not None and kept.epoch == epoch and kept.row.version == game.version:
            seats = {**kept.seats, digest: seat}
        due_at = None if game.deadline is None else epoch_of(game.deadline)
        self._keep_sole(game.id, _Sole(epoch, game, seats, due_at))

    def _keep_sole(self, game_id: str, kept: _Sole) -> None:
        self._sole[game_id] = kept
        self._sole.move_to_end(game_id)
        while len(self._sole) > self.cache_size:
            self._sole.popitem(last=False)

    def _game_held(self, game: GameRow, seat: int | None) -> GameOut | None:
        """The game as `seat` sees it from what this process holds (the seats' names, the
        match at the row's version), as :meth:`_game_read` renders it then, without a
        connection; None when it lacks either, or the game is waiting."""
        names = self._names_cache.get(game.id)
        cached = self._cache.get(game.id)
        if (
            names is None
            or cached is None
            or cached.version != game.version
            or game.status == "waiting"
        ):
            return None
        if game.bot_pending and game.status == "active":
            self.kick(game.id)  # owed and perhaps orphaned (its replica died): play it
        if cached.hot is None:
            cached.hot = _hot_of(game, names)  # see _game_read
        return self._game_out(game, seat, names, cached.match, hot=cached.hot)

    async def _game_read(self, conn: AsyncConnection, game: GameRow, seat: int | None) -> GameOut:
        """The game as `seat` sees it, read on `conn`."""
        game_id = game.id
        if game.bot_pending and game.status == "active":
            self.kick(game_id)  # owed and perhaps orphaned (its replica died): play it
        # a waiting game's seats change (claims, leaves, bots): never cached before it starts
        names = await self._names(conn, game_id, cache=game.status != "waiting")
        open_seats = (
            await self.repository.open_seats(conn, game_id) if game.status == "waiting" else []
        )
        match = await self._match(conn, game)
        cached = self._cache.get(game_id)
        if cached is not None and cached.version == game.version and cached.hot is None:
            # the match is the row's: the next action here may be hot (a game another replica
            # moved, or one just created, once read here)
            cached.hot = _hot_of(game, names)
        # Render now: the cached match is the object an action takes and changes (`_take`);
        # with no await between reading it and its view, no action can change it between.
        return self._game_out(game, seat, names, match, open_seats)

    def lapsed(self, game: GameRow) -> bool:
        """A waiting game past its `waiting_hours` (it is abandoned on access)."""
        limit = datetime.now(UTC) - timedelta(hours=self.waiting_hours)
        return bool(game.status == "waiting" and aware(game.created_at) < limit)

    async def lapse(self, game_id: str) -> None:
        """Abandon the game if it is still waiting past its time (its own transaction)."""
        async with self.engine.begin() as conn:
            game = await self.repository.game(conn, game_id, lock=True)
            if game is not None and self.lapsed(game):
                await self.repository.abandon(conn, game_id)
        self.fanout.publish(game_id)

    async def events(
        self, game_id: str, caller: Credential | None, after: int, limit: int = EVENTS_PAGE
    ) -> EventsOut:
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller)
            if not is_due(game):
                return await self._events_page(conn, game, seat, after, limit)
        await self.expire(game_id)  # a deadline passed: its timeout first
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller)
            return await self._events_page(conn, game, seat, after, limit)

    async def events_for(
        self,
        game_id: str,
        seat: int | None,
        after: int,
        limit: int = EVENTS_PAGE,
        since: float | None = None,
    ) -> StreamPage:
        """The events page of an already authenticated viewer (the event stream), with the
        game's row it was read with (:meth:`shown` renders the game at that row).

        With `since` (when the game was last published, `Fanout.published`: every action it
        announced was committed by then), the read is shared: streams of one game woken by
        one action join one read of the log, provided it started after `since`, so that it
        sees every action they were woken for (a read begun earlier might not). Each stream
        filters the shared rows by what its viewer may see.
        """
        if since is None:
            async with self.reader.connect() as conn:
                game = await self._game(conn, game_id)
                return StreamPage(await self._events_page(conn, game, seat, after, limit), game)
        written = self.fanout.written.get(game_id)
        if (
            written is not None
            and written.after == after
            and limit == EVENTS_PAGE
            and written.announced >= since
        ):  # this process's own write, announced at its commit (`_announce`): no read
            game, rows, decoded = written.read
            return StreamPage(_page(game, rows, seat, after, decoded), game)
        key = (game_id, after, limit)
        flight = self._flights.get(key)
        if flight is None or flight.started < since:
            flight = _Flight(time.monotonic(), asyncio.ensure_future(self._read(key)))
            self._flights[key] = flight
            flight.task.add_done_callback(lambda _: self._land(key, flight))
        game, rows, decoded = await asyncio.shield(flight.task)
        return StreamPage(_page(game, rows, seat, after, decoded), game)

    async def shown(self, read: StreamPage, seat: int | None) -> GameOut | None:
        """The game at the row of `read` as `seat` sees it, the answer of `GET /v1/games/{id}`
        (an event stream's `view=true`, after the events that row counts); None when this
        process already holds a later version of the game: that one is committed, its wake-up
        is on the way, and the stream shows it instead.

        The view is the one kept when the match reached that version here (:meth:`_put`),
        else the cached match's at that version, else the match loaded once for all the
        streams of the game that ask together (:meth:`_load_views`: a replica that did not
        apply the action). A waiting game is read as a GET reads it. A passed deadline is not
        applied here (the sweep applies it; its timeout then comes as events and a game)."""
        game = read.game
        if game.status == "waiting" or game.event_seq == 0:
            async with self.reader.connect() as conn:
                return await self._game_read(conn, game, seat)
        kept = self._views.get(game.id)
        cached = self._cache.get(game.id)
        if (kept is not None and kept[0] > game.version) or (
            cached is not None and cached.version > game.version
        ):
            return None
        view = kept[1].get(seat) if kept is not None and kept[0] == game.version else None
        if view is None and cached is not None and cached.version == game.version:
            view = cached.match.view(seat)  # now: the next action may take the match
        if view is None:
            view = (await self._load_views(game)).get(seat)
        if view is None:  # a viewer no stream watches with: read as a GET reads it
            async with self.reader.connect() as conn:
                return await self._game_read(conn, game, seat)
        names = self._names_cache.get(game.id)
        if names is None:
            async with self.reader.connect() as conn:
                names = await self._names(conn, game.id)
        return self._game_out(game, seat, names, view=view)

    async def _load_views(self, game: GameRow) -> dict[int | None, BaseView]:
        """The views of the game's watchers at the row's version, its match loaded once for
        every stream that asks meanwhile (each would otherwise take the cached match from the
        others, and replay it from its checkpoint)."""
        key = (game.id, game.version)
        task = self._loading.get(key)
        if task is None:
            task = asyncio.ensure_future(self._views_at(game))
            self._loading[key] = task
            task.add_done_callback(lambda done: self._loaded(key, done))
        return await asyncio.shield(task)

    def _loaded(self, key: tuple[str, int], task: asyncio.Future[Any]) -> None:
        if self._loading.get(key) is task:
            del self._loading[key]

    async def _views_at(self, game: GameRow) -> dict[int | None, BaseView]:
        async with self.reader.connect() as conn:
            match = await self._match(conn, game)
        # no await since `_match`: the match is at the row's version
        return {seat: match.view(seat) for seat in self._watchers.get(game.id, ())}

    def watch(self, game_id: str, seat: int | None) -> None:
        """A stream of `game_id` shows the game to `seat` from now (:meth:`shown`)."""
        self._watchers.setdefault(game_id, Counter())[seat] += 1

    def unwatch(self, game_id: str, seat: int | None) -> None:
        """That stream ended (what :meth:`watch` counted, and the game's kept views with
        its last stream)."""
        watchers = self._watchers.get(game_id)
        if watchers is None:
            return
        watchers[seat] -= 1
        if watchers[seat] <= 0:
            del watchers[seat]
        if not watchers:
            del self._watchers[game_id]
            self._views.pop(game_id, None)

    def _keep_views(self, game_id: str, version: int, match: Match) -> None:
        """The views of the game's watchers at `version`, the match's as it is now (called
        whenever the cache takes a match: :meth:`_put`; the views are new objects that share
        nothing the match changes later). Never fails its caller, whose action is committed:
        without kept views, a stream renders its view itself."""
        watchers = self._watchers.get(game_id)
        kept = self._views.get(game_id)
        if not watchers or (kept is not None and kept[0] == version):
            return
        try:
            self._views[game_id] = (version, {seat: match.view(seat) for seat in watchers})
        except Exception:
            log.exception("game %s: the watchers' views at version %d", game_id, version)
            self._views.pop(game_id, None)

    def _land(self, key: tuple[str, int, int], flight: _Flight) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]

    async def _read(self, key: tuple[str, int, int]) -> tuple[GameRow, list[Any], list[EventOut]]:
        game_id, after, limit = key
        self.shared_reads += 1
        async with self.reader.connect() as conn:
            game = await self._game(conn, game_id)
            rows = await self.repository.event_rows(conn, game, after, limit)
        kept = self.fanout.rows.get(game_id)
        if self.fanout.watched(game_id) and (kept is None or kept.version <= game.version):
            # the base of this process's next hot write's row (`_announce`): the latest read
            self.fanout.rows[game_id] = game
        return game, rows, [stored_event_out(r.seq, r.payload) for r in rows]

    async def _events_page(
        self, conn: AsyncConnection, game: GameRow, seat: int | None, after: int, limit: int
    ) -> EventsOut:
        return _page(game, await self.repository.event_rows(conn, game, after, limit), seat, after)

    async def export(self, game_id: str, caller: Credential | None = None) -> ExportOut:
        """The record of a game over or abandoned (public then); a token, if sent, must be one
        of its seats' (`Unauthenticated` else, as everywhere)."""
        async with self.reader.connect() as conn:
            game = await self._game(conn, game_id)
            await self._seat(conn, game_id, caller)
            if game.status in ("active", "waiting"):
                raise Conflict(say(GAME_ACTIVE), code="game-active")
            names = await self._names(conn, game_id)
            actions = await self.repository.export_actions(conn, game)
        return ExportOut(
            id=game.id,
            ruleset=game.ruleset,
            options=game.options,
            rules_version=game.rules_version,
            status=game.status,
            players=[SeatOut(seat=i, name=n, bot=b) for i, (n, b) in enumerate(names)],
            seed_commitment=game.seed_commitment,
            seed=game.seed,
            salt=game.salt,
            actions=actions,
            result=game.result,
            v=EXPORT_FORMAT,
        )

    # -- acting ---------------------------------------------------------------------------

    async def act(
        self,
        game_id: str,
        caller: Credential | None,
        action: Action,
        expected: Expected | None,
        idempotency_key: str | None,
    ) -> tuple[ActionOut, bool]:
        """Apply `action` for the caller's seat; returns the answer and whether it is the
        kept answer of an earlier request with the same `idempotency_key`.

        A clocked game whose deadline has passed has its timeouts applied first, in their own
        transaction (:meth:`expire`); the action is then tried on the game as it is. A move
        of a seat whose own deadline had passed when it came is 409 `turn-timed-out`; so is a
        move whose `If-Match` names a version at or before the one its seat's turn ended at by
        timeout (checked before 412), and, without `If-Match`, a move the game refuses (not
        its turn, wrong phase, the game abandoned) from a seat that has not acted since its
        turn ended by timeout."""
        if caller is None:
            raise Unauthenticated(say(ACTING_NEEDS_TOKEN))
        done = await self._act(game_id, caller, action, expected, idempotency_key, None)
        if not isinstance(done, _Due):
            return done
        await self.expire(game_id)
        again = await self._act(game_id, caller, action, expected, idempotency_key, done.late)
        assert not isinstance(again, _Due)
        return again

    async def _act(
        self,
        game_id: str,
        caller: Credential,
        action: Action,
        expected: Expected | None,
        idempotency_key: str | None,
        late: bool | None,
    ) -> tuple[ActionOut, bool] | _Due:
        """One try of :meth:`act`. `late` None: the first try, which answers `_Due` (having
        changed nothing) when a deadline of the game has passed, so that its timeouts are
        applied first; else whether the seat's own deadline had passed then (its move is
        late)."""
        may = self.hot_actions and self.repository.hot
        if may and late is None and expected is None and idempotency_key is None:
            hot = await self._act_hot(game_id, caller, action)
            if hot is not None:
                return hot, False
        request_hash = hashlib.sha256(msgspec.json.encode(action)).hexdigest()

        async def body(conn: AsyncConnection) -> tuple[ActionOut, bool] | _Due | _Applied:
            return await self._act_locked(
                conn, game_id, caller, action, expected, idempotency_key, late, request_hash
            )

        done = await self.repository.transact(self.engine, game_id, body)
        if not isinstance(done, _Applied):
            return done
        self._put(game_id, done.answer.version, done.match, done.hot)
        if not self.notify:
            self.fanout.publish(game_id)
        if done.bot_pending:
            self.kick(game_id)
        return done.answer, False

    async def _act_hot(self, game_id: str, caller: Credential, action: Action) -> ActionOut | None:
        """The action in one statement, on PostgreSQL, when this process holds the game's last
        version (its match is cached with :class:`_Hot`: it wrote the last action or read the
        game since), the game is active and without bots, and the caller's token names a seat
        this process has seen: no BEGIN, no lock read, no COMMIT (`APPEND_HOT_PG`, in
        autocommit: the statement is the transaction). The statement writes only if the game
        is still active at the cached version, no deadline has passed and the token is the
        seat's. None when any of that does not hold, or when
        the engine refuses the action (nothing written, the cache as it was): the caller
        then takes the locked path, which answers for the game as it stands (another
        replica's actions, a timeout, an abandon, a refusal)."""
        cached = self._cache.get(game_id)
        tokens = self._tokens.get(game_id)
        if cached is None or cached.hot is None or tokens is None:
            return None
        seat = tokens.get(caller.digest)
        hot = cached.hot
        if seat is None or type(action).__struct_config__.tag not in ruleset_actions(hot.ruleset):
            return None
        names = self._names_cache.get(game_id)
        if names is None:
            return None
        del self._cache[game_id]  # ours now: a reader or another action replays meanwhile
        match = cached.match
        # a new turn's deadline starts at the database's clock
        now = 0.0
        if hot.clock is not None:
            estimated = self._db_now_estimated()
            now = await self._db_now() if estimated is None else estimated
        row = _HotRow(
            game_id,
            cached.version,
            hot.event_seq,
            hot.ruleset,
            hot.clock,
            hot.deadlines,
            hot.deadline,
            now,
            shown=hot.shown,
        )
        before = (match.index, match.phase)
        events: list[EventBase] | None = None
        if hot.due_at is None or hot.due_at > now:  # else its timeouts first
            # (`expire`), on the locked path
            with contextlib.suppress(EngineError):  # the locked path answers a refusal
                match.check_cards(action)
                events = match.apply(seat, action)
        if events is None:  # the match unchanged: a refusal changes nothing
            self._put(game_id, cached.version, match, hot)
            return None
        move = self._move(row, seat, action, match, before, events, names)
        first = row.event_seq + 1
        answer = _answer(
            row.version + 1,
            [event_out(first + i, e) for i, e in enumerate(events) if e.visible(seat)],
            match.view(seat),
            hot.clock is not None,
            move.shown,
            seat,
        )
        if self.before_commit is not None:
            self.before_commit()
        sent = time.monotonic()
        epoch = None if self.lease is None else self.lease.current()
        writes, kept = self._writes, self._sole.pop(game_id, None)
        self.fanout.writing(game_id, answer.version)
        committed = False
        try:
            committed = await self.repository.append_hot(row, move, caller.digest)
        finally:
            self.fanout.written_or_not(game_id, committed)
        if not committed:
            return None  # the game moved elsewhere: the match is dropped
        self._put(game_id, answer.version, match, _hot_after(move, len(events), row))
        if (
            kept is not None
            and epoch is not None
            and kept.epoch == epoch
            and kept.row.version == row.version
            and writes == self._writes
            and self.lease is not None
            and self.lease.current() == epoch
        ):  # the row a read would find now: kept for the seats' next reads
            after = _row_after(kept.row, row, move)
            if _soleable(after):
                self._keep_sole(game_id, _Sole(epoch, after, kept.seats, move.due_at))
        self._announce(row, move, sent)
        if move.bot_pending:
            self.kick(game_id)
        return answer

    def _announce(self, row: _HotRow, move: Move, sent: float) -> None:
        """A hot action this process committed, announced to the game's streams here at once
        (:meth:`Fanout.announce`: its NOTIFY then wakes nobody here) with what their next read
        would find: the game's row after it, the last row they read with this action's
        changes (when that row is at the version the action was applied to, and the game goes
        on: a finished game's row and a bot's turn are read), and its events, as a read
        returns them (their JSON columns as the database gives them back); `sent`: when its
        statement went out (:meth:`Fanout.announce`). Never fails the action, which is
        committed: the streams read instead.

        The row is right because every column of a game that changes without a new version
        either changes once the game is no longer active (an abandon, a rematch's id), which
        the hot statement's guard refuses, or is one this row sets (a table's start: its
        status, events' count, bot and deadlines)."""
        fanout = self.fanout
        if not fanout.watched(row.id):
            return
        written: tuple[int, Any] | None = None
        base = fanout.rows.get(row.id)
        try:
            if (
                base is not None
                and base.version == row.version
                and move.status == "active"
                and not move.bot_pending
                and move.events  # a stream's `after` moves with its events
            ):
                game = _row_after(base, row, move)
                rows = [EventRow(e.seq, e.to, _as_read(e.payload)) for e in move.events]
                decoded = [stored_event_out(r.seq, r.payload) for r in rows]
                fanout.rows[row.id] = game
                written = (row.event_seq, (game, rows, decoded))
        except Exception:
            log.exception("game %s: the row of version %d", row.id, row.version + 1)
        fanout.announce(row.id, row.version + 1, written, sent)

    def _db_now_estimated(self) -> float | None:
        """:meth:`_db_now`'s estimate from the last read, None if it is too old."""
        sample, now = self._db_clock, time.monotonic()
        if sample is not None and now - sample[1] <= DB_CLOCK_FRESH:
            return sample[0] + (now - sample[1])
        return None

    async def _db_now(self, conn: AsyncConnection | None = None) -> float:
        """The database's clock for a clocked hot action or a creation: the `db_now` of the
        last game row this process read (every read and locked read carries it) plus the time
        since on this process's monotonic clock, if that read is at most `DB_CLOCK_FRESH`
        seconds old; else read (a round trip). The estimate is behind the database's clock by
        the read's way back (well under a millisecond, so a new turn may start that much early,
        and by as long as the action then waits for a shared statement: `HotWrites`, a few
        milliseconds); whether a deadline has passed is checked again by the statement, on the
        database's clock. The read is on `conn` when given (a creation's transaction), else on
        a connection of its own (PostgreSQL only)."""
        estimated = self._db_now_estimated()
        if estimated is not None:
            return estimated
        if conn is not None:
            read = await self.repository.now(conn)
        else:
            async with self.repository.connected() as own:
                read = await self.repository.now_hot(own)
        self._db_clock = (read, time.monotonic())
        return read

    async def _act_locked(
        self,
        conn: AsyncConnection,
        game_id: str,
        caller: Credential,
        action: Action,
        expected: Expected | None,
        idempotency_key: str | None,
        late: bool | None,
        request_hash: str,
    ) -> tuple[ActionOut, bool] | _Due | _Applied:
        """:meth:`_act` in the action's transaction (the repository's `transact`: its own,
        or one it shares with other games' actions): everything it raises is raised before
        it writes (a refusal, :class:`DomainError` or :class:`EngineError`) but for the
        storage's own errors and `before_commit`'s. The match it applied the action to is
        out of the cache until the transaction committed."""
        repository = self.repository
        game, seat = await self._game_and_seat(conn, game_id, caller, lock=True)
        assert seat is not None
        if game.bot_pending and game.status == "active":
            self.kick(game_id)  # runs once this transaction lets the row go
        if idempotency_key is not None:
            kept = await repository.kept_answer(conn, game_id, seat, idempotency_key)
            if kept is not None:
                if not hmac.compare_digest(kept[0], request_hash):
                    raise KeyReused(say(KEY_REUSED))
                return kept[1], True
        if late is None and is_due(game):
            return _Due(seat in due(game.deadlines, from_epoch(game.db_now)))
        if late:
            raise self._timed_out(game, seat)
        if expected is not None and not expected.condition.any:
            seen = [int(v) for v in expected.condition.versions if v.isdigit()]
            ended = [t for t in game.timeouts or () if int(t["seat"]) == seat]
            if seen and any(int(t["from"]) >= max(seen) for t in ended):
                raise self._timed_out(game, seat)
        if expected is not None and not expected.condition.matches(game.version):
            raise GameMoved(
                say(GAME_MOVED, version=game.version, said=shorten(expected.said)),
                game.version,
            )
        if game.status == "waiting":
            raise await self._waiting(conn, game_id)
        if game.status != "active":
            if expected is None and await self._unanswered(conn, game, seat):
                raise self._timed_out(game, seat)
            raise GameStateConflict("game-over", say(NO_MORE_ACTIONS, status=_status(game.status)))
        kinds = ruleset_actions(game.ruleset)
        kind = type(action).__struct_config__.tag
        if kind not in kinds:
            message = say(NO_SUCH_ACTION, ruleset=game.ruleset, kind=kind, kinds=tuple(kinds))
            raise field_error(Invalid, "validation-error", "type", message)
        match = await self._take(conn, game)
        before = (match.index, match.phase)
        try:
            match.check_cards(action)  # the engine refuses a card outside the game's deck
            events = match.apply(seat, action)
        except EngineError as exc:
            self._put(game_id, game.version, match)  # a refused action changes nothing
            if isinstance(exc, IllegalMove):
                if (
                    exc.reason in STATUS_REASONS
                    and expected is None
                    and await self._unanswered(conn, game, seat)
                ):
                    raise self._timed_out(game, seat) from None
                raise self._refusal(exc, match, seat) from None
            raise
        first = game.event_seq + 1
        seen_events = [event_out(first + i, e) for i, e in enumerate(events) if e.visible(seat)]
        names = await self._names(conn, game_id)
        move = self._move(game, seat, action, match, before, events, names)
        version = game.version + 1
        answer = _answer(
            version, seen_events, match.view(seat), game.clock is not None, move.shown, seat
        )
        keeping = None
        if idempotency_key is not None:
            keeping = Kept(idempotency_key, request_hash, answer)
        await repository.append(conn, game, move, keeping)
        if self.before_commit is not None:
            self.before_commit()
        hot = None
        if all(bot is None for _, bot in names):
            hot = _hot_after(move, len(events), game)
        return _Applied(answer, match, move.bot_pending, hot)

    def _timed_out(self, game: GameRow, seat: int) -> TurnTimedOut:
        ended = [t for t in game.timeouts or () if int(t["seat"]) == seat]
        version = int(ended[-1]["from"]) if ended else game.version
        clock = clock_of(game)
        how = "auto" if clock is None else clock.on_timeout
        return TurnTimedOut(
            say(TURN_TIMED_OUT, seat=seat, version=version, how=say(TIMEOUT_HOW[how]))
        )

    async def _unanswered(self, conn: AsyncConnection, game: GameRow, seat: int) -> bool:
        """Whether the seat's turn ended by timeout and the seat has not acted since."""
        ended = [t for t in game.timeouts or () if int(t["seat"]) == seat]
        if not ended:
            return False
        last = await self.repository.last_action_seq(conn, game.id, seat)
        return last <= int(ended[-1]["to"])

    def _move(
        self,
        game: Any,
        seat: int,
        action: Action,
        match: Match,
        before: tuple[int, str],
        events: list[EventBase],
        names: list[tuple[str, str | None]],
    ) -> Move:
        """What an applied action writes: its events, the game's status, result, checkpoint
        (a round started), the round's progress (every `PROGRESS_EVERY` actions into it),
        whether a bot's move is now owed, and the deadlines moved on
        (:func:`api.games.clock.deadlines_after`, by the database's clock read with the
        locked row)."""
        first = game.event_seq + 1
        stored = [StoredEvent(first + i, event_document(e), e.to) for i, e in enumerate(events)]
        result = match.result()
        started = result is None and match.index != before[0]  # a new round: its checkpoint
        checkpoint = match.checkpoint() if started else None
        progress = None
        if result is None and not started:
            into = match.played - match.checkpoint().actions
            if into % PROGRESS_EVERY == 0:  # the round so far (`PROGRESS_EVERY`)
                progress = match.progress()
        bots = [b for _, b in names]
        clock = clock_of(game)
        deadlines = deadline = due_at = None
        shown: list[SeatDeadline] = []
        if clock is not None:
            deadlines, shown, deadline, due_at = deadlines_moved(
                game.deadlines,
                match,
                bots,
                clock,
                events,
                before,
                float(game.db_now),
                game.version + 1,
                getattr(game, "shown", None),
            )
        return Move(
            seat=seat,
            action=action,
            events=stored,
            status="over" if result is not None else "active",
            result=None if result is None else msgspec.to_builtins(result),
            checkpoint=checkpoint,
            progress=progress,
            bot_pending=bot_seat(match, bots) is not None,
            deadlines=deadlines,
            deadline=deadline,
            shown=shown,
            due_at=due_at,
        )

    async def _write(
        self,
        conn: AsyncConnection,
        game: Any,
        seat: int,
        action: Action,
        match: Match,
        before: tuple[int, str],
        events: list[EventBase],
    ) -> Move:
        """Append an applied action (:meth:`_move`) in the caller's transaction."""
        names = await self._names(conn, game.id)
        move = self._move(game, seat, action, match, before, events, names)
        await self.repository.append(conn, game, move)
        return move

    # -- clocks ---------------------------------------------------------------------------

    async def expire(self, game_id: str) -> tuple[int, ...]:
        """Apply the game's passed deadlines, in a transaction of their own (the row locked,
        its deadlines read again: whichever replica or request gets there first applies
        each timeout, exactly once); the seats timed out here ([] when none was due any
        more)."""
        async with self.engine.begin() as conn:
            game = await self.repository.game(conn, game_id, lock=True)
            if game is None or not is_due(game):
                return ()
            applied = await self._expire_locked(conn, game)
        return self._after_expiry(game_id, applied)

    def _after_expiry(self, game_id: str, applied: _Expired) -> tuple[int, ...]:
        """Once the timeouts' transaction committed: the cache, the streams, the bots."""
        if applied.match is not None:
            self._put(game_id, applied.version, applied.match)
        if applied.seats:
            if not self.notify:
                self.fanout.publish(game_id)
            for how in applied.kinds:
                if self.on_timeout is not None:
                    self.on_timeout(how)
        if applied.owed:
            self.kick(game_id)
        return applied.seats

    async def _expire_locked(self, conn: AsyncConnection, game: GameRow) -> _Expired:
        """The timeouts of a locked game row read with the database's clock, in the caller's
        transaction. Each seat whose deadline passed, the earliest first (a seat whose turn an
        earlier timeout ended is skipped): `abandon` ends the game (a public `timeout`
        event, as `POST …/abandon` ends it); `auto` logs a public `timeout` event, then
        plays the seat's whole turn (every step, while its turn lasts:
        :func:`api.games.clock.deadlines_after`) with the `basic` bot's choice from the
        seat's view, seeded by the game's bot seed, the version and the seat
        (:func:`api.games.bots.move_seed`): a replay of the log gives the same game."""
        clock = clock_of(game)
        now = from_epoch(game.db_now)
        seats = due(game.deadlines, now)
        if clock is None or not seats or game.status != "active":
            return _Expired()
        state = SimpleNamespace(**game._mapping)
        timeouts = list(game.timeouts or [])
        rules = registry.make(game.ruleset, game.options)
        bot_seed = game.bot_seed or game.seed
        done: list[int] = []
        owed = False
        match = await self._take(conn, game)  # out of the cache: an error drops it
        for seat in seats:
            entry = entry_of(state.deadlines, seat)
            if entry is None:  # an earlier timeout's moves ended this seat's turn
                continue
            start = state.version
            timeout = TimeoutEvent(
                seat=seat, data=TimeoutData(on_timeout=clock.on_timeout, version=start)
            )
            if clock.on_timeout == "abandon":
                await self.repository.add_events(
                    conn, game.id, [StoredEvent(state.event_seq + 1, event_document(timeout), None)]
                )
                timeouts.append({"seat": seat, "from": start, "to": start})
                await self.repository.timed_out(conn, game.id, timeouts, abandoned=True)
                if self.notify:
                    await self.repository.abandon(conn, game.id)  # its NOTIFY (status kept)
                done.append(seat)
                return _Expired((seat,), (clock.on_timeout,), match, start, False)
            since = entry["since"]
            extra: list[EventBase] = [timeout]
            for _ in range(TIMEOUT_STEPS):
                mine = entry_of(state.deadlines, seat)
                if mine is None or mine["since"] != since or match.result() is not None:
                    break
                view = match.view(seat)
                action = choose(
                    rules, view, level="basic", seed=move_seed(bot_seed, state.version, seat)
                )
                before = (match.index, match.phase)
                events = extra + match.apply(seat, action)
                extra = []
                written = await self._write(conn, state, seat, action, match, before, events)
                state.version += 1
                state.event_seq += len(events)
                state.deadlines = written.deadlines
                owed = written.bot_pending
                if match.result() is not None:
                    state.status = "over"
            timeouts.append({"seat": seat, "from": start, "to": state.version})
            done.append(seat)
            if state.status != "active":
                break
        await self.repository.timed_out(conn, game.id, timeouts, abandoned=False)
        return _Expired(tuple(done), (clock.on_timeout,) * len(done), match, state.version, owed)

    async def sweep_clocks(self, engine: AsyncEngine | None = None, batch: int = 20) -> int:
        """Apply the passed deadlines of up to `batch` games, each in its own transaction,
        the earliest first, each game locked with `FOR UPDATE SKIP LOCKED` (a game another
        replica or a request holds is theirs to apply); then move on the sweep's bounds that
        passed before their deadlines (`GameRepository.catch_up_sweep`, at most
        `CATCH_UP_BATCH`); how many games had timeouts."""
        applied = 0
        for _ in range(batch):
            async with (engine or self.engine).begin() as conn:
                now = from_epoch(await self.repository.now(conn))
                game = await self.repository.due_clock(conn, now)
                if game is None:
                    break
                expired = await self._expire_locked(conn, game)
            self._after_expiry(game.id, expired)
            applied += 1
        async with (engine or self.engine).begin() as conn:  # after: the timeouts first
            now = from_epoch(await self.repository.now(conn))
            await self.repository.catch_up_sweep(conn, now, CATCH_UP_BATCH)
        return applied

    # -- bots -----------------------------------------------------------------------------

    def kick(self, game_id: str) -> None:
        """Play the game's owed bot moves in the background (one driver per game and
        process; a kick while it runs makes it look again once done)."""
        if self.hold:
            return
        running = self._driving.get(game_id)
        if running is not None and not running.done():
            self._again.add(game_id)
            return
        task = asyncio.get_running_loop().create_task(self._drive(game_id))
        self._driving[game_id] = task

        def done(finished: asyncio.Task[None]) -> None:
            if self._driving.get(game_id) is finished:
                del self._driving[game_id]
            if game_id in self._again:
                self._again.discard(game_id)
                self.kick(game_id)

        task.add_done_callback(done)

    async def close(self, grace: float = CLOSE_GRACE_SECONDS) -> None:
        """Stop this process's background work before its engine is disposed (the app's
        shutdown, a test's end): no bot move starts any more; the move under way, the shared
        commits and the shared reads of the log finish, or are cancelled past `grace` seconds
        and awaited, so none is left holding a connection, or a transaction and its locks,
        once the engine is gone (a connection returned after the pool's disposal stayed
        open in the disposed pool). The game owed a move is the sweep's, here or elsewhere."""
        self.hold = True
        self._again.clear()
        group = getattr(self.repository, "group_commit", None)
        hot_writes = getattr(self.repository, "hot_writes", None)

        def pending() -> set[asyncio.Future[Any]]:
            """What is under way now: a batch that ends may start the next one."""
            tasks: set[asyncio.Future[Any]] = {*self._driving.values()}
            tasks |= {flight.task for flight in self._flights.values()}
            if group is not None:
                tasks |= group.tasks
            if hot_writes is not None:
                tasks |= hot_writes.tasks
            if self._seat_reads is not None:
                tasks |= self._seat_reads.tasks
            return tasks

        loop = asyncio.get_running_loop()
        until = loop.time() + grace
        while (under_way := pending()) and (left := until - loop.time()) > 0:
            await asyncio.wait(under_way, timeout=left)
        if hot_writes is not None:
            hot_writes.stop()  # what waits for a shared statement waits no more
        if self._seat_reads is not None:
            self._seat_reads.stop()
        late = pending()
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late)

    async def idle(self) -> None:
        """Wait until no bot move is being played by this process (tests)."""
        while self._driving:
            await asyncio.gather(*list(self._driving.values()), return_exceptions=True)
            await asyncio.sleep(0)

    async def _drive(self, game_id: str) -> None:
        """Play owed bot moves, each in its own transaction, until a person is to act or the
        game is over. Each move is thought at a version (off the event loop) and applied only
        if the locked row is still at that version: a move owed once is played once, by
        whichever process or replica gets there first; the others think again or stop."""
        try:
            while not self.hold and await self._bot_move(game_id):
                pass
        except Exception:  # the sweep tries again later; never an unhandled task error
            log.exception("game %s: a bot move failed", game_id)

    async def _bot_move(self, game_id: str) -> bool:
        """One owed bot move; whether to look again. A game with an expert seat thinks under
        its owner's lock (api.games.bots.OwnerLocks): its quota is checked, the move thought
        and charged before another of that owner's expert moves or hints starts here."""
        async with self.reader.connect() as conn:
            game = await self.repository.game(conn, game_id)
            if game is None or game.status != "active" or not game.bot_pending:
                return False
            experts = any(b == "expert" for _, b in await self._names(conn, game_id))
        owner = game.bot_owner if experts and self.limits.cpu_seconds > 0 else None
        async with self.owner_locks.holding(owner):
            return await self._owed_move(game_id)

    async def _owed_move(self, game_id: str) -> bool:
        async with self.reader.connect() as conn:
            game = await self.repository.game(conn, game_id)
            if game is None or game.status != "active" or not game.bot_pending:
                return False
            bots = [b for _, b in await self._names(conn, game_id)]
            match = await self._match(conn, game)
            seat = bot_seat(match, bots)
            if seat is None:
                return False
            view = copy.deepcopy(match.view(seat))  # its own: the cached match moves on
            payloads = await self.repository.round_events(conn, game, seat)
            level = bots[seat]
            assert level is not None
            if level == "expert" and game.bot_owner is not None and self.limits.cpu_seconds > 0:
                since = self.limits.since(time.time())
                if self.limits.over(await self.repository.bot_cpu(conn, game.bot_owner, since)):
                    level = "basic"  # past the owner's quota: cheap moves, never a stall
        shown = [e for e in map(decode_event, payloads) if isinstance(e, EventBase)]
        seed = move_seed(game.bot_seed or 0, game.version, seat)
        try:
            action, cpu = await self.thinker.think(
                game.ruleset, game.options, view, shown, level, seed
            )
        except Exception:
            if level == "basic":
                raise
            # the same seed fails the same way at every retry: the cheap move instead,
            # never a game stalled on a search that cannot finish
            log.exception("game %s: the %s bot's search failed, playing basic", game_id, level)
            action, cpu = await self.thinker.think(
                game.ruleset, game.options, view, shown, "basic", seed
            )
        async with self.engine.begin() as conn:
            locked = await self._game(conn, game_id, lock=True)
            if game.bot_owner is not None:  # spent, whether or not the move is still owed
                minute = int(time.time() // 60)
                await self.repository.charge_bot_cpu(conn, game.bot_owner, minute, cpu)
            if locked.version != game.version or locked.status != "active":
                return True  # moved meanwhile (a person, another replica): think again
            match = await self._take(conn, locked)
            before = (match.index, match.phase)
            try:
                events = match.apply(seat, action)
            except EngineError:
                self._put(game_id, locked.version, match)
                raise
            moved = await self._write(conn, locked, seat, action, match, before, events)
            owed = moved.bot_pending
        self._put(game_id, locked.version + 1, match)
        if not self.notify:
            self.fanout.publish(game_id)
        return owed

    async def sweep(
        self,
        interval: float,
        batch: int = 20,
        engine: AsyncEngine | None = None,
        clock_interval: float | None = None,
    ) -> None:
        """Forever: every `interval`, the games owing a bot move for longer than `interval`
        (their replica died before playing it) are played here (`FOR UPDATE SKIP LOCKED`:
        every replica sweeps, none waits on another's locks; the version check makes each
        move once); every `clock_interval` (issue 26), the clocked games whose deadline has
        passed get their timeouts (:meth:`sweep_clocks`): a timeout applies at most
        `clock_interval` late, plus the time to apply it, when nobody reads or acts on the
        game. `engine`: the sweep's own (one connection), so a database gone silent holds
        none of the requests' pooled connections; an unavailable database is one log line
        per sweep, no traceback."""
        tick = min(interval, clock_interval or interval)
        next_bots = time.monotonic() + interval
        while True:
            try:  # a pause, or the end at shutdown (never cancelled in a statement: below)
                await asyncio.wait_for(self._stop_sweeping.wait(), tick)
                return
            except TimeoutError:
                pass
            if clock_interval is not None:
                await self._swept("clock", self.sweep_clocks(engine, batch))
            if time.monotonic() < next_bots:
                continue
            next_bots = time.monotonic() + interval
            if self.hold:
                continue
            owing = await self._swept("bot", self._owing(engine or self.engine, interval, batch))
            for game_id in owing or ():
                self.kick(game_id)

    def stop_sweeping(self) -> None:
        """End :meth:`sweep` after its current pass. A shutdown waits for that pass rather
        than cancelling it: a task cancelled while its connection waits on aiosqlite's thread
        (SQLite's lock held by another writer) left the pool's later close waiting on that
        thread forever, and the app never finished shutting down."""
        self._stop_sweeping.set()

    async def _owing(self, engine: AsyncEngine, interval: float, batch: int) -> list[str]:
        async with engine.begin() as conn:
            return await self.repository.owing_bots(conn, interval, batch)

    @staticmethod
    async def _swept(what: str, work: Awaitable[_T]) -> _T | None:
        """A sweep's `work`, or None when the database is down or not migrated: one log
        line, no traceback (an unexpected error: its traceback)."""
        try:
            return await work
        except Exception as exc:
            reason = unavailable(exc)
            if reason is None and isinstance(exc, DBAPIError):
                reason = str(exc.orig).strip().splitlines()[0][:200]
            if reason is None:
                log.exception("the %s sweep failed", what)
            else:
                log.warning("the %s sweep could not reach the games: %s", what, reason)
            return None

    # -- hints ----------------------------------------------------------------------------

    async def hint(
        self,
        game_id: str,
        caller: Credential | None,
        network: str | None = None,
        body_refusal: Exception | None = None,
    ) -> HintOut:
        """The expert's suggestion for the caller's seat, on its turn (one in flight per
        seat); the export then marks the seat's next action `hint_used`. Its think time is
        charged to the bot-CPU quota of the caller's account, else of its `network`, and
        past that quota a hint is refused (429 `bot-quota`): hints are budgeted like bots,
        so a network's seats (as many as the games it creates) cannot keep the thinkers
        busy without end. `body_refusal`: a body it takes none of, refused once the caller
        and the game are checked (api.http.body.unwanted_body)."""
        if caller is None:
            raise Unauthenticated(say(HINT_NEEDS_TOKEN))
        owner = owner_of(caller.account_id, network)
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller)
            due_now = is_due(game)
        refuse_body(body_refusal)
        if due_now:  # a deadline passed: its timeout first, then the game as it is
            await self.expire(game_id)
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller)
            assert seat is not None
            if game.status == "waiting":
                raise await self._waiting(conn, game_id)
            if game.status != "active":
                raise GameStateConflict(
                    "game-over", say(NO_MORE_ACTIONS, status=_status(game.status))
                )
            if not game.hints:
                raise Conflict(say(HINTS_OFF), code="hints-off")
            match = await self._match(conn, game)
            if seat not in match.actors() or not match.legal_actions(seat):
                raise GameStateConflict("not-your-turn", say(NOT_YOUR_TURN_HINT, seat=seat))
            view = copy.deepcopy(match.view(seat))
            payloads = await self.repository.round_events(conn, game, seat)
        if self.limits.cpu_seconds <= 0:
            owner = None
        if owner is not None:  # refused before the seat's claim: not one of its minute's
            async with self.reader.connect() as conn:
                await self._check_hint_quota(conn, owner)
        claimed = await self._claim_hint(game_id, seat)
        try:
            # the seat's claim first (one in flight per seat: the others are refused at
            # once), then the owner's lock (api.games.bots.OwnerLocks): its quota checked
            # again, the hint thought and charged before another think of that owner starts
            async with self.owner_locks.holding(owner):
                if owner is not None:
                    async with self.reader.connect() as conn:
                        await self._check_hint_quota(conn, owner)
                shown = [e for e in map(decode_event, payloads) if isinstance(e, EventBase)]
                found, cpu = await self.thinker.think_hint(
                    game.ruleset,
                    game.options,
                    view,
                    shown,
                    move_seed(game.bot_seed or game.seed, game.version, seat),
                )
                async with self.engine.begin() as conn:
                    await self.repository.add_hint(conn, game_id, seat, game.version)
                    if owner is not None:
                        minute = int(time.time() // 60)
                        await self.repository.charge_bot_cpu(conn, owner, minute, cpu)
        finally:
            async with self.engine.begin() as conn:
                await self.repository.release_hint(conn, game_id, seat, claimed)
        return HintOut(
            action=msgspec.to_builtins(found.action),
            values=[
                HintValue(action=msgspec.to_builtins(v.action), value=v.value) for v in found.values
            ],
            level=found.level,
            samples=found.samples,
        )

    async def _claim_hint(self, game_id: str, seat: int) -> float:
        """Mark the seat's hint in flight, counted in its minute, in the database (every
        replica sees it): `hint-in-flight` while one is, `hint-rate-limited` (429, with
        `Retry-After`) past the minute's limit. A claim left by a process that died lapses
        after a few budgets. The claim's time, which releases it."""
        now = time.time()
        stale = 10.0 + 4 * self.thinker.seconds
        limit = self.limits.hints_per_minute
        async with self.engine.begin() as conn:
            if await self.repository.claim_hint(conn, game_id, seat, now, stale, limit):
                return now
            started, window = await self.repository.hint_state(conn, game_id, seat)
        if started is not None and started >= now - stale:
            raise Conflict(say(HINT_IN_FLIGHT), code="hint-in-flight")
        seconds = max(1, math.ceil((window or now) + 60 - now))
        raise TooManyAttempts(
            say(HINT_RATE_LIMITED, limit=limit, seconds=seconds),
            retry_after=seconds,
            code="hint-rate-limited",
        )

    async def _check_hint_quota(self, conn: AsyncConnection, owner: str) -> None:
        """Refuse a hint once the caller's bots and hints spent their quota."""
        await self._check_quota(conn, owner, HINT_QUOTA)

    async def _check_bot_quota(self, conn: AsyncConnection, owner: str) -> None:
        """Refuse a new game with an expert bot once its owner's bots spent their quota."""
        await self._check_quota(conn, owner, BOT_QUOTA)

    async def _check_quota(self, conn: AsyncConnection, owner: str, message: Text) -> None:
        """429 `bot-quota` (`message`, with its Retry-After) once `owner` spent its bot-CPU
        quota in the window (none when the quota is off)."""
        if self.limits.cpu_seconds <= 0:
            return
        now = time.time()
        used = await self.repository.bot_cpu(conn, owner, self.limits.since(now))
        if not self.limits.over(used):
            return
        seconds = self.limits.retry_after(used, now)
        raise TooManyAttempts(
            say(
                message,
                owner=owner.partition(":")[0],
                quota=f"{self.limits.cpu_seconds:g}",
                minutes=self.limits.window_minutes,
                seconds=seconds,
            ),
            retry_after=seconds,
            code="bot-quota",
        )

    async def abandon(
        self, game_id: str, caller: Credential | None, body_refusal: Exception | None = None
    ) -> AbandonOut:
        """End the game (any seat; a waiting one by its creator's session only; a game of
        bots only by its creator: the session that created it, or the `creator_token` its
        creation answered when no session did, since no seat of it has a token).
        `body_refusal`: a body it takes none of (api.http.body.unwanted_body), refused once
        the caller and the game are checked."""
        if caller is None:
            raise Unauthenticated(say(ABANDONING_NEEDS_TOKEN))
        async with self.engine.begin() as conn:
            game = await self._game(conn, game_id, lock=True)
            creator = caller.account_id is not None and caller.account_id == game.creator_id
            if not creator:
                try:
                    await self._seat(conn, game_id, caller)
                except Unauthenticated:  # no seat's: the creator's token of a game of bots only?
                    held = await self.repository.creator_token_hash(conn, game_id)
                    if held is None or not hmac.compare_digest(held, caller.digest):
                        raise
                    creator = True
            elif game.status == "active":
                # once started, its seats end it; a game of bots only (an open table its
                # creator filled with bots), its creator, else nobody could
                names = await self._names(conn, game_id)
                if any(bot is None for _, bot in names):
                    await self._seat(conn, game_id, caller)
            if game.status == "waiting" and not creator:  # Edge cases, "Open tables"
                raise Forbidden(say(NOT_THE_CREATOR, what="cancel"), code="not-the-creator")
            refuse_body(body_refusal)  # the caller, the game and the right to end it checked
            if game.status not in ("active", "waiting"):
                raise GameStateConflict("game-over", say(ALREADY, status=_status(game.status)))
            await self.repository.abandon(conn, game_id)
        self.fanout.publish(game_id)
        return AbandonOut(
            id=game_id, status="abandoned", version=game.version, seed=game.seed, salt=game.salt
        )

    # -- stream tickets -------------------------------------------------------------------

    async def ticket(
        self, game_id: str, caller: Credential | None, body_refusal: Exception | None = None
    ) -> TicketOut:
        """A stream ticket for the caller's seat. `body_refusal`: a body it takes none of,
        refused once the caller and the game are checked (api.http.body.unwanted_body)."""
        if caller is None:
            raise Unauthenticated(say(TICKET_NEEDS_TOKEN))
        ticket = new_token()
        async with self.engine.begin() as conn:
            await self._game(conn, game_id)
            seat = await self._seat(conn, game_id, caller)
            refuse_body(body_refusal)
            await self.repository.add_ticket(
                conn, token_hash(ticket), game_id, seat, TICKET_SECONDS, caller.digest
            )
        return TicketOut(ticket=ticket, expires_in=TICKET_SECONDS)

    async def redeem(self, game_id: str, ticket: str, use: bool = True) -> tuple[int, str]:
        """The seat of a valid, unused, unexpired ticket of this game whose holder (the token
        it was given to) still holds that seat, and the holder's hash; the ticket is used up
        (`use` false: a HEAD request's check, which leaves it for the stream). A ticket given
        before its holder was recorded (migration 0014) is refused as unknown: the client
        asks a new one."""
        async with self.engine.begin() as conn:
            found = await self.repository.use_ticket(conn, game_id, token_hash(ticket), use)
            if found is not None and found[1] is not None:
                seat, holder = found[0], found[1]
                if await self.repository.holds_seat(conn, game_id, seat, holder):
                    return seat, holder
            raise Unauthenticated(say(TICKET_UNKNOWN))  # in the transaction: nothing used up

    async def holds(self, game_id: str, seat: int, digest: str) -> bool:
        """Whether the token whose sha256 is `digest` still holds `seat` of the game: its
        token, or a live session of the account that joined it (a stream's periodic check:
        a session logged out or expired, a seat token revoked, no longer does)."""
        async with self.reader.connect() as conn:
            return await self.repository.holds_seat(conn, game_id, seat, digest)

    async def viewer(self, game_id: str, caller: Credential | None) -> int | None:
        """Check the game exists and the caller (if any) is one of its seats."""
        async with self.reader.connect() as conn:
            await self._game(conn, game_id)
            return await self._seat(conn, game_id, caller)

    # -- helpers --------------------------------------------------------------------------

    async def _game(self, conn: AsyncConnection, game_id: str, lock: bool = False) -> GameRow:
        game = await self.repository.game(conn, game_id, lock)
        if game is None:
            raise _not_found(game_id)
        return game

    async def _game_and_seat(
        self, conn: AsyncConnection, game_id: str, caller: Credential | None, lock: bool = False
    ) -> tuple[GameRow, int | None]:
        """The game (locked for an action) and the caller's seat, in one query when it is a
        seat token (the hot path of every action); else as :meth:`_seat` finds it."""
        if caller is None:
            return await self._game(conn, game_id, lock), None
        game = await self.repository.game_and_seat(conn, game_id, caller.digest, lock)
        if game is None:
            raise _not_found(game_id)
        if game.token_seat is not None:
            return game, self._seat_of(game_id, caller, game)
        if game.db_now is not None:
            self._db_clock = (float(game.db_now), time.monotonic())
        # no seat's token (any more: revoked): never again taken for one on the hot path,
        # where each try would drop the game's cached match
        self._tokens.get(game_id, {}).pop(caller.digest, None)
        return game, await self._seat(conn, game_id, caller)

    def _seat_of(self, game_id: str, caller: Credential, game: GameRow) -> int:
        """The seat of the caller's token, read with the game (`token_seat`): kept, as the
        database's clock the row was read with."""
        if game.db_now is not None:
            self._db_clock = (float(game.db_now), time.monotonic())
        seat = int(game.token_seat)
        tokens = self._tokens.get(game_id)
        if tokens is None:
            tokens = self._tokens[game_id] = {}
            while len(self._tokens) > self.cache_size:
                self._tokens.popitem(last=False)
        tokens[caller.digest] = seat
        return seat

    async def _seat(
        self, conn: AsyncConnection, game_id: str, caller: Credential | None
    ) -> int | None:
        """The seat whose token this is (None without a caller), or the seat the caller's
        account joined; `Unauthenticated` for anyone else."""
        if caller is None:
            return None
        seat = await self.repository.seat_by_token(conn, game_id, caller.digest)
        if seat is None and caller.account_id is not None:
            seat = await self.repository.seat_by_account(conn, game_id, caller.account_id)
        if seat is None:
            raise Unauthenticated(say(NOT_A_SEAT))
        return seat

    async def join(
        self, game_id: str, seat: int, caller: Caller, body_refusal: Exception | None = None
    ) -> SeatJoined:
        """Bind a seat to the account it was created for: that account's session confirms.
        `body_refusal`: a body it takes none of, refused once the game and the seat are
        found and the seat is the caller's (api.http.body.unwanted_body)."""
        async with self.engine.begin() as conn:
            await self._game(conn, game_id)
            # the path takes any integer (checked after the session: api-contract.md, "Order
            # of checks"); one no game has is no seat, never a parameter the database refuses
            row = None
            if 0 <= seat < MAX_PLAYERS:
                row = await self.repository.seat_binding(conn, game_id, seat)
            if row is None:
                raise NotFound(say(NO_SEAT, game=game_id, seat=seat))
            if row.account_id != caller.account_id:
                raise Forbidden(
                    say(NOT_YOUR_SEAT, seat=seat, pseudo=caller.pseudo), code="not-your-seat"
                )
            refuse_body(body_refusal)
            await self.repository.join(conn, game_id, seat)
        return SeatJoined(
            game_id=game_id, seat=seat, name=row.name, account=caller.pseudo, joined=True
        )

    async def _names(
        self, conn: AsyncConnection, game_id: str, cache: bool = True
    ) -> list[tuple[str, str | None]]:
        """The seats' names, read once per process: they never change once the game has
        started (a query fewer on every read of a game); a waiting game's are read afresh
        (`cache` false: claims, leaves and bots change them)."""
        names = self._names_cache.get(game_id)
        if names is None or not cache:
            names = await self.repository.names(conn, game_id)
            if not cache:
                return names
            self._names_cache[game_id] = names
            while len(self._names_cache) > self.cache_size:
                self._names_cache.popitem(last=False)
        return names

    def _put(self, game_id: str, version: int, match: Match, hot: _Hot | None = None) -> None:
        """Cache the game's `match` at `version` (committed), and keep its watchers' views."""
        self._cache[game_id] = _Cached(version, match, hot)
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        if match.result() is not None and game_id not in self._finished:
            self._finished[game_id] = None
            while len(self._finished) > FINISHED_KEPT:
                gone, _ = self._finished.popitem(last=False)
                self._cache.pop(gone, None)
        self._keep_views(game_id, version, match)

    async def _match(self, conn: AsyncConnection, game: GameRow) -> Match:
        """The game's match at its row's version, for reading (it stays in the cache)."""
        cached = self._cache.get(game.id)
        if cached is not None and cached.version == game.version:
            return cached.match
        match = await self._take(conn, game)
        current = self._cache.get(game.id)  # an action may have moved on meanwhile
        if current is None or current.version < game.version:
            self._put(game.id, game.version, match)
        return match

    async def _take(self, conn: AsyncConnection, game: GameRow) -> Match:
        """The game's match at its row's version, out of the cache, to be changed.

        A cached match behind the row (another process applied the last actions) catches up
        by applying only the actions it lacks; without one, the log is replayed whole (once
        per process and game: after a restart, or when the cache let it go)."""
        cached = self._cache.pop(game.id, None)  # ours now: nobody else changes it
        if cached is not None and cached.version == game.version:
            return cached.match
        if cached is not None and cached.version > game.version:  # a reader's older row
            self._cache[game.id] = cached
            return await self._replay(conn, game)
        if cached is not None and cached.version < game.version:
            match = cached.match
            for seat, action in await self.repository.actions(
                conn, game.id, cached.version, game.version
            ):
                match.apply(seat, action)
            return match
        return await self._replay(conn, game)

    async def _replay(self, conn: AsyncConnection, game: GameRow) -> Match:
        """The match at the row's version: resumed from the game's checkpoint when it has one
        at or before that version (the round's start, and the round's actions it holds up to
        that version: :data:`PROGRESS_EVERY`), then the log's actions since read and applied
        (a cold load costs about the same at any length of log); else the whole log replayed,
        which is also what happens when resuming fails in any way (a checkpoint that does not
        fit the log is never trusted over it)."""
        checkpoint = await self.repository.checkpoint(conn, game)
        if checkpoint is not None:
            resumed = self._resumed(game, checkpoint)
            if resumed is not None:
                rows = await self.repository.actions(conn, game.id, resumed.played, game.version)
                if self._caught_up(game, resumed, rows):
                    return resumed
        actions = await self.repository.actions(conn, game.id, 0, game.version)
        record = MatchRecord(
            ruleset=game.ruleset,
            options=game.options,
            rules_version=game.rules_version,
            seed=game.seed,
            players=game.players,
            actions=actions,
        )
        return replay(record)

    @staticmethod
    def _resumed(game: GameRow, checkpoint: MatchCheckpoint) -> Match | None:
        """The match resumed at `checkpoint` (its `played` applied up to the row's version);
        None (the whole log then) if the engine refuses it (`bad-checkpoint`). Nothing of that
        reaches a client: a refusal here would carry the cards of the round's start."""
        try:
            return Match.resume(
                registry.make(game.ruleset, game.options),
                game.players,
                game.seed,
                checkpoint,
                game.rules_version,
                upto=game.version,
            )
        except Exception as exc:  # the whole log decides; this was only a shortcut
            _distrusted(game, exc)
            return None

    @staticmethod
    def _caught_up(game: GameRow, match: Match, rows: Sequence[tuple[int, Action]]) -> bool:
        """Apply the log's actions after the resumed `match`; False (the whole log then) if
        one is refused."""
        try:
            for seat, action in rows:
                match.apply(seat, action)
        except Exception as exc:  # the whole log decides
            _distrusted(game, exc)
            return False
        log.debug(
            "game %s: resumed at round %d, %d actions from its checkpoint and %d from the log",
            game.id,
            match.index + 1,
            len(match.history) - len(rows),
            len(rows),
        )
        return True

    async def _waiting(self, conn: AsyncConnection, game_id: str) -> GameStateConflict:
        """The refusal of a play in a waiting game (409 `game-waiting`), naming its open seats."""
        seats = await self.repository.open_seats(conn, game_id)
        return GameStateConflict(
            "game-waiting", say(GAME_WAITING, seats=", ".join(map(str, seats)))
        )

    def _game_out(
        self,
        game: GameRow,
        seat: int | None,
        names: list[tuple[str, str | None]],
        match: Match | None = None,
        open_seats: Sequence[int] = (),
        view: BaseView | None = None,
        hot: _Hot | None = None,
    ) -> GameOut:
        """The game as `seat` sees it, its view that of `match` at the row's version (or
        `view`, when given: that view, rendered before); `hot`: what this process holds of
        the row at its version, if it holds it (its clock and deadlines taken from there,
        not converted and parsed again)."""
        revealed = game.status not in ("active", "waiting")
        # a waiting game's round is not dealt to anyone yet (nor a cancelled one's, which has
        # no event): the spectator's view for all
        if view is None:
            assert match is not None
            view = match.view(None if game.status == "waiting" or game.event_seq == 0 else seat)
        if game.status in ("abandoned", "waiting"):  # nobody may act (any more, or yet)
            view = msgspec.structs.replace(
                view,
                current_player=None,
                actors=[],
                legal_actions=None if seat is None else [],
            )
        if hot is not None and hot.shown is not None and game.status == "active":
            clock: Clock | None = hot.clock
            shown = hot.shown
        else:
            clock = clock_of(game)
            # an abandoned game's clocks stopped with it
            shown = parsed(game.deadlines if game.status == "active" else None)
        return GameOut(
            # a clocked game's (all three UNSET, so absent, without a clock)
            clock=msgspec.UNSET if clock is None else clock,
            deadlines=msgspec.UNSET if clock is None else shown,
            deadline=msgspec.UNSET if clock is None else own_deadline(shown, seat),
            id=game.id,
            ruleset=game.ruleset,
            options=game.options,
            rules_version=game.rules_version,
            version=game.version,
            status=game.status,
            seat=seat,
            players=[
                SeatOut(seat=i, name=n, bot=b, open=i in open_seats)
                for i, (n, b) in enumerate(names)
            ],
            seed_commitment=game.seed_commitment,
            view=view,
            result=game.result,
            seed=game.seed if revealed else None,
            salt=game.salt if revealed else None,
            seed_decimal=str(game.seed) if revealed else None,
            open_seats=list(open_seats),
            seeded_by_creator=game.seeded_by_creator,
            rematch=game.rematch_id,
        )

    @staticmethod
    def _refusal(exc: IllegalMove, match: Match, seat: int) -> Conflict | Invalid:
        """Who may act and when is a conflict; any other illegal move names its `reason` and
        the seat's legal actions (never the stateless `legal` codes)."""
        if exc.reason in STATUS_REASONS:
            return GameStateConflict(exc.reason, exc.said)
        return IllegalAction(
            exc.said,
            code=exc.code,
            extra={
                "reason": exc.reason,
                "legal_actions": msgspec.to_builtins(match.legal_actions(seat)),
            },
        )


__all__ = [
    "Credential",
    "Expected",
    "GameService",
    "StreamPage",
    "commitment",
    "seat_credential",
]
