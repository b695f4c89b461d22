"""Bots and hints as a library call (issue 25): `choose` and `hint`.

A bot is given a seat's `View` struct (and, where the view lacks something public, the
events that seat was shown) and nothing else, so it cannot read a hidden card: honest by
construction. Three levels:

- ``random``: uniform over the view's legal actions;
- ``basic``: the game's documented heuristic (its `bots.py`, declared on its `RulesetSpec`);
- ``expert``: perfect-information Monte Carlo. It samples worlds consistent with the seat's
  knowledge (the game's sampler), and in each plays every legal action out to the end of the
  round with the basic policy for every seat (the same play-out seed for every action of a
  world); the action of the best mean round score for the seat (the lowest under
  `lowest_wins`; a team game counts the seat's team; a game may declare its own value,
  `BotSupport.value`: Num Win's and Num Wars classic's are that score less the others'
  mean) is played when it
  beats the basic
  action by more than a standard error of their paired difference, else the basic action
  (the best of noisy means is mostly luck: see `clearly_better`). In the phases a game does
  not search (`BotSupport.search_phases`) it plays `basic`.

Budget (:class:`Budget`): at most `samples` worlds and `seconds` of wall time: the clock is
read between worlds and between the play-outs of a world; the search stops when one more
world (at the mean cost so far) would pass the cap, and leaves a world unfinished (dropped:
every action is compared on the same worlds) when its next play-out (at the mean cost of a
play-out so far) would. A move overruns the cap by a sampling or a play-out slower than the
mean at most; when not even one world fits, the basic action is played. Given the same view,
events, level and seed the choice is the same, unless the time cap cut the search short.

The only clock is the budget's (`Budget.clock`); everything else is the engine's pure,
seeded code (:class:`engine.core.rng.Rng`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from engine.core.actions import Action
from engine.core.bots import SampleError, SimRound, World
from engine.core.errors import EngineError
from engine.core.events import EventBase
from engine.core.rng import Rng
from engine.core.view import BaseView
from engine.registry import AnyRuleset, spec

__all__ = [
    "LEVELS",
    "ActionValue",
    "Budget",
    "Hint",
    "choose",
    "clearly_better",
    "hint",
    "play_out",
]

LEVELS = ("random", "basic", "expert")
#: A bound on the actions of one play-out (far above any round): a bug, not a budget.
MAX_STEPS = 20_000


@dataclass(frozen=True)
class Budget:
    """What one expert decision may spend: `samples` worlds, `seconds` of wall time."""

    samples: int = 24
    seconds: float = 2.0
    clock: Callable[[], float] = time.perf_counter


class ActionValue(msgspec.Struct, frozen=True, kw_only=True):
    """A legal action and its estimated value: the seat's mean round score over the worlds
    searched (its team's under teams; or the game's own value, `BotSupport.value`)."""

    action: Action
    value: float


class Hint(msgspec.Struct, frozen=True, kw_only=True):
    """The expert's suggestion and the value of every legal action, best first."""

    action: Action
    values: list[ActionValue]
    level: str = "expert"
    samples: int = 0  # the worlds searched


def choose(
    rules: AnyRuleset,
    view: BaseView,
    events: Sequence[EventBase] = (),
    *,
    level: str = "expert",
    seed: int = 0,
    budget: Budget | None = None,
) -> Action:
    """The action a bot of `level` plays from `view` (its seat's): one of its legal actions."""
    legal = view.legal_actions
    if view.seat is None or not legal:
        raise ValueError("the view's seat has no legal action")
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
    rng = Rng(seed)
    if level == "random" or len(legal) == 1:
        return rng.choice(legal)
    support = spec(rules.id).bots
    if level == "basic" or not _searches(rules, view):
        return support.basic(rules, view, rng)
    return _search(rules, view, events, rng, budget or Budget()).action


def hint(
    rules: AnyRuleset,
    view: BaseView,
    events: Sequence[EventBase] = (),
    *,
    seed: int = 0,
    budget: Budget | None = None,
) -> Hint:
    """The expert's suggestion for `view`'s seat, with every legal action's estimated value
    (its mean round score for the seat over the worlds searched, or the game's own value
    (`BotSupport.value`)), best first."""
    legal = view.legal_actions
    if view.seat is None or not legal:
        raise ValueError("the view's seat has no legal action")
    return _search(rules, view, events, Rng(seed), budget or Budget())


def _searches(rules: AnyRuleset, view: BaseView) -> bool:
    phases = spec(rules.id).bots.search_phases
    return phases is None or view.phase in phases


def _search(
    rules: AnyRuleset, view: BaseView, events: Sequence[EventBase], rng: Rng, budget: Budget
) -> Hint:
    support = spec(rules.id).bots
    lowest = spec(rules.id).lowest_wins
    seat = view.seat
    assert seat is not None and view.legal_actions
    legal = list(view.legal_actions)
    default = support.basic(rules, view, Rng(rng.next_u64()))
    scores: list[list[float]] = [[] for _ in legal]  # per action, its score in each world
    refused = [False] * len(legal)
    clock = budget.clock
    start = clock()
    deadline = start + budget.seconds
    searched = 0
    played = 0  # play-outs finished, and the time they took (`playing`)
    playing = 0.0
    for _ in range(max(1, budget.samples)):
        try:
            world = support.sample(rules, view, events, Rng(rng.next_u64()))
        except SampleError:  # no world drawn: the next draw, within the budget
            if clock() > deadline:
                break
            continue
        playout_seed = rng.next_u64()
        row: list[float] = []
        for action in legal:
            before = clock()
            if before + (playing / played if played else 0.0) > deadline:
                break  # this play-out would pass the cap: the world is left unfinished
            value = _value(world, seat, action, rules, Rng(playout_seed))
            playing += clock() - before
            played += 1
            row.append(math.nan if value is None else value if lowest else -value)
        if len(row) < len(legal):  # an unfinished world is dropped (the worlds are paired)
            break
        for i, value in enumerate(row):  # lower is better from here on
            refused[i] = refused[i] or math.isnan(value)
            scores[i].append(value)
        searched += 1
        spent = clock() - start
        if spent + spent / searched > budget.seconds:  # the next world would pass the cap
            break
    if not searched:  # the sampler found no world: the basic action, no values to give
        others = [a for a in legal if a != default]
        return Hint(
            action=default if default in legal else legal[0],
            values=[ActionValue(action=a, value=0.0) for a in [default, *others] if a in legal],
            samples=0,
        )
    means = [_mean(v) for v in scores]
    order = sorted(range(len(legal)), key=lambda i: (refused[i], means[i], i))
    values = [
        ActionValue(action=legal[i], value=round(means[i] if lowest else -means[i], 3))
        for i in order
        if not math.isnan(means[i])
    ]
    values += [ActionValue(action=legal[i], value=0.0) for i in order if math.isnan(means[i])]
    best = order[0]
    if default in legal and not refused[best]:
        base = legal.index(default)
        if best != base and not refused[base] and not clearly_better(scores[best], scores[base]):
            best = base
    return Hint(action=legal[best], values=values, samples=searched)


def _mean(values: list[float]) -> float:
    taken = [v for v in values if not math.isnan(v)]
    return sum(taken) / len(taken) if taken else math.nan


def clearly_better(scores: list[float], default: list[float]) -> bool:
    """Whether an action beats the basic one by more than one standard error of their
    difference, world by world (the same worlds and play-out seeds: paired). The best of
    noisy means is biased towards luck (a round's score varies a lot: Num Win's most), so
    the search leaves the basic choice only when it is clearly better; one world says
    nothing of the noise, so it never does then."""
    diffs = [a - b for a, b in zip(scores, default, strict=True)]
    m = len(diffs)
    if m < 2:
        return False
    mean = sum(diffs) / m
    var = sum((d - mean) ** 2 for d in diffs) / (m - 1)
    return mean < 0 and -mean > math.sqrt(var / m)


def _value(world: World, seat: int, action: Action, rules: AnyRuleset, rng: Rng) -> float | None:
    """The seat's round score after `action` and a basic play-out in `world`; None when the
    world refuses the action (numwin lists a call flag that its state may refuse: a listed
    action refused in a world the seat cannot tell from the real one is ranked last)."""
    state = world()
    try:
        state.apply(seat, action)
    except EngineError:
        return None
    play_out(state, rules, rng)
    value = spec(rules.id).bots.value
    return value(state, seat) if value is not None else seat_score(state, seat)


def play_out(state: SimRound, rules: AnyRuleset, rng: Rng) -> SimRound:
    """Play `state` to the end of its round with the basic policy for every seat (the seat
    on turn acts; in a simultaneous phase, the first seat that may)."""
    basic = spec(rules.id).bots.basic
    for _ in range(MAX_STEPS):
        if state.is_over:
            return state
        actors = state.actors()
        turn = state.current_player
        seat = turn if turn is not None and turn in actors else actors[0]
        view = state.view(seat)
        legal = view.legal_actions
        assert legal
        action = legal[0] if len(legal) == 1 else basic(rules, view, rng)
        try:
            state.apply(seat, action)
        except EngineError:  # a listed action its state refuses: the first it takes instead
            _first_taken(state, seat, legal)
    raise RuntimeError(f"round not over after {MAX_STEPS} actions")


def _first_taken(state: SimRound, seat: int, legal: list[Action]) -> None:
    for action in legal:
        try:
            state.apply(seat, action)
            return
        except EngineError:
            continue
    raise RuntimeError("no listed action is taken")


def seat_score(state: Any, seat: int) -> float:
    """The seat's round score once over (its team's when the round scores teams)."""
    scores = state.scores()
    assert scores is not None
    teams = scores.teams
    if isinstance(teams, list):
        for team in teams:
            if seat in team.seats:
                return float(team.score)
    return float(scores.players[seat].score)
