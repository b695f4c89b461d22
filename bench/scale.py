"""Stored games' growth and scale: the cost of a cold load with the log's length, and the
throughput with 1, 2 and 4 uvicorn workers and two replicas, and where the CPU goes. On a throw-away PostgreSQL database.

growth: numwars-classic games at 8 players (1,024 actions a match, 8 rounds) in a
`GameService` in this process (CPU 0), played with the service's own `act`: one game each played
to 10, 100 and 1,000 actions of log, and to 10 actions into the second and the last round,
four games of each (`GAMES_PER_LENGTH`: four times the samples, since a game's own are few);
then `--samples` rounds over the games, interleaved (after one that only warms up), each
game taking a pair: *cold*, the store's cache emptied (as in a fresh process: the match is
resumed from the checkpoint of its round's start and that round's actions applied, those the
checkpoint holds and then the log's since) and then
one action applied, timed; *warm*, the next action with the match cached. The seat's action
is read beforehand (`get`, untimed). Then the cold load alone (`GameService._replay` at each
game's version, nothing written), 100 times per game interleaved. Reported: the actions
into the round, medians in ms, cold / warm, cold at each length / cold at 10, and the
load alone, median and minimum (on a loaded machine the minimum is the stable figure).
`--samples` is at most 11: the 1,000-action game must not reach the match's end (1,024).

    bash bench/run.sh scale --growth-only --samples 11   # the growth alone

workers and replicas: `numrules`' app under uvicorn with `--workers 1|2|4`, and as two
replicas (two processes of one worker, the games dealt to them in turn), not pinned (all of
the machine's CPUs), driven by this process with 16 concurrent four-player Num Wars games as
in bench/games.py; actions/s and p50/p99, and the CPU each side used per action (the API's
processes, PostgreSQL's backends of the run's database and its background processes, this
client, read from /proc) with the share of the machine they kept busy: where the limit is.
Medians of `--reps` runs with the order rotating.

    bash bench/run.sh scale [--reps 3 --duration 5 --samples 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import uvloop

from bench import APP_DIR, SERVER_CPU
from bench.stored import (
    pin_self,
    play_http,
    play_measured,
    serve_api,
    server_env,
    throwaway_db,
)

LENGTHS = (10, 100, 1000)
#: Also measured: 10 actions into the 2nd and the last round (a cold load resumes at its
#: round's start, so what it replays is the position in the round, not the log's length).
INTO_ROUND = 10
#: Games played to each length, each taking every round's pair: 4 times the samples of one
#: (a 1,000-action game may take 11 pairs at most before its match ends; more pairs would
#: also move the games further into their rounds).
GAMES_PER_LENGTH = 4
#: How many times the cold load alone is timed per game (after the pairs).
LOADS = 100
#: Each setup's servers, by their uvicorn workers: one process of 1, 2 or 4 workers, and two
#: replicas (two processes of one worker each, on one PostgreSQL, the games dealt in turn).
SETUPS = {"1 worker": (1,), "2 workers": (2,), "4 workers": (4,), "2 replicas": (1, 1)}
PORT = 18121
MEASURES = ("actions_per_s", "p50_ms", "p99_ms", "api_us", "db_us", "db_bg_us", "client_us", "busy")


def round_starts() -> list[int]:
    """Where each round of the benchmark's match starts (the engine playing as the driver:
    the first actor, its first legal action)."""
    from engine import registry
    from engine.core.match import Match

    match = Match(registry.make("numwars-classic", {}), 8, 7)
    starts, played = [0], 0
    while not match.is_over:
        seat, index = match.actors()[0], match.index
        match.apply(seat, match.legal_actions(seat)[0])
        played += 1
        if match.index != index and not match.is_over:
            starts.append(played)
    return starts


async def growth(url: str, samples: int) -> dict[int, dict[str, float]]:
    """One game per length, played up to it; then `samples` rounds over the games in an order
    that rotates, each a cold and a warm action (their order alternating), after one round
    that only warms up. The games share the database and the moment, so a slower stretch of
    the machine touches every length alike."""
    os.environ.update(server_env(url))
    import msgspec

    from api.db.engine import create_engine
    from api.games.fanout import Fanout
    from api.games.schemas import CreateGame
    from api.games.service import GameService, seat_credential

    engine = create_engine(url)
    store = GameService(engine, Fanout())
    body = msgspec.convert(
        {"ruleset": "numwars-classic", "players": [{"name": f"p{i}"} for i in range(8)], "seed": 7},
        CreateGame,
    )

    class Game:
        def __init__(self, created: Any) -> None:
            self.id = created.id
            self.tokens = [seat_credential(s.token) for s in created.seats]
            self.version, self.view = 0, created.view

        async def act(self, cold: bool) -> float:
            seat = self.view.actors[0]
            out = await store.get(self.id, self.tokens[seat])  # the seat's action, untimed
            if cold:
                store._cache.clear()  # what a fresh process starts with
            t0 = time.perf_counter()
            answer, _ = await store.act(
                self.id, self.tokens[seat], out.view.legal_actions[0], None, None
            )
            elapsed = (time.perf_counter() - t0) * 1e3
            self.version, self.view = answer.version, answer.view  # type: ignore[union-attr]
            return elapsed

    starts = round_starts()
    same_point = {starts[0] + INTO_ROUND, starts[1] + INTO_ROUND, starts[-1] + INTO_ROUND}
    lengths = sorted(set(LENGTHS) | same_point)
    games: dict[int, list[Game]] = {length: [] for length in lengths}
    for length in lengths:
        for _ in range(GAMES_PER_LENGTH):
            game = Game(await store.create(body))
            games[length].append(game)
            while game.version < length:
                await game.act(False)
    cold: dict[int, list[float]] = {length: [] for length in lengths}
    warm: dict[int, list[float]] = {length: [] for length in lengths}
    for i in range(samples + 1):
        k = i % len(lengths)
        for length in lengths[k:] + lengths[:k]:
            pair = [(True, cold[length]), (False, warm[length])]
            for game in games[length]:
                for is_cold, into in pair if i % 2 == 0 else reversed(pair):
                    elapsed = await game.act(is_cold)
                    if i > 0:  # the first round only warms up (statements prepared)
                        into.append(elapsed)
    # The cold load alone (`_replay`: the checkpoint and the round's actions read and applied,
    # nothing written), `LOADS` times per game, interleaved: its minimum is the figure a
    # loaded machine disturbs least.
    loads: dict[int, list[float]] = {length: [] for length in lengths}
    async with engine.connect() as conn:
        rows = {
            length: await store.repository.game(conn, games[length][0].id) for length in lengths
        }
        for i in range(LOADS + 1):
            for length in lengths:
                t0 = time.perf_counter()
                await store._replay(conn, rows[length])
                if i > 0:
                    loads[length].append((time.perf_counter() - t0) * 1e3)
    results: dict[int, dict[str, float]] = {
        length: {
            "log": length,
            "into_round": length - max(s for s in starts if s <= length),
            "cold_ms": statistics.median(cold[length]),
            "warm_ms": statistics.median(warm[length]),
            "load_ms": statistics.median(loads[length]),
            "load_min_ms": min(loads[length]),
        }
        for length in lengths
    }
    await store.close()
    await engine.dispose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--samples", type=int, default=9)
    parser.add_argument("--conc", type=int, default=16)
    parser.add_argument("--json", help="also write the medians and ratios to this file")
    parser.add_argument(
        "--growth-only", action="store_true", help="measure the growth only (no workers' runs)"
    )
    parser.add_argument(
        "--setups-only", action="store_true", help="measure the workers and replicas only"
    )
    args = parser.parse_args()
    out: dict[str, Any] = {}
    with throwaway_db() as url:
        pin_self(SERVER_CPU)
        grown = {} if args.setups_only else uvloop.run(growth(url, args.samples))
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
        runs: dict[str, list[dict[str, Any]]] = {}
        for rep in range(0 if args.growth_only else args.reps):
            k = rep % len(SETUPS)
            for name in list(SETUPS)[k:] + list(SETUPS)[:k]:
                ports = [PORT + i for i in range(len(SETUPS[name]))]
                with ExitStack() as stack:
                    servers = [
                        stack.enter_context(serve_api(url, port, workers=workers, cpu=None))
                        for port, workers in zip(ports, SETUPS[name], strict=True)
                    ]
                    uvloop.run(play_http(ports, 4 * len(ports), 1))  # warm-up: first games
                    runs.setdefault(name, []).append(
                        uvloop.run(play_measured(ports, servers, url, args.conc, args.duration))
                    )
    env = server_env(url)
    print(f"numrules server: {APP_DIR} on PostgreSQL 127.0.0.1; CPUs: {os.cpu_count()}")
    print(f"rate limit: {env['NUMRULES_RATE_LIMIT_PER_MINUTE']}/min (0: off)")
    flat = None
    if grown:
        print(
            "growth: load + one action, numwars-classic 8p (median of "
            f"{args.samples * GAMES_PER_LENGTH} each: {args.samples} on each of "
            f"{GAMES_PER_LENGTH} games);\n"
            "in round: the actions into the round (a cold load takes the round's state stored\n"
            "with every 16th of them, then applies at most 15 read from the log);\n"
            f"load: the cold load alone (no action), median and minimum of {LOADS}\n"
            f"{'log':>6} {'in round':>8} {'cold ms':>8} {'warm ms':>8} {'cold/warm':>9} "
            f"{'cold/cold@10':>12} {'load ms':>8} {'load min':>8}"
        )
        base = grown[LENGTHS[0]]["cold_ms"]
        for length in sorted(grown):
            g = grown[length]
            g["cold_vs_warm"], g["cold_vs_cold10"] = (
                g["cold_ms"] / g["warm_ms"],
                g["cold_ms"] / base,
            )
            print(
                f"{g['log']:6.0f} {g['into_round']:8.0f} {g['cold_ms']:8.2f} {g['warm_ms']:8.2f} "
                f"{g['cold_vs_warm']:9.2f} {g['cold_vs_cold10']:12.2f} {g['load_ms']:8.3f} "
                f"{g['load_min_ms']:8.3f}"
            )
        worst = max(g["cold_vs_cold10"] for g in grown.values())
        flat = worst <= 1.25
        print(
            f"cold load flat in the log's length (≤ 1.25× of cold@10 at every point measured, "
            f"worst {worst:.2f}): {'met' if flat else 'NOT met'}"
        )
    scale = {}
    if runs:
        print(
            f"workers and replicas: {args.conc} concurrent games (median of {args.reps}, "
            f"{args.duration:g} s); CPU per action in µs: the API servers, PostgreSQL's "
            "backends of the run's database and its background processes, the client; "
            f"busy: their CPU / the machine's ({os.cpu_count()} CPUs)\n"
            f"{'setup':>11} {'actions/s':>10} {'vs 1':>6} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'api µs':>7} {'db µs':>7} {'db bg':>6} {'client':>7} {'busy':>5}"
        )
        one = statistics.median(r["actions_per_s"] for r in runs["1 worker"])
        for name in SETUPS:
            m = {k: statistics.median(r[k] for r in runs[name]) for k in MEASURES}
            m["vs_1"] = m["actions_per_s"] / one
            scale[name] = m
            print(
                f"{name:>11} {m['actions_per_s']:10.1f} {m['vs_1']:6.2f} {m['p50_ms']:8.2f} "
                f"{m['p99_ms']:8.2f} {m['api_us']:7.0f} {m['db_us']:7.0f} "
                f"{m['db_bg_us']:6.0f} {m['client_us']:7.0f} {m['busy']:5.2f}"
            )
        one_worker = scale["1 worker"]
        print(
            "the arithmetic (1 worker's CPU per action): one API core serves "
            f"{1e6 / one_worker['api_us']:.0f} actions/s, one PostgreSQL core "
            f"{1e6 / (one_worker['db_us'] + one_worker['db_bg_us']):.0f}"
        )
    out = {
        "rate_limit_per_minute": env["NUMRULES_RATE_LIMIT_PER_MINUTE"],
        "growth": grown,
        "growth_flat": flat,
        "workers": scale,
        "runs": runs,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
