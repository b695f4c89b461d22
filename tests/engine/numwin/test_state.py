"""numwin: a round's stored state within the round (engine/numwin/state.py).

Property: at many points of seeded random rounds (every player count, `teams`, `max_turns`,
rules versions 1 and 2), the round's `save_state` taken by the round freshly dealt from its
setup is that round: same snapshot, views, legal actions and generator; it then plays on as
the round replayed from its history does (the next action, and at one point per round every
action to the round's end: reshuffles draw on the generator). A stored state that is
unreadable or does not fit the round is refused by `Match.resume` (`bad-checkpoint`,
`checkpoint.state`); one of another version of the form is not read (`played` is applied).
"""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings, strategies as st

from engine.core.actions import Action, Swap, Target
from engine.core.base import RoundSetup
from engine.core.formats import decode_checkpoint, encode_checkpoint
from engine.core.match import Match, MatchCheckpoint
from engine.core.rng import Rng
from engine.numwin.cards import DECK, TARGET_SIZE
from engine.numwin.round import NumWinRound
from engine.numwin.rules import NumWin, NumWinOptions
from engine.numwin.state import STATE_FORMAT
from engine.simulate import pick, play_round
from tests.engine.states import check_state_refused, spoilt

#: (players, options, rules version)
CONFIGS = [(n, NumWinOptions(), 2) for n in range(2, 9)] + [
    (4, NumWinOptions(teams=True), 2),
    (4, NumWinOptions(teams=True), 1),
    (3, NumWinOptions(), 1),
    (6, NumWinOptions(), 1),
    (5, NumWinOptions(max_turns=9), 2),
    (4, NumWinOptions(teams=True, max_turns=14), 2),
]


def rules_for(options: NumWinOptions, version: int) -> NumWin:
    rules = NumWin(options).for_version(version)
    assert rules.version == version
    return rules


def replayed(rules: NumWin, setup: RoundSetup, history: list[tuple[int, Action]]) -> NumWinRound:
    state = rules.new_round(setup)
    for seat, action in history:
        state.apply(seat, action)
    return state


def check_state_resumes(
    rules: NumWin, setup: RoundSetup, state: NumWinRound, seat: int, action: Action
) -> NumWinRound:
    """`state`'s stored form, taken by the round freshly dealt from `setup`, is `state`; the
    next action (`seat`'s `action`) gives on it what it gives on the round replayed from the
    history. The resumed round, after that action, is returned."""
    saved = state.save_state()
    decoded = msgspec.json.decode(saved)
    assert decoded[:3] == [STATE_FORMAT, len(state.history), state.phase]
    resumed = rules.new_round(setup)
    assert resumed.load_state(msgspec.Raw(bytes(saved)), list(state.history))
    assert resumed.snapshot() == state.snapshot()
    assert resumed.kernel.rng.state == state.kernel.rng.state
    assert resumed.history == state.history and resumed.history is not state.history
    for viewer in [None, *range(state.n)]:
        assert resumed.view(viewer) == state.view(viewer)
    for s in range(state.n):
        assert resumed.legal_actions(s) == state.legal_actions(s)
    assert resumed.actors() == state.actors()
    again = replayed(rules, setup, state.history)
    events = msgspec.to_builtins(resumed.apply(seat, action))
    assert events == msgspec.to_builtins(again.apply(seat, action))
    assert resumed.snapshot() == again.snapshot()
    assert resumed.kernel.rng.state == again.kernel.rng.state
    return resumed


def play_on(rules: NumWin, setup: RoundSetup, resumed: NumWinRound, seed: int) -> int:
    """Play `resumed` to its end in lockstep with its replay (same random actions): the same
    events each step and the same end. The number of reshuffles seen."""
    again = replayed(rules, setup, resumed.history)
    rng = Rng(seed)
    reshuffles = 0
    while not again.is_over:
        seat, action = pick(again, rng)
        events = msgspec.to_builtins(again.apply(seat, action))
        assert msgspec.to_builtins(resumed.apply(seat, action)) == events
        reshuffles += sum(e["kind"] == "reshuffle" for e in events)
    assert resumed.is_over and resumed.snapshot() == again.snapshot()
    assert resumed.scores() == again.scores()
    return reshuffles


@settings(max_examples=150, deadline=None)
@given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**64 - 1),
    every=st.integers(1, 5),
    lockstep=st.integers(0, 60),
)
def test_a_stored_state_resumes_the_round(
    config: tuple[int, NumWinOptions, int], seed: int, every: int, lockstep: int
) -> None:
    players, options, version = config
    rules = rules_for(options, version)
    setup = RoundSetup(players=players, seed=seed, dealer=seed % players)
    steps = 0

    def on_step(state: Any, seat: int, action: Action) -> None:
        nonlocal steps
        assert isinstance(state, NumWinRound)
        if steps % every == 0 or steps == lockstep:
            resumed = check_state_resumes(rules, setup, state, seat, action)
            if steps == lockstep and not resumed.is_over:
                play_on(rules, setup, resumed, seed ^ steps)
        steps += 1

    play_round(rules, setup, Rng(seed ^ 0x5EED), on_step)


def test_a_stored_state_keeps_the_generator_for_later_reshuffles() -> None:
    """A state taken before the draw pile runs out: the reshuffles after it (drawing on the
    generator) happen in the resumed round as in the replay."""
    rules = NumWin()
    found = 0
    for seed in range(40):
        setup = RoundSetup(players=2, seed=seed, dealer=0)
        state = rules.new_round(setup)
        rng = Rng(seed)
        for _ in range(10):
            state.apply(*pick(state, rng))
            if state.is_over:
                break
        if state.is_over:
            continue
        resumed = rules.new_round(setup)
        assert resumed.load_state(state.save_state(), list(state.history))
        found += play_on(rules, setup, resumed, seed)
    assert found > 0


def test_a_stored_state_keeps_a_deferred_call() -> None:
    """A call flagged on a swap of an unseen action card waits for the action's target (the
    Ruling in engine/numwin/kernel.py): a state stored while it waits makes it on the target,
    as the round that played does. Random play seldom flags one: it is made here."""
    rules = NumWin()
    for seed in range(400):
        setup = RoundSetup(players=3, seed=seed, dealer=0)
        state = rules.new_round(setup)
        rng = Rng(seed)
        while not state.is_over:
            k = state.kernel
            seat = k.turn
            if (
                k.phase == "play"
                and k.caller is None
                and len(k.comb[seat]) == TARGET_SIZE
                and any(
                    not k.locked[c] and not k.visible(seat, c) and DECK[c] in ("flip", "quantum")
                    for c in k.comb[seat]
                )
            ):
                position = next(
                    p
                    for p, c in enumerate(k.comb[seat])
                    if not k.locked[c] and not k.visible(seat, c) and DECK[c] in ("flip", "quantum")
                )
                state.apply(seat, Swap(position=position, call=True))
                assert state.phase == "action" and k.deferred_call
                target = next(a for a in state.legal_actions(seat) if isinstance(a, Target))
                resumed = check_state_resumes(rules, setup, state, seat, target)
                assert resumed.kernel.caller == seat and not resumed.kernel.deferred_call
                return
            state.apply(*pick(state, rng))
    raise AssertionError("no state with an unseen flip or quantum to swap out with a call")


# --------------------------------------------------------------------------------- refusals


def progress(players: int, seed: int, actions: int) -> tuple[Match, MatchCheckpoint]:
    """A numwin match `actions` into its first round (by the random-legal policy), and its
    progress through JSON (its state of this form's version)."""
    rules = NumWin()
    match = rules.new_match(players=players, seed=seed)
    rng = Rng(seed)
    for _ in range(actions):
        match.apply(*pick(match, rng))
    assert match.index == 0 and len(match.history) == actions
    cp = decode_checkpoint(encode_checkpoint(match.progress()))
    assert msgspec.json.decode(cp.state)[:2] == [STATE_FORMAT, actions]
    return match, cp


def set_item(index: int, value: Any) -> Any:
    def change(d: list[Any]) -> None:
        d[index] = value

    return change


def card_out_of_range(d: list[Any]) -> None:
    d[7][0][0] = len(DECK)  # a combination's first card


def card_twice(d: list[Any]) -> None:
    d[7][0][0] = d[7][1][0]  # seat 1's card in seat 0's combination too


def combinations_short(d: list[Any]) -> None:
    del d[7][3]


def pairs_short(d: list[Any]) -> None:
    del d[8][0]


def known_short(d: list[Any]) -> None:
    d[9].pop()


def caller_out_of_range(d: list[Any]) -> None:
    d[22] = 4


def last_turns_out_of_range(d: list[Any]) -> None:
    d[23] = [5]


def action_without_pending(d: list[Any]) -> None:
    d[2], d[15] = "action", ""  # the action phase with no action card pending


def play_without_card(d: list[Any]) -> None:
    d[2], d[12] = "play", -1  # the play phase with no card held


def test_a_state_that_does_not_fit_is_refused_and_another_version_is_not_read() -> None:
    match, cp = progress(4, 21, 40)  # a first round of 286 actions
    fresh = Match.resume(NumWin(), 4, 21, cp)
    assert fresh.round.snapshot() == match.round.snapshot()
    assert fresh.history == match.history
    cases = [
        spoilt(cp, change)
        for change in (
            set_item(1, 39),  # another number of actions
            set_item(1, 41),
            set_item(2, "over"),  # a phase not stored
            set_item(3, -1),  # the generator's state
            set_item(3, 1 << 64),
            card_out_of_range,
            card_twice,
            set_item(12, len(DECK)),  # the card held
            set_item(14, 4),  # the seat on turn
            set_item(14, -1),
            set_item(15, "purple"),  # the pending action
            set_item(18, 1 << 4),  # the seats that claimed wrong
            set_item(19, 4),  # the seat that may call
            set_item(20, 7),  # play resumes after
            set_item(25, 1 << 4),  # the seats that showed
            set_item(11, [0] * len(DECK)),  # locked flags not booleans
            caller_out_of_range,
            last_turns_out_of_range,
            combinations_short,
            pairs_short,
            known_short,
            set_item(9, [1 << 5] * len(DECK)),
            action_without_pending,
            play_without_card,
        )
    ]
    cases += [msgspec.structs.replace(cp, state=msgspec.Raw(b)) for b in (b"[1,", b"{}", b"[x]")]
    for bad in cases:
        check_state_refused(NumWin(), 4, 21, bad)

    def newer(d: list[Any]) -> None:
        d[0] = 2
        d[3] = "a form this code does not know"

    resumed = Match.resume(NumWin(), 4, 21, spoilt(cp, newer))
    assert resumed.round.snapshot() == match.round.snapshot()
    assert resumed.history == match.history
    for viewer in [None, *range(4)]:
        assert resumed.view(viewer) == match.view(viewer)


def test_the_state_indices_in_the_refusal_cases_name_the_fields() -> None:
    """The refusals above spoil fields by their index in the stored array: they are these."""
    from engine.numwin.state import NumWinState

    fields = NumWinState.__struct_fields__
    named = {
        1: "actions",
        2: "phase",
        3: "rng",
        7: "comb",
        8: "pairs",
        9: "known",
        11: "locked",
        12: "hand",
        14: "turn",
        15: "pending",
        18: "tried",
        19: "call_seat",
        20: "resume_after",
        25: "shown",
        22: "caller",
        23: "last_turns",
    }
    assert {i: fields[i] for i in named} == named
