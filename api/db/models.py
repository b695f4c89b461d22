"""The stored-games tables (issue 11, contract "Stored games").

A game is its match record: ruleset, options, rules version, seed and salt, seats, and an
append-only action log numbered per game (unique `(game_id, seq)`). Events are stored as each
viewer may see them (`visibility`: the seats allowed, NULL for public) so that
`events?after=N` is one indexed read. Seat tokens and stream tickets are stored only hashed.
JSON columns are `JSON`, `JSONB` on PostgreSQL; the same models serve PostgreSQL and SQLite.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
    func,
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


def _now() -> Mapped[datetime]:
    return mapped_column(DateTime(timezone=True), server_default=func.now(), nullable=False)


def _game_fk() -> Mapped[str]:
    return mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)


class Game(Base):
    """One stored match; `version` counts the actions applied (contract: `ETag`), `event_seq`
    the events recorded."""

    __tablename__ = "games"

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


class GameAction(Base):
    """The append-only action log; `seq` is the game `version` the action produced."""

    __tablename__ = "game_actions"

    game_id: Mapped[str] = _game_fk()
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = _now()


class GameEvent(Base):
    """An event with its own per-game `seq`; `visibility` lists the seats that may see it
    (NULL: everyone, spectators included)."""

    __tablename__ = "game_events"

    game_id: Mapped[str] = _game_fk()
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
