"""numwars-classic: hypothesis property tests over seeded random full rounds (engine.simulate),
every player count 3–8, `speed` on and off, `alliance` on for 4, 6 and 8 players."""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec
from hypothesis import given, settings, strategies as st

from engine.core.actions import Action, Play
from engine.core.base import RoundSetup, TrickCard
from engine.core.rng import Rng
from engine.numwars_classic.cards import DECK
from engine.numwars_classic.round import ClassicRound
from engine.numwars_classic.rules import ClassicOptions, NumWarsClassic
from engine.numwars_classic.scoring import ClassicPile
from engine.numwars_classic.tricks import ClassicFinishedTrick
from engine.simulate import play_round

CONFIGS = [(n, speed, False) for n in range(3, 9) for speed in (False, True)]
CONFIGS += [(n, speed, True) for n in (4, 6, 8) for speed in (False, True)]


def strings(data: Any) -> Counter[str]:
    """Every string anywhere in plain JSON-able data, with multiplicity."""
    out: Counter[str] = Counter()
    stack = [msgspec.to_builtins(data)]  # a typed view as its JSON-able data
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out[item] += 1
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        else:
            assert item is None or isinstance(item, bool | int), type(item)
    return out


def where_cards_are(state: ClassicRound) -> Counter[str]:
    """Hands, cards passed but not yet received, the trick, the piles and the set-aside."""
    found: Counter[str] = Counter(state.set_aside)
    for hand in state.hands:
        found.update(hand)
    if state.phase == "exchange":
        for passed in state.passed:
            found.update(passed)
    found.update(card for _, card in state.trick)
    for pile in state.piles:
        found.update(pile)
    return found


def check_views(state: ClassicRound) -> None:
    """view(seat) never shows a card hidden from that seat; view(None) none at all."""
    n = state.players
    pending = state.phase == "exchange"
    hidden_everywhere = Counter(state.set_aside)
    for seat in [None, *range(n)]:
        hidden: Counter[str] = Counter(hidden_everywhere)
        for other in range(n):
            if other == seat:
                continue
            hidden.update(state.hands[other])
            if pending:
                hidden.update(state.passed[other])
        known: Counter[str] = Counter()
        if seat is not None:
            known = Counter(state.hands[seat]) + Counter(state.passed[seat])
            partner = state.partner(seat)
            shown = state.shown[partner]
            if state.alliance and state.has_shown[partner] and shown is not None:
                known[shown] += 1
            hidden = hidden - known
        public = Counter(card for _, card in state.trick)
        for pile in state.piles:
            public.update(pile)
        seen = strings(state.view(seat))
        for card in +hidden:
            # Only a card with a copy public or known to the seat (the two Jokers) may show.
            assert card not in seen or public[card] + known[card] > 0, (seat, card)


def check_stateless_agrees(rules: NumWarsClassic, state: ClassicRound) -> None:
    """The round's legal cards are the stateless legal-moves / validate-move answers."""
    seat = state.current_player
    assert seat is not None
    hand = state.hands[seat]
    played = [TrickCard(seat=s, card=c) for s, c in state.trick]
    legal = rules.legal_moves(state.players, hand, played).legal
    assert [a.card for a in state.legal_actions(seat) if isinstance(a, Play)] == legal
    for card in set(hand):
        check = rules.validate_move(state.players, hand, played, card)
        assert check.legal == (card in legal)
        assert (check.reason is None) == check.legal


def check_state_resumes(rules: NumWarsClassic, setup: RoundSetup, state: ClassicRound) -> None:
    """The round's stored state (`save_state`), taken by the round freshly dealt from its
    setup, is this round: the same snapshot (hands, tricks, piles, history …), views and
    legal actions; and it plays on as the round replayed from its history does."""
    saved = state.save_state()
    resumed = rules.new_round(setup)
    assert isinstance(resumed, ClassicRound)
    assert resumed.load_state(msgspec.Raw(bytes(saved)), list(state.history))
    assert resumed.snapshot() == state.snapshot()
    for seat in [None, *range(state.players)]:
        assert resumed.view(seat) == state.view(seat)
    for seat in range(state.players):
        assert resumed.legal_actions(seat) == state.legal_actions(seat)
    replayed = rules.new_round(setup)
    for seat, action in state.history:
        replayed.apply(seat, action)
    actor = state.actors()[0]
    action = state.legal_actions(actor)[-1]
    events = msgspec.to_builtins(resumed.apply(actor, action))
    assert events == msgspec.to_builtins(replayed.apply(actor, action))
    assert resumed.snapshot() == replayed.snapshot()


@settings(max_examples=100, deadline=None)
@given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**64 - 1),
    dealer=st.integers(0, 7),
)
def test_random_rounds_invariants(config: tuple[int, bool, bool], seed: int, dealer: int) -> None:
    players, speed, alliance = config
    rules = NumWarsClassic(ClassicOptions(speed=speed, alliance=alliance))
    setup = RoundSetup(players=players, seed=seed, dealer=dealer % players)
    deck = Counter(DECK)
    steps = 0

    def on_step(state: Any, seat: int, action: Action) -> None:
        nonlocal steps
        assert isinstance(state, ClassicRound)
        assert state.actors(), "a legal action exists until the round ends"
        assert all(state.legal_actions(s) for s in state.actors())
        assert where_cards_are(state) == deck
        if steps % 5 == 0:
            check_views(state)
        if state.phase == "play":
            check_stateless_agrees(rules, state)
        if steps % 7 == 3:
            check_state_resumes(rules, setup, state)
        steps += 1

    final = play_round(rules, setup, Rng(seed ^ 0x5EED), on_step)
    assert isinstance(final, ClassicRound)
    assert final.is_over and final.actors() == []
    assert where_cards_are(final) == deck
    assert all(not hand for hand in final.hands)
    assert len(final.tricks) == rules.hand_size(players)
    # the views' finished tricks are the public trick data, typed
    assert final.finished_tricks() == [
        msgspec.convert(trick, ClassicFinishedTrick) for trick in final.tricks
    ]
    check_views(final)

    score = final.scores()
    assert score is not None
    assert score == rules.score_round([ClassicPile(captured=list(p)) for p in final.piles])
    if alliance:
        assert score.teams is not None

    replay = rules.new_round(setup)
    events = []
    for seat, action in final.history:
        events = replay.apply(seat, action)
    assert replay.snapshot() == final.snapshot()
    over = events[-1]  # the round-over event carries the totals of the scores' breakdown
    assert over.kind == "round-over"
    assert over.data.scores == [p.score for p in score.players]
    assert over.data.winners == score.winners
    assert msgspec.to_builtins(over.data).get("teams") == (
        msgspec.to_builtins(score.teams) if alliance else None
    )
