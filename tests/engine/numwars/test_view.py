"""`numwars` views (engine/numwars/view.py) against the kernel's own state: the hands and
piles they show are computed apart from it (a seat's hand alone, the counts without the
hands, each pile sorted once until it grows), so at every step of seeded random rounds they
must show what sorting the state afresh shows."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies as st

from engine.core.actions import Action
from engine.core.base import RoundSetup
from engine.core.rng import Rng
from engine.numwars.cards import canon
from engine.numwars.rules import NumWars, NumWarsOptions
from engine.simulate import play_round


def check_views(state: Any) -> None:
    kernel = state.kernel
    hands = kernel.hands
    piles = [canon(p) for p in kernel.piles]
    for viewer in [None, *range(kernel.n)]:
        view = state.view(viewer)
        assert view.hand == (None if viewer is None else hands[viewer])
        assert view.hand_counts == [len(h) for h in hands]
        assert [c.cards for c in view.captured] == piles
        assert [c.seat for c in view.captured] == list(range(kernel.n))
    first = state.view(0).captured[0].cards
    first.append("numx")  # a view's pile is its own: the kept one is not changed
    assert state.view(0).captured[0].cards == piles[0]


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(3, 8),
    exchange=st.sampled_from([0, 1, 2, 5]),
    seed=st.integers(0, 2**64 - 1),
)
def test_views_show_the_hands_and_piles_of_the_state(
    players: int, exchange: int, seed: int
) -> None:
    rules = NumWars(NumWarsOptions(exchange=exchange))
    setup = RoundSetup(players=players, seed=seed, dealer=seed % players)
    grew = 0

    def on_step(state: Any, seat: int, action: Action) -> None:
        nonlocal grew
        check_views(state)
        grew += sum(map(len, state.kernel.piles))

    final = play_round(rules, setup, Rng(seed ^ 0x51E), on_step)
    check_views(final)
    assert final.is_over and grew > 0  # piles were shown as they grew
