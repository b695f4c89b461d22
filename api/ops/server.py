"""The HTTP server's options, from the settings: what `numrules serve` hands to uvicorn.

Issue 10 asks for a keep-alive timeout and a concurrency limit in the server settings:
* `timeout_keep_alive`: an idle keep-alive connection is closed after that many seconds, so
  idle clients do not hold connections (uvicorn's default is 5 s; here it is a setting);
* `limit_concurrency`: past that many open connections and tasks, uvicorn answers 503 at
  once instead of queueing without bound (long-lived Server-Sent Events streams, when they
  come, count against it: size it for them, or serve them from their own workers);
* `timeout_graceful_shutdown`: on shutdown, requests under way get that long to finish;
* `server_header`: off, so answers do not name the server and its version;
* `ws`: WebSockets off: the API has none (event streams are Server-Sent Events), so an
  upgrade request is an ordinary request answered by the app, not uvicorn's bare 403.

uvicorn has no timeout for a client that never finishes sending its headers (one connection
per trickling client stays open): in production a reverse proxy must close them;
`deploy/nginx.conf` does (`client_header_timeout`), as README "Behind a reverse proxy" says.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from api.ops.settings import Settings


def server_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for `uvicorn.run` / `uvicorn.Config` (see the module docstring)."""
    return {
        "timeout_keep_alive": settings.keep_alive_seconds,
        "limit_concurrency": settings.max_concurrency,
        "timeout_graceful_shutdown": settings.graceful_shutdown_seconds,
        "server_header": False,
        "ws": "none",
        # The client address is the peer's; `X-Forwarded-For` is read only behind
        # NUMRULES_TRUSTED_PROXIES, by api.ops.ratelimit.client_address (uvicorn's own default
        # believes it from 127.0.0.1: any local process could pick its address).
        "proxy_headers": False,
    }


def _stop(signum: int, frame: FrameType | None) -> None:
    sys.exit(0)


@contextmanager
def exit_cleanly_on_sigterm() -> Iterator[None]:
    """SIGTERM ends `numrules serve` with status 0, as a stop asked for should.

    uvicorn handles SIGTERM while it serves (a graceful shutdown: see `api.ops.operations`) and,
    once done, raises the signal again for the handler that was there before it: the default
    one would kill the process, status 143, after a clean shutdown. This handler exits 0
    instead (also before uvicorn's handlers are installed: a stop while starting); the
    previous handler is back afterwards."""
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
