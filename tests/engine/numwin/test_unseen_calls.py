"""A card a seat has not seen must not change what that seat may do (rules "Actions": cards
moved in unseen stay unknown). The call flag on a swap was offered only when the card swapped
out was not an action card with a target, so `legal_actions` told a seat whether an unseen
card of its own combination was an action card (found by attacking the stored-games API).

Ruling (engine/numwin/kernel.py): a call flagged on a swap whose discarded card, unseen by
the player, turns out to activate an action is made at the end of the turn, after the
action, if the player then holds exactly 5 cards (else it lapses)."""

from __future__ import annotations

from typing import Any

from engine import registry
from engine.core.actions import Swap, Target
from engine.core.base import RoundSetup
from engine.core.rng import Rng
from engine.numwin.cards import DECK, TARGET_SIZE, is_action
from engine.simulate import pick


def _states(count: int) -> Any:
    """Seeded random numwin rounds, yielding each state where the seat to act has drawn."""
    rules = registry.make("numwin")
    for seed in range(count):
        state = rules.new_round(RoundSetup(players=3, seed=seed))
        rng = Rng(seed)
        for _ in range(1500):
            if state.is_over:
                break
            yield state
            seat, action = pick(state, rng)
            state.apply(seat, action)


def test_the_call_on_a_swap_does_not_depend_on_an_unseen_card() -> None:
    found = 0
    for state in _states(400):
        k = state.kernel
        if k.phase != "play" or k.hand < 0:
            continue
        seat = k.turn
        count = len(k.comb[seat])
        may_call = k.caller is None and count == TARGET_SIZE
        legal = state.legal_actions(seat)
        for position, card in enumerate(k.comb[seat]):
            if k.locked[card] or k.visible(seat, card):
                continue
            assert (Swap(position=position, call=True) in legal) == may_call, (
                DECK[card],
                legal,
            )
            if may_call and is_action(DECK[card]):
                found += 1
    assert found > 0, "no state with an unseen action card where a call was possible"


def test_a_call_flagged_on_a_swap_that_activates_is_made_at_the_end_of_the_turn() -> None:
    for state in _states(800):
        k = state.kernel
        if k.phase != "play" or k.hand < 0 or k.caller is not None:
            continue
        seat = k.turn
        if len(k.comb[seat]) != TARGET_SIZE:
            continue
        for position, card in enumerate(k.comb[seat]):
            kind = DECK[card]
            if k.locked[card] or k.visible(seat, card) or not is_action(kind):
                continue
            if kind.startswith("malus") or kind == "swipe":
                continue  # the count after them depends on the target: keep to flip/quantum
            events = state.apply(seat, Swap(position=position, call=True))
            assert not [e for e in events if e.kind == "call"]  # not yet: an action is due
            assert state.phase == "action", state.phase
            target = next(a for a in state.legal_actions(seat) if isinstance(a, Target))
            events = state.apply(seat, Target(seat=target.seat, position=target.position))
            assert [e.seat for e in events if e.kind == "call"] == [seat]
            assert state.kernel.caller == seat
            return
    raise AssertionError("no state with an unseen flip or quantum to swap out")
