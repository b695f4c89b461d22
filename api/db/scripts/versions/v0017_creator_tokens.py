"""A game of bots only created without a session keeps the sha256 of its creator's token
(`creator_token`, answered once by its creation): that token ends the game (`POST
/v1/games/{id}/abandon`), which nobody could do before, since no seat of such a game has a
token and no account created it. Games written before this revision, and every other game,
have none.

Revision ID: 0017
Revises: 0016 (sole reads' guard)
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0017"
down_revision: str | None = "0016"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("creator_token_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:  # SQLite rebuilds the table
        batch.drop_column("creator_token_hash")
