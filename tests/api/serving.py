"""Serve an app for real: uvicorn on a free 127.0.0.1 port, in a thread of the test process.

In-process, so the build under test (source, or the compiled one with NUMRULES_BUILD_DIR) is
the one served.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def serve(app: Any, port: int | None = None, **options: Any) -> Iterator[tuple[str, int]]:
    """Run `app` under uvicorn with `options` (on `port`, else a free one); yields (host,
    port) once it listens."""
    port = port or free_port()
    # a stream left open must not hold the test's teardown for the join's 10 s
    options.setdefault("timeout_graceful_shutdown", 2)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn stopped"
        time.sleep(0.05)
    try:
        yield "127.0.0.1", port
    finally:
        server.should_exit = True
        thread.join(10)
