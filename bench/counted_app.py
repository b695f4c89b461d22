"""`api.app:app` with its SQL statements counted (bench/instructions.py): SIGUSR1 writes the
counts since the last signal to `$NUMRULES_COUNT_FILE` (JSON: statement's first words →
count; `<BEGIN>`, `<COMMIT>`, `<ROLLBACK>` for SQLAlchemy's transaction events, which on
PostgreSQL's autocommit reads send nothing) and starts counting again."""

from __future__ import annotations

import collections
import json
import os
import signal
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from api.app import app

COUNTS: collections.Counter[str] = collections.Counter()


@event.listens_for(Engine, "before_cursor_execute")
def _statement(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
    COUNTS[" ".join(statement.split())[:70]] += 1


def _transactions(name: str) -> None:
    key = f"<{name.upper()}>"
    event.listen(Engine, name, lambda _conn: COUNTS.update([key]))


for _name in ("begin", "commit", "rollback"):
    _transactions(_name)


def _dump(*_: Any) -> None:
    with open(os.environ["NUMRULES_COUNT_FILE"], "w") as f:
        json.dump(COUNTS, f)
    COUNTS.clear()


signal.signal(signal.SIGUSR1, _dump)

__all__ = ["app"]
