"""numwin round state machine (rules/numwin.md), scripted through rigged deals.

`rig()` lays out chosen cards (combinations, discard, top of the draw pile) on a fresh round;
every other card goes under the chosen pile top, so the whole deck stays in play.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.actions import Add, Call, Discard, Draw, Show, Snap, Swap, Take, Target
from engine.core.base import RoundSetup
from engine.core.errors import IllegalMove, InvalidInput
from engine.numwin.cards import DECK
from engine.numwin.kernel import Phase
from engine.numwin.round import NumWinRound
from engine.numwin.rules import NumWin, NumWinOptions
from engine.numwin.view import InHand


def rig(
    combos: list[list[str]],
    *,
    discard: list[str] | None = None,
    pile: list[str] | None = None,
    turn: int = 0,
    snap_open: bool = False,
    teams: bool = False,
    max_turns: int = 0,
    version: int | None = None,
) -> NumWinRound:
    """A round with the given combinations (each known to its owner), discard (bottom first,
    face up) and draw pile top cards (first = next drawn); phase `draw` for seat `turn`;
    `version`: the rules version played (None: the current one)."""
    rules = NumWin(NumWinOptions(teams=teams, max_turns=max_turns), version=version)
    st = rules.new_round(RoundSetup(players=len(combos), seed=1, dealer=turn))
    free: dict[str, list[int]] = {}
    for i, code in enumerate(DECK):
        free.setdefault(code, []).append(i)

    def take(code: str) -> int:
        return free[code].pop(0)

    st.comb = [[take(c) for c in combo] for combo in combos]
    st.discard = [take(c) for c in (discard or ["red-16"])]
    top = [take(c) for c in (pile or [])]
    rest = [i for ids in free.values() for i in ids]
    st.pile = rest + top[::-1]
    st.known = [0] * len(DECK)
    for seat, combo in enumerate(st.comb):
        for c in combo:
            st.known[c] = 1 << seat
    for c in st.discard:
        st.known[c] = st.all
    st.snap_open = snap_open
    st._phase = Phase.DRAW
    st.turn = turn
    return st


def codes(st: NumWinRound, seat: int) -> list[str]:
    return [DECK[c] for c in st.comb[seat]]


def seen(st: NumWinRound, viewer: int | None, owner: int) -> list[str | None]:
    return st.view(viewer).combinations[owner].cards


def illegal(st: NumWinRound, seat: int, action: Any) -> IllegalMove:
    before = st.snapshot()
    with pytest.raises(IllegalMove) as err:
        st.apply(seat, action)
    assert st.snapshot() == before, "a refused action changes nothing"
    return err.value


FIVE = ["red-1", "blue-2", "green-3", "yellow-4", "red-5"]


# -- Set-up ---------------------------------------------------------------------------------


def test_new_round_matches_the_deal() -> None:
    """Rules "Set-up": each player looks at their own two cards; dealer plays first."""
    rules = NumWin()
    setup = RoundSetup(players=4, seed=11, dealer=2)
    deal = rules.deal(setup)
    st = rules.new_round(setup)
    assert [codes(st, s) for s in range(4)] == deal.hands
    assert st.view(0).discard == deal.discard[0]  # type: ignore[index]
    assert st.view(0).draw_pile_count == deal.draw_pile_count
    assert st.current_player == 2 and st.phase == "draw"
    for s in range(4):
        assert seen(st, s, s) == deal.hands[s]
        for o in range(4):
            if o != s:
                assert seen(st, s, o) == [None, None]


def test_face_up_starter_cannot_be_claimed_but_can_be_taken() -> None:
    """Ruling "Timing": the starter cannot be claimed; "A turn" 1: it may be taken."""
    st = rig([["red-3", "blue-4"], ["green-3", "yellow-9"]], discard=["blue-3"])
    assert not any(isinstance(a, Snap) for s in (0, 1) for a in st.legal_actions(s))
    assert illegal(st, 1, Snap(position=0)).reason == "wrong-phase"
    assert Take() in st.legal_actions(0)
    st.apply(0, Take())
    assert st.view(1).in_hand == InHand(seat=0, card="blue-3", from_="take")


def test_starter_action_card_does_not_activate() -> None:
    """Rules "Set-up": an action card turned up this way does not activate."""
    for seed in range(200):
        rules = NumWin()
        deal = rules.deal(RoundSetup(players=3, seed=seed))
        if deal.discard[0] in ("swipe", "flip", "quantum"):  # type: ignore[index]
            st = rules.new_round(RoundSetup(players=3, seed=seed))
            assert st.phase == "draw" and st.view(0).pending is None
            return
    pytest.fail("no seed turned up an action card")


# -- A turn ---------------------------------------------------------------------------------


def test_draw_then_discard_passes_the_turn_and_opens_a_claim() -> None:
    """Rules "A turn" 2: discard the drawn card; then the next player clockwise."""
    st = rig([["red-3", "blue-4"], ["green-3", "yellow-9"], ["red-0", "red-2"]], pile=["blue-7"])
    events = st.apply(0, Draw())
    private = [e for e in events if e.to == [0]]
    assert private and private[0].cards == ["blue-7"]
    assert all(not e.cards for e in events if e.to is None)
    assert st.view(1).in_hand.card is None and st.view(0).in_hand.card == "blue-7"
    st.apply(0, Discard())
    assert st.current_player == 1 and st.view(2).discard == "blue-7" and st.snap_open


def test_drawn_card_swapped_in_takes_the_position() -> None:
    """Rules "Knowledge and positions": a card swapped in takes the replaced card's position."""
    st = rig([["red-3", "blue-4", "green-5"], ["green-3"]], pile=["blue-7"])
    st.apply(0, Draw())
    st.apply(0, Swap(position=1))
    assert codes(st, 0) == ["red-3", "blue-7", "green-5"]
    assert st.view(0).discard == "blue-4"
    assert seen(st, 0, 0) == ["red-3", "blue-7", "green-5"]
    assert seen(st, 1, 0) == [None, None, None]


def test_taken_card_is_added_last_and_seen_by_all() -> None:
    """Rules "A turn" 2: a taken card may be added; every seat sees a taken card."""
    st = rig([["red-3", "blue-4"], ["green-3", "green-4"]], discard=["yellow-1", "yellow-6"])
    st.apply(0, Take())
    st.apply(0, Add())
    assert codes(st, 0) == ["red-3", "blue-4", "yellow-6"]
    assert seen(st, 1, 0) == [None, None, "yellow-6"]
    assert st.view(1).discard == "yellow-1"
    assert not st.snap_open, "a take does not reopen the uncovered card"


def test_only_a_taken_card_can_grow_the_combination() -> None:
    """Rules "A turn" 2: a drawn card cannot be added; a taken card cannot be discarded."""
    st = rig([["red-3", "blue-4"], ["green-3"]], pile=["blue-7"])
    st.apply(0, Draw())
    assert illegal(st, 0, Add()).reason == "wrong-phase"
    st2 = rig([["red-3", "blue-4"], ["green-3"]], discard=["red-9"])
    st2.apply(0, Take())
    assert illegal(st2, 0, Discard()).reason == "wrong-phase"


def test_add_refused_at_five_cards() -> None:
    """Ruling "A turn" 3: adding is refused when the combination holds 5 or more."""
    st = rig([FIVE, ["green-6"]], discard=["red-9"])
    st.apply(0, Take())
    assert Add() not in st.legal_actions(0)
    assert illegal(st, 0, Add()).reason == "combination-full"


def test_take_only_when_a_swap_or_add_follows() -> None:
    """Ruling "A turn" 1: taking is allowed only when you could then swap or add."""
    st = rig([FIVE, ["green-6"]], discard=["red-9"])
    for c in st.comb[0]:
        st.locked[c] = True
    assert Take() not in st.legal_actions(0)
    assert illegal(st, 0, Take()).reason == "combination-full"
    assert Draw() in st.legal_actions(0)


def test_not_your_turn() -> None:
    st = rig([["red-3"], ["green-3"]])
    assert illegal(st, 1, Draw()).reason == "not-your-turn"


def test_swap_of_locked_card_refused() -> None:
    st = rig([["red-3", "blue-4"], ["green-3"]], pile=["blue-7"])
    st.locked[st.comb[0][0]] = True
    st.apply(0, Draw())
    assert illegal(st, 0, Swap(position=0)).reason == "card-locked"
    with pytest.raises(InvalidInput):
        st.apply(0, Swap(position=5))


def test_reshuffle_keeps_the_discard_top() -> None:
    """Rules "A turn" 4: an empty draw pile takes the discard but its top, shuffled."""
    st = rig([["red-3", "blue-4"], ["green-3"]], discard=["red-9", "red-8", "red-7"])
    st.pile = []
    events = st.apply(0, Draw())
    assert any(e.kind == "reshuffle" for e in events)
    assert [DECK[c] for c in st.discard] == ["red-7"]
    assert DECK[st.hand] in ("red-9", "red-8") and len(st.pile) == 1


def test_exhausted_piles_end_the_round_at_turn_start() -> None:
    """Ruling "A turn" 4: no card to draw (both piles exhausted): the round ends at once."""
    st = rig([["red-3", "blue-4"], ["green-3"], ["red-0"]], pile=["blue-7"], discard=["red-9"])
    st.pile = st.pile[-1:]
    st.apply(0, Take())
    st.apply(0, Add())
    st.apply(1, Draw())
    st.apply(1, Swap(position=0))
    assert st.is_over and st.end == "exhausted" and st.actors() == []
    assert st.scores() == NumWin().score_hands(st.final_hands(), None)


def test_exhausted_fill_up_scores_without_caller() -> None:
    """Ruling "A turn" 4: a card must be drawn (fill-up) and none can be: no caller."""
    st = rig([["red-1", "blue-2", "green-3", "yellow-4"], ["green-0"]], pile=["blue-7"])
    st.pile = st.pile[-1:]
    st.apply(0, Take())
    st.apply(0, Add(call=True))
    assert st.caller == 0
    st.apply(1, Draw())
    st.apply(1, Swap(position=0))
    assert st.is_over and st.end == "exhausted"
    res = st.scores()
    assert res is not None
    assert [p.score for p in res.players] == [26, 7]
    assert all(line.label != "caller penalty" for line in res.players[0].breakdown)


def test_max_turns_ends_the_round() -> None:
    """Option max_turns: the round ends after that many turns, scored as it stands."""
    st = rig(
        [["red-3", "blue-4"], ["green-3"], ["red-0"]],
        pile=["blue-7", "blue-8", "blue-10", "blue-11"],
        max_turns=3,
    )
    for seat in (0, 1, 2):
        assert st.current_player == seat
        _discard_turn(st, seat)
    assert st.is_over and st.end == "max-turns"
    res = st.scores()
    assert res is not None and [p.score for p in res.players] == [7, 3, 0]


# -- Actions --------------------------------------------------------------------------------


def test_swipe_exchanges_unseen_and_giver_keeps_knowing() -> None:
    """Rules "swipe" and Ruling "knowledge follows the card"."""
    st = rig([["red-3", "blue-4"], ["green-6", "yellow-9"], ["red-0"]], pile=["swipe"])
    st.apply(0, Draw())
    st.apply(0, Discard())
    assert st.phase == "action" and st.view(1).pending.action == "swipe"
    assert illegal(st, 1, Target(seat=1, position=0)).reason == "not-your-decision"
    assert illegal(st, 0, Draw()).reason == "wrong-phase"
    assert illegal(st, 0, Target(seat=1, position=0)).reason == "not-your-decision"
    st.apply(0, Target(seat=0, position=1))
    assert illegal(st, 0, Target(seat=0, position=0)).reason == "not-your-decision"
    st.apply(0, Target(seat=1, position=0))
    assert codes(st, 0) == ["red-3", "green-6"] and codes(st, 1) == ["blue-4", "yellow-9"]
    assert seen(st, 0, 0) == ["red-3", None]
    assert seen(st, 0, 1) == ["blue-4", None]
    assert seen(st, 1, 1) == [None, "yellow-9"]
    assert seen(st, 1, 0) == [None, "green-6"]
    assert st.current_player == 1


def test_flip_reveals_to_the_player_only() -> None:
    """Rules "flip": look at one of your cards."""
    st = rig([["red-3", "blue-4"], ["green-6"]], pile=["flip"])
    st.known[st.comb[0][1]] = 0
    assert seen(st, 0, 0) == ["red-3", None]
    st.apply(0, Draw())
    st.apply(0, Discard())
    events = st.apply(0, Target(seat=0, position=1))
    flips = [e for e in events if e.kind == "flip"]
    assert flips and flips[0].to == [0] and flips[0].cards == ["blue-4"]
    assert seen(st, 0, 0) == ["red-3", "blue-4"] and seen(st, 1, 0) == [None, None]


def test_quantum_reveals_to_everyone_face_up() -> None:
    """Rules "quantum": revealed to everyone, stays face up."""
    st = rig([["red-3", "blue-4"], ["green-6", "yellow-9"]], pile=["quantum"])
    st.apply(0, Draw())
    st.apply(0, Swap(position=0))  # quantum swapped in: no activation
    assert st.phase == "draw" and st.current_player == 1
    st2 = rig([["red-3", "blue-4"], ["green-6", "yellow-9"]], pile=["quantum"])
    st2.apply(0, Draw())
    st2.apply(0, Discard())
    st2.apply(0, Target(seat=1, position=1))
    for viewer in (0, 1, None):
        assert seen(st2, viewer, 1)[1] == "yellow-9"
    assert st2.view(0).combinations[1].face_up == [False, True]


def test_malus_sets_aside_and_adds_unseen_cards() -> None:
    """Rules "malus-K": the card is set aside, K pile cards join face down, unseen."""
    st = rig(
        [["red-3", "blue-4"], ["green-6", "yellow-9", "red-1"]],
        pile=["malus-2", "blue-12", "blue-13"],
    )
    st.apply(0, Draw())
    st.apply(0, Discard())
    assert st.view(0).pending.action == "malus-2"
    st.apply(0, Target(seat=1, position=0))
    assert codes(st, 1) == ["yellow-9", "red-1", "blue-12", "blue-13"]
    assert seen(st, 1, 1) == ["yellow-9", "red-1", None, None]
    assert seen(st, 0, 1) == [None, None, None, None]
    assert st.view(0).set_aside_count == 1
    assert "green-6" not in str(st.view(1)) and "green-6" not in str(st.view(None))
    assert not st.snap_open, "a set-aside card is not discarded: it cannot be snapped"


def test_malus_on_yourself() -> None:
    st = rig([["red-3", "blue-4"], ["green-6"]], pile=["malus-0"])
    st.apply(0, Draw())
    st.apply(0, Discard())
    st.apply(0, Target(seat=0, position=0))
    assert codes(st, 0) == ["blue-4"]


def test_action_without_target_has_no_effect() -> None:
    """Ruling "Actions": no effect without a valid target (all cards locked)."""
    st = rig([["red-3", "blue-3"], ["green-6"]], pile=["flip"])
    for c in st.comb[0]:
        st.locked[c] = True
    st.apply(0, Draw())
    events = st.apply(0, Discard())
    assert st.phase == "draw" and st.current_player == 1
    assert any(e.kind == "action" and e.data.effect is False for e in events)


def test_locked_cards_cannot_be_targeted() -> None:
    st = rig([["red-3", "blue-3", "red-9"], ["green-6"]], pile=["quantum"])
    st.locked[st.comb[0][0]] = True
    st.apply(0, Draw())
    st.apply(0, Discard())
    assert Target(seat=0, position=0) not in st.legal_actions(0)
    assert illegal(st, 0, Target(seat=0, position=0)).reason == "card-locked"


# -- Snaps ----------------------------------------------------------------------------------


def test_right_snap_locks_the_pair_and_play_resumes_after_claimant() -> None:
    """Rules "Instant recovery" right card: revealed, locked, play resumes after claimant."""
    st = rig(
        [["red-3", "blue-4"], ["green-6", "yellow-9"], ["red-0", "blue-9"], ["red-2"]],
        pile=["red-9"],
    )
    st.apply(0, Draw())
    st.apply(0, Discard())
    assert st.current_player == 1
    events = st.apply(2, Snap(position=1))
    assert any(e.kind == "snap" and e.cards == ["blue-9", "red-9"] for e in events)
    assert codes(st, 2) == ["red-0", "blue-9", "red-9"]
    assert st.view(0).combinations[2].locked == [False, True, True]
    assert seen(st, 0, 2) == [None, "blue-9", "red-9"]
    assert st.current_player == 3
    assert st.final_hands()[2].locked == [["blue-9", "red-9"]]


def test_right_snap_during_a_turn_lets_the_turn_finish() -> None:
    """Ruling "Timing": a turn in progress finishes first, then after the claimant."""
    st = rig(
        [["red-3", "blue-4"], ["green-6", "yellow-9"], ["red-0", "blue-9"], ["red-2"]],
        pile=["red-9", "green-1"],
    )
    st.apply(0, Draw())
    st.apply(0, Discard())
    st.apply(1, Draw())
    st.apply(2, Snap(position=1))
    assert st.current_player == 1 and st.phase == "play"
    st.apply(1, Discard())
    assert st.current_player == 3


def test_snap_by_the_discarder_and_shadow_only_with_rainbow() -> None:
    """Pairing: shadow-X pairs only with rainbow-X; the discarder may claim too."""
    st = rig([["red-5", "rainbow-5"], ["blue-5"], ["green-1"]], pile=["shadow-5"])
    st.apply(0, Draw())
    st.apply(0, Discard())
    st.apply(1, Snap(position=0))  # blue-5 with shadow-5: wrong
    assert st.view(0).discard == "shadow-5" and st.snap_open
    st.apply(0, Snap(position=1))
    assert codes(st, 0)[-2:] == ["rainbow-5", "shadow-5"]


def test_wrong_snap_penalty_and_no_second_claim() -> None:
    """Rules "Instant recovery" wrong card: shown to all, penalty card, same player resumes."""
    st = rig([["red-3", "blue-4"], ["green-6", "yellow-9"], ["red-0"]], pile=["red-7", "blue-11"])
    st.apply(0, Draw())
    st.apply(0, Discard())
    events = st.apply(2, Snap(position=0))
    assert any(e.kind == "wrong-claim" and e.cards == ["red-0"] for e in events)
    penalty = [e for e in events if e.kind == "penalty" and e.to == [2]]
    assert penalty and penalty[0].cards == ["blue-11"]
    assert codes(st, 2) == ["red-0", "blue-11"]
    assert seen(st, 0, 2) == ["red-0", None] and seen(st, 2, 2) == ["red-0", "blue-11"]
    assert st.current_player == 1 and st.snap_open and st.view(0).discard == "red-7"
    assert not any(isinstance(a, Snap) for a in st.legal_actions(2))
    assert illegal(st, 2, Snap(position=1)).reason == "wrong-phase"
    assert st.call_seat == -1


def test_snap_on_action_card_refused() -> None:
    """Ruling "Timing": a claim on an action card is refused as invalid."""
    st = rig([["red-3", "blue-4"], ["green-6"]], pile=["quantum"])
    st.apply(0, Draw())
    st.apply(0, Discard())
    assert illegal(st, 1, Snap(position=0)).reason == "wrong-phase"
    st.apply(0, Target(seat=1, position=0))
    assert illegal(st, 1, Snap(position=0)).reason == "wrong-phase"


def test_claim_closes_when_covered_or_taken() -> None:
    """Ruling "Timing": open while the top of the discard; closed once covered or taken."""
    st = rig([["red-3", "blue-4"], ["green-6", "red-9"]], pile=["blue-9", "green-2"])
    _discard_turn(st, 0)
    st.apply(1, Draw())
    st.apply(1, Discard())  # green-2 covers blue-9: red-9 now claims green-2, wrongly
    events = st.apply(1, Snap(position=1))
    assert [e.kind for e in events if e.kind in ("snap", "wrong-claim")] == ["wrong-claim"]
    st2 = rig([["red-3", "blue-4"], ["green-6", "red-9"]], pile=["blue-9"])
    _discard_turn(st2, 0)
    st2.apply(1, Take())
    assert illegal(st2, 1, Snap(position=1)).reason == "wrong-phase"


def test_snapping_a_locked_card_is_refused() -> None:
    st = rig([["red-3", "blue-4"], ["green-6", "red-9"]], pile=["blue-9"])
    st.locked[st.comb[1][1]] = True
    st.apply(0, Draw())
    st.apply(0, Discard())
    assert illegal(st, 1, Snap(position=1)).reason == "card-locked"
    assert illegal(st, 1, Snap(position=0, owner=0)).reason == "not-your-decision"


def test_snaps_may_pass_five_then_cannot_call() -> None:
    """Ruling "A turn" 3: snaps are never refused; above 5 a player cannot call."""
    st = rig([FIVE, ["green-6"], ["red-0"]], pile=["blue-1", "red-8"])
    st.apply(0, Draw())
    st.apply(0, Discard())
    st.apply(0, Snap(position=0))
    assert len(st.comb[0]) == 6 and st.call_seat == -1
    assert illegal(st, 0, Call()).reason == "cannot-call"


# -- Calling --------------------------------------------------------------------------------


def _discard_turn(st: NumWinRound, seat: int, **kw: Any) -> None:
    st.apply(seat, Draw())
    st.apply(seat, Discard(**kw))


def test_call_then_one_last_turn_each_then_fill_up() -> None:
    """Rules "Calling": last turns clockwise from the caller's left, then fill-up to 5."""
    st = rig(
        [["red-3", "blue-4"], FIVE, ["green-1"], ["yellow-2"]],
        turn=1,
        pile=[
            "blue-13",
            "blue-14",
            "blue-15",
            "blue-16",
            "yellow-0",
            "green-0",
            "blue-0",
            "yellow-1",
            "green-2",
            "green-6",
            "yellow-3",
            "blue-6",
            "green-4",
            "blue-3",
            "green-5",
        ],
    )
    _discard_turn(st, 1, call=True)
    assert st.caller == 1 and st.current_player == 2
    _discard_turn(st, 2)
    assert st.current_player == 3
    _discard_turn(st, 3)
    assert st.current_player == 0
    _discard_turn(st, 0)
    assert st.is_over and st.end == "called"
    assert [len(c) for c in st.comb] == [5, 5, 5, 5]
    res = st.scores()
    assert res is not None and res == NumWin().score_round(st.final_hands(), 1)
    assert res.players[2].score == 0  # green-1 yellow-1, yellow-0 green-0, blue-0
    assert res.players[1].score == 15 + 15  # red-1 .. red-5, and seat 2 is lower
    assert [e for e in res.players[1].breakdown if e.label == "caller penalty"]


def test_call_needs_exactly_five() -> None:
    st = rig([["red-3", "blue-4"], ["green-1"]], pile=["blue-13"])
    st.apply(0, Draw())
    assert Discard(call=True) not in st.legal_actions(0)
    assert illegal(st, 0, Discard(call=True)).reason == "cannot-call"


def test_call_with_action_goes_on_the_target() -> None:
    """The call flag belongs to the turn's last action: the target of an activated card."""
    st = rig([FIVE, ["green-1", "blue-7"]], pile=["flip"])
    st.apply(0, Draw())
    assert illegal(st, 0, Discard(call=True)).reason == "cannot-call"
    st.apply(0, Discard())
    assert Target(seat=0, position=0, call=True) in st.legal_actions(0)
    st.apply(0, Target(seat=0, position=0, call=True))
    assert st.caller == 0 and st.current_player == 1


def test_call_right_after_a_snap() -> None:
    """Rules "Instant recovery": with 5 cards after a right snap, call at once."""
    st = rig(
        [["red-3", "blue-4"], ["green-6", "yellow-9", "red-0", "blue-0"], ["blue-1"], ["red-2"]],
        pile=["red-9", "green-1", "green-2", "green-3", "green-4"],
    )
    st.apply(0, Draw())
    st.apply(0, Discard())
    st.apply(1, Snap(position=1))
    assert Call() in st.legal_actions(1) and st.current_player == 2
    st.apply(1, Call())
    assert st.caller == 1
    for seat in (2, 3, 0):
        assert st.current_player == seat
        _discard_turn(st, seat)
    assert st.is_over and st.scores() is not None


def test_call_lapses_after_another_action() -> None:
    st = rig(
        [["red-3", "blue-4"], ["green-6", "yellow-9", "red-0"], ["blue-1"]],
        pile=["red-9", "green-1"],
    )
    _discard_turn(st, 0)
    st.apply(1, Snap(position=1))
    st.apply(2, Draw())
    assert illegal(st, 1, Call()).reason == "cannot-call"


def test_snap_and_call_interrupting_a_turn_gives_full_last_turn() -> None:
    """Rules "Calling": an interrupted player finishes, and still gets a full last turn."""
    st = rig(
        [["red-3", "blue-4"], ["green-6"], ["blue-1", "yellow-9", "red-0", "green-0"]],
        pile=["red-9", "green-1", "green-2", "green-3", "green-4", "blue-12", "blue-13"],
    )
    _discard_turn(st, 0)
    st.apply(1, Draw())
    st.apply(2, Snap(position=1))
    st.apply(2, Call())
    assert st.current_player == 1
    st.apply(1, Discard())
    order = []
    while not st.is_over:
        order.append(st.current_player)
        assert st.current_player is not None
        _discard_turn(st, st.current_player)
    assert order == [0, 1]


def test_snaps_in_last_turns_do_not_change_order() -> None:
    st = rig(
        [["red-3", "blue-4"], FIVE, ["blue-9"], ["yellow-2"]],
        turn=1,
        pile=["green-13", "red-9", "green-14", "green-15", "green-16", "blue-13", "blue-14"],
    )
    _discard_turn(st, 1, call=True)
    _discard_turn(st, 2)  # discards red-9
    st.apply(2, Snap(position=0))
    assert st.current_player == 3


# -- Teams ----------------------------------------------------------------------------------


def test_teams_show_step_and_partner_snap() -> None:
    """Variant teams: partners show one card; a snap may name the partner's card."""
    rules = NumWin(NumWinOptions(teams=True))
    st = rules.new_round(RoundSetup(players=4, seed=9, dealer=0))
    assert st.phase == "show" and st.current_player is None and st.actors() == [0, 1, 2, 3]
    assert illegal(st, 0, Draw()).reason == "wrong-phase"
    shown = {}
    for s in range(4):
        card = codes(st, s)[1]
        shown[s] = card
        events = st.apply(s, Show(card=card))
        assert [e.to for e in events if e.cards] == [[(s + 2) % 4]]
    assert st.phase == "draw" and st.current_player == 0
    for s in range(4):
        assert shown[(s + 2) % 4] in seen(st, s, (s + 2) % 4)
        assert seen(st, s, (s + 1) % 4) == [None, None]

    st = rig(
        [["red-3", "blue-4"], ["green-6"], ["red-0", "blue-9"], ["red-2"]],
        pile=["red-9"],
        teams=True,
    )
    _discard_turn(st, 0)
    assert Snap(position=1, owner=2) in st.legal_actions(0)
    st.apply(0, Snap(position=1, owner=2))
    assert codes(st, 0) == ["red-3", "blue-4", "blue-9", "red-9"] and codes(st, 2) == ["red-0"]
    assert st.final_hands()[0].locked == [["blue-9", "red-9"]]


def test_teams_show_refuses_foreign_card() -> None:
    rules = NumWin(NumWinOptions(teams=True))
    st = rules.new_round(RoundSetup(players=4, seed=9))
    other = next(c for c in DECK if c not in codes(st, 0))
    assert illegal(st, 0, Show(card=other)).reason == "card-not-in-hand"
    assert illegal(st, 0, Show(card=None)).reason == "card-not-in-hand"


# -- Positions --------------------------------------------------------------------------------


def test_removed_card_closes_the_gap_and_locked_pair_keeps_positions() -> None:
    """Rules "Knowledge and positions"."""
    st = rig(
        [["red-3", "blue-4", "red-6", "green-8"], ["green-6"]],
        pile=["blue-6", "malus-0"],
    )
    _discard_turn(st, 0)  # blue-6
    st.apply(0, Snap(position=2))
    assert codes(st, 0) == ["red-3", "blue-4", "red-6", "green-8", "blue-6"]
    st.apply(1, Draw())
    st.apply(1, Discard())  # malus-0
    st.apply(1, Target(seat=0, position=1))
    assert codes(st, 0) == ["red-3", "red-6", "green-8", "blue-6"]
    assert st.view(1).combinations[0].locked == [False, True, False, True]


def test_right_snap_before_drawing_passes_the_turn_on() -> None:
    """Right card: play resumes after the claimant, even when the claimant was to play."""
    st = rig([["red-3", "blue-4"], ["green-6", "red-9"], ["red-0"]], pile=["blue-9"])
    _discard_turn(st, 0)
    assert st.current_player == 1 and st.phase == "draw"
    st.apply(1, Snap(position=1))
    assert st.current_player == 2 and st.phase == "draw"


def test_wrong_claim_on_partner_card_penalises_the_claimant() -> None:
    """Variant teams: a wrong claim naming the partner's card; the penalty goes to the claimant."""
    st = rig(
        [["red-3", "blue-4"], ["green-6"], ["red-0", "blue-8"], ["red-2"]],
        pile=["red-9", "yellow-12"],
        teams=True,
    )
    _discard_turn(st, 0)
    st.apply(0, Snap(position=1, owner=2))
    assert codes(st, 2) == ["red-0", "blue-8"] and codes(st, 0) == ["red-3", "blue-4", "yellow-12"]
    assert seen(st, 1, 2) == [None, "blue-8"]
    assert st.view(1).combinations[2].face_up == [False, False]
    assert illegal(st, 1, Snap(position=0, owner=0)).reason == "not-your-decision"


def test_face_up_card_moves_face_up_and_is_discarded_as_usual() -> None:
    """Rules "quantum": stays face up but can be swapped or discarded as usual."""
    st = rig([["red-3", "blue-4"], ["green-6", "yellow-9"]], pile=["quantum", "swipe", "red-12"])
    _discard_turn(st, 0)
    st.apply(0, Target(seat=0, position=0))  # red-3 face up
    st.apply(1, Draw())
    st.apply(1, Discard())  # swipe
    st.apply(1, Target(seat=1, position=0))
    st.apply(1, Target(seat=0, position=0))
    assert codes(st, 1) == ["red-3", "yellow-9"]
    assert st.view(None).combinations[1].face_up == [True, False]
    assert seen(st, None, 1) == ["red-3", None]
    st.apply(0, Draw())
    st.apply(0, Discard())
    assert st.view(None).discard == "red-12"


def test_fill_up_keeps_larger_combinations_and_only_one_call() -> None:
    """Rules "Calling": more than 5 cards are kept; nobody calls again in the last turns."""
    six = ["green-1", "green-2", "green-4", "green-5", "green-6", "green-7"]
    st = rig(
        [six, FIVE, ["yellow-1", "yellow-2", "yellow-3", "yellow-5", "yellow-6"]],
        turn=1,
        pile=["blue-13", "blue-14", "blue-15"],
    )
    _discard_turn(st, 1, call=True)
    st.apply(2, Draw())
    assert Discard(call=True) not in st.legal_actions(2)
    assert illegal(st, 2, Discard(call=True)).reason == "cannot-call"
    st.apply(2, Discard())
    _discard_turn(st, 0)
    assert st.is_over and st.end == "called"
    assert [len(c) for c in st.comb] == [6, 5, 5]
    res = st.scores()
    assert res is not None and [p.score for p in res.players] == [25, 15, 17]
