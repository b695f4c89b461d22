"""HTTP benchmark: rules endpoints against a bare Litestar + msgspec echo, in the same run.

Serves `api.app:app` and `bench.echo_app:app` with uvicorn (one worker each), then loads each
rules endpoint and the echo with the very same request body from a separate process (`wrk`,
Debian package `wrk`), at 32 and 128 connections, interleaved, repeated; prints medians of
requests per second and p99 latency, and the ratio to the echo. With two CPUs or more the
server under test runs on CPU 0 and wrk (one thread) on CPU 1 (`taskset`), so the load
generator never competes with the one worker for its CPU.

    bash bench/run.sh http                         # the compiled build; 3 repetitions of 4 s
    bash bench/run.sh http --reps 5 --duration 5

Targets (issue #4): each rules endpoint ≥ 80 % of the echo's requests per second, and p99 ≤ 15 ms
at 32 connections. All traffic stays on 127.0.0.1; every run is bounded in time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench import BUILD_DIR

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"

BODIES: dict[str, tuple[str, dict[str, object]]] = {
    "score-round": (
        "/v1/rulesets/numwars-classic/score-round",
        {
            "players": [
                {
                    "captured": [
                        "rainbow-14",
                        "shadow-14",
                        "rainbow-10",
                        "shadow-10",
                        "red-16",
                        "red-8",
                        "blue-8",
                        "rainbow-5",
                        "joker",
                    ]
                },
                {
                    "captured": [
                        "red-13",
                        "blue-13",
                        "green-13",
                        "rainbow-15",
                        "shadow-15",
                        "red-7",
                        "red-4",
                        "blue-4",
                    ]
                },
                {
                    "captured": [
                        "red-2",
                        "blue-2",
                        "green-2",
                        "red-5",
                        "blue-5",
                        "green-5",
                        "yellow-5",
                        "rainbow-8",
                        "shadow-8",
                        "red-10",
                    ]
                },
                {"captured": ["red-15", "blue-15", "rainbow-12", "shadow-11", "red-3"]},
            ]
        },
    ),
    "validate-move": (
        "/v1/rulesets/numwars/validate-move",
        {
            "players": 5,
            "hand": [
                "red-3",
                "red-9",
                "blue-2",
                "green-11",
                "yellow-0",
                "rainbow-4",
                "shadow-7",
                "rainbow-10",
                "bomb",
                "blue-12",
            ],
            "trick": [{"seat": 0, "card": "red-7"}, {"seat": 1, "card": "red-12"}],
            "card": "rainbow-4",
        },
    ),
    "resolve-trick": (
        "/v1/rulesets/numwars/resolve-trick",
        {
            "players": 4,
            "trick": [
                {"seat": 0, "card": "red-5"},
                {"seat": 1, "card": "bomb"},
                {"seat": 2, "card": "shadow-9"},
                {"seat": 3, "card": "joker"},
            ],
            "roles": ["agent", "poseur", "demineur", "complice"],
            "joker_neutralizes": True,
        },
    ),
}

_LUA = """wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [==[{body}]==]
"""


#: Where the servers import `api` and `engine` from: the build under test, or the source tree.
#: uvicorn puts its `--app-dir` first on sys.path (its default, "", is the working directory,
#: which would shadow the build); PYTHONPATH adds the source tree for `bench.echo_app`.
APP_DIR = Path(BUILD_DIR).resolve() if BUILD_DIR else ROOT


def _server_env() -> dict[str, str]:
    """The stateless endpoints measured here use no database: its startup check is off."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(APP_DIR), str(ROOT)]),
        "NUMRULES_CHECK_DB_ON_START": "false",
    }


def server_build(pid: int) -> str:
    """Which engine a running server loaded, from its memory map (Linux): the compiled
    modules are shared libraries under the build directory."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return "unknown (no /proc)"
    compiled = str(APP_DIR / "engine") in maps
    return f"mypyc-compiled ({APP_DIR})" if compiled else "pure Python (source)"


@contextmanager
def serve(app: str, port: int) -> Iterator[int]:
    """Run `app` with uvicorn (one worker) until the block ends; yields the server's pid."""
    proc = subprocess.Popen(
        [
            *_pin(SERVER_CPU),
            sys.executable,
            "-m",
            "uvicorn",
            app,
            "--app-dir",
            str(APP_DIR),
            "--host",
            HOST,
            "--port",
            str(port),
            "--workers",
            "1",
            "--no-access-log",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=_server_env(),
    )
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(
                    f"http://{HOST}:{port}/healthz"
                    if "api.app" in app
                    else f"http://{HOST}:{port}/",
                    timeout=0.5,
                )
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                time.sleep(0.1)
        yield proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}

#: With two CPUs or more (and `taskset`), the server has CPU 0 to itself and wrk runs on CPU 1
#: with one thread, so the load generator never takes the one worker's CPU; otherwise both
#: share the machine and wrk runs two threads.
_PINNED = (os.cpu_count() or 1) >= 2 and shutil.which("taskset") is not None
SERVER_CPU, LOAD_CPU = 0, 1
LOAD_THREADS = 1 if _PINNED else 2


def _pin(cpu: int) -> list[str]:
    return ["taskset", "-c", str(cpu)] if _PINNED else []


def wrk(url: str, body: bytes, connections: int, duration: int) -> tuple[float, float, int]:
    """(requests per second, p99 latency in ms, non-2xx count) of one wrk run."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(_LUA.format(body=body.decode()))
        script = fh.name
    try:
        out = subprocess.run(
            [
                *_pin(LOAD_CPU),
                "wrk",
                f"-t{LOAD_THREADS}",
                f"-c{connections}",
                f"-d{duration}s",
                "--latency",
                "-s",
                script,
                url,
            ],
            capture_output=True,
            text=True,
            timeout=duration + 30,
            check=True,
        ).stdout
    finally:
        os.unlink(script)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99_ms = float(p99.group(1)) * _UNITS[p99.group(2)] if p99 else float("nan")
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return rps, p99_ms, int(bad.group(1)) if bad else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", type=int, default=4)
    parser.add_argument("--connections", default="32,128")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install wrk")
    levels = [int(c) for c in args.connections.split(",")]
    api_port, echo_port = 18101, 18102
    runs: dict[tuple[str, str, int], list[tuple[float, float]]] = {}
    with serve("api.app:app", api_port) as api_pid, serve("bench.echo_app:app", echo_port):
        build = server_build(api_pid)
        if BUILD_DIR and not build.startswith("mypyc"):
            raise SystemExit(f"the server did not load the build in {BUILD_DIR}: {build}")
        for rep in range(args.reps):
            for name, (path, payload) in BODIES.items():
                body = json.dumps(payload, separators=(",", ":")).encode()
                targets = [
                    ("rules", f"http://{HOST}:{api_port}{path}"),
                    ("echo", f"http://{HOST}:{echo_port}/echo"),
                ]
                if rep % 2:
                    targets.reverse()
                for conns in levels:
                    for kind, url in targets:
                        rps, p99, bad = wrk(url, body, conns, args.duration)
                        if bad:
                            raise SystemExit(f"{kind} {name}: {bad} non-2xx answers")
                        runs.setdefault((name, kind, conns), []).append((rps, p99))
    print(f"numrules engine (server): {build}")
    print(
        f"{'endpoint':15} {'conns':>5} {'rules rps':>10} {'echo rps':>10} {'ratio':>6} "
        f"{'rules p99':>10} {'echo p99':>9}   (median of {args.reps}, wrk -t{LOAD_THREADS}"
        f"{', pinned' if _PINNED else ''}, {args.duration:g} s)"
    )
    for name in BODIES:
        for conns in levels:
            r = runs[(name, "rules", conns)]
            e = runs[(name, "echo", conns)]
            r_rps, e_rps = statistics.median(x for x, _ in r), statistics.median(x for x, _ in e)
            r_p99, e_p99 = statistics.median(y for _, y in r), statistics.median(y for _, y in e)
            ok = r_rps / e_rps >= 0.8 and (conns != 32 or r_p99 <= 15)
            print(
                f"{name:15} {conns:5d} {r_rps:10.0f} {e_rps:10.0f} {r_rps / e_rps:6.3f} "
                f"{r_p99:8.2f}ms {e_p99:7.2f}ms   {'met' if ok else 'NOT met'}"
            )


if __name__ == "__main__":
    main()
