"""A round's progress (issue 27, growth): `games.progress`, the current round's actions so far,
written with every 16th action of a round (`api.games.service.PROGRESS_EVERY`) and cleared by
the action that starts the next one. A cold load resumes from the round's checkpoint with
them and reads only the log written since. Apart from `checkpoint`, which the finished
rounds' scores make large late in a match: only the round's actions are rewritten.

Revision ID: 0012
Revises: 0011 (game creation keys)
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("progress", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("progress")
