"""The log's rows without foreign-key checks, and the games' large columns compressed with lz4
(issue 27, the CPU an action).

* `game_actions` and `game_events` lose their foreign keys to `games`. Each of their rows is
  written by the statement that moves its game's row (the `moved` CTE of
  `api.games.repository`'s writes: no row moved, no row written) or by the transaction that
  creates the game, so the check PostgreSQL made for every row (a `SELECT … FOR KEY SHARE` of
  the game by SPI, for the action and each of its events: 13 % of the backends' CPU at 16
  games, docs/bench-history.md) found the row that statement had just locked. What the keys
  did besides is kept by triggers on `games`: deleting a game deletes its log
  (`games_log_deleted`, as `ON DELETE CASCADE` did) and truncating `games` truncates the log
  (`games_log_truncated`, as `TRUNCATE games CASCADE` did). The other tables keyed on a game
  (seats, hints, kept answers, creation keys) keep their foreign keys: an action writes none
  of them.
* On a PostgreSQL built with lz4 (`default_toast_compression` accepts it), `games.checkpoint`
  and `games.progress` are compressed with lz4 instead of pglz when a row outgrows a page's
  quarter (values written from now on): 3 % of the backends' CPU. Elsewhere they stay pglz.

The functions find the log's tables in the schema the migration ran in (`SET search_path FROM
CURRENT`), whatever the caller's path. The truncate trigger fires in replica mode too (`ENABLE
ALWAYS`), as `TRUNCATE … CASCADE` followed the keys whatever the mode; the delete trigger does
not, as the keys' cascade did not.

SQLite: the tables are rebuilt without the keys and the delete trigger is SQLite's (it has no
`TRUNCATE`). A later migration that rebuilds `games` on SQLite (`batch_alter_table`) must
create `games_log_deleted` again: a rebuild does not carry triggers over.

Downgrade: log rows whose game is gone (deleted in replica mode) are deleted first, so the keys
can hold again.

Revision ID: 0018
Revises: 0017 (creator tokens)
Create Date: 2026-12-08
"""

from __future__ import annotations

from alembic import op

revision = "0018"
down_revision: str | None = "0017"
branch_labels: str | None = None
depends_on: str | None = None

_LOG = ("game_actions", "game_events")
_COMPRESSED = ("checkpoint", "progress")
_DELETE_PG = """\
CREATE FUNCTION numrules_game_log_deleted() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM game_actions WHERE game_id = OLD.id;
    DELETE FROM game_events WHERE game_id = OLD.id;
    RETURN NULL;
END
$$"""
_TRUNCATE_PG = """\
CREATE FUNCTION numrules_game_log_truncated() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    TRUNCATE game_actions, game_events;
    RETURN NULL;
END
$$"""
_DELETE_SQLITE = """\
CREATE TRIGGER games_log_deleted AFTER DELETE ON games FOR EACH ROW BEGIN
    DELETE FROM game_actions WHERE game_id = OLD.id;
    DELETE FROM game_events WHERE game_id = OLD.id;
END"""


def _lz4() -> bool:
    """Whether this PostgreSQL was built with lz4."""
    accepted = op.get_bind().exec_driver_sql(
        "SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'"
    )
    return "lz4" in (accepted.scalar() or [])


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for table in _LOG:
            with op.batch_alter_table(table) as batch:  # SQLite rebuilds the table
                batch.drop_constraint(f"fk_{table}_game_id_games", type_="foreignkey")
        op.execute(_DELETE_SQLITE)
        return
    for table in _LOG:
        op.drop_constraint(f"fk_{table}_game_id_games", table, type_="foreignkey")
    op.execute(_DELETE_PG)
    op.execute(_TRUNCATE_PG)
    op.execute(
        "CREATE TRIGGER games_log_deleted AFTER DELETE ON games "
        "FOR EACH ROW EXECUTE FUNCTION numrules_game_log_deleted()"
    )
    op.execute(
        "CREATE TRIGGER games_log_truncated AFTER TRUNCATE ON games "
        "FOR EACH STATEMENT EXECUTE FUNCTION numrules_game_log_truncated()"
    )
    op.execute("ALTER TABLE games ENABLE ALWAYS TRIGGER games_log_truncated")
    if _lz4():
        op.execute(
            "ALTER TABLE games "
            + ", ".join(f"ALTER COLUMN {c} SET COMPRESSION lz4" for c in _COMPRESSED)
        )


def _keys() -> None:
    for table in _LOG:
        op.execute(
            f"DELETE FROM {table} WHERE NOT EXISTS "
            f"(SELECT 1 FROM games WHERE games.id = {table}.game_id)"
        )
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(
                f"fk_{table}_game_id_games", "games", ["game_id"], ["id"], ondelete="CASCADE"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.execute("DROP TRIGGER games_log_deleted")
        _keys()
        return
    op.execute("DROP TRIGGER games_log_truncated ON games")
    op.execute("DROP TRIGGER games_log_deleted ON games")
    op.execute("DROP FUNCTION numrules_game_log_truncated()")
    op.execute("DROP FUNCTION numrules_game_log_deleted()")
    op.execute(
        "ALTER TABLE games "
        + ", ".join(f"ALTER COLUMN {c} SET COMPRESSION default" for c in _COMPRESSED)
    )
    _keys()
