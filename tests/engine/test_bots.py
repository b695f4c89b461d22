"""Bots (issue 25, engine slice): honest by construction, legal, and a hint that agrees with
the expert's choice.

Honesty is a property: a real round is played from a seeded deal for a few random steps;
then two of the hidden cards of the other seats (or of the set-aside cards, or of the draw
pile) are swapped in the deal and the same actions replayed. When the seat's view is the
same, every level must choose the same action with the same seed.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from engine import registry
from engine.bots import LEVELS, Budget, choose, hint
from engine.core.actions import Exchange, Pass
from engine.core.base import Deal, RoundSetup
from engine.core.bots import BotSupport, deal_unseen, excluded_by_plays, margin
from engine.core.errors import EngineError
from engine.core.events import EventBase, visible_to
from engine.core.rng import Rng
from engine.core.spec import RulesetSpec, SpecError
from engine.numwars.round import NumWarsRound
from engine.numwars_classic.round import scripted_round
from engine.simulate import pick

#: Small budgets and no time cap: the choices are then deterministic.
BUDGET = Budget(samples=2, seconds=1e9)
TABLES = {"numwars": 4, "numwars-classic": 4, "numking": 3, "numwin": 3}
ROUND = {"numking": 4}


def _setup(ruleset: str, players: int, seed: int) -> RoundSetup:
    return RoundSetup(players=players, seed=seed, round=ROUND.get(ruleset, 1))


def _build(rules: Any, setup: RoundSetup, deal: Deal | None, pile: list[int] | None) -> Any:
    """A round of `setup` dealt as `deal` (or as its seed, with the draw pile `pile`)."""
    rid = rules.id
    if rid == "numking":
        return rules.new_round(setup, deal.hands if deal else None)
    if rid == "numwars":
        return NumWarsRound(rules, setup, deal=deal) if deal else rules.new_round(setup)
    if rid == "numwars-classic" and deal is not None:
        return scripted_round(rules, setup, deal.hands, list(deal.set_aside))
    state = rules.new_round(setup)
    if pile is not None:
        state.kernel.pile = list(pile)
    return state


def _play(rules: Any, state: Any, actions: list[tuple[int, Any]]) -> list[EventBase]:
    events: list[EventBase] = []
    for seat, action in actions:
        events.extend(state.apply(seat, action))
    return events


def _permuted(rules: Any, setup: RoundSetup, state: Any, seat: int, rng: Rng) -> Any | None:
    """The round dealt with two hidden cards swapped, the same actions replayed (None when
    that deal cannot replay them)."""
    history = list(state.history)
    if rules.id == "numwin":
        pile = list(_build(rules, setup, None, None).kernel.pile)
        i, j = rng.below(10), rng.below(10)
        pile[i], pile[j] = pile[j], pile[i]
        other = _build(rules, setup, None, pile)
        try:
            _play(rules, other, history)
        except EngineError:
            return None
        if not {pile[i], pile[j]} <= set(other.kernel.pile):
            return None
        return other
    deal = rules.deal(setup)
    moved = {
        c
        for _, a in history
        for c in ([a.card] if isinstance(a, Pass) else a.cards if isinstance(a, Exchange) else [])
    }
    held = state.hands
    special = {"bomb", "joker", "quantum", "numx"} if rules.id == "numwars" else set()
    places = [
        [c for c in deal.hands[s] if c in held[s] and c not in moved and c not in special]
        for s in range(setup.players)
    ] + [[c for c in deal.set_aside if c not in special]]
    others = [p for p in range(len(places)) if p != seat and places[p]]
    if len(others) < 2:
        return None
    a, b = others[rng.below(len(others))], others[rng.below(len(others))]
    if a == b:
        return None
    x, y = rng.choice(places[a]), rng.choice(places[b])
    if x == y:  # two copies of one card (numking's deck has some): no swap at all
        return None
    lists = [list(h) for h in deal.hands] + [list(deal.set_aside)]
    lists[a][lists[a].index(x)] = y
    lists[b][lists[b].index(y)] = x
    new = Deal(
        hands=[sorted(h) for h in lists[:-1]],
        set_aside=lists[-1],
        dealer=deal.dealer,
        leader=deal.leader,
        roles=deal.roles,
    )
    other = _build(rules, setup, new, None)
    try:
        _play(rules, other, history)
    except EngineError:
        return None
    return other


@pytest.mark.parametrize("ruleset", sorted(TABLES))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 30), swap=st.integers(0, 2**32))
def test_a_bot_never_sees_hidden_cards(ruleset: str, seed: int, steps: int, swap: int) -> None:
    """Permuting hidden cards consistently with the seat's view never changes a choice."""
    rules = registry.make(ruleset)
    setup = _setup(ruleset, TABLES[ruleset], seed)
    state = rules.new_round(setup)
    rng = Rng(seed)
    events: list[EventBase] = []
    for _ in range(steps):
        if state.is_over:
            break
        events.extend(state.apply(*pick(state, rng)))
    assume(not state.is_over)
    seat = state.actors()[0]
    other = _permuted(rules, setup, state, seat, Rng(swap))
    assume(other is not None)
    assert other is not None
    view, view2 = state.view(seat), other.view(seat)
    assume(view == view2)
    seen = visible_to(events, seat)
    assert ruleset == "numwin" or state.hands != other.hands
    for level in LEVELS:
        first = choose(rules, view, seen, level=level, seed=swap, budget=BUDGET)
        again = choose(rules, view2, seen, level=level, seed=swap, budget=BUDGET)
        assert first == again, (level, first, again)


#: Every ruleset, and the variants whose phases the bots meet only with an option.
VARIANTS = [
    *((ruleset, players, {}) for ruleset, players in sorted(TABLES.items())),
    ("numwars", 5, {"exchange": 2}),
    ("numwars", 3, {}),
    ("numwars-classic", 4, {"alliance": True}),
    ("numking", 2, {"zeros": True}),
    ("numwin", 4, {"teams": True}),
]


@pytest.mark.parametrize(("ruleset", "players", "options"), VARIANTS)
def test_every_bot_choice_is_legal_over_whole_rounds(
    ruleset: str, players: int, options: dict[str, Any]
) -> None:
    """Seeded whole rounds, the seats playing expert, basic and random in turn."""
    rules = registry.make(ruleset, options)
    for seed in (1, 2):
        setup = _setup(ruleset, players, seed)
        state = rules.new_round(setup)
        events: list[EventBase] = []
        rng = Rng(seed)
        for _ in range(5000):
            if state.is_over:
                break
            actors = state.actors()
            turn = state.current_player
            seat = turn if turn is not None and turn in actors else actors[0]
            view = state.view(seat)
            level = LEVELS[(seat + seed) % 3]
            action = choose(
                rules,
                view,
                visible_to(events, seat),
                level=level,
                seed=rng.next_u64(),
                budget=Budget(samples=1, seconds=1e9),
            )
            assert action in view.legal_actions
            events.extend(state.apply(seat, action))
        assert state.is_over


@pytest.mark.parametrize("ruleset", sorted(TABLES))
def test_the_hint_orders_the_actions_as_the_expert_chooses(ruleset: str) -> None:
    rules = registry.make(ruleset)
    state = rules.new_round(_setup(ruleset, TABLES[ruleset], 11))
    rng = Rng(3)
    searched = registry.spec(ruleset).bots.search_phases
    for _ in range(200):
        seat = state.current_player
        if seat is not None and (searched is None or state.phase in searched):
            view = state.view(seat)
            if view.legal_actions and len(view.legal_actions) > 1:
                break
        state.apply(*pick(state, rng))
    else:
        pytest.fail("no searched position found")
    advice = hint(rules, view, seed=5, budget=BUDGET)
    values = [v.value for v in advice.values]
    lowest = registry.spec(ruleset).lowest_wins
    assert values == sorted(values, reverse=not lowest)
    basic = registry.spec(ruleset).bots.basic(rules, view, Rng(Rng(5).next_u64()))  # its draw
    # the best mean, or the basic action when the best is not clearly better (engine.bots)
    assert advice.action in (advice.values[0].action, basic)
    assert {str(v.action) for v in advice.values} == {str(a) for a in view.legal_actions}
    assert choose(rules, view, level="expert", seed=5, budget=BUDGET) == advice.action


def test_a_spec_without_bots_fails_at_import() -> None:
    base = registry.spec("numking")
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__ if f != "bots"}
    with pytest.raises(SpecError, match="misses bots"):
        RulesetSpec(**fields)
    with pytest.raises(TypeError):
        BotSupport(sample=None, basic=None)  # type: ignore[arg-type]


def test_the_time_cap_stops_before_a_world_that_would_pass_it() -> None:
    """A clock that moves one second a reading. The search reads it once at the start, twice
    around each play-out (one per legal action) and once after each world: a world of k
    actions costs 2 k + 1 seconds. Two worlds fit in 2.5 worlds' time, the third would not."""
    rules = registry.make("numking")
    state = rules.new_round(_setup("numking", 3, 4))
    view = state.view(state.current_player)
    world = 2 * len(view.legal_actions) + 1
    ticks = iter(range(10_000))
    budget = Budget(samples=10, seconds=2.5 * world, clock=lambda: float(next(ticks)))
    advice = hint(rules, view, seed=1, budget=budget)
    assert advice.samples == 2
    assert hint(rules, view, seed=1, budget=BUDGET).samples == 2


def test_the_time_cap_drops_a_world_it_cannot_finish() -> None:
    """The same clock, a cap shorter than one world: the search stops between two play-outs
    of the first world instead of finishing it past the cap, and plays the basic action."""
    rules = registry.make("numking")
    state = rules.new_round(_setup("numking", 3, 4))
    view = state.view(state.current_player)
    assert len(view.legal_actions) > 2
    readings: list[float] = []

    def clock() -> float:
        readings.append(float(len(readings)))
        return readings[-1]

    cap = float(len(view.legal_actions))  # about half a world
    advice = hint(rules, view, seed=1, budget=Budget(samples=10, seconds=cap, clock=clock))
    assert advice.samples == 0
    assert readings[-1] <= cap + 1  # one play-out past the cap at most: none here
    basic = registry.spec("numking").bots.basic(rules, view, Rng(Rng(1).next_u64()))
    assert advice.action == basic
    budget = Budget(samples=10, seconds=cap, clock=iter(range(10_000)).__next__)
    assert choose(rules, view, seed=1, budget=budget) == basic


def test_unseen_cards_are_dealt_to_the_places_that_may_hold_them() -> None:
    cards = ["blue-1", "blue-2", "red-1", "red-2", "red-3"]
    never = {0: {"red-1", "red-2", "red-3"}}  # place 0 showed it holds no red
    for seed in range(20):
        dealt = deal_unseen(cards, [2, 3], Rng(seed), lambda c, p: c not in never.get(p, ()))
        assert sorted(dealt[0]) == ["blue-1", "blue-2"]
        assert sorted(dealt[1]) == ["red-1", "red-2", "red-3"]
    seen = {tuple(sorted(deal_unseen(cards, [2, 3], Rng(seed))[0])) for seed in range(200)}
    assert len(seen) == 10  # without constraints every split of 2 among 5 comes up


def test_a_seat_that_did_not_follow_holds_no_card_of_the_colour_led() -> None:
    from tests.fixtures.tinytricks.tricks import legal_cards

    plays = [(1, "red-1", ["blue-2"]), (2, "blue-3", ["blue-2", "red-1"])]
    gone = excluded_by_plays(
        plays, ["blue-1", "red-3"], lambda h, t: legal_cards(h, t[0] if t else None)
    )
    assert gone[1] == {"blue-1"}  # seat 1 played red on blue: no blue left
    assert gone[2] == set()  # seat 2 followed: it may hold anything


def test_the_expert_leaves_the_basic_action_only_whenclearly_better() -> None:
    from engine.bots import clearly_better

    assert clearly_better([1.0, 2.0, 1.5], [5.0, 6.0, 5.5])  # lower is better, every world
    assert not clearly_better([1.0, 9.0, 1.0], [5.0, 5.0, 5.0])  # better on average: by luck
    assert not clearly_better([1.0], [5.0])  # one world says nothing of the noise


def test_num_win_values_a_world_by_the_margin_over_the_others() -> None:
    """Num Win's expert (engine/numwin/bots.py) searches the targets of an action too and
    values a world by the seat's round score less the others' mean, a combination short of
    5 cards charged for each missing card: a malus on an opponent changes that, not the
    seat's own score."""
    from engine.numwin import bots as numwin_bots

    support = registry.spec("numwin").bots
    assert support.value is numwin_bots.value and support.search_phases is not None
    assert "action" in support.search_phases
    assert registry.spec("numking").bots.value is None  # the trick games: their own score
    rules = registry.make("numwin", {"max_turns": 2})  # cut early: combinations still short
    state = rules.new_round(_setup("numwin", 3, 7))
    rng = Rng(2)
    while not state.is_over:
        state.apply(*pick(state, rng))
    scores = state.scores()
    assert scores is not None
    short = [5 - len(comb) for comb in state.kernel.comb]
    assert any(short)
    totals = [p.score + numwin_bots.FILL * short[p.seat] for p in scores.players]
    for seat in range(3):
        others = [t for s, t in enumerate(totals) if s != seat]
        assert numwin_bots.value(state, seat) == pytest.approx(totals[seat] - sum(others) / 2)
        plain = [p.score for p in scores.players if p.seat != seat]
        assert margin(scores, seat) == pytest.approx(scores.players[seat].score - sum(plain) / 2)
    assert sum(numwin_bots.value(state, seat) for seat in range(3)) == pytest.approx(0.0)


def test_classic_values_a_world_by_the_margin_and_searches_the_play_only() -> None:
    """Num Wars classic's expert (engine/numwars_classic/bots.py) values a world by the seat's
    round score less the others' mean (its team's less the other team's under `alliance`),
    and passes and shows as `basic` does: it searches the play only."""
    from engine.numwars_classic import bots as classic_bots

    support = registry.spec("numwars-classic").bots
    assert support.value is classic_bots.value
    assert support.search_phases == frozenset({"play"})
    rules = registry.make("numwars-classic")
    state = rules.new_round(_setup("numwars-classic", 4, 3))
    assert state.phase == "exchange"
    view = state.view(0)
    expected = support.basic(rules, view, Rng(Rng(9).next_u64()))
    assert choose(rules, view, seed=9, budget=BUDGET) == expected
    rng = Rng(4)
    while not state.is_over:
        state.apply(*pick(state, rng))
    scores = state.scores()
    assert scores is not None
    own = [p.score for p in sorted(scores.players, key=lambda p: p.seat)]
    assert len(set(own)) > 1
    for seat in range(4):
        others = [s for i, s in enumerate(own) if i != seat]
        assert classic_bots.value(state, seat) == pytest.approx(own[seat] - sum(others) / 3)
    allied = registry.make("numwars-classic", {"alliance": True})
    state = allied.new_round(_setup("numwars-classic", 4, 3))
    while not state.is_over:
        state.apply(*pick(state, rng))
    scores = state.scores()
    assert scores is not None and scores.teams
    team = {s: t.score for t in scores.teams for s in t.seats}
    for seat in range(4):
        other = team[(seat + 1) % 4]
        assert classic_bots.value(state, seat) == pytest.approx(team[seat] - other)
