"""Every attribute of a kernel that keeps a round's state (engine/<game>/state.py) is named
here as stored in the state, rebuilt from it, fixed by the deal, or set only once the round is
over: a new attribute fails this test until it is placed (and, if the round's actions change
it, stored, with the state's `v` raised). The property tests (tests/engine/*/test_state.py)
then check that the state restores the round."""

from __future__ import annotations

from typing import Any

import pytest

from engine import registry

#: Per ruleset: the kernel's attributes by what a stored state does with them.
PLACES: dict[str, dict[str, set[str]]] = {
    "numwars-classic": {
        "stored": {
            *("_phase", "_hands", "passed", "received", "shown", "has_shown", "_waiting"),
            *("_records", "piles", "leader", "current_player", "trick_cards", "_asked"),
            *("_best", "_best_seat", "_top", "_top_seat", "_tbits", "history"),
        },
        "rebuilt": {"_passes", "_suits", "_legal", "_finished"},
        "dealt": {
            *("options", "setup", "players", "alliance", "exchange_size", "_undealt"),
            "_pass_events",
        },
        "over": {"_score", "_helds", "is_over"},
    },
    "numwars": {
        "stored": {
            *("phase", "passed", "revealed", "_records", "leader", "current_player", "_cards"),
            *("_asked", "_ref", "_win", "_winner", "_top", "_wanted", "_paired", "_special"),
            "history",
        },
        # the hands as runs of plays and role counts; the piles, pairs and Bomb from the tricks
        # (and the views' caches: finished tricks, legal plays, sorted piles)
        "rebuilt": {
            *("_suits", "_nspec", "_finished", "_legal", "piles", "pairs", "bomb"),
            "_canon_piles",
        },
        "dealt": {"setup", "options", "n", "k", "dealer", "set_aside", "roles", "complice"},
        "over": {"_scores", "is_over"},
    },
    "numwin": {
        "stored": {
            *("_phase", "rng", "pile", "discard", "aside", "comb", "pairs", "known", "faceup"),
            *("locked", "hand", "hand_src", "turn", "pending", "swipe_from", "snap_open"),
            *("tried", "call_seat", "resume_after", "deferred_call", "caller", "last_turns"),
            *("turns", "shown", "history"),
        },
        "rebuilt": set(),
        "dealt": {"setup", "n", "all", "public", "teams", "rulings", "max_turns"},
        "over": {"end", "score_caller", "_scores"},
    },
}


def _attributes(kernel: Any) -> set[str]:
    """The kernel's attributes: its `__slots__`, its instance dict, or, compiled, the ones
    mypyc lists (`__mypyc_attrs__`)."""
    kind = type(kernel)
    named = getattr(kind, "__mypyc_attrs__", None) or getattr(kind, "__slots__", None)
    return set(named) - {"__dict__"} if named else set(vars(kernel))


@pytest.mark.parametrize("rid", sorted(PLACES))
def test_every_kernel_attribute_has_its_place_in_the_stored_state(rid: str) -> None:
    places = PLACES[rid]
    named = [name for group in places.values() for name in group]
    assert len(named) == len(set(named)), "an attribute named twice"
    kernel = registry.make(rid, {}).new_match(players=4, seed=1).round.kernel
    assert _attributes(kernel) == set(named)


def test_only_the_rulesets_with_long_rounds_keep_a_state() -> None:
    """Num King's rounds (a few dozen actions) are rebuilt from their actions."""
    keeping = {
        rid
        for rid in registry.RULESETS
        if hasattr(registry.make(rid, {}).new_match(players=4, seed=1).round, "save_state")
    }
    assert keeping == set(PLACES)
