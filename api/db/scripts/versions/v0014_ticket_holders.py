"""A stream ticket remembers who asked for it: the sha256 of the token (a seat's, or a
session's) it was given to, so the stream it opens can check, as a stream opened with that
token does, that the token still holds the seat (a session logged out or expired, a seat
token revoked: the stream ends). Tickets given before this revision (valid 60 s) have none.

Revision ID: 0014
Revises: 0013 (an action's update in place)
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("stream_tickets", sa.Column("holder_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("stream_tickets") as batch:  # SQLite rebuilds the table
        batch.drop_column("holder_hash")
