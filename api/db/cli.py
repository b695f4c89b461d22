"""`numrules db upgrade [REV] | downgrade REV | current`: Alembic on DATABASE_URL."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from pydantic import ValidationError
from pydantic_settings import SettingsError

from api.db import migrations
from api.ops.settings import Settings


def _moved(command: str, url: str, before: str | None) -> None:
    after = migrations.current(url, Settings())
    if after == before:
        print(f"numrules db {command}: the database is at revision {after or 'none'} (no change)")
    else:
        print(f"numrules db {command}: revision {before or 'none'} → {after or 'none'}")


def _upgrade(args: argparse.Namespace) -> None:
    url = Settings().database_url
    before = migrations.current(url, Settings())
    migrations.upgrade(url, args.revision)
    _moved("upgrade", url, before)


def _downgrade(args: argparse.Namespace) -> None:
    url = Settings().database_url
    before = migrations.current(url, Settings())
    migrations.downgrade(url, args.revision)
    _moved("downgrade", url, before)


def _current(_args: argparse.Namespace) -> None:
    settings = Settings()
    found = migrations.current(settings.database_url, settings)
    head = migrations.head()
    state = "head" if found == head else f"not at head {head}"
    print(f"{found or 'none'} ({state})")


def _run(args: argparse.Namespace) -> int:
    """Errors are one line on stderr and exit status 2."""
    try:
        args.db_func(args)
    except (ValidationError, SettingsError):
        raise  # bad settings: numrules' own one-line message
    except Exception as exc:
        settings = Settings()
        line = migrations.unavailable_line(exc, settings.database_url, settings)
        if line is not None:  # refused, unreachable, unknown host or database, silent …
            print(f"numrules db {args.db_command}: {line}", file=sys.stderr)
            return 2
        print(
            f"numrules db {args.db_command}: {type(exc).__name__}: {exc}".splitlines()[0],
            file=sys.stderr,
        )
        return 2
    return 0


def add_db_commands(subparsers: Any) -> None:
    db = subparsers.add_parser("db", help="migrate the stored-games database (Alembic)")
    db.set_defaults(func=_run)
    sub = db.add_subparsers(dest="db_command", required=True)
    up = sub.add_parser("upgrade", help="apply migrations up to REV (default: head)")
    up.add_argument(
        "revision", nargs="?", default="head", metavar="REV", help="a revision (default: head)"
    )
    up.set_defaults(db_func=_upgrade)
    down = sub.add_parser("downgrade", help="revert migrations down to REV (base: all)")
    down.add_argument("revision", metavar="REV", help="a revision, or base (every one)")
    down.set_defaults(db_func=_downgrade)
    cur = sub.add_parser("current", help="print the database's revision")
    cur.set_defaults(db_func=_current)


def refuse_behind_head() -> int | None:
    """Before `numrules serve`: the startup refusal (a database behind the migrations, or
    one that cannot serve within the timeouts) as one line and exit status 2, rather than a
    failed lifespan (the app's own check stays for other servers)."""
    settings = Settings()
    if not settings.check_db_on_start:
        return None
    try:
        asyncio.run(migrations.require_head(settings.database_url, settings))
    except Exception as exc:
        print(f"numrules serve: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    return None
