"""Turn clocks in stored games (issue 26): each game's clock settings (`games.clock`, NULL for
none), its clocked seats' deadlines (`games.deadlines`) and the earliest of them
(`games.deadline`, with a partial index for the sweep), and the turns that ended by timeout
(`games.timeouts`). Rows written before decode as they were: no clock.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.add_column("games", sa.Column("clock", JSON, nullable=True))
    op.add_column("games", sa.Column("deadlines", JSON, nullable=True))
    op.add_column("games", sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
    op.add_column("games", sa.Column("timeouts", JSON, nullable=True))
    op.create_index(
        "ix_games_deadline",
        "games",
        ["deadline"],
        unique=False,
        postgresql_where=sa.text("deadline IS NOT NULL"),
        sqlite_where=sa.text("deadline IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_games_deadline", table_name="games")
    op.drop_column("games", "timeouts")
    op.drop_column("games", "deadline")
    op.drop_column("games", "deadlines")
    op.drop_column("games", "clock")
