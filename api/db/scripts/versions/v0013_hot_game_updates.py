"""An action's update of its game's row written in place (issue 27): PostgreSQL makes an
update HOT (heap-only: no index entry written, the old version pruned from its page) only
when no indexed column changed and the page has room. `ix_games_bot_pending` keyed every row
owing a bot move on `updated_at`, which every action changes, so every action wrote a new
primary-key entry too; it is now keyed on `id` (the sweep sorts the few rows it finds). The
games' pages keep a fifth of their space for the new versions (`fillfactor = 80`; pages
written from now on: the rows already stored move as they are updated).

Revision ID: 0013
Revises: 0012 (a round's progress)
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def _index(column: str) -> None:
    op.drop_index("ix_games_bot_pending", table_name="games")
    op.create_index(
        "ix_games_bot_pending",
        "games",
        [column],
        unique=False,
        postgresql_where=sa.text("bot_pending"),
        sqlite_where=sa.text("bot_pending"),
    )


def upgrade() -> None:
    _index("id")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE games SET (fillfactor = 80)")


def downgrade() -> None:
    _index("updated_at")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE games RESET (fillfactor)")
