"""Stored games: games, seats, action log, events, idempotency keys, stream tickets.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def _created() -> sa.Column[object]:
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def _game_id(table: str) -> sa.Column[object]:
    """The game's id, a foreign key named as the models' convention names it."""
    return sa.Column(
        "game_id",
        sa.String(32),
        sa.ForeignKey("games.id", name=f"fk_{table}_game_id_games", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("ruleset", sa.String(32), nullable=False),
        sa.Column("options", JSON, nullable=False),
        sa.Column("rules_version", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("seed_commitment", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("event_seq", sa.Integer(), nullable=False),
        sa.Column("result", JSON, nullable=True),
        _created(),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
    )
    op.create_table(
        "game_seats",
        _game_id("game_seats"),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_game_seats"),
        sa.UniqueConstraint("token_hash", name="uq_game_seats_token_hash"),
    )
    op.create_table(
        "game_actions",
        _game_id("game_actions"),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", JSON, nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("game_id", "seq", name="pk_game_actions"),
    )
    op.create_table(
        "game_events",
        _game_id("game_events"),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("visibility", JSON, nullable=True),
        sa.Column("payload", JSON, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq", name="pk_game_events"),
    )
    op.create_table(
        "idempotency_keys",
        _game_id("idempotency_keys"),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("response", JSON, nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("game_id", "seat", "key", name="pk_idempotency_keys"),
    )
    op.create_table(
        "stream_tickets",
        sa.Column("ticket_hash", sa.String(64), nullable=False),
        _game_id("stream_tickets"),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("ticket_hash", name="pk_stream_tickets"),
    )
    op.create_index("ix_stream_tickets_game_id", "stream_tickets", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_stream_tickets_game_id", table_name="stream_tickets")
    for table in (
        "stream_tickets",
        "idempotency_keys",
        "game_events",
        "game_actions",
        "game_seats",
    ):
        op.drop_table(table)
    op.drop_table("games")
