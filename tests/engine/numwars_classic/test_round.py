"""numwars-classic through the round state machine: exchange, alliance show step, play,
trick resolution, scoring (rules/numwars-classic.md)."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from engine.core.actions import Action, Bid, Exchange, Pass, Play, Show
from engine.core.base import RoundSetup
from engine.core.cards import canonical
from engine.core.errors import IllegalMove, InvalidInput
from engine.numwars_classic.kernel import Phase
from engine.numwars_classic.round import ClassicRound
from engine.numwars_classic.rules import ClassicOptions, NumWarsClassic
from engine.numwars_classic.scoring import ClassicPile


def new(players: int = 4, seed: int = 3, dealer: int = 0, **options: bool) -> ClassicRound:
    return NumWarsClassic(ClassicOptions(**options)).new_round(
        RoundSetup(players=players, seed=seed, dealer=dealer)
    )


def finish_exchange(state: ClassicRound) -> None:
    for seat in range(state.players):
        left = state.exchange_size - len(state.passed[seat])
        if left:
            state.apply(seat, Exchange(state.hands[seat][-left:]))


def in_play(hands: list[list[str]], dealer: int = 0, **options: bool) -> ClassicRound:
    """A round past its exchange whose hands are then set to a scripted position.

    Test fixture only: it replaces the dealt hands, so the deck is no longer conserved.
    """
    state = new(players=len(hands), dealer=dealer, **options)
    finish_exchange(state)
    if state.phase == "show":
        for seat in range(state.players):
            state.apply(seat, Show(None))
    state.hands = [canonical(h) for h in hands]
    return state


def refused(state: ClassicRound, seat: int, action: object) -> IllegalMove:
    """Apply an illegal action; assert it raises and leaves the state unchanged."""
    before = state.snapshot()
    with pytest.raises(IllegalMove) as err:
        state.apply(seat, action)  # type: ignore[arg-type]
    assert state.snapshot() == before
    return err.value


# --- Set-up: the exchange ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "speed", "size"),
    [(3, False, 5), (5, False, 5), (6, False, 3), (8, False, 3), (3, True, 2), (8, True, 2)],
)
def test_exchange_to_the_right_from_the_left(players: int, speed: bool, size: int) -> None:
    """Set-up: every player passes `exchange` cards to the right neighbour (s-1) and receives
    as many from the left neighbour (s+1); hands keep their size."""
    state = new(players=players, speed=speed)
    assert state.phase == "exchange" == Phase.EXCHANGE.value
    assert state.exchange_size == size
    before = [list(h) for h in state.hands]
    assert state.current_player is None
    assert state.actors() == list(range(players))
    for seat in range(players):
        for card in before[seat][:size]:
            events = state.apply(seat, Pass(card))
            assert events[0].kind == "exchange" and events[0].to == [seat]
            assert events[0].cards == [card]
    for seat in range(players):
        left = (seat + 1) % players
        assert state.received[seat] == canonical(before[left][:size])
        assert len(state.hands[seat]) == len(before[seat])
        kept = Counter(before[seat]) - Counter(before[seat][:size])
        assert Counter(state.hands[seat]) == kept + Counter(before[left][:size])


def test_exchange_completion_events_are_private() -> None:
    state = new(players=3)
    events = []
    for seat in range(3):
        events += state.apply(seat, Exchange(state.hands[seat][:5]))
    received = [e for e in events if e.data.action == "receive"]
    assert [e.to for e in received] == [[0], [1], [2]]
    assert all([e.seat] == e.to == [(e.data.left - 1) % 3] for e in received)
    assert all(e.to is not None for e in events)


def test_exchange_action_equals_single_passes() -> None:
    """actions.py: `Exchange` applies several `Pass`es at once."""
    a, b = new(seed=9), new(seed=9)
    for seat in range(4):
        cards = a.hands[seat][2:7]
        a.apply(seat, Exchange(cards))
        for card in cards:
            b.apply(seat, Pass(card))
    assert a.hands == b.hands and a.received == b.received and a.phase == b.phase == "play"


def test_exchange_is_simultaneous_and_one_card_at_a_time() -> None:
    state = new(players=4)
    state.apply(2, Exchange(state.hands[2][:5]))
    assert state.actors() == [0, 1, 3]
    assert state.legal_actions(2) == []
    legal = state.legal_actions(0)
    assert all(isinstance(a, Pass) for a in legal)
    assert [a.card for a in legal if isinstance(a, Pass)] == canonical(set(state.hands[0]))


def test_exchange_errors_change_nothing() -> None:
    state = new(players=4)
    hand = list(state.hands[0])
    foreign = next(c for c in state.hands[1] if c not in hand)
    assert refused(state, 0, Play(hand[0])).reason == "wrong-phase"
    assert refused(state, 0, Pass(foreign)).reason == "card-not-in-hand"
    assert refused(state, 0, Exchange([hand[0], foreign])).reason == "card-not-in-hand"
    assert refused(state, 0, Show(None)).reason == "wrong-phase"
    assert refused(state, 0, Bid(3)).reason == "wrong-phase"
    state.apply(0, Exchange(hand[:5]))
    assert refused(state, 0, Pass(state.hands[0][0])).reason == "not-your-turn"
    bad_actions: list[tuple[Action, str]] = [
        (Exchange(state.hands[1][:6]), "bad-request"),
        (Exchange([]), "bad-request"),
        (Pass("red-77"), "unknown-card"),
        (Pass("numx"), "card-not-in-deck"),
    ]
    for bad, code in bad_actions:
        before = state.snapshot()
        with pytest.raises(InvalidInput) as err:
            state.apply(1, bad)
        assert err.value.code == code and state.snapshot() == before
    with pytest.raises(InvalidInput):
        state.apply(4, Pass(state.hands[1][0]))


def test_dealer_leads_the_first_trick() -> None:
    """Set-up: the dealer leads the first trick."""
    state = new(players=5, dealer=3)
    finish_exchange(state)
    assert state.phase == "play" and state.current_player == 3 and state.actors() == [3]
    assert len(state.legal_actions(3)) == len(set(state.hands[3]))
    assert state.legal_actions(4) == []


# --- Alliance: the show step ---------------------------------------------------------------


def test_no_show_step_without_alliance() -> None:
    state = new(players=4)
    finish_exchange(state)
    assert state.phase == "play"


def test_alliance_show_step_seen_by_the_partner_only() -> None:
    """Match and variants, Ruling: a simultaneous show-or-skip step, seen by the partner only."""
    state = new(players=6, dealer=2, alliance=True)
    finish_exchange(state)
    assert state.phase == "show" and state.current_player is None
    assert state.actors() == list(range(6))
    legal = state.legal_actions(1)
    assert legal[0] == Show(None)
    assert {a.card for a in legal[1:] if isinstance(a, Show)} == set(state.hands[1])
    card = state.hands[1][0]
    events = state.apply(1, Show(card))
    assert [(e.kind, e.seat, e.cards, e.to) for e in events] == [("show", 1, [card], [4])]
    assert state.view(4).partner_shown == card
    assert state.view(1).shown == card
    for seat in (0, 2, 3, 5):
        assert state.view(seat).partner_shown is None
    assert refused(state, 1, Show(None)).reason == "not-your-turn"
    foreign = next(c for c in state.hands[3] if c not in state.hands[0])
    assert refused(state, 0, Show(foreign)).reason == "card-not-in-hand"
    assert refused(state, 0, Play(state.hands[0][0])).reason == "wrong-phase"
    skip = state.apply(0, Show(None))
    assert skip[0].to == [3] and skip[0].cards == []
    for seat in (2, 3, 4, 5):
        state.apply(seat, Show(None))
    assert state.phase == "play" and state.current_player == 2


# --- Playing a card and resolving tricks ----------------------------------------------------


def test_play_turn_order_and_obligations() -> None:
    """Playing a card: clockwise from the leader; the obligations of the stateless checks."""
    state = in_play(
        [["red-5", "red-1"], ["red-2", "blue-3"], ["blue-9", "shadow-4"], ["green-1", "joker"]]
    )
    assert refused(state, 1, Play("red-2")).reason == "not-your-turn"
    state.apply(0, Play("red-5"))
    assert state.current_player == 1
    err = refused(state, 1, Play("blue-3"))
    assert err.reason == "must-follow-color" and err.legal == ("red-2",)
    state.apply(1, Play("red-2"))
    err = refused(state, 2, Play("blue-9"))
    assert err.reason == "must-play-trump" and err.legal == ("shadow-4",)
    assert refused(state, 2, Play("red-1")).reason == "card-not-in-hand"
    with pytest.raises(InvalidInput):
        state.apply(2, Play("shadow-4", declared=17))
    state.apply(2, Play("shadow-4"))
    events = state.apply(3, Play("joker"))
    assert [e.kind for e in events] == ["play", "trick"]
    assert events[1].seat == 2 and events[1].data.winner == 2
    assert state.piles[2] == ["red-2", "red-5", "shadow-4", "joker"]
    assert state.current_player == state.leader == 2


def test_split_trick_rest_taker_leads_not_the_pair_taker() -> None:
    """Resolving, rules 3–5 in a round: the pair goes to the Shadow player, the rest taker leads."""
    state = in_play(
        [
            ["green-8", "red-1"],
            ["rainbow-12", "red-2"],
            ["shadow-12", "red-3"],
            ["yellow-5", "red-4"],
        ]
    )
    for seat, card in enumerate(["green-8", "rainbow-12", "shadow-12", "yellow-5"]):
        events = state.apply(seat, Play(card))
    trick = events[-1]
    assert trick.kind == "trick" and msgspec.to_builtins(trick.data)["pairs"] == [
        {"seat": 2, "cards": ["rainbow-12", "shadow-12"]}
    ]
    assert trick.data.next_leader == 0 and state.current_player == 0
    assert state.piles[0] == ["green-8", "yellow-5"]
    assert state.piles[2] == ["rainbow-12", "shadow-12"]


def test_scripted_round_scores_and_round_over() -> None:
    """A scripted 3-player round: two tricks, a pair rebuilt across tricks, scoring of the piles.

    Trick 1 (seat 0 leads): red-7, shadow-15, red-9 -> shadow-15 takes all (seat 1 leads).
    Trick 2: rainbow-15, red-16, red-3 -> rainbow-15 takes all. Seat 1 then holds red-7,
    red-9, red-16, red-3 (7 + 9 + 16 + 3 = 35) and rainbow-15 + shadow-15 (15): 50.
    """
    state = in_play([["red-7", "red-16"], ["shadow-15", "rainbow-15"], ["red-9", "red-3"]])
    for seat, card in [(0, "red-7"), (1, "shadow-15"), (2, "red-9")]:
        state.apply(seat, Play(card))
    assert state.current_player == 1
    state.apply(1, Play("rainbow-15"))
    assert state.legal_actions(0) == []
    state.apply(2, Play("red-3"))
    events = state.apply(0, Play("red-16"))
    assert [e.kind for e in events] == ["play", "trick", "round-over"]
    assert state.is_over and state.phase == "over" and state.actors() == []
    score = state.scores()
    assert score is not None
    assert [p.score for p in score.players] == [0, 50, 0] and score.winners == [1]
    assert events[-1].data.winners == [1]
    again = state.rules.score_round([ClassicPile(captured=p) for p in state.piles])
    assert again == score
    assert refused(state, 1, Play("red-1")).reason == "wrong-phase"


def test_alliance_round_scores_teams() -> None:
    state = in_play([["red-7"], ["red-9"], ["red-1"], ["red-16"]], alliance=True)
    for seat, card in enumerate(["red-7", "red-9", "red-1", "red-16"]):
        state.apply(seat, Play(card))
    score = state.scores()
    assert score is not None and state.is_over
    assert score.winners == [1, 3]
    assert [t.score for t in score.teams] == [0, 33]  # type: ignore[union-attr]


def test_full_random_round_plays_hand_size_tricks() -> None:
    """Deck and hands: 13 tricks for 6–8 players; every seat ends with an empty hand."""
    state = new(players=7, seed=5)
    finish_exchange(state)
    while not state.is_over:
        seat = state.actors()[0]
        state.apply(seat, state.legal_actions(seat)[-1])
    assert len(state.tricks) == 13 and all(not h for h in state.hands)
    assert sum(len(p) for p in state.piles) == 7 * 13


def test_views_hide_other_hands() -> None:
    state = new(players=4)
    spectator = state.view(None)
    assert spectator.hand is None and spectator.hand_counts == [15, 15, 15, 15]
    assert spectator.set_aside_count == 104 - 60
    mine = state.view(0)
    assert mine.hand == canonical(state.hands[0]) and mine.seat == 0
    assert mine.legal_actions is not None
    assert all(type(a) is Pass for a in mine.legal_actions)
    with pytest.raises(InvalidInput):
        state.view(7)
