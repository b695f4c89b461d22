"""The table of every benchmark target (issues 13 and 27) from bench/results/*.json (written by `bench/run.sh all`).

.venv/bin/python -m bench.report [bench/results]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def rows(results: Path) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    http = results / "http.json"
    if http.exists():
        data = json.loads(http.read_text())
        for r in data["rows"]:
            where = f"{r['endpoint']} @{r['connections']}"
            out.append(
                (f"{where}: rps vs echo (≥ 0.80)", f"{r['vs_echo']:.3f}", _v(r["vs_echo"] >= 0.8))
            )
            out.append(
                (
                    f"{where}: rps vs FastAPI (≥ 1.30)",
                    f"{r['vs_fastapi']:.3f}",
                    _v(r["vs_fastapi"] >= 1.3),
                )
            )
            if r["connections"] == 32:
                out.append(
                    (
                        f"{where}: p99 vs echo p99 (≤ 1.25)",
                        f"{r['p99_vs_echo']:.2f}",
                        _v(r["p99_vs_echo"] <= 1.25),
                    )
                )
    games = results / "games.json"
    if games.exists():
        data = json.loads(games.read_text())
        for t in data["targets"]:
            out.append((t["target"], f"{t['ratio']:.3f}", _v(t["met"])))
        if http.exists():
            out += _bounds(json.loads(http.read_text()), data["medians"])
    scale = results / "scale.json"
    if scale.exists():
        data = json.loads(scale.read_text())
        for length, g in data["growth"].items():
            out.append(
                (
                    f"cold load + action at {length} actions of log "
                    f"({g.get('into_round', g.get('replayed'))} into its round)"
                    " vs at 10 (flat: ≤ 1.25)",
                    f"{g['cold_vs_cold10']:.2f}",
                    _v(g["cold_vs_cold10"] <= 1.25),
                )
            )
        for setup, m in data["workers"].items():
            name = setup if " " in setup else f"{setup} worker(s)"  # before: keyed by the count
            where = (
                f" (CPU µs an action: API {m['api_us']:.0f}, database "
                f"{m['db_us'] + m['db_bg_us']:.0f}, client {m['client_us']:.0f}; "
                f"machine {m['busy']:.0%} busy)"
                if "busy" in m
                else ""
            )
            out.append((f"{name}: actions/s vs 1 worker{where}", f"{m['vs_1']:.2f}", "—"))
    return out


def _bounds(http: dict[str, Any], medians: dict[str, Any]) -> list[tuple[str, str, str]]:
    """What the machine and the stack allow at the most games, beside boardgame.io in memory
    (issue 27's "say where the limit is"), from the figures of the same `run.sh all`:

    * the CPU an action would cost if serving a request cost no more than the cheapest request
      measured by bench/http.py (the echo's or a rules endpoint's, at 32 connections) and the
      rules, the storage's Python and the views cost nothing, with numrules' requests per
      action and its PostgreSQL's CPU per action as measured;
    * the actions per second CPU 1 allows, where PostgreSQL and the benchmark's client run
      (their CPU per action as measured), if the API on CPU 0 cost nothing."""
    most = max(int(k.rpartition("=")[2]) for k in medians if k.startswith("numrules c="))
    ours, peer = medians.get(f"numrules c={most}"), medians.get(f"bgio-memory c={most}")
    rows = [r for r in http["rows"] if r["connections"] == 32 and "cpu_us" in r]
    if ours is None or peer is None or "requests_per_action" not in ours or not rows:
        return []  # results of an older bench, or without boardgame.io
    cheapest = min(min(r["cpu_us"]["rules"], r["cpu_us"]["echo"]) for r in rows)
    streamed = medians.get(f"numrules-streams c={most}")
    per_action = cheapest * ours["requests_per_action"] + ours["db_us"]
    cpu1 = ours["db_us"] + ours["client_us"]
    out = []
    if streamed is not None:  # the contract's way: each seat learns its turn on its stream
        out.append(
            (
                f"numrules-streams / bgio-memory actions/s, {most} games (each seat on its "
                f"stream, as boardgame.io's clients; CPU per action {streamed['server_us']:.0f}"
                f" µs / {peer['server_us']:.0f})",
                f"{streamed['actions_per_s'] / peer['actions_per_s']:.3f}",
                "—",
            )
        )
    return [
        *out,
        (
            f"bound: HTTP alone ({cheapest:.0f} µs a request × {ours['requests_per_action']:.2f}"
            f") + PostgreSQL ({ours['db_us']:.0f} µs), CPU per action / bgio-memory's "
            f"({peer['server_us']:.0f} µs), {most} games",
            f"{per_action / peer['server_us']:.3f}",
            "—",
        ),
        (
            f"bound: CPU 1 (PostgreSQL {ours['db_us']:.0f} + client {ours['client_us']:.0f} µs an"
            f" action: ≤ {1e6 / cpu1:,.0f}/s) / bgio-memory actions/s, {most} games",
            f"{1e6 / cpu1 / peer['actions_per_s']:.3f}",
            "—",
        ),
    ]


def _v(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description="The table of every benchmark target.")
    parser.add_argument("results", nargs="?", default="bench/results", help="default: %(default)s")
    results = Path(parser.parse_args().results)
    if not results.is_dir():
        parser.error(f"no results directory {results}")
    table = rows(results)
    width = max((len(n) for n, _, _ in table), default=10)
    print(f"{'target':{width}}  {'ratio':>7}  verdict")
    for name, ratio, verdict in table:
        print(f"{name:{width}}  {ratio:>7}  {verdict}")


if __name__ == "__main__":
    main()
