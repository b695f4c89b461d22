"""Every round state checks the `seat` it is given, and the compiled ones the field types of
a hand-built action, in the pure and the compiled build alike.

A seat is an int (not a bool) in 0 … n-1; anything else is `InvalidInput` (`bad-request`,
field `seat`) from `apply` and `view`, never a TypeError or another seat's turn or view
(compiled code would take `True` for seat 1 at an `int` parameter: see `check_seat`). An
action whose field has the wrong type is `InvalidInput` naming the field (`check_fields`).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import registry
from engine.core.actions import Discard, Exchange, Neutralize, Pass, Play, Snap, Swap, Target
from engine.core.base import RoundSetup
from engine.core.errors import InvalidInput

RULESETS = ["numwars", "numwars-classic", "numking", "numwin"]
BAD_SEATS: list[Any] = [True, False, "0", 1.0, -1, 4, 99]


def _round(ruleset: str) -> Any:
    return registry.make(ruleset).new_round(RoundSetup(players=4, seed=3, dealer=0, round=2))


def _actor(state: Any) -> int:
    seat = state.current_player
    return seat if seat is not None else state.actors()[0]


@pytest.mark.parametrize("seat", [*BAD_SEATS, "actor as float"], ids=repr)
@pytest.mark.parametrize("ruleset", RULESETS)
def test_apply_refuses_a_bad_seat_and_changes_nothing(ruleset: str, seat: Any) -> None:
    state = _round(ruleset)
    action = state.legal_actions(_actor(state))[0]
    if seat == "actor as float":  # equal to the seat to act, compared as a number
        seat = float(_actor(state))
    before = (list(state.history), state.view(None))
    with pytest.raises(InvalidInput) as err:
        state.apply(seat, action)
    assert (err.value.code, err.value.errors[0].field) == ("bad-request", "seat")
    assert repr(seat) in err.value.message
    assert (list(state.history), state.view(None)) == before
    state.apply(_actor(state), action)  # the good seat still may
    assert len(state.history) == 1


@pytest.mark.parametrize("seat", [*BAD_SEATS, None], ids=repr)
@pytest.mark.parametrize("ruleset", RULESETS)
def test_view_refuses_a_bad_seat(ruleset: str, seat: Any) -> None:
    state = _round(ruleset)
    if seat is None:  # a spectator
        assert state.view(None) == state.view(None)
        return
    with pytest.raises(InvalidInput) as err:
        state.view(seat)
    assert (err.value.code, err.value.errors[0].field) == ("bad-request", "seat")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_view_of_a_seat_is_its_own(ruleset: str) -> None:
    state = _round(ruleset)
    assert state.view(1) != state.view(None)


@pytest.mark.parametrize("dealer", [True, "0", 1.0, -1, 4], ids=repr)
@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_round_refuses_a_bad_dealer(ruleset: str, dealer: Any) -> None:
    with pytest.raises(InvalidInput) as err:
        registry.make(ruleset).new_round(RoundSetup(players=4, seed=3, dealer=dealer, round=2))
    assert err.value.errors[0].field == "dealer"


#: Actions built by hand with one wrongly typed field, and that field.
BAD_ACTIONS: list[tuple[Any, str]] = [
    (Play(card=7), "card"),  # type: ignore[arg-type]
    (Play(card="red-3", declared=False), "declared"),
    (Pass(card=None), "card"),  # type: ignore[arg-type]
    (Exchange(cards=("red-3",)), "cards"),  # type: ignore[arg-type]
    (Swap(position="0"), "position"),  # type: ignore[arg-type]
    (Swap(position=True), "position"),
    (Target(seat=True, position=0), "seat"),
    (Snap(position=1.0), "position"),  # type: ignore[arg-type]
    (Discard(call=1), "call"),  # type: ignore[arg-type]
    (Neutralize(neutralize=1), "neutralize"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("action", "field"), BAD_ACTIONS, ids=repr)
@pytest.mark.parametrize("ruleset", ["numwars", "numwars-classic", "numwin"])
def test_apply_names_a_wrongly_typed_action_field(ruleset: str, action: Any, field: str) -> None:
    state = _round(ruleset)
    before = (list(state.history), state.view(None))
    with pytest.raises(InvalidInput) as err:
        state.apply(_actor(state), action)
    assert (err.value.code, err.value.errors[0].field) == ("bad-request", field)
    assert (list(state.history), state.view(None)) == before
