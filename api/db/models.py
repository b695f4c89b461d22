"""The tables: stored games (issue 11, contract "Stored games"), accounts and score sheets
(issue 12, contract "Accounts, score sheets, history").

A game is its match record: ruleset, options, rules version, seed and salt, seats, and an
append-only action log numbered per game (unique `(game_id, seq)`). Events are stored as each
viewer may see them (`visibility`: the seats allowed, NULL for public) so that
`events?after=N` is one indexed read. Seat tokens and stream tickets are stored only hashed.
JSON columns are `JSON`, `JSONB` on PostgreSQL; the same models serve PostgreSQL and SQLite.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
    func,
    text,
    true,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: JSON everywhere, JSONB (binary, indexable) on PostgreSQL.
JsonType = JSON().with_variant(JSONB(), "postgresql")

#: Constraint names fixed by convention, so migrations (and SQLite batch mode) can name them.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JsonType, list[Any]: JsonType}  # noqa: RUF012


def table(model: type[Base]) -> Table:
    """A model's table, typed as one, for Core statements (`insert(table(Account))`)."""
    return cast(Table, model.__table__)


def _now() -> Mapped[datetime]:
    return mapped_column(DateTime(timezone=True), server_default=func.now(), nullable=False)


def _game_fk() -> Mapped[str]:
    return mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)


def _log_key() -> Mapped[str]:
    """The game's id in its log (`game_actions`, `game_events`), without a foreign key: each row
    is written by the statement that moves the game's row, or with the game; triggers on
    `games` delete and truncate the log with the games (migration 0018)."""
    return mapped_column(String(32), primary_key=True)


class Game(Base):
    """One stored match; `version` counts the actions applied (contract: `ETag`), `event_seq`
    the events recorded."""

    __tablename__ = "games"
    #: The sweep's query: active games owing a bot move (those found are filtered and sorted
    #: oldest first after the index scan: a sweep's cost grows with the games of bots
    #: thinking). Keyed on `id`, which no update changes, not `updated_at`, which every
    #: action does: PostgreSQL updates a row in place (a HOT update: no index entry written,
    #: the old version pruned from the page) only when no indexed column changed, so an
    #: action on a game without a bot writes no index (issue 27). Each page keeps a fifth of
    #: its space for those new versions (`fillfactor`).
    __table_args__ = (
        Index(
            "ix_games_bot_pending",
            "id",
            postgresql_where=text("bot_pending"),
            sqlite_where=text("bot_pending"),
        ),
        #: The open tables' listing (issue 26): waiting games, newest first.
        Index(
            "ix_games_waiting",
            "created_at",
            "id",
            postgresql_where=text("status = 'waiting'"),
            sqlite_where=text("status = 'waiting'"),
        ),
        #: The clock sweep's query: clocked games by a lower bound of their earliest deadline
        #: (`sweep_at`, not `deadline`, which moves at almost every clocked action).
        Index(
            "ix_games_sweep_at",
            "sweep_at",
            postgresql_where=text("sweep_at IS NOT NULL"),
            sqlite_where=text("sweep_at IS NOT NULL"),
        ),
        {"postgresql_with": {"fillfactor": 80}},
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]]
    rules_version: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    salt: Mapped[str] = mapped_column(String(64))
    seed_commitment: Mapped[str] = mapped_column(String(64))
    players: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="active")  # active|over|abandoned
    version: Mapped[int] = mapped_column(Integer, default=0)
    event_seq: Mapped[int] = mapped_column(Integer, default=0)  # the last event's seq
    result: Mapped[dict[str, Any] | None]  # the match's result once over
    #: Where the match stood when its current round started (`MatchCheckpoint` as JSON text,
    #: written with the action that started the round): a cold load replays only the actions
    #: after it. Text, not JSONB: never queried, read whole (9 KB in the last round of an
    #: 8-player numwars-classic match since its format 2: the finished rounds' breakdowns
    #: compressed, read only when the match needs them).
    checkpoint: Mapped[str | None] = mapped_column(Text)
    #: The current round's actions so far (`StoredProgress` as JSON text: the checkpoint's
    #: `actions` it continues, `played`, and the round's `state` after them where its ruleset
    #: keeps one: engine/<game>/state.py), written with every 16th action of a round and
    #: cleared by the action that starts the next: a cold load applies them after the
    #: checkpoint and reads only the log since. Apart from `checkpoint`, so that only they
    #: are rewritten.
    progress: Mapped[str | None] = mapped_column(Text)
    #: The account that created it (a session is needed for numking and numwin games).
    creator_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="SET NULL")
    )
    #: The sha256 of the creator's token of a game of bots only created without a session
    #: (`creator_token` of its creation's answer, never stored): it ends the game, as the
    #: creator's session ends one it created (migration 0017). Never read with the game's
    #: row (`api.games.repository._GAME_COLUMNS`): only an abandon reads it.
    creator_token_hash: Mapped[str | None] = mapped_column(String(64))
    #: The bots' own seed (issue 25): each bot move draws from it, never from the deal's.
    bot_seed: Mapped[int | None] = mapped_column(BigInteger)
    #: A bot is among the actors: its move is owed (played by the replica that applied the
    #: last action, else by the next read, action or sweep).
    bot_pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: `hints: false` at creation turns hints off for the game.
    hints: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    #: The creation request as it came (`CreateGame` without its seed and players; issue 26):
    #: a rematch starts again from it wholesale, so every creation option comes along.
    created_with: Mapped[dict[str, Any] | None]
    #: The creator chose the seed (answers say `seeded_by_creator`).
    seeded_by_creator: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The game's rematch, once one was asked for (`POST /v1/games/{id}/rematch`).
    rematch_id: Mapped[str | None] = mapped_column(String(32))
    #: The turn clock (issue 26), `{"turn_seconds", "on_timeout"}`, NULL for none: read by
    #: `api.games.clock.clock_of` only.
    clock: Mapped[dict[str, Any] | None]
    #: Each clocked seat's deadline, `[{"seat", "at", "since"}]` (`at` RFC 3339 UTC from the
    #: database's clock, `since` the version its turn started at), NULL or [] for none.
    deadlines: Mapped[list[Any] | None]
    #: The earliest of `deadlines`, NULL when no clock runs.
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: The clock sweep's key: at or before `deadline` whenever that is set, so that no
    #: passed deadline escapes the sweep, but moved only when `deadline` comes earlier than
    #: it, is set or cleared (`api.games.repository.SWEEP_AT`), not when it moves later, as
    #: it does at almost every clocked action: that update stays HOT (see the table's
    #: indexes). The sweep moves a bound that passed before its deadline on to the deadline
    #: (`GameRepository.catch_up_sweep`). Read by the sweep only. On PostgreSQL a trigger
    #: sets it on a new row that has a deadline and no bound (an older replica's, in a
    #: rolling upgrade: migration 0015).
    sweep_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: The turns that ended by timeout, `[{"seat", "from", "to"}]`: the versions before and
    #: after the timeout (equal for an abandon): the late-move check and the export's marks.
    timeouts: Mapped[list[Any] | None]
    #: Whose bot-CPU quota the game's bots spend (`account:<id>` of its creator, else
    #: `network:<sha256 of the creator's network>`); None: no quota (rows written before).
    bot_owner: Mapped[str | None] = mapped_column(String(80))
    created_at: Mapped[datetime] = _now()
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class GameSeat(Base):
    """A seat of a game: its player's name and the sha256 of its token, never the token."""

    __tablename__ = "game_seats"

    game_id: Mapped[str] = _game_fk()
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: The account named for this seat at creation (`"account"` in `players`); it may act
    #: for the seat with its session once `joined` (`POST .../seats/{seat}/join`).
    account_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="SET NULL"), index=True
    )
    joined: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The bot level playing this seat (issue 25), None for a person.
    bot: Mapped[str | None] = mapped_column(String(16))
    #: An open seat (issue 26): nobody holds it yet (its `token_hash` is of a token never
    #: given); `open_name` is the name it was opened with (None: its claimer's pseudo).
    open: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    open_name: Mapped[str | None] = mapped_column(Text)
    #: The seat's token sealed for the session that claimed it (api.games.tables): the same
    #: session claiming again gets the same token back; nothing else can open it.
    claim_seal: Mapped[str | None] = mapped_column(Text)
    #: A rematch's seat whose token its player has not fetched yet (`POST …/rematch` with
    #: the old seat's credential issues it, once).
    token_pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: When the hint being computed for this seat started (Unix seconds), None when none is:
    #: one in flight per seat, whichever replica computes it.
    hint_started: Mapped[float | None] = mapped_column(Double)
    #: The seat's hints of the current minute: when the minute started, how many so far.
    hint_window: Mapped[float | None] = mapped_column(Double)
    hint_count: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))


class GameAction(Base):
    """The append-only action log; `seq` is the game `version` the action produced."""

    __tablename__ = "game_actions"

    game_id: Mapped[str] = _log_key()
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = _now()


class GameHint(Base):
    """A hint given to a seat at a version (issue 25): the export marks the action that seat
    played next as `hint_used`."""

    __tablename__ = "game_hints"

    game_id: Mapped[str] = _game_fk()
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)


class BotCpu(Base):
    """The bots' think time charged to an owner (a game's `bot_owner`), by the minute: the
    bot-CPU quota sums an owner's minutes of its rolling window."""

    __tablename__ = "bot_cpu"

    owner: Mapped[str] = mapped_column(String(80), primary_key=True)
    minute: Mapped[int] = mapped_column(Integer, primary_key=True)  # Unix seconds // 60
    seconds: Mapped[float] = mapped_column(Double, default=0.0)


class GameEvent(Base):
    """An event with its own per-game `seq`; `visibility` lists the seats that may see it
    (NULL: everyone, spectators included)."""

    __tablename__ = "game_events"

    game_id: Mapped[str] = _log_key()
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    visibility: Mapped[list[Any] | None]
    payload: Mapped[dict[str, Any]]


class IdempotencyKey(Base):
    """A seat's `Idempotency-Key` on a game: the request's hash and the first answer."""

    __tablename__ = "idempotency_keys"

    game_id: Mapped[str] = _game_fk()
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = _now()


class StreamTicket(Base):
    """A single-use, short-lived ticket for a browser's event stream, stored hashed."""

    __tablename__ = "stream_tickets"

    ticket_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), index=True
    )
    seat: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used: Mapped[bool] = mapped_column(Boolean, default=False)
    #: the sha256 of the token (a seat's or a session's) the ticket was given to: its stream
    #: checks that it still holds the seat (None: a ticket given before migration 0014)
    holder_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


# --- accounts (rules/app.md "Accounts") ------------------------------------------------------


class Account(Base):
    """A player's account. `pseudo_key` / `email_key` are the case-folded forms that make
    pseudos and emails unique case-insensitively; the password is kept only as an Argon2id
    hash."""

    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    pseudo: Mapped[str] = mapped_column(String(64))
    pseudo_key: Mapped[str] = mapped_column(String(64), unique=True)
    email: Mapped[str | None] = mapped_column(String(320))
    email_key: Mapped[str | None] = mapped_column(String(320), unique=True)
    email_verified: Mapped[bool] = mapped_column(Boolean, default=False)
    password_hash: Mapped[str] = mapped_column(Text)
    age_range: Mapped[str] = mapped_column(String(16))
    locale: Mapped[str] = mapped_column(String(8))
    terms_version: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = _now()


class AccountSession(Base):
    """A session: the sha256 of its bearer token (never the token), expiring, revocable by
    deleting the row."""

    __tablename__ = "account_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = _now()
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AccountToken(Base):
    """A single-use, expiring token sent by email: `purpose` is `verify` (the address in
    `email` is the one being verified) or `reset` (a password reset). Stored hashed."""

    __tablename__ = "account_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    purpose: Mapped[str] = mapped_column(String(16))
    email: Mapped[str | None] = mapped_column(String(320))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used: Mapped[bool] = mapped_column(Boolean, default=False)


class ApiKey(Base):
    """An integrator's API key (issue 21, contract "API keys"): the sha256 of the key, never
    the key. Metering only: a request carrying it is counted against the key's own quota
    (api/ops/ratelimit.py); it never acts as the account. Revoked by deleting the row; goes with
    its account. `last_used_at` is kept to within the limiter's cache time."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(Text)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = _now()
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class LoginThrottle(Base):
    """Attempts counted per key in a fixed window, in the database so that the limits hold
    across replicas (api/accounts/service.py, repository.py): log-ins per `login:<hash>`, `pair:<hash>:<network>`
    and `network:<network>`; `slow:<hash>:<network>` holds a failing network's last attempt
    past a login's ceiling (`window_start`); password changes per `account:<id>`, reset
    emails per `reset:<id>`."""

    __tablename__ = "login_throttle"

    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    window_start: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# --- score sheets (rules/app.md "Score sheets") -----------------------------------------------


class Sheet(Base):
    """A score sheet: a match played with physical cards. Owned by an account, or anonymous
    (Num Wars editions only) and edited with a sheet token kept only hashed."""

    __tablename__ = "scoresheets"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]]
    name: Mapped[str | None] = mapped_column(Text)
    owner_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    planned_rounds: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer, default=0)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = _now()
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


def _sheet_fk() -> Mapped[str]:
    return mapped_column(
        String(32), ForeignKey("scoresheets.id", ondelete="CASCADE"), primary_key=True
    )


class SheetPlayer(Base):
    """A player of a sheet, by position; `account_id` when the player is an account (kept
    NULL, the name staying, when that account is deleted), `confirmed` once that account
    confirmed the sheet (only then it counts in its stats)."""

    __tablename__ = "scoresheet_players"

    sheet_id: Mapped[str] = _sheet_fk()
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    account_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="SET NULL"), index=True
    )
    confirmed: Mapped[bool] = mapped_column(Boolean, default=False)


class SheetRound(Base):
    """A round of a sheet, `n` 1-based: what was sent (`input`, the score-round body) and
    the engine's answer (`scores`)."""

    __tablename__ = "scoresheet_rounds"

    sheet_id: Mapped[str] = _sheet_fk()
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    dealer: Mapped[int] = mapped_column(Integer)
    input: Mapped[dict[str, Any]]
    scores: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = _now()


class SheetIdempotencyKey(Base):
    """A score-sheet write's `Idempotency-Key` (issue 21): the first answer, replayed to a
    retry of the same request. `digest` is the sha256 of who sent it (account, sheet token, or
    nobody for an anonymous sheet's creation) and the key, so the table holds neither keys nor
    credentials; a sheet token in the answer is kept only sealed with a pad derived from the
    key (`api.sheets.idempotency`), so the table alone gives no usable token. Rows are kept
    24 hours (`created_at`), then deleted as new keys come."""

    __tablename__ = "scoresheet_idempotency_keys"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    #: the sheet's version the answer's `ETag` named (None: the sheet was deleted)
    version: Mapped[int | None] = mapped_column(Integer)
    #: JSON, not JSONB: a replay answers the first answer's bytes, keys in their order
    response: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    sealed_token: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), index=True
    )


class GameCreationKey(Base):
    """A stored game's creation sent with an `Idempotency-Key` (api-contract.md, "Idempotent
    creation"): the first answer, replayed to a retry of the same body. `digest` is the
    sha256 of who sent it (the session's account, or nobody for an anonymous creation) and
    the key, so the table holds neither keys nor credentials; the seats' tokens of the answer
    are kept only sealed with a pad derived from the key (`api.games.creation`), so the
    table alone gives no usable token. Rows are kept 24 hours (`created_at`)."""

    __tablename__ = "game_creation_keys"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), index=True
    )
    #: the `GameCreated` answer, every seat's `token` null (JSON: the first answer's key order)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: the seats' tokens (a JSON list, null for a seat given none), sealed; None: no token
    sealed_tokens: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), index=True
    )


# --- operations (issue 13) ---------------------------------------------------------------------


class RateLimit(Base):
    """Requests counted per bucket (`key`: `net:<network>`, `key:<id>`, `account:<id>`,
    `seat:<game>:<seat>`, `sheet:<id>`) in a fixed window (`window_start`, epoch seconds),
    shared by every replica when `NUMRULES_RATE_LIMIT_STORE=database` (api/ops/ratelimit.py);
    rows of past windows are deleted as new windows begin."""

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    window_start: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
