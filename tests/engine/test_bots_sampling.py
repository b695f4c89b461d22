"""The samplers' tight cases (found by bench/bots.py at 6 players): a world is drawn whenever
one fits what the seat saw, and a search that draws none still answers (the basic action).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from engine import registry
from engine.bots import Budget, choose, hint
from engine.core.base import RoundSetup
from engine.core.bots import SampleError, deal_unseen
from engine.core.rng import Rng
from engine.numwars.bots import place_roles


def _fits(cards: list[str], sizes: list[int], allowed: set[tuple[str, int]]) -> bool:
    """Whether any deal of `cards` into places of `sizes` follows `allowed` (brute force)."""
    for places in itertools.product(range(len(sizes)), repeat=len(cards)):
        if all((c, p) in allowed for c, p in zip(cards, places, strict=True)) and all(
            places.count(p) == size for p, size in enumerate(sizes)
        ):
            return True
    return False


@st.composite
def _instances(draw: Any) -> tuple[list[str], list[int], set[tuple[str, int]], int]:
    n = draw(st.integers(1, 7))
    cards = [f"c{i}" for i in range(n)]
    places = draw(st.integers(1, 3))
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=places - 1, max_size=places - 1)))
    bounds = [0, *cuts, n]
    sizes = [bounds[i + 1] - bounds[i] for i in range(places)]
    allowed = {
        (c, p) for c in cards for p in range(places) if draw(st.booleans()) or draw(st.booleans())
    }
    return cards, sizes, allowed, draw(st.integers(0, 2**32))


@settings(max_examples=300, deadline=None)
@given(_instances(), st.integers(0, 3))
def test_a_deal_is_found_whenever_one_fits(
    instance: tuple[list[str], list[int], set[tuple[str, int]], int], attempts: int
) -> None:
    """With no or few attempts of the card-by-card deal, the augmenting paths still find a
    deal when one exists, and it follows every constraint; none exists: SampleError."""
    cards, sizes, allowed, seed = instance
    fits = _fits(cards, sizes, allowed)
    try:
        dealt = deal_unseen(cards, sizes, Rng(seed), lambda c, p: (c, p) in allowed, attempts)
    except SampleError:
        assert not fits
        return
    assert fits
    assert [len(d) for d in dealt] == sizes
    assert sorted(c for d in dealt for c in d) == sorted(cards)
    assert all((c, p) in allowed for p, d in enumerate(dealt) for c in d)


def test_the_role_cards_go_to_the_only_seats_that_may_hold_them() -> None:
    """Three role cards, four seats of unknown role, each card excluded from all but one
    or two seats: drawing holders blindly found the one placement rarely; every draw does now."""
    gone = {1: {"a", "b"}, 2: {"a", "c"}, 3: {"b", "c"}, 4: {"a", "b", "c"}}
    for seed in range(50):
        placed = dict(place_roles(["a", "b", "c"], [1, 2, 3, 4], gone, Rng(seed)))
        assert placed == {"a": 3, "b": 2, "c": 1}
    with pytest.raises(SampleError):
        place_roles(["a", "b"], [1, 4], gone, Rng(1))


def test_a_search_that_draws_no_world_plays_the_basic_action() -> None:
    rules = registry.make("numking")
    state = rules.new_round(RoundSetup(players=3, seed=4))
    view = state.view(state.current_player)
    support = registry.spec("numking").bots

    def never(*_: Any) -> Any:
        raise SampleError("no world")

    budget = Budget(samples=4, seconds=5.0)
    searched = hint(rules, view, seed=9, budget=budget)
    sampler = support.sample
    object.__setattr__(support, "sample", never)  # a frozen spec: put back below
    try:
        played = choose(rules, view, level="expert", seed=9, budget=budget)
        advice = hint(rules, view, seed=9, budget=budget)
    finally:
        object.__setattr__(support, "sample", sampler)
    assert searched.samples == 4 and advice.samples == 0
    assert advice.action == played and played in (view.legal_actions or [])
    assert sorted(map(repr, (v.action for v in advice.values))) == sorted(
        map(repr, view.legal_actions or [])
    )
