"""`numwars`: the stateless calls' fast input checks against the shared checks they stand for.

`legal_moves`, `validate_move` and `resolve_trick` skip the shared checks (`check_players`,
`check_trick`, `check_cards`) when `valid_play` finds the request valid in one pass. Hypothesis
feeds them valid and broken requests alike and asserts the same outcome as running the shared
checks first: the same error (type, code, message, field), or none. The shortcuts of
`illegal_reason` (the legal cards passed in) and of the Bomb's resolution are checked against
the plain computations too.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies as st

from engine.core.base import TrickCard
from engine.core.cards import check_cards
from engine.core.tricks import check_players, check_trick
from engine.numwars.cards import ROLE_OF_CARD, canon, deck_cards, deck_name, playable_deck, role_lot
from engine.numwars.rules import NumWars
from engine.numwars.tricks import illegal_reason, legal_cards, resolve, valid_play
from tests.engine.checks import outcome, seated_trick
from tests.engine.numwars.test_fast import ref_resolve

#: Cards of some deck, cards of no numwars deck, malformed codes, non-strings.
ODD_CARDS = st.sampled_from(
    ["joker", "red-15", "shadow-16", "flash", "red-17", "purple-3", "", 7, ["red-1"]]
)


@st.composite
def positions(draw: st.DrawFn) -> tuple[Any, list[Any], list[TrickCard], bool]:
    """A player count, a hand and a trick, mostly valid, sometimes broken in one way."""
    players: Any = draw(st.one_of(st.integers(3, 8), st.integers(1, 10), st.just(True)))
    complete = draw(st.booleans())
    n = players if type(players) is int and 3 <= players <= 8 else 4
    size = n if complete else draw(st.integers(0, n - 1))
    if draw(st.integers(0, 7)) == 0:  # one card too many or too few
        size = max(0, size + draw(st.sampled_from([-1, 1])))
    leader = draw(st.one_of(st.integers(0, n - 1), st.integers(-1, n + 1)))
    cards: list[Any] = draw(st.permutations(deck_cards(n)))
    if n == 3 and draw(st.integers(0, 3)):
        cards.remove("joker")
    hand: list[Any] = [] if complete else cards[: draw(st.integers(0, 12))]
    played: list[Any] = cards[len(hand) : len(hand) + size]
    if draw(st.integers(0, 3)) == 0 and (hand or played):
        target = hand if hand and draw(st.booleans()) else played or hand
        target[draw(st.integers(0, len(target) - 1))] = draw(ODD_CARDS)
    if draw(st.integers(0, 7)) == 0 and hand and played:  # a trick card also in the hand
        hand.append(played[-1])
    trick = seated_trick(draw, played, leader, n)
    return players, hand, trick, complete


def shared_checks(players: Any, hand: list[Any], trick: list[TrickCard], complete: bool) -> None:
    check_players(players, 3, 8, "numwars")
    check_trick(trick, players, complete=complete)
    cards = [t.card for t in trick]
    check_cards(
        playable_deck(players), [("hand", hand), ("trick", cards)], deck_name=deck_name(players)
    )


@settings(max_examples=500, deadline=None)
@given(position=positions())
def test_valid_play_accepts_only_what_the_shared_checks_accept(
    position: tuple[Any, list[Any], list[TrickCard], bool],
) -> None:
    players, hand, trick, complete = position
    expected = outcome(lambda: shared_checks(players, hand, trick, complete))
    valid = valid_play(players, hand, trick, complete=complete)
    if valid is not None:
        assert expected == ("ok",)
        assert valid == ([(t.seat, t.card) for t in trick], [t.card for t in trick])
    rules = NumWars()
    if complete:
        got = outcome(lambda: rules.resolve_trick(players, trick, None, True))
        if expected != ("ok",) or "bomb" not in [t.card for t in trick]:
            assert got == expected
    else:
        assert outcome(lambda: rules.legal_moves(players, hand, trick)) == expected
        for card in ("red-3", "red-16", "joker", "purple-1"):
            got = outcome(lambda: rules.validate_move(players, hand, trick, card))  # noqa: B023
            assert got == expected or expected == ("ok",)


def test_valid_play_accepts_a_valid_request() -> None:
    trick = [TrickCard(seat=3, card="red-5"), TrickCard(seat=0, card="bomb")]
    assert valid_play(4, ["red-1"], trick, complete=False) == (
        [(3, "red-5"), (0, "bomb")],
        ["red-5", "bomb"],
    )


@st.composite
def following(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A hand and a non-empty trick so far, drawn from one shuffled deck."""
    players = draw(st.integers(3, 8))
    deck = draw(st.permutations(deck_cards(players)))
    played = draw(st.integers(1, players - 1))
    held = draw(st.integers(1, 20))
    return list(deck[played : played + held]), list(deck[:played])


@settings(max_examples=400, deadline=None)
@given(position=following(), pick=st.integers(0, 100))
def test_illegal_reason_from_the_legal_cards(
    position: tuple[list[str], list[str]], pick: int
) -> None:
    """The colour asked's cards among the legal ones are those of the hand (Following 0)."""
    hand, cards = position
    legal = canon(legal_cards(hand, cards))
    refused = [c for c in hand if c not in legal]
    if refused:
        card = refused[pick % len(refused)]
        assert illegal_reason(hand, cards, card, legal) == illegal_reason(hand, cards, card)


@st.composite
def bomb_tricks(draw: st.DrawFn) -> tuple[list[tuple[int, str]], list[str]]:
    """A complete trick holding the Bomb, often with the other special cards and real trumps
    (pairs included), and roles that agree with its role cards."""
    players = draw(st.integers(4, 8))
    deck = deck_cards(players)
    specials = ["bomb", *draw(st.sets(st.sampled_from(["joker", "quantum", "numx"])))]
    trumps = draw(st.sets(st.integers(0, 12), max_size=3))
    pool = [f"shadow-{v}" for v in trumps] + [f"rainbow-{v}" for v in trumps if draw(st.booleans())]
    others = [c for c in deck if c not in specials and c not in pool]
    chosen = (specials + pool)[:players]
    chosen += draw(st.permutations(others))[: players - len(chosen)]
    chosen = draw(st.permutations(chosen))
    leader = draw(st.integers(0, players - 1))
    trick = [((leader + i) % players, card) for i, card in enumerate(chosen)]
    lot = role_lot(players)
    roles = [ROLE_OF_CARD.get(c, "civil") for c in draw(st.permutations(lot))]
    for seat, card in trick:
        if card in ROLE_OF_CARD and roles[seat] != ROLE_OF_CARD[card]:
            other = roles.index(ROLE_OF_CARD[card])
            roles[seat], roles[other] = roles[other], roles[seat]
    return trick, roles


@settings(max_examples=400, deadline=None)
@given(case=bomb_tricks(), joker=st.booleans())
def test_bomb_tricks_match_the_reference(
    case: tuple[list[tuple[int, str]], list[str]], joker: bool
) -> None:
    trick, roles = case
    assert resolve(trick, roles, joker) == ref_resolve(trick, roles, joker)
    players = len(trick)
    request = [TrickCard(seat=s, card=c) for s, c in trick]
    assert NumWars().resolve_trick(players, request, roles, joker) == ref_resolve(
        trick, roles, joker
    )
