"""Num Win deck and card facts (rules/numwin.md "Deck"): the 111-card deck in canonical
order, the sizes of a turn, which cards pair or act, the table's checks and the seeded deal.
"""

from __future__ import annotations

from collections import Counter

from engine.core.base import RoundSetup
from engine.core.cards import CARDS, canonical, numbered_deck
from engine.core.errors import InvalidInput
from engine.core.rng import Rng
from engine.core.texts import say
from engine.core.tricks import check_players, check_seat
from engine.numwin import texts as T

RULESET_ID = "numwin"
MIN_PLAYERS = 2
MAX_PLAYERS = 8
ACTION_CARDS: tuple[str, ...] = ("swipe", "swipe", "flip", "flip", "quantum", "quantum")
MALUS_CARDS: tuple[str, ...] = ("malus-0", "malus-1", "malus-2")

#: The 111-card deck in canonical order (rules "Deck").
DECK: tuple[str, ...] = tuple(
    canonical(
        numbered_deck(("red", "blue", "green", "yellow", "rainbow", "shadow"), 0, 16)
        + list(ACTION_CARDS)
        + list(MALUS_CARDS)
    )
)
DECK_COUNTS: Counter[str] = Counter(DECK)
DECK_NAME = say(T.DECK)
HAND_SIZE = 2
TARGET_SIZE = 5  # rules "A turn" 3: the aim is exactly 5 cards
ACTION_POINTS = 5  # rules "Scoring" 3
CALLER_PENALTY = 15  # rules "Scoring" 4
MAX_COMBINATION = 40  # score-round input bound

#: Family code per card: 0 classic, 1 rainbow, 2 shadow, 3 action (never pairs).
KIND: dict[str, int] = {
    code: (0 if c.is_classic else 1 if c.family == "rainbow" else 2 if c.family == "shadow" else 3)
    for code, c in CARDS.items()
}
CLASSIC, RAINBOW, SHADOW, ACTION = 0, 1, 2, 3


def may_pair(a: str, b: str) -> bool:
    """Rules "Instant recovery": classics of equal value; rainbow-X with any numbered X;
    shadow-X only with rainbow-X; action cards never."""
    ka, kb = KIND[a], KIND[b]
    if ka == ACTION or kb == ACTION or CARDS[a].value != CARDS[b].value:
        return False
    if ka == RAINBOW or kb == RAINBOW:
        return True
    return ka == CLASSIC and kb == CLASSIC


def is_action(code: str) -> bool:
    return KIND[code] == ACTION


def check_teams(players: int, *, teams: bool) -> None:
    """`teams` only at 4 players (rules "Match and variant")."""
    if teams and players != 4:
        raise InvalidInput(
            say(T.TEAMS, players=players),
            code="bad-option",
            field="options.teams",
        )


def check_table(players: int, *, teams: bool) -> None:
    """2 to 8 players (ruling); `teams` only at 4 (rules "Match and variant")."""
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, RULESET_ID)
    check_teams(players, teams=teams)


def check_setup(setup: RoundSetup, *, teams: bool) -> None:
    """A round's table (:func:`check_table`) and dealer seat."""
    check_table(setup.players, teams=teams)
    check_seat(setup.dealer, setup.players, "dealer")


def shuffled(setup: RoundSetup) -> tuple[list[int], list[list[int]], int, Rng]:
    """The deal of an already checked `setup` as card indices into DECK: (draw pile, hands,
    starter, the round's Rng, which the round draws on again to reshuffle).

    Rules "Set-up": two cards each, clockwise from the dealer's left, then the top card
    is turned up; the rest is the draw pile (top = last element).
    """
    n = setup.players
    rng = Rng(setup.seed)
    pile = list(range(len(DECK)))
    rng.shuffle(pile)
    hands: list[list[int]] = [[] for _ in range(n)]
    for _ in range(HAND_SIZE):
        for k in range(1, n + 1):
            hands[(setup.dealer + k) % n].append(pile.pop())
    for hand in hands:
        hand.sort()
    starter = pile.pop()
    return pile, hands, starter, rng
