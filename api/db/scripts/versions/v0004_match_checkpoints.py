"""Match checkpoints (issue 13): `games.checkpoint`, where the match stood when its current
round started (`engine.core.match.MatchCheckpoint` as JSON text: the database never looks
inside it), so that a cold load replays that round's actions only, not the whole log.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("checkpoint", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("checkpoint")
