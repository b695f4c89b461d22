"""Stored games: actions per second through the API on PostgreSQL, against a raw asyncpg loop
doing the same reads and writes, and against boardgame.io 0.50 (in memory and FlatFile).

In one run, each numrules server and the raw loop on a throw-away database of its own
(`numrules db upgrade`d, dropped at the end), as one process deployed alone on its database:

- numrules: `api.app:app` as `numrules serve` runs it, one worker (CPU 0), driven over HTTP by
  this process (CPU 1): four-player Num Wars games, each seat taking the first of its
  `legal_actions` as soon as it may (bench/stored.py); its seats' reads are answered without a
  statement while it is its database's only client (api/db/sole.py);
- numrules-shared-db: the same with `NUMRULES_SOLE_READS=false` (a server started for each of
  its runs, as the streams' are: PostgreSQL's 100 connections), as a process that shares its
  database with other workers or replicas reads (every read a statement). Its ratio to
  numrules is judged as the clock's is (below): after the repetitions, `--shared-slices` pairs
  of 1 s slices, both servers up, the order alternating, the ratio the median of the pairs';
- raw-asyncpg: bench/raw_asyncpg.py (CPU 0), the same statements per action in the same
  transactions, computing nothing;
- boardgame.io memory / flatfile: the harness in /work/shared/peers/boardgameio (its
  4-player trick game, socket.io clients, a fresh server per run, 2 s warm-up), its server on
  CPU 0 and its bench.js on CPU 1; installed with `npm ci` into a copy (BGIO_DIR, default
  /tmp/bgio-bench; node_modules stay out of the repository).

Each at 1 and 16 concurrent games, interleaved (the order rotates every repetition),
medians of `--reps`. Latency: our POST's round trip; raw: the action's transaction;
boardgame.io: move sent → the mover's updated state received (its bench.js).

Targets (issues 13 and 27): numrules ≥ 50 % of raw-asyncpg's actions/s; at 16 games ≥ 1.0×
boardgame.io in-memory moves/s and ≥ 3× its FlatFile's, and CPU per action (the API's process
and PostgreSQL's backends of the run's database, from /proc) ≤ boardgame.io in-memory's server
CPU per move (its bench.js); p99 below boardgame.io's. With `--clocks`, also numrules-clocked
(the same games with an hour's turn clock) ≥ 0.95 of numrules' actions/s: clocks cost the human
actions nothing measurable. That ratio is paired, and judged on short pairs: after the
repetitions, `--clock-slices` pairs of `--clock-slice-seconds` slices (20 of 2 s) on the
same server (numrules then numrules-clocked, the other way round in every other pair), the
ratio the median of the pairs' own, so the VM's drift (tens of % within seconds on this VM,
more than the 5 % the target allows) does not pass for a cost of the clock; the repetitions' own pairs (numrules-
clocked right after numrules, right before it in every other one) are printed beside them. With `--pipeline`, also numrules-pipeline (a second
server with `NUMRULES_FAST_GAMES=false`: every request through Litestar's pipeline), the games'
fast path measured in the same run. With `--streams`, also numrules-streams and
numrules-streams-get (bench/stored.py `play_streams`; a server started for each of their runs,
its pool 40): every seat watches its game through its own event stream, as the app's players
do, and learns its view from the stream's `game` messages (`?view=true`), or, as the app did
before them, with a GET after each chunk of events; the first should do more actions a second
for less CPU.

    bash bench/run.sh games [--reps 3 --duration 5 --profile bench/results/games-profile.txt]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import uvloop

from bench import APP_DIR, LOAD_CPU, ROOT, SERVER_CPU, pin
from bench.stored import (
    CREATE,
    pin_self,
    play_http,
    play_measured,
    serve_api,
    server_env,
    throwaway_db,
)

PEER = Path("/work/shared/peers/boardgameio")
BGIO_DIR = Path(os.environ.get("BGIO_DIR", "/tmp/bgio-bench"))
API_PORT, BGIO_PORT, PIPELINE_PORT, STREAMS_PORT, SHARED_DB_PORT = 18111, 18112, 18113, 18114, 18115
#: The streams contenders' server, started for each of their runs (a fresh one, as
#: boardgame.io's): a pool for many seats' GETs at once (with the others' 20,
#: numrules-streams-get mostly measured overflow connections opened and closed), within
#: PostgreSQL's 100 connections beside the other servers' kept ones.
STREAMS_POOL = "40"
#: The streams contenders and the way their seats learn their views (bench/stored.py).
STREAMED = {"numrules-streams": "views", "numrules-streams-get": "gets"}
#: The games of numrules-clocked: a turn clock that never runs out in a run, so every action
#: pays what a clock costs (its deadline set and shown, the sweeps) and nothing times out.
CLOCKED = {**CREATE, "clock": {"turn_seconds": 3600, "on_timeout": "auto"}}


def bgio_install() -> Path | None:
    """A copy of the harness with its node_modules (npm ci, once); None without node/npm."""
    if shutil.which("node") is None or shutil.which("npm") is None or not PEER.is_dir():
        return None
    if not (BGIO_DIR / "node_modules" / "boardgame.io").is_dir():
        BGIO_DIR.mkdir(parents=True, exist_ok=True)
        for f in PEER.iterdir():
            if f.is_file():
                shutil.copy2(f, BGIO_DIR / f.name)
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=BGIO_DIR,
            check=True,
            capture_output=True,
            timeout=600,
        )
    return BGIO_DIR


def bgio_run(storage: str, conc: int, duration: float) -> dict[str, Any]:
    """One boardgame.io run as its run_all.sh does it: fresh server, warm-up, bench.js."""
    env = {**os.environ, "NODE_ENV": "production", "PORT": str(BGIO_PORT), "STORAGE": storage}
    env.pop("FLATFILE_DIR", None)
    with tempfile.TemporaryDirectory() as db, tempfile.TemporaryFile("w+") as log:
        env["DB_DIR"] = str(Path(db) / "store")
        server = subprocess.Popen(
            [*pin(SERVER_CPU), "node", "server.js"],
            cwd=BGIO_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            for _ in range(100):
                log.seek(0)
                if "READY" in log.read():
                    break
                time.sleep(0.1)
            bench = [*pin(LOAD_CPU), "node", "bench.js"]
            base = {**env, "SERVER_PID": str(server.pid), "BASE": f"http://127.0.0.1:{BGIO_PORT}"}
            subprocess.run(
                bench,
                cwd=BGIO_DIR,
                env={**base, "CONC": "4", "DURATION": "2", "LABEL": "warmup"},
                check=True,
                capture_output=True,
                timeout=120,
            )
            out = subprocess.run(
                bench,
                cwd=BGIO_DIR,
                env={**base, "CONC": str(conc), "DURATION": f"{duration:g}", "LABEL": storage},
                check=True,
                capture_output=True,
                text=True,
                timeout=duration + 120,
            ).stdout
        finally:
            server.terminate()
            server.wait(timeout=10)
    row = json.loads(out.strip().splitlines()[-1])
    return {
        "actions_per_s": row["moves_per_s_play"],
        "p50_ms": row["move_lat_ms"]["p50"],
        "p99_ms": row["move_lat_ms"]["p99"],
        "actions": row["accepted"],
        "rejected": row["rejected"],
        "server_us": row["server_cpu_us_per_move_play"],
    }


def raw_run(url: str, conc: int, duration: float, mode: str = "hot") -> dict[str, Any]:
    dsn = url.replace("postgresql+asyncpg://", "postgresql://")
    out = subprocess.run(
        [
            *pin(SERVER_CPU),
            sys.executable,
            "-m",
            "bench.raw_asyncpg",
            "--dsn",
            dsn,
            "--conc",
            str(conc),
            "--duration",
            f"{duration:g}",
            "--mode",
            mode,
        ],
        cwd=ROOT,
        env=server_env(url),
        check=True,
        capture_output=True,
        text=True,
        timeout=duration + 120,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def profile_summary(folded: Path, top: int = 25) -> str:
    """Top frames of a py-spy `--format raw` profile: self time and inclusive time, as shares
    of the samples in which the server was busy (py-spy leaves out idle threads; the logging
    queue's thread, which py-spy counts while it waits, is left out here)."""
    own: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    total = 0
    for line in folded.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        total += n
        frames = [f for f in stack.split(";") if f]
        if any("QueueListener" in f for f in frames):
            continue  # the logging thread waiting for a record: idle, not work
        if frames:
            own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    lines = [f"{total} samples"]
    lines.append("self time (the frame on top of the stack):")
    lines += [f"{100 * n / total:6.1f}%  {f}" for f, n in own.most_common(top)]
    lines.append("inclusive time (the frame anywhere in the stack):")
    lines += [f"{100 * n / total:6.1f}%  {f}" for f, n in incl.most_common(top * 2)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--concurrency", default="1,16")
    parser.add_argument("--no-bgio", action="store_true", help="leave boardgame.io out")
    parser.add_argument(
        "--raw",
        choices=("hot", "four", "six"),
        default="hot",
        help="the raw loop's statements: hot (the API's), four (every action locked, before "
        "session 16), six (before issue 27): to compare with older trees",
    )
    parser.add_argument(
        "--clocks",
        action="store_true",
        help="also numrules-clocked: the same games with a turn clock (an hour: none times out)",
    )
    parser.add_argument(
        "--clock-slices",
        type=int,
        default=20,
        help="with --clocks: the pairs of slices (numrules, numrules-clocked, alternating "
        "which goes first) that the clock's target is judged on, at each concurrency",
    )
    parser.add_argument(
        "--clock-slice-seconds",
        type=float,
        default=2.0,
        help="with --clocks: each slice's length (2 s: the pairs' ratios spread half as much "
        "as with 1 s slices on this VM, whose speed drifts over tens of seconds)",
    )
    parser.add_argument(
        "--shared-slices",
        type=int,
        default=12,
        help="the pairs of 1 s slices (numrules, numrules-shared-db, alternating which goes "
        "first, both servers up) that the sole reads' ratio is judged on, at each concurrency",
    )
    parser.add_argument(
        "--pipeline",
        action="store_true",
        help="also numrules-pipeline: a second server with NUMRULES_FAST_GAMES=false (every "
        "request through Litestar's pipeline), to measure the games' fast path",
    )
    parser.add_argument(
        "--streams",
        action="store_true",
        help="also numrules-streams: the same games, each seat watching them through its own "
        "event stream with `?view=true` (its view comes with the events: no GET), and "
        "numrules-streams-get: the same streams without views, each seat reading its view with "
        "a GET after each chunk of events (as the app did before `view=true`)",
    )
    parser.add_argument(
        "--profile",
        help="py-spy the server in a run of its own at the highest concurrency, after the "
        "measured ones (left out of the figures): a summary",
    )
    parser.add_argument("--json", help="also write the medians and ratios to this file")
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]
    bgio = None if args.no_bgio else bgio_install()
    contenders = ["numrules", "numrules-shared-db", "raw-asyncpg"]
    contenders += ["numrules-pipeline"] if args.pipeline else []
    contenders += ["numrules-streams", "numrules-streams-get"] if args.streams else []
    if bgio is not None:
        contenders += ["bgio-memory", "bgio-flatfile"]
    pin_self(LOAD_CPU)
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    with throwaway_db() as url, serve_api(url, API_PORT) as api_pid, ExitStack() as stack:
        servers = {"numrules": (API_PORT, api_pid)}
        #: Each contender's database (the numrules servers': each one its database's only
        #: client, as deployed alone; raw-asyncpg's; the streams servers' one).
        urls = {"numrules": url, "numrules-clocked": url}
        if args.pipeline:
            urls["numrules-pipeline"] = stack.enter_context(throwaway_db())
            slow = {"NUMRULES_FAST_GAMES": "false"}
            pid = stack.enter_context(
                serve_api(urls["numrules-pipeline"], PIPELINE_PORT, settings=slow)
            )
            servers["numrules-pipeline"] = (PIPELINE_PORT, pid)
        # started for each of its runs, as the streams' servers (PostgreSQL's 100 connections)
        urls["numrules-shared-db"] = stack.enter_context(throwaway_db())
        urls["raw-asyncpg"] = stack.enter_context(throwaway_db())
        streams_url = stack.enter_context(throwaway_db()) if args.streams else url
        # 64 streams from one address (the cap is 50 a network)
        wide = {"NUMRULES_DB_POOL_SIZE": STREAMS_POOL, "NUMRULES_MAX_STREAMS_PER_NETWORK": "0"}
        for port, _ in servers.values():
            uvloop.run(play_http(port, 4, 2))  # warm-up, as boardgame.io's
        for rep in range(args.reps):
            for conc in levels:
                order = contenders[rep % len(contenders) :] + contenders[: rep % len(contenders)]
                if args.clocks:  # beside numrules, after it and before it in turn (paired)
                    at = order.index("numrules") + (1 if rep % 2 == 0 else 0)
                    order.insert(at, "numrules-clocked")
                for who in order:
                    if who in STREAMED:
                        with serve_api(streams_url, STREAMS_PORT, settings=wide) as pid:
                            uvloop.run(play_http(STREAMS_PORT, 4, 2))  # warm-up, as above
                            row = uvloop.run(
                                play_measured(
                                    [STREAMS_PORT],
                                    [pid],
                                    streams_url,
                                    conc,
                                    args.duration,
                                    None,
                                    STREAMED[who],
                                )
                            )
                    elif who == "numrules-shared-db":
                        shared = {"NUMRULES_SOLE_READS": "false"}
                        with serve_api(urls[who], SHARED_DB_PORT, settings=shared) as pid:
                            uvloop.run(play_http(SHARED_DB_PORT, 4, 2))  # warm-up, as above
                            row = uvloop.run(
                                play_measured(
                                    [SHARED_DB_PORT], [pid], urls[who], conc, args.duration
                                )
                            )
                    elif who.startswith("numrules"):
                        create = CLOCKED if who == "numrules-clocked" else None
                        port, pid = servers.get(who, servers["numrules"])
                        row = uvloop.run(
                            play_measured([port], [pid], urls[who], conc, args.duration, create)
                        )
                    elif who == "raw-asyncpg":
                        row = raw_run(urls[who], conc, args.duration, args.raw)
                    else:
                        row = bgio_run(who.removeprefix("bgio-"), conc, args.duration)
                    runs.setdefault((who, conc), []).append(row)
        slices: dict[int, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        if args.clocks:  # the clock's target: pairs of short slices, so the VM's drift cancels
            for conc in levels:
                for pair in range(args.clock_slices):
                    done = {}
                    for create in (None, CLOCKED) if pair % 2 == 0 else (CLOCKED, None):
                        done[create is None] = uvloop.run(
                            play_measured(
                                [API_PORT], [api_pid], url, conc, args.clock_slice_seconds, create
                            )
                        )
                    slices.setdefault(conc, []).append((done[True], done[False]))
        shared_slices: dict[int, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        if args.shared_slices:  # the sole reads' ratio: pairs of short slices, as the clock's
            shared = {"NUMRULES_SOLE_READS": "false"}
            shared_url = urls["numrules-shared-db"]
            with serve_api(shared_url, SHARED_DB_PORT, settings=shared) as pid:
                uvloop.run(play_http(SHARED_DB_PORT, 4, 2))  # warm-up, as above
                sides = {
                    True: ([API_PORT], [api_pid], url),
                    False: ([SHARED_DB_PORT], [pid], shared_url),
                }
                for conc in levels:
                    for pair in range(args.shared_slices):
                        done = {}
                        for alone in (True, False) if pair % 2 == 0 else (False, True):
                            ports, pids, where = sides[alone]
                            done[alone] = uvloop.run(play_measured(ports, pids, where, conc, 1.0))
                        shared_slices.setdefault(conc, []).append((done[True], done[False]))
        if args.profile:  # a run of its own, left out of the figures: py-spy slows the server
            folded = Path(args.profile).with_suffix(".folded")
            spy = subprocess.Popen(
                [
                    str(Path(sys.executable).parent / "py-spy"),
                    "record",
                    "-p",
                    str(api_pid),
                    "-d",
                    f"{max(1, int(args.duration))}",
                    "-r",
                    "200",
                    "--format",
                    "raw",
                    "-o",
                    str(folded),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            uvloop.run(play_measured([API_PORT], [api_pid], url, max(levels), args.duration))
            spy.wait(timeout=60)
            Path(args.profile).write_text(profile_summary(folded))
    env = server_env(url)
    print(f"numrules server: {APP_DIR}, one uvicorn worker on PostgreSQL 127.0.0.1")
    print(f"rate limit: {env['NUMRULES_RATE_LIMIT_PER_MINUTE']}/min (0: off)")
    print(
        f"{'contender':20} {'games':>5} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'server µs':>9}   (median of {args.reps}, {args.duration:g} s each; server µs: CPU "
        "per action of the server, numrules' with its PostgreSQL backends)"
    )
    med: dict[tuple[str, int], dict[str, float]] = {}
    shown = contenders + (["numrules-clocked"] if args.clocks else [])
    for conc in levels:
        for who in shown:
            rs = runs[(who, conc)]
            m = {
                k: statistics.median(r[k] for r in rs)
                for k in (
                    "actions_per_s",
                    "p50_ms",
                    "p99_ms",
                    "api_us",
                    "db_us",
                    "client_us",
                    "server_us",
                    "requests_per_action",
                )
                if k in rs[0]
            }
            if "api_us" in m:  # the API's process and PostgreSQL's backends of the run's database
                m["server_us"] = m["api_us"] + m["db_us"]
            med[(who, conc)] = m
            cpu = f"{m['server_us']:9.0f}" if "server_us" in m else f"{'':9}"
            print(
                f"{who:20} {conc:5d} {m['actions_per_s']:10.1f} {m['p50_ms']:8.2f} "
                f"{m['p99_ms']:8.2f} {cpu}"
            )
    targets = []
    clocks: dict[int, dict[str, list[float]]] = {}
    for conc in levels:
        ours = med[("numrules", conc)]
        targets.append(
            (
                f"numrules / raw-asyncpg actions/s, {conc} games (≥ 0.50)",
                ours["actions_per_s"] / med[("raw-asyncpg", conc)]["actions_per_s"],
                0.5,
                True,
            )
        )
        sole = [a["actions_per_s"] / b["actions_per_s"] for a, b in shared_slices.get(conc, [])]
        if sole:
            print(
                f"numrules / numrules-shared-db, {conc} games: the {args.duration:g} s runs' "
                f"medians {ours['actions_per_s'] / med[('numrules-shared-db', conc)]['actions_per_s']:.3f}"
                f"; the 1 s slices' pairs {', '.join(f'{r:.3f}' for r in sole)} (CPU µs an "
                f"action, API and PostgreSQL: "
                f"{statistics.median(a['api_us'] + a['db_us'] for a, _ in shared_slices[conc]):.0f}"
                f" against "
                f"{statistics.median(b['api_us'] + b['db_us'] for _, b in shared_slices[conc]):.0f})"
            )
            targets.append(
                (
                    f"numrules / numrules-shared-db actions/s, {conc} games, paired (reads "
                    f"without a statement, the process alone on its database; median of "
                    f"{len(sole)} pairs of 1 s slices: > 1)",
                    statistics.median(sole),
                    1.0,
                    True,
                )
            )
        if args.pipeline:
            targets.append(
                (
                    f"numrules / numrules-pipeline actions/s, {conc} games (the fast path: > 1)",
                    ours["actions_per_s"] / med[("numrules-pipeline", conc)]["actions_per_s"],
                    1.0,
                    True,
                )
            )
        if args.streams:
            views, gets = med[("numrules-streams", conc)], med[("numrules-streams-get", conc)]
            targets.append(
                (
                    f"numrules-streams / numrules-streams-get actions/s, {conc} games (views "
                    "on the streams: > 1)",
                    views["actions_per_s"] / gets["actions_per_s"],
                    1.0,
                    True,
                )
            )
            targets.append(
                (
                    f"numrules-streams / numrules-streams-get CPU per action, {conc} games (< 1)",
                    views["server_us"] / gets["server_us"],
                    1.0,
                    False,
                )
            )
        if args.clocks:
            paired = [
                clocked["actions_per_s"] / plain["actions_per_s"]
                for clocked, plain in zip(
                    runs[("numrules-clocked", conc)], runs[("numrules", conc)], strict=True
                )
            ]
            sliced = [c["actions_per_s"] / p["actions_per_s"] for p, c in slices[conc]]
            print(
                f"numrules-clocked / numrules, {conc} games: the {args.duration:g} s runs' pairs "
                f"{', '.join(f'{r:.3f}' for r in paired)}; the {args.clock_slice_seconds:g} s slices' pairs "
                f"{', '.join(f'{r:.3f}' for r in sliced)}"
            )
            targets.append(
                (
                    f"numrules-clocked / numrules actions/s, {conc} games, paired "
                    f"(median of {len(sliced)} pairs of {args.clock_slice_seconds:g} s slices; ≥ 0.95)",
                    statistics.median(sliced),
                    0.95,
                    True,
                )
            )
            clocks[conc] = {"runs_paired": paired, "slices_paired": sliced}
        if bgio is None:
            continue
        if conc == max(levels):
            targets.append(
                (
                    f"numrules CPU / bgio-memory CPU per action, {conc} games (< 1.00)",
                    ours["server_us"] / med[("bgio-memory", conc)]["server_us"],
                    1.0,
                    False,
                )
            )
        for peer, floor in (("bgio-memory", 1.0), ("bgio-flatfile", 3.0)):
            theirs = med[(peer, conc)]
            if conc == max(levels):
                targets.append(
                    (
                        f"numrules / {peer} actions/s, {conc} games (≥ {floor:.2f})",
                        ours["actions_per_s"] / theirs["actions_per_s"],
                        floor,
                        True,
                    )
                )
            targets.append(
                (
                    f"numrules p99 / {peer} p99, {conc} games (< 1.00)",
                    ours["p99_ms"] / theirs["p99_ms"],
                    1.0,
                    False,
                )
            )
    for name, ratio, bound, at_least in targets:
        ok = ratio >= bound if at_least else ratio < bound
        print(f"{name:55} {ratio:7.3f}   {'met' if ok else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "rate_limit_per_minute": env["NUMRULES_RATE_LIMIT_PER_MINUTE"],
                    "reps": args.reps,
                    "duration_s": args.duration,
                    "medians": {f"{w} c={c}": m for (w, c), m in med.items()},
                    "targets": [
                        {"target": n, "ratio": r, "met": (r >= b if a else r < b)}
                        for n, r, b, a in targets
                    ],
                    "runs": {f"{w} c={c}": r for (w, c), r in runs.items()},
                    "clock_pairs": {f"c={c}": v for c, v in clocks.items()},
                    "shared_db_pairs": {
                        f"c={c}": [a["actions_per_s"] / b["actions_per_s"] for a, b in v]
                        for c, v in shared_slices.items()
                    },
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
