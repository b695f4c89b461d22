"""`numwars` round state machine (rules/numwars.md): scripted rounds and seeded play-outs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from engine.core.actions import Action, Bid, Exchange, Neutralize, Pass, Play
from engine.core.base import Deal, RoundSetup, TrickCard
from engine.core.errors import IllegalMove, InvalidInput
from engine.core.events import EventBase
from engine.core.rng import Rng
from engine.numwars.cards import canon
from engine.numwars.round import NumWarsRound
from engine.numwars.rules import NumWars, NumWarsOptions
from engine.numwars.scoring import NumWarsPile
from engine.simulate import pick, play_round

RULES = NumWars()


def scripted(
    hands: list[list[str]], roles: list[str], dealer: int = 0, exchange: int = 0
) -> NumWarsRound:
    rules = NumWars(NumWarsOptions(exchange=exchange))
    setup = RoundSetup(players=len(hands), seed=0, dealer=dealer)
    deal = Deal(hands=hands, set_aside=[], dealer=dealer, leader=dealer, roles=roles)
    return NumWarsRound(rules, setup, deal=deal)


def illegal(state: NumWarsRound, seat: int, action: Action) -> IllegalMove:
    """The action is refused and the state is left exactly as it was."""
    before = state.snapshot()
    with pytest.raises(IllegalMove) as err:
        state.apply(seat, action)
    assert state.snapshot() == before
    return err.value


def kinds(events: list[EventBase]) -> list[str]:
    return [e.kind for e in events]


# --- A scripted 4-player round -------------------------------------------------------------

#: seat 0 poseur, 1 complice, 2 demineur, 3 agent (two tricks).
HANDS4 = [["red-5", "bomb"], ["red-3", "joker"], ["red-9", "quantum"], ["blue-2", "numx"]]
ROLES4 = ["poseur", "complice", "demineur", "agent"]


def first_trick() -> NumWarsRound:
    state = scripted([list(h) for h in HANDS4], ROLES4)
    for seat, card in [(0, "red-5"), (1, "red-3"), (2, "red-9"), (3, "numx")]:
        state.apply(seat, Play(card=card))
    return state


def test_dealer_leads_and_special_lead_refused() -> None:
    """Set-up 4 (Ruling): the dealer leads; Leading Ruling: no special lead with a classic."""
    state = scripted([list(h) for h in HANDS4], ROLES4, dealer=0)
    assert (state.phase, state.current_player, state.actors()) == ("play", 0, [0])
    assert state.legal_actions(0) == [Play(card="red-5")]
    assert state.legal_actions(1) == []
    assert illegal(state, 0, Play(card="bomb")).reason == "special-lead"
    assert illegal(state, 1, Play(card="red-3")).reason == "not-your-turn"
    assert illegal(state, 0, Play(card="red-7")).reason == "card-not-in-hand"
    assert illegal(state, 0, Neutralize(neutralize=True)).reason == "wrong-phase"
    assert illegal(state, 0, Bid(tricks=1)).reason == "wrong-phase"
    with pytest.raises(InvalidInput):
        state.apply(4, Play(card="red-5"))
    with pytest.raises(InvalidInput):
        state.apply(0, Play(card="red-5", declared=17))
    assert scripted([list(h) for h in HANDS4], ROLES4, dealer=2).current_player == 2


def test_following_obligations_in_a_round() -> None:
    """Following 1: colour asked must be followed, then trump (numx forced, only raiser)."""
    state = scripted([list(h) for h in HANDS4], ROLES4)
    state.apply(0, Play(card="red-5"))
    e = illegal(state, 1, Play(card="joker"))
    assert (e.reason, list(e.legal)) == ("must-follow-color", ["red-3"])
    state.apply(1, Play(card="red-3"))
    state.apply(2, Play(card="red-9"))
    e = illegal(state, 3, Play(card="blue-2"))
    assert (e.reason, list(e.legal)) == ("must-play-trump", ["numx"])
    events = state.apply(3, Play(card="numx"))
    assert kinds(events) == ["play", "role-revealed", "trick"]
    assert msgspec.to_builtins(events[1].data) == {"role": "agent"} and events[1].seat == 3
    assert events[2].seat == 3 and state.current_player == 3
    assert state.piles[3] == ["red-3", "red-5", "red-9", "numx"]


def test_complice_is_asked_after_the_last_card() -> None:
    """Joker neutralization: asked after the trick's last card; the complice decides."""
    state = first_trick()
    state.apply(3, Play(card="blue-2"))
    events = state.apply(0, Play(card="bomb"))
    assert kinds(events) == ["play", "role-revealed"]
    assert [state.view(v).roles[0] for v in (None, 1, 2, 3)] == ["poseur"] * 4
    assert state.view(None).roles == ["poseur", None, None, "agent"]
    assert state.legal_actions(1) == [Play(card="joker")], "joker raises over the Bomb"
    state.apply(1, Play(card="joker"))
    assert state.phase == "play", "the choice is never asked before the last card"
    assert state.legal_actions(2) == [Play(card="quantum")]
    events = state.apply(2, Play(card="quantum"))
    assert kinds(events) == ["play", "role-revealed", "decision"]
    assert msgspec.to_builtins(events[-1].data) == {
        "decision": "neutralize",
        "threat": "quantum",
    }
    assert (state.phase, state.current_player, state.actors()) == ("neutralize", 1, [1])
    assert state.legal_actions(1) == [Neutralize(neutralize=True), Neutralize(neutralize=False)]
    assert state.legal_actions(2) == []
    assert illegal(state, 2, Neutralize(neutralize=True)).reason == "not-your-decision"
    assert illegal(state, 1, Play(card="red-3")).reason == "wrong-phase"


@pytest.mark.parametrize(
    ("choice", "outcome", "scores", "winners"),
    [
        (True, "protected-quantum", [30, 20, 20, 2 + 3 + 5 + 9 + 30], [3]),
        (False, "stolen", [0, 0, 50, 2 + 3 + 5 + 9 + 30], [2]),
    ],
)
def test_scripted_round_to_the_end(
    choice: bool, outcome: str, scores: list[int], winners: list[int]
) -> None:
    """A whole round: the Bomb's fate from the complice's choice, piles, bonuses, winners."""
    state = first_trick()
    for seat, card in [(3, "blue-2"), (0, "bomb"), (1, "joker"), (2, "quantum")]:
        state.apply(seat, Play(card=card))
    events = state.apply(1, Neutralize(neutralize=choice))
    assert kinds(events) == ["neutralize", "trick", "bomb", "round-over"]
    bomb = msgspec.to_builtins(events[2].data)
    assert bomb["outcome"] == outcome
    assert bomb["neutralized"] == ("quantum" if choice else None)
    assert state.is_over and state.phase == "over" and state.actors() == []
    assert state.current_player is None
    score = state.scores()
    assert score is not None
    assert [p.score for p in score.players] == scores and score.winners == winners
    if choice:
        assert [canon(p) for p in state.piles] == [
            ["bomb"],
            [],
            ["joker"],
            ["red-3", "red-5", "red-9", "blue-2", "numx", "quantum"],
        ]
    else:
        assert state.piles[2] == ["bomb"]
    assert events[-1].data.roles == ROLES4
    assert state.view(0).roles == ROLES4, "every role is revealed at the end"
    assert illegal(state, 1, Play(card="red-3")).reason == "wrong-phase"


def test_pair_is_captured_by_the_second_player_in_a_round() -> None:
    """Trump pairs: the second card's player takes the pair whoever wins (round level)."""
    hands = [["red-5", "bomb"], ["rainbow-7", "joker"], ["shadow-7", "quantum"], ["red-9", "numx"]]
    state = scripted(hands, ROLES4)
    for seat in range(3):
        state.apply(seat, state.legal_actions(seat)[0])
    assert state.legal_actions(3) == [Play(card="red-9")]
    events = state.apply(3, Play(card="red-9"))
    assert events[0].kind == "play" and events[1].kind == "trick"
    assert state.pairs == [[], [], [["rainbow-7", "shadow-7"]], []]
    assert state.piles == [[], [], [], ["red-5", "red-9"]]


def test_steal_rule_in_a_round() -> None:
    """Following 0: holding the colour asked, the complement may still be played."""
    hands = [["red-5"], ["rainbow-4"], ["red-9", "shadow-4"], ["red-2"]]
    state = scripted(hands, ROLES4)
    state.apply(0, Play(card="red-5"))
    state.apply(1, Play(card="rainbow-4"))
    assert state.legal_actions(2) == [Play(card="red-9"), Play(card="shadow-4")]


# --- Exchange -------------------------------------------------------------------------------


def seeded(players: int, exchange: int, seed: int = 3, dealer: int = 0) -> NumWarsRound:
    rules = NumWars(NumWarsOptions(exchange=exchange))
    return rules.new_round(RoundSetup(players=players, seed=seed, dealer=dealer))


def test_no_exchange_by_default() -> None:
    """Set-up 3 (Ruling): default no exchange: play starts at once."""
    state = seeded(5, 0)
    assert state.phase == "play" and state.current_player == 0


def test_exchange_passes_to_the_right_simultaneously() -> None:
    """Set-up 3: k cards to the right neighbour, received from the left, all at once."""
    state = seeded(4, 2, dealer=1)
    start = [list(h) for h in state.hands]
    assert (state.phase, state.current_player, state.actors()) == ("exchange", None, [0, 1, 2, 3])
    passed = {
        s: [c for c in start[s] if c not in ("bomb", "joker", "quantum", "numx")][:2]
        for s in range(4)
    }
    events = state.apply(0, Exchange(cards=passed[0]))
    assert [(e.kind, e.to) for e in events] == [("pass", [0]), ("pass", None)]
    assert events[1].cards == [] and msgspec.to_builtins(events[1].data) == {"count": 2}
    assert state.actors() == [1, 2, 3]
    assert illegal(state, 0, Pass(card=start[0][-1])).reason == "not-your-turn"
    assert state.hands[3] == start[3], "nothing arrives before everyone has passed"
    state.apply(1, Pass(card=passed[1][0]))
    state.apply(1, Pass(card=passed[1][1]))
    assert illegal(state, 2, Play(card=start[2][0])).reason == "wrong-phase"
    state.apply(2, Exchange(cards=passed[2]))
    events = state.apply(3, Exchange(cards=passed[3]))
    assert [(e.kind, e.to) for e in events][2:] == [("exchange", [s]) for s in range(4)]
    for s in range(4):
        left = (s + 1) % 4
        expected = sorted(set(start[s]) - set(passed[s]) | set(passed[left]))
        assert sorted(state.hands[s]) == expected
        assert events[2 + s].cards == sorted(passed[left], key=start[left].index)
        assert events[2 + s].data.from_ == left and events[2 + s].data.to == (s - 1) % 4
    assert (state.phase, state.current_player) == ("play", 1)


def test_role_cards_cannot_be_passed() -> None:
    """Set-up 3: role cards (bomb, joker, quantum, numx) cannot be passed."""
    state = seeded(6, 1)
    for seat, role in enumerate(state.roles):
        card = {"poseur": "bomb", "complice": "joker", "demineur": "quantum", "agent": "numx"}.get(
            role
        )
        if card is None:
            continue
        assert Pass(card=card) not in state.legal_actions(seat)
        err = illegal(state, seat, Pass(card=card))
        assert err.reason == "role-card-locked" and card not in err.legal
        assert illegal(state, seat, Exchange(cards=[card])).reason == "role-card-locked"
    assert illegal(state, 0, Pass(card="red-99")).reason == "card-not-in-hand"
    with pytest.raises(InvalidInput):
        state.apply(0, Exchange(cards=[]))
    card = (
        state.hands[0][0]
        if state.hands[0][0] not in ("bomb", "numx", "joker", "quantum")
        else state.hands[0][1]
    )
    with pytest.raises(InvalidInput):
        state.apply(0, Exchange(cards=[card, card]))


def test_views_hide_hands_roles_and_passes() -> None:
    """STYLE 7: a view shows the own hand and role, other hands only as counts."""
    state = seeded(5, 2)
    own = state.view(2)
    assert own.hand == state.hands[2] and own.role == state.roles[2]
    assert own.hand_counts == [16] * 5
    assert [r for s, r in enumerate(own.roles) if s != 2] == [None] * 4
    spectator = state.view(None)
    assert spectator.hand is None and spectator.roles == [None] * 5
    card = next(c for c in state.hands[2] if c not in ("bomb", "numx", "joker", "quantum"))
    state.apply(2, Pass(card=card))
    assert state.view(2).passed == [card]
    assert state.view(1).passed == []
    assert state.view(None).passed is None
    assert card not in strings(state.view(1)) and card not in strings(state.view(None))


# --- Seeded play-outs -----------------------------------------------------------------------


def strings(data: Any) -> set[str]:
    """Every string value anywhere in a JSON-like value (keys are field names, not data)."""
    out: set[str] = set()
    stack = [msgspec.to_builtins(data)]  # a typed view as its JSON-able data
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list | tuple):
            stack.extend(x)
    return out


def check_views(state: NumWarsRound) -> None:
    """No view holds another seat's hand card, the set-aside, or an unrevealed role."""
    n = state.n
    hidden_everywhere = set(state.set_aside)
    for viewer in [None, *range(n)]:
        view = state.view(viewer)
        seen = strings(view)
        for other in range(n):
            if other == viewer:
                assert view.hand == state.hands[other]
                assert view.roles[other] == state.roles[other]
                continue
            assert not seen & set(state.hands[other]), (viewer, other)
            assert view.roles[other] == (state.roles[other] if state.revealed[other] else None)
        assert not seen & hidden_everywhere
        msgspec.json.encode(view)


def check_events(state: NumWarsRound, seat: int, events: list[EventBase]) -> None:
    """Public events carry no hidden card; private ones go to the acting seat's own eyes."""
    hidden = set(state.set_aside).union(*map(set, state.hands))
    for e in events:
        if e.to is None:
            assert not strings(msgspec.to_builtins(e)) & hidden, e
        else:
            assert e.kind in ("pass", "exchange") and (e.kind != "pass" or e.to == [seat])


def outside_legal(state: NumWarsRound, rng: Rng) -> Iterator[tuple[int, Action]]:
    """A few actions that must be refused now."""
    turn = state.current_player
    for seat in range(state.n):
        legal = state.legal_actions(seat)
        for card in state.hands[seat]:
            for action in (Play(card=card), Pass(card=card)):
                if action not in legal:
                    yield seat, action
                    break
        if seat != turn:
            yield seat, Neutralize(neutralize=bool(rng.below(2)))


def play_checked(rules: NumWars, setup: RoundSetup, rng: Rng) -> NumWarsRound:
    state = rules.new_round(setup)
    check_views(state)
    step = 0
    while not state.is_over:
        actors = state.actors()
        assert actors, "a legal action exists until the round ends"
        for seat in actors:
            assert state.legal_actions(seat)
        if step % 11 == 0:
            for bad_seat, bad in list(outside_legal(state, rng))[:3]:
                illegal(state, bad_seat, bad)
        seat, action = pick(state, rng)
        check_events(state, seat, state.apply(seat, action))
        step += 1
        if step % 9 == 0:
            check_views(state)
    check_views(state)
    return state


def check_final(rules: NumWars, state: NumWarsRound) -> None:
    n = state.n
    setup = state.setup
    deck = rules.deck(n)
    assert len(state.results) == deck.hand_size
    bombs = [r for r in state.results if r.bomb is not None]
    assert len(bombs) == 1, "the Bomb is resolved exactly once"
    assert state.bomb == bombs[0].bomb
    captured: list[list[str]] = [[] for _ in range(n)]
    pairs: list[list[list[str]]] = [[] for _ in range(n)]
    for record, result, choice in zip(state.tricks, state.results, state.choices, strict=True):
        trick = [TrickCard(seat=c["seat"], card=c["card"]) for c in record["cards"]]
        assert len(trick) == n
        again = rules.resolve_trick(n, trick, state.roles, True if choice is None else choice)
        assert again == result, "the recorded result is resolve_trick on the actual trick"
        if result.bomb is not None:
            asked = rules.resolve_trick(n, trick, state.roles, True).bomb
            assert asked is not None
            assert (choice is not None) == (asked.neutralized is not None)
        else:
            assert choice is None
        paired = {c for p in result.pairs for c in p.cards}
        for cap in result.captures:
            captured[cap.seat].extend(c for c in cap.cards if c not in paired)
        for p in result.pairs:
            pairs[p.seat].append(p.cards)
    everything = [c for pile in captured for c in pile] + [c for ps in pairs for p in ps for c in p]
    assert Counter(everything + state.set_aside) == Counter(deck.cards), "cards conserved"
    assert all(not h for h in state.hands)
    assert state.bomb is not None
    piles = [
        NumWarsPile(captured=captured[s], pairs=pairs[s], role=state.roles[s]) for s in range(n)
    ]
    assert state.scores() == rules.score_round(piles, state.bomb.outcome)
    fresh = rules.new_round(setup)
    for seat, action in state.history:
        wire = msgspec.json.decode(msgspec.json.encode(action), type=Action)
        fresh.apply(seat, wire)
    assert fresh.snapshot() == state.snapshot()
    assert fresh.scores() == state.scores()


@given(
    players=st.integers(3, 8),
    exchange=st.sampled_from([0, 2, 5]),
    seed=st.integers(0, 2**64 - 1),
)
@settings(max_examples=120, deadline=None)
def test_random_rounds_keep_every_invariant(players: int, exchange: int, seed: int) -> None:
    """Seeded play-outs: no stuck state, illegal actions change nothing, views leak nothing,
    the Bomb is resolved once as resolve_trick says, cards conserved, scores, replay."""
    rules = NumWars(NumWarsOptions(exchange=exchange))
    setup = RoundSetup(players=players, seed=seed, dealer=seed % players)
    state = play_checked(rules, setup, Rng(seed ^ 0xA5A5))
    check_final(rules, state)


@pytest.mark.parametrize("players", range(3, 9))
@pytest.mark.parametrize("exchange", [0, 2, 5])
def test_simulated_rounds_every_table(players: int, exchange: int) -> None:
    """engine.simulate's play-out loop ends every round with scores (every count and option)."""
    rules = NumWars(NumWarsOptions(exchange=exchange))
    rng = Rng(players * 10 + exchange)
    for r in range(4):
        setup = RoundSetup(players=players, seed=rng.next_u64(), dealer=r % players)
        state = play_round(rules, setup, rng)
        assert isinstance(state, NumWarsRound)
        check_final(rules, state)


def test_both_joker_choices_occur_and_are_honoured() -> None:
    """Joker neutralization in stored rounds: both answers are reachable and applied."""
    seen: Counter[bool] = Counter()
    rng = Rng(11)
    for r in range(400):
        if seen[True] >= 3 and seen[False] >= 3:
            break
        setup = RoundSetup(players=4 + r % 5, seed=rng.next_u64())
        state = play_round(RULES, setup, rng)
        for choice, result in zip(state.choices, state.results, strict=True):
            if choice is not None:
                seen[choice] += 1
                assert result.bomb is not None
                assert (result.bomb.neutralized is not None) == choice
    assert seen[True] >= 3 and seen[False] >= 3
