"""Score-sheet versions (issue 21): `scoresheet_idempotency_keys`, the first answer of each
score-sheet write sent with an `Idempotency-Key`, replayed to its retries. The sheet's
`version` (its `ETag`) already exists (0002).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "scoresheet_idempotency_keys",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        # JSON, not JSONB: a replay answers the first answer's bytes, keys in their order
        sa.Column("response", sa.JSON(), nullable=True),
        sa.Column("sealed_token", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_scoresheet_idempotency_keys")),
    )
    op.create_index(
        op.f("ix_scoresheet_idempotency_keys_created_at"),
        "scoresheet_idempotency_keys",
        ["created_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(
        op.f("ix_scoresheet_idempotency_keys_created_at"),
        table_name="scoresheet_idempotency_keys",
    )
    op.drop_table("scoresheet_idempotency_keys")
