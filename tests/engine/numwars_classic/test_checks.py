"""numwars-classic: the stateless calls' input checks against the shared checks they stand for.

`legal_moves`, `validate_move`, `resolve_trick` and `score_round` skip the shared checks
(`check_players`, `check_trick`, `check_hand_and_trick`, `check_cards`) when one sum over the
cards shows the request valid. Hypothesis feeds them valid and broken requests alike and
asserts the same outcome as running the shared checks first: the same error (type, code,
message, field), or none.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies as st

from engine.core.base import TrickCard
from engine.core.cards import check_cards
from engine.core.tricks import check_hand_and_trick, check_trick
from engine.numwars_classic.cards import DECK, DECK_COUNTS, DECK_NAME, MAX_PLAYERS
from engine.numwars_classic.rules import ClassicOptions, NumWarsClassic
from engine.numwars_classic.scoring import ClassicPile
from tests.engine.checks import outcome, seated_trick

#: Deck cards (the Joker twice as likely), foreign and malformed codes, a non-string.
CARDS = st.one_of(
    st.sampled_from([*DECK, "joker"]),
    st.sampled_from(["bomb", "flash", "red-17", "purple-3", ""]),
    st.just(7),
)


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, list[str], list[TrickCard], bool]:
    """A player count, a hand and a trick, mostly valid, sometimes broken in one way."""
    players = draw(st.one_of(st.integers(3, 8), st.integers(-1, 10), st.just(True)))
    complete = draw(st.booleans())
    n = players if isinstance(players, int) and 0 < players <= 10 else 4
    size = draw(st.integers(0, n)) if not complete else n
    if draw(st.booleans()):
        size = min(size, max(0, n - 1)) if not complete else n
    leader = draw(st.one_of(st.integers(0, n - 1), st.integers(-1, n + 1)))
    cards: list[Any] = draw(st.permutations([*DECK]))
    hand: list[Any] = [] if complete else cards[: draw(st.integers(0, 15))]
    if not complete and draw(st.integers(0, 3)) == 0:  # Jokers beyond the deck's two
        hand += ["joker"] * draw(st.integers(1, 3))
    played: list[Any] = cards[len(hand) : len(hand) + size]
    if draw(st.integers(0, 3)) == 0 and (hand or played):
        in_hand: bool = draw(st.booleans())
        target = hand if hand and in_hand else played or hand
        target[draw(st.integers(0, len(target) - 1))] = draw(CARDS)
    trick = seated_trick(draw, played, leader, n)
    return players, hand, trick, complete


def shared_checks(
    rules: NumWarsClassic, players: int, hand: list[str], trick: list[TrickCard], complete: bool
) -> None:
    rules.check_players(players)
    check_trick(trick, players, complete=complete)
    check_hand_and_trick(DECK_COUNTS, DECK_NAME, hand, trick)


@settings(max_examples=400, deadline=None)
@given(position=positions(), alliance=st.booleans())
def test_position_checks_match_the_shared_checks(
    position: tuple[int, list[str], list[TrickCard], bool], alliance: bool
) -> None:
    players, hand, trick, complete = position
    rules = NumWarsClassic(ClassicOptions(alliance=alliance))
    expected = outcome(lambda: shared_checks(rules, players, hand, trick, complete))
    if complete:
        assert outcome(lambda: rules.resolve_trick(players, trick)) == expected
    else:
        assert outcome(lambda: rules.legal_moves(players, hand, trick)) == expected
        assert outcome(lambda: rules.validate_move(players, hand, trick, "red-3")) == expected


@settings(max_examples=400, deadline=None)
@given(
    cards=st.permutations([*DECK]),
    sizes=st.lists(st.integers(0, 20), min_size=1, max_size=MAX_PLAYERS),
    extra=st.lists(st.tuples(st.integers(0, 7), st.one_of(CARDS, st.just("joker"))), max_size=3),
)
def test_pile_checks_match_check_cards(
    cards: list[str], sizes: list[int], extra: list[tuple[int, Any]]
) -> None:
    piles: list[list[Any]] = []
    start = 0
    for size in sizes:
        piles.append(cards[start : start + size])
        start += size
    for i, card in extra:
        piles[i % len(piles)].append(card)
    fields = [(f"players[{i}].captured", pile) for i, pile in enumerate(piles)]
    expected = outcome(lambda: check_cards(DECK_COUNTS, fields, deck_name=DECK_NAME))
    rules = NumWarsClassic()
    got = outcome(lambda: rules.score_round([ClassicPile(captured=p) for p in piles]))
    assert got == expected
