"""A clocked action's update of its game's row written in place (issue 27): the clock sweep's
index keyed `deadline`, which moves at almost every clocked action, so none of those updates
was HOT (heap-only). It now keys `sweep_at`, a lower bound of `deadline` that an action moves
only when the deadline comes earlier, is set or cleared; the sweep moves a bound that passed
before its deadline on to it. Each clocked game's bound starts at its deadline.

On PostgreSQL a trigger gives a bound to a row that has a deadline and none (it fires only
then: the service's own writes always set both): during a rolling upgrade, the replicas older
than this revision write `deadline` alone, and a game one of them creates or starts would
otherwise escape the newer replicas' sweeps. (A game's earliest deadline never comes earlier
on its own, each turn's being the clock's seconds after its start: a bound set once holds.)

Revision ID: 0015
Revises: 0014 (a stream ticket's holder)
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None


_FUNCTION = """\
CREATE FUNCTION games_sweep_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.sweep_at := NEW.deadline;
    RETURN NEW;
END
$$"""
_TRIGGER = """\
CREATE TRIGGER games_sweep_at BEFORE INSERT OR UPDATE OF deadline ON games FOR EACH ROW
WHEN (NEW.sweep_at IS NULL AND NEW.deadline IS NOT NULL) EXECUTE FUNCTION games_sweep_at()"""


def upgrade() -> None:
    op.add_column("games", sa.Column("sweep_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE games SET sweep_at = deadline WHERE deadline IS NOT NULL")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_FUNCTION)
        op.execute(_TRIGGER)
    op.drop_index("ix_games_deadline", table_name="games")
    op.create_index(
        "ix_games_sweep_at",
        "games",
        ["sweep_at"],
        unique=False,
        postgresql_where=sa.text("sweep_at IS NOT NULL"),
        sqlite_where=sa.text("sweep_at IS NOT NULL"),
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER games_sweep_at ON games")
        op.execute("DROP FUNCTION games_sweep_at()")
    op.drop_index("ix_games_sweep_at", table_name="games")
    op.create_index(
        "ix_games_deadline",
        "games",
        ["deadline"],
        unique=False,
        postgresql_where=sa.text("deadline IS NOT NULL"),
        sqlite_where=sa.text("deadline IS NOT NULL"),
    )
    with op.batch_alter_table("games") as batch:  # SQLite rebuilds the table
        batch.drop_column("sweep_at")
