"""Stored games: CPU instructions and SQL statements per action of the served process, counted
by valgrind's callgrind: deterministic, so two trees compare on a busy machine where actions/s
and even CPU time swing by tens of percent between runs (issue 22's "games no slower").

The server (`bench.counted_app`: `api.app:app` counting its statements) runs under callgrind
with instrumentation off until a warm-up is done (so start-up is fast), then on for a fixed
workload: `--conc` loops each playing seeded four-player Num Wars games (the same deal every
time) the way bench/stored.py's driver does (a GET of the seat's view when the last action
was another seat's, then the first of its legal actions), `--actions` actions in all. Each
loop's game is created and played a few actions in the warm-up and goes on in the window, so
the window holds actions on games in play only (when each loop created its game in the
window, the creations weighed on the count: 0.977 and 0.907 M instructions an action in two
runs of 415 actions at 16 loops, 0.836 M in one of 1,615); a game that ends there is replaced,
and the run says how many were created in the window. What runs by the clock rather than by
the workload (the sole-reads lease, the clocks' sweep, the estimate of the database's clock)
is held by `bench.counted_app` as a server at full speed holds it (bench/README.md).
Instructions counted are the server process's only (PostgreSQL and this driver are not).

    NUMRULES_BUILD_DIR=.build/mypyc .venv/bin/python -m bench.instructions [--actions 200 --conc 1]

Run it in each tree (`bash deploy/build-mypyc.sh` first for the compiled build) and compare
`instructions/action`. Needs valgrind (`apt-get install valgrind`) and PostgreSQL as
bench/games.py does. About a minute per run.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import APP_DIR, HOST, engine_build
from bench.stored import Http, server_env, throwaway_db

PORT = 18121
SEEDED = {"ruleset": "numwars", "players": [{"name": f"p{i}"} for i in range(4)], "seed": 12345}
#: `--clocked`: the same games with a turn clock that never runs out in a run
CLOCKED = {**SEEDED, "clock": {"turn_seconds": 3600, "on_timeout": "auto"}}


@dataclass
class Table:
    """One loop's game, kept from the warm-up to the measured window: its id, seats' tokens,
    the last view the driver holds and the seat it is (-1: none)."""

    id: str = ""
    tokens: list[str] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    fresh: int = -1


async def drive(
    port: int,
    total: int,
    tables: list[Table],
    create: dict[str, Any] = SEEDED,
) -> tuple[int, int, int]:
    """`total` actions (and the GETs they need) over one loop a table, each going on with its
    table's game (a new one when it has none or it ended); (actions, GETs, games created)."""
    done = gets = created = 0

    async def loop(table: Table) -> None:
        nonlocal done, gets, created
        http = Http(port)
        try:
            while done < total:
                if not table.view.get("actors"):
                    status, game = await http.request("POST", "/v1/games", create)
                    assert status == 201, (status, game)
                    table.id, table.view, table.fresh = game["id"], game["view"], -1
                    table.tokens = [s["token"] for s in game["seats"]]
                    created += 1
                while table.view["actors"] and done < total:
                    seat = table.view["actors"][0]
                    if table.fresh != seat:
                        status, got = await http.request(
                            "GET", f"/v1/games/{table.id}", token=table.tokens[seat]
                        )
                        assert status == 200, (status, got)
                        table.view, gets = got["view"], gets + 1
                    status, answer = await http.request(
                        "POST",
                        f"/v1/games/{table.id}/actions",
                        table.view["legal_actions"][0],
                        table.tokens[seat],
                    )
                    assert status == 200, (status, answer)
                    table.view, table.fresh, done = answer["view"], seat, done + 1
        finally:
            http.close()

    await asyncio.gather(*(loop(t) for t in tables))
    return done, gets, created


def callgrind(pid: int, *command: str) -> None:
    subprocess.run(["callgrind_control", *command, str(pid)], check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--conc", type=int, default=1)
    parser.add_argument(
        "--port", type=int, default=PORT, help="the server's (runs at once: one each)"
    )
    parser.add_argument(
        "--clocked", action="store_true", help="the games with an hour's turn clock (none runs out)"
    )
    parser.add_argument("--json", help="also write the result to this file")
    parser.add_argument(
        "--keep", help="keep callgrind's output in this folder (for callgrind_annotate)"
    )
    args = parser.parse_args()
    create = CLOCKED if args.clocked else SEEDED
    with tempfile.TemporaryDirectory() as tmp, throwaway_db() as url:
        out, counts = Path(tmp) / "callgrind.out", Path(tmp) / "counts.json"
        env = {
            **server_env(url),
            "NUMRULES_COUNT_FILE": str(counts),
            "PYTHONHASHSEED": "0",
            # the sweeps run by the clock, not by the workload: under valgrind (tens of times
            # slower) they were a few % of the count and its noise; the bots' sweep once an
            # hour, the clocks' too (`bench.counted_app`: the setting allows 2 s at most)
            "NUMRULES_BOT_SWEEP_SECONDS": "3600",
        }
        server = subprocess.Popen(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-m",
                "uvicorn",
                "bench.counted_app:app",
                "--app-dir",
                str(APP_DIR),
                "--host",
                HOST,
                "--port",
                str(args.port),
                "--no-access-log",
                "--log-level",
                "warning",
            ],
            env=env,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(600):
                try:
                    urllib.request.urlopen(f"http://{HOST}:{args.port}/healthz", timeout=2)
                    break
                except OSError:
                    time.sleep(0.5)
            # warm-up: caches, statements, pool, and each loop's game created and in play
            tables = [Table() for _ in range(args.conc)]
            asyncio.run(drive(args.port, max(120, 8 * args.conc), tables, create))
            os.kill(server.pid, signal.SIGUSR1)
            time.sleep(1)
            callgrind(server.pid, "--instr=on")
            actions, gets, created = asyncio.run(drive(args.port, args.actions, tables, create))
            callgrind(server.pid, "--instr=off")
            os.kill(server.pid, signal.SIGUSR1)
            time.sleep(2)
            statements: dict[str, int] = json.loads(counts.read_text())
        finally:
            server.terminate()
            server.wait(timeout=120)
        instructions = 0
        for dump in glob.glob(f"{out}*"):  # one file per dump (the last at exit)
            with open(dump) as f:
                instructions += next(
                    (int(line.split()[1]) for line in f if line.startswith("totals:")), 0
                )
            if args.keep:
                Path(args.keep).mkdir(parents=True, exist_ok=True)
                shutil.copy(dump, args.keep)
    result: dict[str, Any] = {
        "build": engine_build(),
        "actions": actions,
        "gets_per_action": round(gets / actions, 3),
        "games_created": created,
        "instructions_per_action": round(instructions / actions),
        # sent to PostgreSQL: SQLAlchemy's transaction events (`<BEGIN>` …) are not
        "statements_per_action": round(
            sum(v for k, v in statements.items() if not k.startswith("<")) / actions, 3
        ),
        "statements": {k: round(v / actions, 3) for k, v in sorted(statements.items())},
    }
    clocked = ", clocked games" if args.clocked else ""
    print(
        f"numrules server: {result['build']}; {args.conc} loop(s), {actions} actions{clocked}, "
        f"{created} game(s) created in the window"
    )
    print(f"instructions/action {result['instructions_per_action'] / 1e6:.3f} M")
    print(f"SQL/action {result['statements_per_action']:.3f} (GETs/action {gets / actions:.3f})")
    for k, v in result["statements"].items():
        print(f"  {v:6.3f}  {k}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
