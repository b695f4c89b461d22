"""Structured logs (issue 13): the standard library's `logging`, one JSON object a line.

:func:`configure_logging` puts one handler (standard error) on the service's loggers:
`numrules.*` (the access log `numrules.access`, errors of `numrules.api`, the stored games'
`numrules.games`), uvicorn's `uvicorn` / `uvicorn.error`, Litestar's and the libraries'
(all through the root logger's one handler), JSON-formatted by
python-json-logger's msgspec formatter (`NUMRULES_LOG_FORMAT=json`, the default) or as plain
lines for a terminal (`text`); the level is `NUMRULES_LOG_LEVEL`. uvicorn's own access log
(`uvicorn.access`, plain text with the raw path and query) is switched off: the app writes one
access line per request itself (`api.ops.observe`), with the route template instead of the path.

It runs when the app is built and again when it starts (its lifespan), so it holds whether
the app is served by `numrules serve` or by `uvicorn api.app:app` directly: uvicorn configures
its loggers before it imports or starts the app, and this runs after.

Every record carries the `request_id` of the request it was written for (a context variable
set by `api.ops.observe`), so an error line can be matched with its access line.

Never logged: request or response bodies (hands, passwords), headers (`Authorization`), query
strings (stream tickets travel in `?ticket=`); only the method, the route template, the status,
the duration, the client address and the request id.
"""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from logging.handlers import QueueHandler
from typing import Any

import msgspec
from pythonjsonlogger.msgspec import MsgspecFormatter

from api.ops.settings import Settings

#: The access log: one line per request (`api.ops.observe`).
access_log = logging.getLogger("numrules.access")
#: The request id of the request being served ("" outside one).
request_id: ContextVar[str] = ContextVar("numrules_request_id", default="")

#: Loggers whose own handlers (uvicorn's, Litestar's) are replaced by the root's.
SERVICE_LOGGERS = ("numrules", "uvicorn", "uvicorn.error", "litestar")
JSON_FIELDS = "%(levelname)s %(name)s %(message)s"
TEXT_FORMAT = "%(asctime)s %(levelname)-7s %(name)s %(message)s [request %(request_id)s]"


class _RequestId(logging.Filter):
    """Adds `request_id` to every record (JSON: a field of its own; text: in the line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id.get() or None
        record.__dict__.pop("color_message", None)  # uvicorn's copy with terminal colours
        return True


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """The service's handler: recognised on a second configuration, and replaced."""


def _formatter(log_format: str) -> logging.Formatter:
    if log_format == "text":
        return logging.Formatter(TEXT_FORMAT)
    return MsgspecFormatter(
        JSON_FIELDS,
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp=True,  # "timestamp": ISO 8601, UTC
        json_default=str,
    )


class _AccessLine(msgspec.Struct):
    """An access line as the JSON handler writes the record of :func:`log_access` (the same
    fields in the same order, the timestamp encoded by msgspec as the formatter has it)."""

    level: str
    logger: str
    message: str
    request_id: str
    method: str
    route: str | None
    status: int
    duration_ms: float
    client: str | None
    timestamp: datetime


#: The JSON handler :func:`configure_logging` installed, while access lines may bypass the
#: logging machinery (:func:`log_access`).
_direct: list[logging.StreamHandler] = []  # type: ignore[type-arg]
_encode = msgspec.json.Encoder().encode


def configure_logging(settings: Settings) -> None:
    """Route every log record to one JSON (or text) handler on standard error, on the root
    logger; idempotent: a second call replaces what the first installed."""
    handler = _Handler(sys.stderr)
    _direct[:] = [handler] if settings.log_format == "json" else []
    handler.setFormatter(_formatter(settings.log_format))
    handler.addFilter(_RequestId())
    root = logging.getLogger()
    root.handlers = [h for h in root.handlers if not _is_default(h)]
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    for name in SERVICE_LOGGERS:  # no handler of their own: one line per record, the root's
        logger = logging.getLogger(name)
        logger.handlers = [h for h in logger.handlers if not _is_default(h)]
        logger.setLevel(settings.log_level)
        logger.propagate = True
    # uvicorn's plain access lines would double the app's own (and show raw query strings)
    access = logging.getLogger("uvicorn.access")
    access.handlers = []
    access.propagate = False
    access.disabled = True


def _is_default(handler: logging.Handler) -> bool:
    """A handler this module, uvicorn's or Litestar's default configuration installed (not
    one a test runner added to capture records)."""
    return isinstance(handler, (_Handler, QueueHandler)) or type(handler) is logging.StreamHandler


def log_access(fields: dict[str, Any]) -> None:
    """One access line: `GET /v1/games/{game_id} 200 3.1 ms 10.0.0.7`, and (JSON) the
    fields themselves.

    Once per request, so cheap (issue 27): while the JSON handler :func:`configure_logging`
    installed is the only one (no test runner's, no other configuration), the line is
    encoded straight from `fields` and written to that handler's stream, the same bytes the
    handler would write for the record, at a quarter of the cost of a `LogRecord`, its
    filters and the formatter's dictionary; otherwise through `logging` as any record."""
    message = "%s %s %s %.1f ms %s" % (  # noqa: UP031 (the record's own format)
        fields["method"],
        fields["route"] or "-",
        fields["status"],
        fields["duration_ms"],
        fields["client"] or "-",
    )
    root = logging.root.handlers
    if _direct and len(root) == 1 and root[0] is _direct[0] and not access_log.handlers:
        stream = _direct[0].stream
        line = _AccessLine(
            "INFO",
            "numrules.access",
            message,
            fields["request_id"],
            fields["method"],
            fields["route"],
            fields["status"],
            fields["duration_ms"],
            fields["client"],
            datetime.now(UTC),
        )
        stream.write(_encode(line).decode() + "\n")
        stream.flush()
        return
    access_log.info("%s", message, extra=fields)
