"""Open tables and rematches (issue 26): a seat may be open (`game_seats.open`, with the name
it was opened with), a claimed seat keeps its token sealed for the claiming session
(`claim_seal`), a rematch's seat may wait for its player to fetch its token
(`token_pending`); a game keeps its creation request (`games.created_with`, for a rematch),
whether its creator chose the seed, and its rematch; waiting games are listed from a partial
index. Rows written before decode as they were: no seat open, no rematch.

Revision ID: 0009
Revises: 0008 (turn clocks)
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.add_column("games", sa.Column("created_with", _JSON, nullable=True))
    op.add_column(
        "games",
        sa.Column("seeded_by_creator", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.add_column("games", sa.Column("rematch_id", sa.String(length=32), nullable=True))
    op.add_column(
        "game_seats", sa.Column("open", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.add_column("game_seats", sa.Column("open_name", sa.Text(), nullable=True))
    op.add_column("game_seats", sa.Column("claim_seal", sa.Text(), nullable=True))
    op.add_column(
        "game_seats",
        sa.Column("token_pending", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_index(
        "ix_games_waiting",
        "games",
        ["created_at", "id"],
        unique=False,
        postgresql_where=sa.text("status = 'waiting'"),
        sqlite_where=sa.text("status = 'waiting'"),
    )


def downgrade() -> None:
    op.drop_index("ix_games_waiting", table_name="games")
    op.drop_column("game_seats", "token_pending")
    op.drop_column("game_seats", "claim_seal")
    op.drop_column("game_seats", "open_name")
    op.drop_column("game_seats", "open")
    op.drop_column("games", "rematch_id")
    op.drop_column("games", "seeded_by_creator")
    op.drop_column("games", "created_with")
