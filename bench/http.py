"""HTTP benchmark: rules endpoints against a bare Litestar + msgspec echo and FastAPI, one run.

Serves `api.app:app`, `bench.echo_app:app` and `bench.fastapi_app:app` (the same endpoints in
FastAPI + pydantic v2, calling the same engine functions) with uvicorn (one worker each), then
loads each rules endpoint, the echo and the FastAPI endpoint with the very same request body from a separate process (`wrk`,
Debian package `wrk`), at 32 and 128 connections, interleaved, repeated; prints medians of
requests per second, p99 latency and the servers' CPU per request (their process's CPU over the
run, /proc), and the ratio to the echo. With two CPUs or more the
server under test runs on CPU 0 and wrk (one thread) on CPU 1 (`taskset`), so the load
generator never competes with the one worker for its CPU.

    bash bench/run.sh http                         # the compiled build; 3 repetitions of 4 s
    bash bench/run.sh http --reps 5 --duration 5

Targets (issue #13, replacing issue #4's): each rules endpoint ≥ 80 % of the echo's requests
per second and ≥ 1.3× FastAPI's, at 32 and 128 connections; p99 at 32 connections ≤ 1.25× the
echo's. All traffic stays on 127.0.0.1; every run is bounded in time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from bench import APP_DIR, BUILD_DIR, HOST, LOAD_CPU, PINNED, ROOT, pin, uvicorn
from bench.stored import cpu_seconds

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


def _server_env() -> dict[str, str]:
    """The stateless endpoints measured here use no database: its startup check is off.
    One client sends every request: the rate limit is off unless the environment sets it.
    Every operations layer is on (issue 27): request ids, metrics and one JSON access line per
    request (INFO), written to a file as a deployment's log collector would read them
    (`NUMRULES_LOG_LEVEL=WARNING` turns the lines off; the report prints both settings)."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(APP_DIR), str(ROOT)]),
        "NUMRULES_CHECK_DB_ON_START": "false",
        "NUMRULES_RATE_LIMIT_PER_MINUTE": os.environ.get("NUMRULES_RATE_LIMIT_PER_MINUTE", "0"),
        "NUMRULES_LOG_LEVEL": os.environ.get("NUMRULES_LOG_LEVEL", "INFO"),
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


def serve(app: str, port: int, log: Any = None) -> AbstractContextManager[int]:
    """Run `app` with uvicorn (one worker) until the block ends, its standard error (its log
    lines) to `log`; yields the server's pid."""
    ready = "/healthz" if "api.app" in app else "/"
    return uvicorn(app, port, _server_env(), ready=ready, stderr=log)


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}

#: Pinned (`bench.PINNED`), wrk runs one thread on CPU 1, so the load generator never takes
#: the one worker's CPU; otherwise both share the machine and wrk runs two threads.
LOAD_THREADS = 1 if PINNED else 2


def wrk(url: str, body: bytes, connections: int, duration: int) -> tuple[float, float, int, int]:
    """(requests per second, p99 latency in ms, non-2xx count, requests) of one wrk run."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(_LUA.format(body=body.decode()))
        script = fh.name
    try:
        out = subprocess.run(
            [
                *pin(LOAD_CPU),
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
    done = re.search(r"(\d+) requests in", out)
    return rps, p99_ms, int(bad.group(1)) if bad else 0, int(done.group(1)) if done else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", type=int, default=4)
    parser.add_argument("--connections", default="32,128")
    parser.add_argument("--json", help="also write the medians and ratios to this file")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install wrk")
    levels = [int(c) for c in args.connections.split(",")]
    ports = {"rules": 18101, "echo": 18102, "fastapi": 18103}
    runs: dict[tuple[str, str, int], list[tuple[float, float, float]]] = {}
    with (
        tempfile.TemporaryFile() as log,
        serve("api.app:app", ports["rules"], log) as api_pid,
        serve("bench.echo_app:app", ports["echo"]) as echo_pid,
        serve("bench.fastapi_app:app", ports["fastapi"]) as fastapi_pid,
    ):
        pids = {"rules": api_pid, "echo": echo_pid, "fastapi": fastapi_pid}
        build = server_build(api_pid)
        if BUILD_DIR and not build.startswith("mypyc"):
            raise SystemExit(f"the server did not load the build in {BUILD_DIR}: {build}")
        for rep in range(args.reps):
            for name, (path, payload) in BODIES.items():
                body = json.dumps(payload, separators=(",", ":")).encode()
                targets = [
                    ("rules", f"http://{HOST}:{ports['rules']}{path}"),
                    ("echo", f"http://{HOST}:{ports['echo']}/echo"),
                    ("fastapi", f"http://{HOST}:{ports['fastapi']}{path}"),
                ]
                k = rep % len(targets)  # each contender goes first in turn
                targets = targets[k:] + targets[:k]
                for conns in levels:
                    for kind, url in targets:
                        before = sum(cpu_seconds([pids[kind]]).values())
                        rps, p99, bad, done = wrk(url, body, conns, args.duration)
                        used = sum(cpu_seconds([pids[kind]]).values()) - before
                        if bad:
                            raise SystemExit(f"{kind} {name}: {bad} non-2xx answers")
                        cpu_us = 1e6 * used / max(1, done)  # the server's CPU per request
                        runs.setdefault((name, kind, conns), []).append((rps, p99, cpu_us))
        log.seek(0)
        access_lines = sum(1 for line in log if b'"numrules.access"' in line)
    print(f"numrules engine (server): {build}")
    env = _server_env()
    print(
        f"rate limit: {env['NUMRULES_RATE_LIMIT_PER_MINUTE']}/min (0: off); "
        f"log level: {env['NUMRULES_LOG_LEVEL']} ({access_lines:,} access lines written)"
    )
    print(
        f"{'endpoint':14} {'conns':>5} {'rules rps':>9} {'echo rps':>9} {'fapi rps':>9} "
        f"{'/echo':>6} {'/fapi':>6} {'rules p99':>9} {'echo p99':>9} {'fapi p99':>9} "
        f"{'p99/echo':>8} {'rules µs':>8} {'echo µs':>8}   (median of {args.reps}, "
        f"wrk -t{LOAD_THREADS}"
        f"{', pinned' if PINNED else ''}, {args.duration:g} s)"
    )
    rows = []
    for name in BODIES:
        for conns in levels:
            med = {
                kind: tuple(
                    statistics.median(r[i] for r in runs[(name, kind, conns)]) for i in range(3)
                )
                for kind in ports
            }
            (r_rps, r_p99, r_cpu), (e_rps, e_p99, _), (f_rps, f_p99, _) = (
                med["rules"],
                med["echo"],
                med["fastapi"],
            )
            vs_echo, vs_fastapi, p99_ratio = r_rps / e_rps, r_rps / f_rps, r_p99 / e_p99
            met = {
                "rps >= 0.8 echo": vs_echo >= 0.8,
                "rps >= 1.3 fastapi": vs_fastapi >= 1.3,
            }
            if conns == 32:
                met["p99 <= 1.25 echo p99"] = p99_ratio <= 1.25
            missed = [k for k, ok in met.items() if not ok]
            print(
                f"{name:14} {conns:5d} {r_rps:9.0f} {e_rps:9.0f} {f_rps:9.0f} "
                f"{vs_echo:6.3f} {vs_fastapi:6.3f} {r_p99:7.2f}ms {e_p99:7.2f}ms {f_p99:7.2f}ms "
                f"{p99_ratio:8.2f} {r_cpu:8.0f} {med['echo'][2]:8.0f}   "
                f"{'met' if not missed else 'NOT met: ' + ', '.join(missed)}"
            )
            rows.append(
                {
                    "endpoint": name,
                    "connections": conns,
                    "rps": {k: v[0] for k, v in med.items()},
                    "p99_ms": {k: v[1] for k, v in med.items()},
                    # each server's CPU per request (µs): its process's, over the wrk run
                    "cpu_us": {k: v[2] for k, v in med.items()},
                    "vs_echo": vs_echo,
                    "vs_fastapi": vs_fastapi,
                    "p99_vs_echo": p99_ratio,
                    "met": met,
                    "runs": {k: runs[(name, k, conns)] for k in ports},
                }
            )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "build": build,
                    "rate_limit_per_minute": env["NUMRULES_RATE_LIMIT_PER_MINUTE"],
                    "reps": args.reps,
                    "duration_s": args.duration,
                    "rows": rows,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
