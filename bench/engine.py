"""Engine benchmark: seeded random-legal full rounds of every ruleset against OpenSpiel.

One playout loop drives both sides: at each step the seat to play takes a uniformly random legal
action drawn from the same portable `Rng`; OpenSpiel's chance nodes (its deal) draw their
outcome the same way. In a simultaneous numrules phase (the exchanges) the seats act in seat
order, as OpenSpiel's hearts passes its cards one player after the other. Contenders are interleaved in every repetition and the median of the repetitions is
reported, so machine noise hits all of them alike.

    bash bench/run.sh engine                    # the compiled build; 5 repetitions of 1.5 s
    bash bench/run.sh engine --reps 3 --seconds 1
    .venv/bin/python -m bench.engine            # the pure-Python source

Needs `pip install open-spiel` (the `bench` extra); without it the numrules rows still run.
Targets (issue #3): numking 4p/9 cards ≥ oh_hell 4p/9 tricks in rounds per second; every trick
ruleset's cost per card played ≤ hearts'.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench import engine_build
from engine import registry
from engine.core.actions import Play
from engine.core.base import RoundSetup, RoundState
from engine.core.rng import Rng


@dataclass
class Contender:
    name: str
    play_round: Callable[[Rng], int]  # plays one round, returns the number of cards played
    trick_game: bool = True


def numrules_contender(ruleset_id: str, players: int, round_no: int = 1) -> Contender:
    rules = registry.make(ruleset_id)

    def play(rng: Rng) -> RoundState:
        state = rules.new_round(
            RoundSetup(
                players=players, seed=rng.next_u64(), dealer=rng.below(players), round=round_no
            )
        )
        while not state.is_over:
            seat = state.current_player
            if seat is None:  # a simultaneous phase (the exchanges): in seat order
                seat = state.actors()[0]
            legal = state.legal_actions(seat)
            state.apply(seat, legal[rng.below(len(legal))])
        return state

    # Every card dealt is played to a trick: a constant, as for the OpenSpiel games (checked
    # on a first round). Num Win plays no card to a trick.
    trick_game = ruleset_id != "numwin"
    hand = round_no if ruleset_id == "numking" else rules.deck(players).hand_size
    cards = players * hand if trick_game else 0
    played = sum(1 for _, a in play(Rng(0)).history if isinstance(a, Play))
    assert played == cards, f"{ruleset_id} {players}p: {played} cards played, not {cards}"

    def play_round(rng: Rng) -> int:
        play(rng)
        return cards

    label = f"numrules {ruleset_id} {players}p" + (
        f" k={round_no}" if ruleset_id == "numking" else ""
    )
    return Contender(label, play_round, trick_game=trick_game)


def openspiel_contender(
    game_name: str, params: dict[str, Any], cards: int, label: str
) -> Contender:
    import pyspiel

    game = pyspiel.load_game(game_name, params)

    def play_round(rng: Rng) -> int:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.below(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.below(len(legal))])
        return cards

    return Contender(label, play_round)


def measure(contender: Contender, seconds: float, seed: int) -> tuple[float, float]:
    """(rounds per second, microseconds per card played) over about `seconds`."""
    rng = Rng(seed)
    rounds = cards = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        cards += contender.play_round(rng)
        rounds += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return rounds / elapsed, (elapsed / cards * 1e6) if cards else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    contenders = [
        numrules_contender("numking", 4, 9),
        numrules_contender("numwars", 4),
        numrules_contender("numwars", 8),
        numrules_contender("numwars-classic", 4),
        numrules_contender("numwars-classic", 8),
        numrules_contender("numwin", 4),
    ]
    try:
        contenders += [
            openspiel_contender(
                "oh_hell",
                {"players": 4, "num_tricks_fixed": 9},
                36,
                "openspiel oh_hell 4p 9 tricks",
            ),
            openspiel_contender("hearts", {}, 52, "openspiel hearts 4p"),
        ]
    except ImportError:
        print("open-spiel is not installed: `pip install open-spiel` for the baselines")

    results: dict[str, list[tuple[float, float]]] = {c.name: [] for c in contenders}
    for rep in range(args.reps):
        order = contenders if rep % 2 == 0 else list(reversed(contenders))
        for contender in order:
            results[contender.name].append(measure(contender, args.seconds, args.seed + rep))

    medians = {
        name: (statistics.median(r for r, _ in runs), statistics.median(c for _, c in runs))
        for name, runs in results.items()
    }
    print(f"numrules engine: {engine_build()}")
    print(f"{'contender':38} {'rounds/s':>10} {'µs/card':>9}   (median of {args.reps})")
    for name, (rps, us) in medians.items():
        per_card = f"{us:9.2f}" if us == us else f"{'—':>9}"  # numwin plays no card to a trick
        print(f"{name:38} {rps:10.1f} {per_card}")

    oh_hell = medians.get("openspiel oh_hell 4p 9 tricks")
    hearts = medians.get("openspiel hearts 4p")
    if oh_hell and hearts:
        print()
        nk = medians["numrules numking 4p k=9"]
        ratio = nk[0] / oh_hell[0]
        verdict = "met" if ratio >= 1 else "NOT met"
        print(f"numking 4p k=9 vs oh_hell rounds/s: ×{ratio:.3f} ({verdict}: target ≥ ×1.00)")
        for c in contenders:
            if c.trick_game and c.name.startswith("numrules"):
                r = medians[c.name][1] / hearts[1]
                verdict = "met" if r <= 1 else "NOT met"
                print(f"{c.name:38} cost/card vs hearts: ×{r:.3f} ({verdict}: target ≤ ×1.00)")


if __name__ == "__main__":
    main()
