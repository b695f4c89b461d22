"""Sole reads' guard (issue 27, api/db/sole.py): a write to `games` or `game_seats` by a
client that is not numrules (its `application_name` does not start with `numrules `: `psql`,
a script, a replica older than this revision) first takes the lease's advisory lock in shared
mode, for its transaction. While a numrules process may answer seats' reads from what it
wrote last, it holds that lock: the outside write waits until the process has seen the client
(within a tenth of a second: it is connected) and given its lease up, so no read shows the
game as it was before that write; a writer the process cannot see as a client (a logical
replication worker) waits on that lock, which the process sees too. The triggers fire
whatever `session_replication_role` is (`ENABLE ALWAYS`), on `TRUNCATE` too. numrules' own
statements skip them (their `WHEN`: a client that names itself `numrules …` is taken for
numrules, and must wait as a numrules app does: api/db/sole.py), which a statement evaluates
once. PostgreSQL only.

Revision ID: 0016
Revises: 0015 (the clock sweep's bound)
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0016"
down_revision: str | None = "0015"
branch_labels: str | None = None
depends_on: str | None = None

#: api.db.sole.CLAIM (copied: a migration stays as it was written).
_CLAIM = (1853189490, 1936682085)
_FUNCTION = f"""\
CREATE FUNCTION numrules_outside_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared({_CLAIM[0]}, {_CLAIM[1]});
    RETURN NULL;
END
$$"""
_TABLES = ("games", "game_seats")


def _trigger(table: str) -> str:
    return (
        f"CREATE TRIGGER {table}_outside_write BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE "
        f"ON {table} "
        "FOR EACH STATEMENT WHEN (current_setting('application_name') NOT LIKE 'numrules %') "
        "EXECUTE FUNCTION numrules_outside_write()"
    )


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_FUNCTION)
    for table in _TABLES:
        op.execute(_trigger(table))
        op.execute(f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {table}_outside_write")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in _TABLES:
        op.execute(f"DROP TRIGGER {table}_outside_write ON {table}")
    op.execute("DROP FUNCTION numrules_outside_write()")
