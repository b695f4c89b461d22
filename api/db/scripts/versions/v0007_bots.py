"""Bots in stored games (issue 25): each seat's bot level (`game_seats.bot`, NULL for a
person), the bots' own seed (`games.bot_seed`), whether a bot's move is owed
(`games.bot_pending`, with a partial index for the sweep), whether hints are on
(`games.hints`), and the hints given (`game_hints`, for the export's `hint_used`). Rows
written before decode as they were: no bot, nothing owed, hints on.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("bot_seed", sa.BigInteger(), nullable=True))
    op.add_column(
        "games",
        sa.Column("bot_pending", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.add_column(
        "games", sa.Column("hints", sa.Boolean(), server_default=sa.true(), nullable=False)
    )
    op.add_column("game_seats", sa.Column("bot", sa.String(length=16), nullable=True))
    op.create_index(
        "ix_games_bot_pending",
        "games",
        ["updated_at"],
        unique=False,
        postgresql_where=sa.text("bot_pending"),
        sqlite_where=sa.text("bot_pending"),
    )
    op.create_table(
        "game_hints",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_hints_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", "version", name=op.f("pk_game_hints")),
    )


def downgrade() -> None:
    op.drop_table("game_hints")
    op.drop_index("ix_games_bot_pending", table_name="games")
    op.drop_column("game_seats", "bot")
    op.drop_column("games", "hints")
    op.drop_column("games", "bot_pending")
    op.drop_column("games", "bot_seed")
