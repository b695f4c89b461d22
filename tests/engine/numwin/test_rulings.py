"""The Rulings of issue 21 (rules/numwin.md "Actions", "A turn" 4, "Match and variant"),
scripted through rigged deals, then held on every legal action of seeded play-outs.

1. An action targets only face-down cards: `flip` and `quantum` never choose a locked pair or
   a card revealed by `quantum`; `swipe` and `malus` choose any unlocked card, a revealed one
   included (it "can be swapped or discarded as usual").
2. In `teams` an opponent is a player of the other team: `swipe` and `quantum` never choose
   the partner's cards; `malus` chooses any player, the partner included.
3. The teams show is mandatory, before the first turn.
4. Every card drawn by a malus, a penalty or the fill-up comes from the refilled pile; when no
   card can be had the round ends at once, scored as it stands, with no caller.

Rulings 1 and 2 change what a stored game is offered: rules version 2; version 1 (old
records) keeps the old targets, pinned here too.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from engine import registry
from engine.core.actions import (
    Action,
    Add,
    Call,
    Discard,
    Draw,
    Show,
    Snap,
    Swap,
    Take,
    Target,
)
from engine.core.base import RoundSetup
from engine.core.match import Match, MatchRecord, replay
from engine.core.rng import Rng
from engine.numwin.cards import DECK
from engine.numwin.round import NumWinRound
from engine.numwin.rules import NumWin, NumWinOptions
from engine.simulate import play_round
from tests.engine import golden
from tests.engine.numwin.test_round import codes, illegal, rig

FOUR = [["red-3", "blue-4"], ["green-6", "yellow-9"], ["red-0", "blue-8"], ["red-2", "green-1"]]


def targets(st: NumWinRound, seat: int) -> set[tuple[int, int]]:
    """The (seat, position) pairs `seat` may choose now (call flags aside)."""
    return {(a.seat, a.position) for a in st.legal_actions(seat) if isinstance(a, Target)}


def all_of(*seats: int) -> set[tuple[int, int]]:
    return {(s, p) for s in seats for p in (0, 1)}


def _discard_action(st: NumWinRound, seat: int) -> None:
    st.apply(seat, Draw())
    st.apply(seat, Discard())


# -- The rules version ----------------------------------------------------------------------


def test_numwin_plays_rules_version_2_and_still_replays_version_1() -> None:
    assert NumWin.rules_version == 2 and NumWin.rules_versions == (1, 2)
    rules = registry.make("numwin", {"teams": True})
    assert rules.version == 2
    assert rules.new_match(players=4, seed=1).record().rules_version == 2
    old = rules.for_version(1)
    assert old.version == 1 and old.options == rules.options
    assert rules.for_version(2) is rules
    match = Match(rules, 4, 1, 1)
    assert match.rules_version == 1 and match.rules.version == 1  # type: ignore[attr-defined]
    assert match.round.kernel.rulings is False  # type: ignore[attr-defined]


# -- Ruling 2: teams, opponents ---------------------------------------------------------------


def test_teams_swipe_never_chooses_the_partner() -> None:
    st = rig(FOUR, pile=["swipe"], teams=True)
    _discard_action(st, 0)
    assert targets(st, 0) == all_of(0)
    st.apply(0, Target(seat=0, position=1))
    assert targets(st, 0) == all_of(1, 3)
    refused = illegal(st, 0, Target(seat=2, position=0))
    assert refused.reason == "not-your-decision" and "opponent" in refused.message
    st.apply(0, Target(seat=3, position=0))
    assert codes(st, 0) == ["red-3", "red-2"] and codes(st, 3) == ["blue-4", "green-1"]


def test_teams_quantum_chooses_yours_or_an_opponents_never_the_partners() -> None:
    st = rig(FOUR, pile=["quantum"], teams=True, turn=1)
    _discard_action(st, 1)
    assert targets(st, 1) == all_of(0, 1, 2)
    assert illegal(st, 1, Target(seat=3, position=1)).reason == "not-your-decision"
    st.apply(1, Target(seat=2, position=1))
    assert st.view(None).combinations[2].cards == [None, "blue-8"]


def test_teams_malus_chooses_any_player_the_partner_included() -> None:
    for malus in ("malus-0", "malus-1", "malus-2"):
        st = rig(FOUR, pile=[malus, "blue-12", "blue-13"], teams=True)
        _discard_action(st, 0)
        assert targets(st, 0) == all_of(0, 1, 2, 3)
        st.apply(0, Target(seat=2, position=0))
        assert codes(st, 2)[0] == "blue-8" and st.view(0).set_aside_count == 1


def test_teams_swipe_without_an_opponents_card_has_no_effect() -> None:
    """Ruling "Actions": mandatory with a valid target, no effect without; the partner's
    cards are no target, so with both opponents' cards locked the swipe does nothing."""
    st = rig(FOUR, pile=["swipe"], teams=True)
    for seat in (1, 3):
        for c in st.comb[seat]:
            st.locked[c] = st.faceup[c] = True
    st.apply(0, Draw())
    events = st.apply(0, Discard())
    assert any(e.kind == "action" and e.data.effect is False for e in events)
    assert st.phase == "draw" and st.current_player == 1


def test_version_1_keeps_offering_the_partner() -> None:
    """Old records replay the old way: version 1 offered the partner's cards."""
    st = rig(FOUR, pile=["swipe"], teams=True, version=1)
    _discard_action(st, 0)
    st.apply(0, Target(seat=0, position=1))
    assert targets(st, 0) == all_of(1, 2, 3)
    st = rig(FOUR, pile=["quantum"], teams=True, version=1)
    _discard_action(st, 0)
    assert targets(st, 0) == all_of(0, 1, 2, 3)


# -- Ruling 1: face-down cards only -----------------------------------------------------------


def _revealed(pile: list[str], version: int | None = None) -> NumWinRound:
    """Seat 0's red-3 revealed by a quantum (face up, unlocked), then seat 1's quiet turn;
    seat 0 is to draw `pile`'s next card."""
    st = rig(
        [["red-3", "blue-4"], ["green-6", "yellow-9"]],
        pile=["quantum", "red-12", *pile],
        version=version,
    )
    _discard_action(st, 0)
    st.apply(0, Target(seat=0, position=0))
    assert st.view(1).combinations[0].face_up == [True, False]
    _discard_action(st, 1)
    return st


def test_flip_never_chooses_a_revealed_or_locked_card() -> None:
    st = _revealed(["flip"])
    _discard_action(st, 0)
    assert targets(st, 0) == {(0, 1)}
    refused = illegal(st, 0, Target(seat=0, position=0))
    assert refused.reason == "not-your-decision" and "face-down" in refused.message
    old = _revealed(["flip"], version=1)
    _discard_action(old, 0)
    assert targets(old, 0) == {(0, 0), (0, 1)}


def test_quantum_never_chooses_a_revealed_card() -> None:
    st = _revealed(["quantum"])
    _discard_action(st, 0)
    assert targets(st, 0) == {(0, 1), (1, 0), (1, 1)}
    assert illegal(st, 0, Target(seat=0, position=0)).reason == "not-your-decision"
    old = _revealed(["quantum"], version=1)
    _discard_action(old, 0)
    assert targets(old, 0) == all_of(0, 1)


def test_flip_with_only_face_up_cards_has_no_effect() -> None:
    """A lone revealed card and a locked pair: nothing face down to look at."""
    st = rig([["red-3", "red-5", "blue-5"], ["green-6"]], pile=["flip"])
    st.faceup[st.comb[0][0]] = True
    for c in st.comb[0][1:]:
        st.locked[c] = st.faceup[c] = True
    st.apply(0, Draw())
    assert Discard(call=True) not in st.legal_actions(0)  # 3 cards: no call anyway
    events = st.apply(0, Discard())
    assert any(e.kind == "action" and e.data.effect is False for e in events)
    assert st.phase == "draw" and st.current_player == 1
    old = rig([["red-3", "red-5", "blue-5"], ["green-6"]], pile=["flip"], version=1)
    old.faceup[old.comb[0][0]] = True
    old.apply(0, Draw())
    old.apply(0, Discard())
    assert old.phase == "action" and targets(old, 0) == {(0, 0), (0, 1), (0, 2)}


def test_swipe_and_malus_still_choose_a_revealed_unlocked_card() -> None:
    """Reading of the Ruling: `swipe` and `malus` "already need unlocked cards" — a revealed
    card stays unlocked and "can be swapped or discarded as usual", so they may choose it."""
    st = _revealed(["swipe"])
    _discard_action(st, 0)
    assert targets(st, 0) == {(0, 0), (0, 1)}
    st.apply(0, Target(seat=0, position=0))
    assert targets(st, 0) == {(1, 0), (1, 1)}
    st.apply(0, Target(seat=1, position=1))
    assert codes(st, 1) == ["green-6", "red-3"]
    assert st.view(None).combinations[1].face_up == [False, True]
    st = _revealed(["malus-1", "blue-12"])
    _discard_action(st, 0)
    assert targets(st, 0) == all_of(0, 1)
    st.apply(0, Target(seat=0, position=0))
    assert codes(st, 0) == ["blue-4", "blue-12"]


# -- Ruling 3: the teams show ---------------------------------------------------------------


def test_teams_show_is_mandatory_before_the_first_turn() -> None:
    """Only a show of one's own card is legal until all four have shown; a skip (a show of
    nothing) and every other action are refused, the dealer's draw included."""
    rules = NumWin(NumWinOptions(teams=True))
    st = rules.new_round(RoundSetup(players=4, seed=21, dealer=1))
    for order, seat in enumerate((2, 0, 3, 1)):
        assert st.phase == "show" and st.current_player is None
        waiting = [s for s in range(4) if s not in (2, 0, 3, 1)[:order]]
        assert st.actors() == waiting
        for s in range(4):
            legal = st.legal_actions(s)
            own = [Show(card=c) for c in dict.fromkeys(codes(st, s))]
            assert legal == (own if s in waiting else [])
            probes: list[Action] = [
                Show(card=None),
                Show(),
                Draw(),
                Take(),
                Discard(),
                Swap(position=0),
                Add(),
                Snap(position=0),
                Call(),
                Target(seat=(s + 1) % 4, position=0),
            ]
            for probe in probes:
                illegal(st, s, probe)
        st.apply(seat, Show(card=codes(st, seat)[0]))
    assert st.phase == "draw" and st.current_player == 1


def test_every_round_of_a_teams_match_starts_with_the_show() -> None:
    match = registry.make("numwin", {"teams": True}).new_match(players=4, seed=8)
    rng = Rng(8)
    starts = 0
    while not match.is_over:
        if match.round.history == []:
            starts += 1
            assert match.phase == "show" and match.actors() == [0, 1, 2, 3]
            assert all(all(isinstance(a, Show) for a in match.legal_actions(s)) for s in range(4))
        seat = rng.choice(match.actors())
        match.apply(seat, rng.choice(match.legal_actions(seat)))
    assert starts == 4


# -- Ruling 4: draws by an action, a penalty, the fill-up -------------------------------------


def test_malus_draws_refill_the_pile_from_the_discard() -> None:
    st = rig(
        [["red-3", "blue-4"], ["green-6", "yellow-9"]],
        pile=["malus-2"],
        discard=["red-9", "red-8", "red-7"],
    )
    st.pile = st.pile[-1:]
    _discard_action(st, 0)
    assert st.pile == [] and [DECK[c] for c in st.discard][-1] == "malus-2"
    events = st.apply(0, Target(seat=1, position=0))
    assert [e.kind for e in events].count("reshuffle") == 1
    assert [DECK[c] for c in st.discard] == ["malus-2"]
    assert codes(st, 1)[0] == "yellow-9" and set(codes(st, 1)[1:]) < {"red-9", "red-8", "red-7"}
    assert len(st.pile) == 1 and not st.is_over and st.current_player == 1


def test_malus_with_no_card_to_draw_ends_the_round_as_it_stands_without_caller() -> None:
    """Seat 0 called; in seat 1's last turn a malus-2 finds one card (the reshuffled discard)
    and then none: the round ends at once, scored as it stands, the call ignored."""
    st = rig(
        [["red-11", "blue-12", "green-13", "yellow-14"], ["green-0", "red-6"]],
        pile=["malus-2"],
        discard=["red-9", "blue-1"],
    )
    st.pile = st.pile[-1:]
    st.apply(0, Take())
    st.apply(0, Add(call=True))
    assert st.caller == 0 and st.current_player == 1
    _discard_action(st, 1)
    events = st.apply(1, Target(seat=1, position=0))
    assert [e.kind for e in events][-1] == "round-over" and st.end == "exhausted"
    assert codes(st, 1) == ["red-6", "red-9"] and st.score_caller is None
    res = st.scores()
    assert res is not None and [p.score for p in res.players] == [51, 15]
    assert res == NumWin().score_hands(st.final_hands(), None)
    assert all(line.label != "caller penalty" for line in res.players[0].breakdown)


def test_penalty_draw_refills_then_ends_the_round_when_none_can_be_had() -> None:
    """Two wrong claims on blue-9 while seat 1 holds the last pile card: the first penalty
    comes from the reshuffled discard, the second finds no card: the round ends at once,
    scored as it stands (the card in hand is no one's)."""
    st = rig(
        [["red-3", "blue-4"], ["green-6"], ["red-0"]],
        pile=["blue-9", "yellow-5"],
        discard=["red-11"],
    )
    st.pile = st.pile[-2:]
    _discard_action(st, 0)  # blue-9 on red-11
    st.apply(1, Draw())  # yellow-5: the pile is empty
    events = st.apply(2, Snap(position=0))  # red-0: wrong
    assert [e.kind for e in events].count("reshuffle") == 1
    assert codes(st, 2) == ["red-0", "red-11"] and [DECK[c] for c in st.discard] == ["blue-9"]
    assert not st.is_over and st.snap_open and st.pile == []
    events = st.apply(0, Snap(position=0))  # red-3: wrong, and no card can be had
    assert st.is_over and st.end == "exhausted" and st.score_caller is None
    assert codes(st, 0) == ["red-3", "blue-4"] and [e.kind for e in events][-1] == "round-over"
    res = st.scores()
    assert res is not None and [p.score for p in res.players] == [7, 6, 11]


def test_fill_up_refills_the_pile_from_the_discard() -> None:
    st = rig(
        [["red-1", "blue-2", "green-3", "yellow-4"], ["green-0"]],
        pile=["blue-7"],
        discard=["red-9", "red-10", "red-11", "red-12", "red-13", "blue-1"],
    )
    st.pile = st.pile[-1:]
    st.apply(0, Take())
    st.apply(0, Add(call=True))
    events: list[Any] = []
    events += st.apply(1, Draw())
    events += st.apply(1, Discard())
    assert [e.kind for e in events].count("reshuffle") == 1
    assert st.is_over and st.end == "called" and st.score_caller == 0
    assert codes(st, 1)[0] == "green-0" and len(codes(st, 1)) == 5
    assert set(codes(st, 1)[1:]) < {"red-9", "red-10", "red-11", "red-12", "red-13"}
    assert [DECK[c] for c in st.discard] == ["blue-7"]


# -- Every legal action of seeded play-outs -----------------------------------------------------


def expected_targets(st: NumWinRound, seat: int) -> set[tuple[int, int]] | None:
    """The targets the Rulings allow `seat` now, from the spectator's view (public facts:
    face up, locked), or None when no target is pending."""
    view = st.view(None)
    if view.pending is None or view.pending.seat != seat:
        return None
    kind, step = view.pending.action, view.pending.step
    teams = st.teams
    opponents = [o for o in range(st.n) if o != seat and not (teams and o == (seat + 2) % 4)]
    combos = view.combinations

    def unlocked(s: int) -> set[tuple[int, int]]:
        return {(s, p) for p, lock in enumerate(combos[s].locked) if not lock}

    def face_down(s: int) -> set[tuple[int, int]]:
        return {(s, p) for p, up in enumerate(combos[s].face_up) if not up}

    if kind == "swipe":
        return unlocked(seat) if step == 0 else set().union(*map(unlocked, opponents))
    if kind == "flip":
        return face_down(seat)
    if kind == "quantum":
        return set().union(*map(face_down, [seat, *opponents]))
    return set().union(*map(unlocked, range(st.n)))


def _check_every_step(st: NumWinRound, counts: dict[str, int]) -> None:
    for seat in range(st.n):
        got = targets(st, seat)
        want = expected_targets(st, seat)
        if want is None:
            assert not got
            continue
        assert got == want, (st.view(None).pending, got, want)
        assert want, "an action waits for a target only when it has one"
        kind = st.view(None).pending.action  # type: ignore[union-attr]
        counts[kind[:5]] = counts.get(kind[:5], 0) + 1
        if st.teams and kind in ("swipe", "quantum"):
            assert all(s != (seat + 2) % 4 for s, _ in got)


def _play(options: NumWinOptions, players: int, seed: int, counts: dict[str, int]) -> None:
    def on_step(state: Any, seat: int, action: Action) -> None:
        _check_every_step(state, counts)

    final = play_round(
        NumWin(options),
        RoundSetup(players=players, seed=seed, dealer=seed % players),
        Rng(seed),
        on_step,
    )
    assert final.is_over


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_teams_targets_hold_on_every_legal_action(seed: int) -> None:
    _play(NumWinOptions(teams=True), 4, seed, {})


def test_seeded_play_outs_reach_every_kind_of_target() -> None:
    """Over fixed seeds (teams and not), every action kind is checked many times."""
    counts: dict[str, int] = {}
    for seed in range(40):
        _play(NumWinOptions(teams=True), 4, seed, counts)
        _play(NumWinOptions(), 2 + seed % 7, seed, counts)
    assert {"swipe", "flip", "quant", "malus"} <= set(counts), counts
    assert min(counts.values()) >= 20, counts


def test_a_version_1_match_that_targets_the_partner_replays() -> None:
    """A version-1 teams match replays by version 1 (its partner targets stay legal)."""
    rules = registry.make("numwin", {"teams": True})
    for seed in range(30):
        match = Match(rules, 4, seed, 1)
        rng = Rng(seed)
        partner = False
        while not match.is_over:
            seat = rng.choice(match.actors())
            legal = match.legal_actions(seat)
            action = rng.choice(legal)
            view = match.round.view(None)
            if (
                isinstance(action, Target)
                and view.pending is not None
                and view.pending.action in ("swipe", "quantum")
                and action.seat == (seat + 2) % 4
            ):
                partner = True
            match.apply(seat, action)
        if partner:
            record = match.record()
            assert record.rules_version == 1
            assert replay(record).snapshot() == match.snapshot()
            return
    pytest.fail("no version-1 teams match targeted the partner")


def test_the_version_2_golden_records_show_the_rulings_at_work() -> None:
    """The committed version-2 records replay with the Rulings held at every step, and among
    them are matches where a target version 1 offered was taken away (tests/engine/golden)."""
    data = json.loads((golden.GOLDEN_DIR / "numwin.v2.json").read_text(encoding="utf-8"))
    spared: set[str] = set()
    counts: dict[str, int] = {}
    for entry in data["matches"]:
        record = msgspec.convert(entry["record"], type=MatchRecord)
        assert record.rules_version == 2
        match = Match(registry.make("numwin", record.options), record.players, record.seed, 2)
        for seat, action in record.actions:
            assert isinstance(match.round, NumWinRound)
            _check_every_step(match.round, counts)
            match.apply(seat, action)
        assert match.is_over
        spared |= {w for w in ("partner", "face-up") if golden._numwin_spared(match, w)}
    assert spared == {"partner", "face-up"}
