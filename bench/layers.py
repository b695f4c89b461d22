"""Each layer of a stateless rules request, against the echo: CPU time per request in process.

No server, no socket, no load generator: each app is called as an ASGI application (the way
uvicorn calls it, the same scope and body as bench/http.py's requests), so what is left is
the app's own work per request, which is what an HTTP benchmark's requests/s divide between
(uvicorn's own share, the same for every contender, is not counted here). Contenders, each
timed by `time.process_time` over `--requests` requests after 500 of warm-up, repeated
`--reps` times interleaved (the median is printed):

* `echo`: bench/echo_app.py (Litestar + msgspec, the body echoed);
* `fastapi`: bench/fastapi_app.py (FastAPI + pydantic, the same engine calls);
* `pipeline`: numrules with its fast path unwrapped (Litestar's router, hygiene, CORS,
  `before_request`, the strict DTO, the response), request ids, metrics, no access lines;
* `fast`: numrules as served, without access lines (`NUMRULES_LOG_LEVEL=WARNING`);
* `fast+log`: numrules as served with one JSON access line per request written to a file.

    bash bench/run.sh layers [--reps 5 --requests 5000]

It runs on a busy machine too (each contender's time is its own process's CPU), but the
contenders share the CPU caches with whatever else runs: compare within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from bench import APP_DIR, ROOT, engine_build
from bench.http import BODIES

CONTENDERS = ("echo", "fastapi", "pipeline", "fast", "fast+log")


def _scope(path: str, body: bytes) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "state": {},
    }


async def _requests(app: Any, path: str, body: bytes, n: int) -> set[int]:
    statuses: set[int] = set()
    message = {"type": "http.request", "body": body, "more_body": False}

    async def receive() -> Any:
        return message

    async def send(m: Any) -> None:
        if m["type"] == "http.response.start":
            statuses.add(m["status"])

    for _ in range(n):
        await app(_scope(path, body), receive, send)
    return statuses


async def _started(app: Any) -> None:
    """Run the app's lifespan start-up (the numrules app builds its state there)."""
    inbox: asyncio.Queue[Any] = asyncio.Queue()
    outbox: asyncio.Queue[Any] = asyncio.Queue()
    await inbox.put({"type": "lifespan.startup"})
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    asyncio.get_running_loop().create_task(app(scope, inbox.get, outbox.put))
    message = await outbox.get()
    if message["type"] != "lifespan.startup.complete":
        raise SystemExit(f"the app did not start: {message}")


def one(contender: str, endpoint: str, requests: int) -> float:
    """Microseconds of CPU per request of `contender` on `endpoint` (this process)."""
    path, payload = BODIES[endpoint]
    body = json.dumps(payload, separators=(",", ":")).encode()
    if contender == "echo":
        app, path = importlib.import_module("bench.echo_app").app, "/echo"
    elif contender == "fastapi":
        app = importlib.import_module("bench.fastapi_app").app
    else:
        app = importlib.import_module("api.app").app
        if contender == "pipeline":
            from api.http.fastpath import unwrap
            from api.rules.fast import FastRules

            unwrap(app, FastRules)  # Observe → the pipeline

    async def go() -> float:
        if contender != "fastapi":
            await _started(app)
        statuses = await _requests(app, path, body, 500)
        if statuses != {200}:
            raise SystemExit(f"{contender} {endpoint}: answered {statuses}")
        started = time.process_time()
        await _requests(app, path, body, requests)
        return (time.process_time() - started) / requests * 1e6

    return asyncio.run(go())


def _child(contender: str, endpoint: str, requests: int) -> float:
    """`one` in a fresh process (one app per process: its settings come from the env)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(APP_DIR), str(ROOT)]),
        "NUMRULES_CHECK_DB_ON_START": "false",
        "NUMRULES_RATE_LIMIT_PER_MINUTE": "0",
        "NUMRULES_LOG_LEVEL": "INFO" if contender == "fast+log" else "WARNING",
    }
    with tempfile.TemporaryFile() as log:
        out = subprocess.run(
            [sys.executable, "-m", "bench.layers", "--one", contender, endpoint, str(requests)],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=log,
            check=True,
            text=True,
            timeout=600,
        ).stdout
        if contender == "fast+log":
            log.seek(0)
            lines = sum(1 for line in log if b'"numrules.access"' in line)
            if lines < requests:
                raise SystemExit(f"fast+log wrote {lines} access lines for {requests} requests")
    return float(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--json", help="also write the medians to this file")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        contender, endpoint, requests = args.one
        print(one(contender, endpoint, int(requests)))
        return
    runs: dict[tuple[str, str], list[float]] = {}
    for rep in range(args.reps):
        for endpoint in BODIES:
            order = CONTENDERS[rep % len(CONTENDERS) :] + CONTENDERS[: rep % len(CONTENDERS)]
            for contender in order:
                runs.setdefault((endpoint, contender), []).append(
                    _child(contender, endpoint, args.requests)
                )
    print(f"engine: {engine_build()}; µs of CPU per request in process, median of {args.reps}")
    print(f"{'endpoint':14}" + "".join(f"{c:>10}" for c in CONTENDERS) + "   fast+log/echo")
    medians: dict[str, dict[str, float]] = {}
    for endpoint in BODIES:
        med = {c: statistics.median(runs[(endpoint, c)]) for c in CONTENDERS}
        medians[endpoint] = med
        print(
            f"{endpoint:14}"
            + "".join(f"{med[c]:10.1f}" for c in CONTENDERS)
            + f"   {med['fast+log'] / med['echo']:.2f}"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"build": engine_build(), "reps": args.reps, "medians": medians}, fh)


if __name__ == "__main__":
    main()
