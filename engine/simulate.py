"""Seeded random play-outs of rounds and whole matches: the same loop serves `numrules
simulate` and `play`, the property tests, the golden records and the engine benchmark.

Policy: when a seat is to play and has a legal action it acts with probability 7/8, else a
uniformly random other seat that has a legal action acts (out-of-turn snaps in numwin); in a
simultaneous phase a random seat with a legal action acts. The action is uniform among that
seat's legal actions. Every draw comes from :class:`engine.core.rng.Rng`, so a seed fixes the game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from engine.core.actions import Action
from engine.core.base import RoundScore, RoundSetup, RoundState
from engine.core.events import EventBase
from engine.core.match import Match
from engine.core.rng import Rng
from engine.core.tiebreak import MAX_TIEBREAK_ROUNDS
from engine.registry import AnyRuleset, spec

#: A hard bound on actions per round, far above any real round; hitting it is a bug.
MAX_STEPS = 20_000


class StuckError(AssertionError):
    """The round is not over but no seat has a legal action, or it never ends."""


class Playable(Protocol):
    """What the policy reads: a round state, or a whole match (engine.core.match)."""

    @property
    def phase(self) -> str: ...

    @property
    def current_player(self) -> int | None: ...

    def actors(self) -> list[int]: ...

    def legal_actions(self, seat: int) -> list[Action]: ...


def pick(state: Playable, rng: Rng) -> tuple[int, Action]:
    actors = state.actors()
    if not actors:
        raise StuckError(f"no legal action in phase {state.phase!r} of an unfinished round")
    turn = state.current_player
    if turn is not None and turn in actors and (len(actors) == 1 or rng.below(8) != 0):
        seat = turn
    else:
        others = [s for s in actors if s != turn] or actors
        seat = rng.choice(others)
    return seat, rng.choice(state.legal_actions(seat))


def default_round(ruleset: AnyRuleset, players: int) -> int:
    """The round number a lone simulated round uses, as its ruleset declares it
    (`RulesetSpec.lone_round`: numking's largest hand, else 1)."""
    return spec(ruleset.id).lone_round(ruleset, players)


def play_round(
    ruleset: AnyRuleset,
    setup: RoundSetup,
    rng: Rng,
    on_step: Callable[[RoundState, int, Action], None] | None = None,
) -> RoundState:
    """Play one round to its end with random legal actions and return the final state."""
    state = ruleset.new_round(setup)
    for _ in range(MAX_STEPS):
        if state.is_over:
            return state
        seat, action = pick(state, rng)
        if on_step is not None:
            on_step(state, seat, action)
        state.apply(seat, action)
    raise StuckError(f"round not over after {MAX_STEPS} actions")


def simulate(
    ruleset: AnyRuleset, players: int, rounds: int, seed: int, round_no: int | None = None
) -> dict[str, Any]:
    """Play `rounds` seeded random rounds; return timing-free statistics of their scores."""
    rng = Rng(seed)
    k = round_no or default_round(ruleset, players)
    totals = [0] * players
    wins = [0] * players
    actions = 0
    lows: list[int] = []
    highs: list[int] = []
    for r in range(rounds):
        setup = RoundSetup(players=players, seed=rng.next_u64(), dealer=r % players, round=k)
        state = play_round(ruleset, setup, rng)
        score = state.scores()
        assert isinstance(score, RoundScore)
        actions += len(state.history)
        per_seat = [p.score for p in score.players]
        for seat, s in enumerate(per_seat):
            totals[seat] += s
        for seat in score.winners:
            wins[seat] += 1
        lows.append(min(per_seat))
        highs.append(max(per_seat))
    return {
        "ruleset": ruleset.id,
        "players": players,
        "rounds": rounds,
        "actions": actions,
        "mean_score_by_seat": [round(t / rounds, 2) for t in totals],
        "wins_by_seat": wins,
        "lowest_score": min(lows) if lows else None,
        "highest_score": max(highs) if highs else None,
    }


def play_match(
    ruleset: AnyRuleset,
    players: int,
    seed: int,
    rng: Rng,
    on_events: Callable[[Match, list[EventBase]], None] | None = None,
) -> Match:
    """Play a whole match (engine.core.match) to its result with random legal actions.

    `on_events` sees the match and each action's events (before the next action is picked).
    """
    match = ruleset.new_match(players=players, seed=seed)
    bound = MAX_STEPS * (match.regular_rounds + MAX_TIEBREAK_ROUNDS)
    for _ in range(bound):
        if match.is_over:
            return match
        seat, action = pick(match, rng)
        events = match.apply(seat, action)
        if on_events is not None:
            on_events(match, events)
    raise StuckError(f"match not over after {bound} actions")


def simulate_matches(ruleset: AnyRuleset, players: int, matches: int, seed: int) -> dict[str, Any]:
    """Play `matches` seeded random whole matches; return timing-free statistics of results.

    Match i's seed is the i-th output of ``Rng(seed)``; the same generator then picks actions.
    """
    rng = Rng(seed)
    totals = [0] * players
    wins = [0] * players
    actions = rounds = tiebreak_rounds = 0
    lows: list[int] = []
    highs: list[int] = []
    for _ in range(matches):
        match = play_match(ruleset, players, rng.next_u64(), rng)
        result = match.result()
        assert result is not None
        actions += len(match.history)
        rounds += len(result.rounds)
        tiebreak_rounds += result.tiebreak_rounds
        for seat, total in enumerate(result.totals):
            totals[seat] += total
        for seat in result.winners:
            wins[seat] += 1
        lows.append(min(result.totals))
        highs.append(max(result.totals))
    return {
        "ruleset": ruleset.id,
        "players": players,
        "matches": matches,
        "rounds": rounds,
        "tiebreak_rounds": tiebreak_rounds,
        "actions": actions,
        "mean_total_by_seat": [round(t / matches, 2) for t in totals],
        "wins_by_seat": wins,
        "lowest_total": min(lows) if lows else None,
        "highest_total": max(highs) if highs else None,
    }
