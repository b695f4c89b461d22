"""Bots' and hints' limits (issue 25): whose bot-CPU quota a game's bots spend
(`games.bot_owner`), the think time charged to each owner by the minute (`bot_cpu`), and each
seat's hint in flight and hints of the current minute (`game_seats.hint_started`,
`hint_window`, `hint_count`), shared by every replica. Rows written before decode as no owner
(no quota), no hint in flight, none asked.

Revision ID: 0010
Revises: 0009 (open tables)
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("bot_owner", sa.String(length=80), nullable=True))
    op.add_column("game_seats", sa.Column("hint_started", sa.Double(), nullable=True))
    op.add_column("game_seats", sa.Column("hint_window", sa.Double(), nullable=True))
    op.add_column(
        "game_seats",
        sa.Column("hint_count", sa.Integer(), server_default=sa.text("0"), nullable=False),
    )
    op.create_table(
        "bot_cpu",
        sa.Column("owner", sa.String(length=80), nullable=False),
        sa.Column("minute", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("owner", "minute", name=op.f("pk_bot_cpu")),
    )


def downgrade() -> None:
    op.drop_table("bot_cpu")
    with op.batch_alter_table("game_seats") as batch:
        batch.drop_column("hint_count")
        batch.drop_column("hint_window")
        batch.drop_column("hint_started")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("bot_owner")
