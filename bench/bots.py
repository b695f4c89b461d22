"""Bots benchmark (issue 25): how strong `expert`, `basic` and `random` are, and how long they
think, for every ruleset at two table sizes.

Whole seeded matches (`Rules.new_match`), each seat a bot of one level: seat s of match m
plays ``LEVELS[(s + m) % 3]``, so every level sits at every seat in turn. Each seat decides
from its own view and the events it was shown this round (`engine.bots.choose`), seeded.
Per level: win rate (a shared win counts its share) with its 95 % Wilson interval, the mean
score margin (the seat's total less the mean of the others', the sign turned when the lowest
total wins), and the think time per move, p50 and p99.

    .venv/bin/python -m bench.bots                          # the full run
    .venv/bin/python -m bench.bots --matches 2 --samples 4  # a small run

Targets (issue 25): `expert` wins more often than `basic` (its interval above an equal
share) and `basic` than `random`, in every ruleset; p99 think time within the budget.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Any

from engine import registry
from engine.bots import LEVELS, Budget, choose
from engine.core.errors import EngineError
from engine.core.events import EventBase, visible_to
from engine.core.rng import Rng

#: The line-ups played by default: the stronger level against the weaker, half the seats
#: each (seats alternating, swapped every match; at an odd table each level has the extra
#: seat every other match), so "clearly more often" is a win rate per seat above an equal
#: share (1/n) with its whole interval.
LINEUPS: tuple[tuple[str, ...], ...] = (("expert", "basic"), ("basic", "random"))

#: The two table sizes of each ruleset.
SIZES = {"numwars": (4, 6), "numwars-classic": (4, 6), "numking": (3, 5), "numwin": (3, 4)}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_match(
    ruleset: str,
    players: int,
    seed: int,
    m: int,
    budget: Budget,
    stats: dict[str, Any],
    lineup: tuple[str, ...] = LEVELS,
) -> None:
    """One match; seat s plays ``lineup[(s + m) % len(lineup)]``."""
    rules = registry.make(ruleset)
    lowest = registry.spec(ruleset).lowest_wins
    match = rules.new_match(players=players, seed=seed)
    levels = [lineup[(s + m) % len(lineup)] for s in range(players)]
    rng = Rng(seed ^ 0x5EED)
    events: list[EventBase] = list(match.round_start_events())
    index = match.index
    while not match.is_over:
        if match.index != index:
            index = match.index
            events = list(match.round_start_events())
        actors = match.actors()
        turn = match.current_player
        seat = turn if turn is not None and turn in actors else actors[0]
        view = match.view(seat)
        start = time.perf_counter()
        action = choose(
            rules,
            view,
            visible_to(events, seat),
            level=levels[seat],
            seed=rng.next_u64(),
            budget=budget,
        )
        stats[levels[seat]]["think"].append(time.perf_counter() - start)
        try:
            events.extend(match.apply(seat, action))
        except EngineError:  # a listed action the state refuses (numwin's call flag)
            stats[levels[seat]]["refused"] += 1
            for other in view.legal_actions or []:
                try:
                    events.extend(match.apply(seat, other))
                    break
                except EngineError:
                    continue
    result = match.result()
    assert result is not None
    totals = result.totals
    for s in range(players):
        st = stats[levels[s]]
        st["seats"] += 1
        if s in result.winners:
            st["wins"] += 1 / len(result.winners)
        others = [t for i, t in enumerate(totals) if i != s]
        margin = totals[s] - sum(others) / len(others)
        st["margin"].append(-margin if lowest else margin)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__)
    parser.add_argument("--matches", type=int, default=300, help="matches per table and line-up")
    parser.add_argument("--samples", type=int, default=24, help="expert: worlds per move")
    parser.add_argument("--seconds", type=float, default=2.0, help="expert: wall time per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rulesets", default=",".join(SIZES), help="comma-separated")
    parser.add_argument(
        "--players", type=int, default=None, help="one table size only (one of the two)"
    )
    parser.add_argument(
        "--lineups",
        default=",".join("/".join(lineup) for lineup in LINEUPS),
        help="comma-separated line-ups, each levels joined by '/' (random/basic/expert: all three)",
    )
    args = parser.parse_args(argv)
    budget = Budget(samples=args.samples, seconds=args.seconds)
    lineups = [tuple(lineup.split("/")) for lineup in args.lineups.split(",")]
    print(
        f"bots benchmark: {args.matches} matches per table and line-up, expert budget "
        f"{args.samples} worlds / {args.seconds} s per move, seed {args.seed}"
    )
    print(
        f"{'ruleset':16} {'n':>2} {'line-up':15} {'level':7} {'seats':>5} {'win rate':>8} "
        f"{'95 % CI':>13} {'margin':>8} {'p50 ms':>8} {'p99 ms':>8}"
    )
    seeds = Rng(args.seed)
    verdicts: list[str] = []
    for ruleset in args.rulesets.split(","):
        for players in SIZES[ruleset]:
            if args.players is not None and players != args.players:
                continue
            for lineup in lineups:
                stats: dict[str, Any] = {
                    lvl: {"seats": 0, "wins": 0.0, "margin": [], "think": [], "refused": 0}
                    for lvl in lineup
                }
                for m in range(args.matches):
                    play_match(ruleset, players, seeds.next_u64(), m, budget, stats, lineup)
                low_of: dict[str, float] = {}
                for lvl in lineup:
                    st = stats[lvl]
                    n = st["seats"]
                    low, high = wilson(st["wins"], n)
                    low_of[lvl] = low
                    think = sorted(st["think"]) or [0.0]
                    p50 = statistics.median(think) * 1000
                    p99 = think[min(len(think) - 1, int(0.99 * len(think)))] * 1000
                    rate = st["wins"] / n if n else 0.0
                    margin = statistics.fmean(st["margin"]) if st["margin"] else 0.0
                    print(
                        f"{ruleset:16} {players:>2} {'/'.join(lineup):15} {lvl:7} {n:>5} "
                        f"{rate:>8.2f} {f'{low:.2f}–{high:.2f}':>13} {margin:>8.1f} "
                        f"{p50:>8.1f} {p99:>8.1f}",
                        flush=True,
                    )
                    if st["refused"]:
                        print(f"  ({st['refused']} {lvl} choices refused by the state, replaced)")
                    if lvl == "expert" and p99 > args.seconds * 1000:
                        verdicts.append(
                            f"{ruleset} {players}p {'/'.join(lineup)}: expert p99 think "
                            f"{p99:.0f} ms > the {args.seconds} s budget: NOT met"
                        )
                if len(lineup) == 2:  # the stronger first: its interval above an equal share
                    share = 1 / players
                    met = "met" if low_of[lineup[0]] > share else "NOT met"
                    verdicts.append(
                        f"{ruleset} {players}p {lineup[0]} vs {lineup[1]}: {lineup[0]}'s "
                        f"interval from {low_of[lineup[0]]:.2f} above an equal share "
                        f"{share:.2f}: {met}"
                    )
    if verdicts:
        print("\ntargets")
        for verdict in verdicts:
            print(verdict)


if __name__ == "__main__":
    main()
