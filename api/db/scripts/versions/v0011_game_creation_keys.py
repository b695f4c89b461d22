"""Idempotent creation of stored games: `game_creation_keys`, the first answer of each
`POST /v1/games` sent with an `Idempotency-Key`, replayed to its retries (its seats' tokens
kept only sealed with a pad derived from the key).

Revision ID: 0011
Revises: 0010 (bots' limits)
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "game_creation_keys",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        # JSON, not JSONB: a replay answers the first answer's keys in their order
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("sealed_tokens", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_creation_keys_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_game_creation_keys")),
    )
    op.create_index(
        op.f("ix_game_creation_keys_created_at"),
        "game_creation_keys",
        ["created_at"],
        unique=False,
    )
    op.create_index(
        op.f("ix_game_creation_keys_game_id"), "game_creation_keys", ["game_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_game_creation_keys_game_id"), table_name="game_creation_keys")
    op.drop_index(op.f("ix_game_creation_keys_created_at"), table_name="game_creation_keys")
    op.drop_table("game_creation_keys")
