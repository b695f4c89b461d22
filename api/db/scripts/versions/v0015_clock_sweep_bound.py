"""A clocked action's update of its game's row written in place (issue 27): the clock sweep's
index keyed `deadline`, which moves at almost every clocked action, so none of those updates
was HOT (heap-only). It now keys `sweep_at`, a lower bound of `deadline` that an action moves
only when the deadline comes earlier, is set or cleared; the sweep moves a bound that passed
before its deadline on to it. Each clocked game's bound starts at its deadline. (A game's
earliest deadline comes earlier only by the few milliseconds that a hot action's estimate of
the database's clock may lag behind it, each turn's deadline being the clock's seconds after
its start: the statements keep the earlier of the two.)

During a rolling upgrade the replicas older than this revision write `deadline` alone. On
PostgreSQL a trigger gives a bound to a game they create (on INSERT only: an UPDATE trigger
would lock the row, a WAL record, at every hot action); a table they start, or a turn they give
back to a person after bots' turns, gets its bound at the game's next write by a newer
replica, and is meanwhile timed out by their own sweep (which reads `deadline`, unindexed now:
a scan of `games`) or by any read or action. The index is built under the migration's lock
(as 0013's): migrate at a quiet moment.

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
CREATE TRIGGER games_sweep_at BEFORE INSERT ON games FOR EACH ROW
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
