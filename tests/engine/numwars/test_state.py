"""`numwars`: a round's stored state within the round (engine/numwars/state.py), which a
stored game's progress carries and `Match.resume` takes instead of applying the round's
actions so far: the round it gives is the round itself, and one that does not fit is refused.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from engine import registry
from engine.core.actions import Action
from engine.core.base import RoundSetup
from engine.core.formats import decode_checkpoint, encode_checkpoint
from engine.core.match import Match, MatchCheckpoint, replay
from engine.core.rng import Rng
from engine.numwars.round import NumWarsRound
from engine.numwars.rules import NumWars, NumWarsOptions
from engine.numwars.state import STATE_FORMAT
from engine.simulate import pick, play_round
from tests.engine.states import check_state_refused, spoilt


def kept(state: NumWarsRound) -> list[Any]:
    """The kernel's own record of the finished tricks (the result object a trick holding the
    Bomb or a pair keeps, None for a plain one), and whether the Bomb's fate and each pair
    are that result's own objects, as the play leaves them."""
    kernel: Any = state.kernel
    records = kernel._records  # what the state rebuilds, checked whole
    results = [r[4] for r in records]
    own = [p for r in results if r is not None for p in r.pairs]
    pairs = [cards for seat_pairs in kernel.pairs for cards in seat_pairs]
    bombs = [r.bomb for r in results if r is not None and r.bomb is not None]
    return [
        [(leader, cards, data, choice) for leader, cards, data, choice, _ in records],
        [None if r is None else msgspec.to_builtins(r) for r in results],
        sorted(id(c) for c in pairs) == sorted(id(p.cards) for p in own),
        kernel.bomb is (bombs[0] if bombs else None),
    ]


def check_state_resumes(
    rules: NumWars, setup: RoundSetup, state: NumWarsRound, seat: int, action: Action
) -> None:
    """The round's stored state (`save_state`), taken by the round freshly dealt from its
    setup, is this round: the same snapshot (hands, tricks, piles, pairs, the Bomb,
    history …), the same kernel values, views and legal actions; and it plays `action` on as
    the round replayed from its history does."""
    saved = state.save_state()
    resumed = rules.new_round(setup)
    assert isinstance(resumed, NumWarsRound)
    assert resumed.load_state(msgspec.Raw(bytes(saved)), list(state.history))
    assert resumed.snapshot() == state.snapshot()
    assert kept(resumed) == kept(state)
    assert msgspec.to_builtins(resumed.kernel.state_values()) == msgspec.to_builtins(
        state.kernel.state_values()
    )
    assert resumed.actors() == state.actors()
    for viewer in [None, *range(setup.players)]:
        assert resumed.view(viewer) == state.view(viewer)
    for s in range(setup.players):
        assert resumed.legal_actions(s) == state.legal_actions(s)
    replayed = rules.new_round(setup)
    for s, a in state.history:
        replayed.apply(s, a)
    events = msgspec.to_builtins(resumed.apply(seat, action))
    assert events == msgspec.to_builtins(replayed.apply(seat, action))
    assert resumed.snapshot() == replayed.snapshot()
    assert kept(resumed) == kept(replayed)


@settings(max_examples=120, deadline=None)
@given(
    players=st.integers(3, 8),
    exchange=st.sampled_from([0, 1, 2, 5]),
    seed=st.integers(0, 2**64 - 1),
    every=st.integers(2, 6),
)
def test_a_stored_state_resumes_the_round(
    players: int, exchange: int, seed: int, every: int
) -> None:
    """At every `every`-th action of a seeded random round (any table, any exchange), the
    round resumed from its stored state is the round."""
    rules = NumWars(NumWarsOptions(exchange=exchange))
    setup = RoundSetup(players=players, seed=seed, dealer=seed % players)
    steps = 0

    def on_step(state: Any, seat: int, action: Action) -> None:
        nonlocal steps
        if steps % every == 1 or state.phase == "neutralize":
            check_state_resumes(rules, setup, state, seat, action)
        steps += 1

    final = play_round(rules, setup, Rng(seed ^ 0x57A7E), on_step)
    assert final.is_over and steps == len(final.history)


def test_every_state_of_some_rounds_resumes_the_round() -> None:
    """Every point of a few seeded rounds resumes: the exchange, the play, the complice's
    choice, after the Bomb and after pairs (each reached, so each is checked)."""
    seen: set[str] = set()
    for players, exchange, seed in [(3, 2, 1), (4, 1, 7), (7, 0, 6), (8, 5, 4)]:
        rules = NumWars(NumWarsOptions(exchange=exchange))
        setup = RoundSetup(players=players, seed=seed, dealer=seed % players)

        def on_step(state: Any, seat: int, action: Action) -> None:
            seen.add(state.phase)
            kernel: Any = state.kernel
            if kernel.bomb is not None:
                seen.add("after the Bomb")
            if any(kernel.pairs):
                seen.add("after a pair")
            check_state_resumes(rules, setup, state, seat, action)  # noqa: B023 - run at once

        play_round(rules, setup, Rng(seed), on_step)
    assert seen == {"exchange", "play", "neutralize", "after the Bomb", "after a pair"}


# ------------------------------------------------------------------- through Match.resume


def _checkpoint(players: int, seed: int, into: int) -> tuple[Match, MatchCheckpoint]:
    """A `numwars` match played by the seeded random policy `into` actions into its second
    round, and its progress there (through JSON)."""
    rules = registry.make("numwars")
    match = rules.new_match(players=players, seed=seed)
    rng = Rng(seed)
    started = None
    while started is None or len(match.history) < started + into:
        events = match.apply(*pick(match, rng))
        if started is None and any(e.kind == "round-start" for e in events):
            started = len(match.history)
    checkpoint = decode_checkpoint(encode_checkpoint(match.progress()))
    assert bytes(checkpoint.state) != b"null"
    return match, checkpoint


def _same(resumed: Match, match: Match) -> None:
    assert resumed.history == match.history[resumed.history_start :]
    assert resumed.round.snapshot() == match.round.snapshot()
    for seat in [None, *range(match.players)]:
        assert resumed.view(seat) == match.view(seat)


def test_resume_takes_the_state_and_plays_on() -> None:
    """A progress 60 actions into a 4-player round resumes to the same match, from its state
    (not from `played`: spoiling the actions after the checkpoint's start shows it)."""
    match, cp = _checkpoint(4, 21, 60)
    data = msgspec.json.decode(cp.state)
    assert data[:3] == [STATE_FORMAT, 60, "play"]
    rules = registry.make("numwars")
    resumed = Match.resume(rules, 4, 21, cp)
    _same(resumed, match)
    rng = Rng(5)
    while not match.is_over:
        seat, action = pick(match, rng)
        assert msgspec.to_builtins(resumed.apply(seat, action)) == msgspec.to_builtins(
            match.apply(seat, action)
        )
    assert resumed.result() == match.result()


def _fewer(d: list[Any]) -> None:
    d[1] = 59


def _seat(d: list[Any]) -> None:
    d[7] = 4  # the leader


def _trick_seat(d: list[Any]) -> None:
    d[6][0][2]["next_leader"] = 5  # a finished trick's


def _card(d: list[Any]) -> None:
    d[3][0][0] = "purple-3"


def _captured_card(d: list[Any]) -> None:
    d[6][0][2]["captures"][0]["cards"][0] = "purple-3"


def _outcome(d: list[Any]) -> None:
    (result,) = [r[2] for r in d[6] if r[2]["bomb"] is not None]  # the Bomb's trick
    result["bomb"]["outcome"] = "defused"


def _hands(d: list[Any]) -> None:
    del d[3][1]


def _revealed(d: list[Any]) -> None:
    d[5].append(False)


def _phase(d: list[Any]) -> None:
    d[2] = "over"


def _suit(d: list[Any]) -> None:
    d[10] = 4  # the colour asked


def _copied_card(d: list[Any]) -> None:  # a card in two hands, another in none
    d[3][0][0] = d[3][1][0]


def _captured_nothing(d: list[Any]) -> None:
    (result,) = [r[2] for r in d[6] if r[2]["bomb"] is None and not r[2]["pairs"]][:1]
    result["captures"] = []


def _no_turn(d: list[Any]) -> None:
    d[8] = None  # in the play phase


@pytest.mark.parametrize(
    "change",
    [
        *(_fewer, _seat, _trick_seat, _card, _captured_card, _outcome, _hands, _revealed),
        *(_phase, _suit, _copied_card, _captured_nothing, _no_turn),
    ],
)
def test_a_state_that_does_not_fit_is_refused(change: Any) -> None:
    """Another number of actions, a seat, a card, a Bomb's outcome or a suit that is not one,
    a list not one per seat, a phase, a card in two places, a plain trick that captured
    nothing, no turn in the play phase: `bad-checkpoint` on `checkpoint.state`, in English and
    in French."""
    _, cp = _checkpoint(4, 21, 60)
    check_refused(spoilt(cp, change))


@pytest.mark.parametrize("text", [b"[1,", b"{}", b"[x]", b"[1, 60]", b"null1"])
def test_an_unreadable_state_is_refused(text: bytes) -> None:
    _, cp = _checkpoint(4, 21, 60)
    check_refused(msgspec.structs.replace(cp, state=msgspec.Raw(text)))


def check_refused(cp: MatchCheckpoint) -> None:
    check_state_refused(registry.make("numwars"), 4, 21, cp)


def test_a_state_of_another_version_is_not_read() -> None:
    """Version 2 is not this code's form: `played` is applied instead (the same match)."""
    match, cp = _checkpoint(4, 21, 60)

    def newer(d: list[Any]) -> None:
        d[0] = 2
        d[3] = "a form this code does not know"

    resumed = Match.resume(registry.make("numwars"), 4, 21, spoilt(cp, newer))
    _same(resumed, match)
    whole = replay(match.record(), registry.make("numwars"))
    assert resumed.round.snapshot() == whole.round.snapshot()
