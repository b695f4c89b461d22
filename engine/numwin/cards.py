"""Num Win deck and card facts (rules/numwin.md "Deck"): the 111-card deck in canonical
order, the sizes of a turn, and which cards pair or act.
"""

from __future__ import annotations

from collections import Counter

from engine.core.cards import CARDS, canonical, numbered_deck

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
DECK_NAME = "the numwin deck"
HAND_SIZE = 2
TARGET_SIZE = 5  # rules "A turn" 3: the aim is exactly 5 cards
ACTION_POINTS = 5  # rules "Scoring" 3
CALLER_PENALTY = 15  # rules "Scoring" 4
MAX_COMBINATION = 40  # score-round input bound

#: Family code per card: 0 classic, 1 rainbow, 2 shadow, 3 action (never pairs).
_KIND: dict[str, int] = {
    code: (0 if c.is_classic else 1 if c.family == "rainbow" else 2 if c.family == "shadow" else 3)
    for code, c in CARDS.items()
}
CLASSIC, RAINBOW, SHADOW, ACTION = 0, 1, 2, 3


def may_pair(a: str, b: str) -> bool:
    """Rules "Instant recovery": classics of equal value; rainbow-X with any numbered X;
    shadow-X only with rainbow-X; action cards never."""
    ka, kb = _KIND[a], _KIND[b]
    if ka == ACTION or kb == ACTION or CARDS[a].value != CARDS[b].value:
        return False
    if ka == RAINBOW or kb == RAINBOW:
        return True
    return ka == CLASSIC and kb == CLASSIC


def is_action(code: str) -> bool:
    return _KIND[code] == ACTION
