"""Accounts, sessions, emailed tokens, log-in throttling, score sheets (issue 12); stored-game
seats bound to accounts and the game's creator.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("pseudo", sa.String(length=64), nullable=False),
        sa.Column("pseudo_key", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("email_key", sa.String(length=320), nullable=True),
        sa.Column("email_verified", sa.Boolean(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("age_range", sa.String(length=16), nullable=False),
        sa.Column("locale", sa.String(length=8), nullable=False),
        sa.Column("terms_version", sa.String(length=32), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("email_key", name=op.f("uq_accounts_email_key")),
        sa.UniqueConstraint("pseudo_key", name=op.f("uq_accounts_pseudo_key")),
    )
    op.create_table(
        "login_throttle",
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_login_throttle")),
    )
    op.create_table(
        "account_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=32), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_account_sessions_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_account_sessions")),
    )
    op.create_index(
        op.f("ix_account_sessions_account_id"), "account_sessions", ["account_id"], unique=False
    )
    op.create_table(
        "account_tokens",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=32), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_account_tokens_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_account_tokens")),
    )
    op.create_index(
        op.f("ix_account_tokens_account_id"), "account_tokens", ["account_id"], unique=False
    )
    op.create_table(
        "scoresheets",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column(
            "options",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("owner_id", sa.String(length=32), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("planned_rounds", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["accounts.id"],
            name=op.f("fk_scoresheets_owner_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scoresheets")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_scoresheets_token_hash")),
    )
    op.create_index(op.f("ix_scoresheets_owner_id"), "scoresheets", ["owner_id"], unique=False)
    op.create_table(
        "scoresheet_players",
        sa.Column("sheet_id", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("account_id", sa.String(length=32), nullable=True),
        sa.Column("confirmed", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_scoresheet_players_account_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["sheet_id"],
            ["scoresheets.id"],
            name=op.f("fk_scoresheet_players_sheet_id_scoresheets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("sheet_id", "position", name=op.f("pk_scoresheet_players")),
    )
    op.create_index(
        op.f("ix_scoresheet_players_account_id"), "scoresheet_players", ["account_id"], unique=False
    )
    op.create_table(
        "scoresheet_rounds",
        sa.Column("sheet_id", sa.String(length=32), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column(
            "input",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "scores",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["sheet_id"],
            ["scoresheets.id"],
            name=op.f("fk_scoresheet_rounds_sheet_id_scoresheets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("sheet_id", "n", name=op.f("pk_scoresheet_rounds")),
    )
    with op.batch_alter_table("game_seats") as batch:
        batch.add_column(sa.Column("account_id", sa.String(length=32), nullable=True))
        batch.add_column(
            sa.Column("joined", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.create_index("ix_game_seats_account_id", ["account_id"], unique=False)
        batch.create_foreign_key(
            "fk_game_seats_account_id_accounts",
            "accounts",
            ["account_id"],
            ["id"],
            ondelete="SET NULL",
        )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("creator_id", sa.String(length=32), nullable=True))
        batch.create_foreign_key(
            "fk_games_creator_id_accounts", "accounts", ["creator_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("fk_games_creator_id_accounts", type_="foreignkey")
        batch.drop_column("creator_id")
    with op.batch_alter_table("game_seats") as batch:
        batch.drop_constraint("fk_game_seats_account_id_accounts", type_="foreignkey")
        batch.drop_index("ix_game_seats_account_id")
        batch.drop_column("joined")
        batch.drop_column("account_id")
    op.drop_table("scoresheet_rounds")
    op.drop_index(op.f("ix_scoresheet_players_account_id"), table_name="scoresheet_players")
    op.drop_table("scoresheet_players")
    op.drop_index(op.f("ix_scoresheets_owner_id"), table_name="scoresheets")
    op.drop_table("scoresheets")
    op.drop_index(op.f("ix_account_tokens_account_id"), table_name="account_tokens")
    op.drop_table("account_tokens")
    op.drop_index(op.f("ix_account_sessions_account_id"), table_name="account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("login_throttle")
    op.drop_table("accounts")
