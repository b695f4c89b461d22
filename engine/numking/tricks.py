"""Num King tricks as pure functions (rules/numking.md "Playing a card", "Cancellation"):
strength, legal cards, resolution, and the checks of a declared `infinity`.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.base import (
    TrickCard,
)
from engine.core.errors import InvalidInput
from engine.core.texts import say
from engine.numking import texts as T
from engine.numking.cards import (
    DECLARATIONS,
    FLASH_STRENGTH,
    HELD,
    INF0,
    INF17,
    INFINITY,
    RBIT,
    SBIT,
    VBIT,
    bad_input,
)


def strength(card: str, declared: int | None = None) -> int:
    """A played card's strength (rules "Strength"): infinity by its declaration."""
    if card == INFINITY:
        return INF17 if declared == 17 else INF0
    return HELD[card]


def legal_cards(hand: Sequence[str], top: int, mask: int) -> tuple[list[str], list[int]]:
    """Legal card codes (hand order, each once) and infinity's allowed declarations.

    `top` is the strongest strength in the trick (-1 when leading), `mask` the value bits
    of its numbered cards (rules "Obligation", "Equal-value exception").
    """
    if top >= 0:
        held = HELD
        if any(held[c] > top for c in hand):
            vbit = VBIT
            cards = list(dict.fromkeys(c for c in hand if held[c] > top or vbit[c] & mask))
            return cards, [17] if INFINITY in cards else []
    cards = list(dict.fromkeys(hand))
    return cards, [17, 0] if INFINITY in cards else []


def resolve(entries: Sequence[tuple[int, str, int]]) -> tuple[int | None, list[str], list[str]]:
    """Winner (None: annulled), cancelled cards and the winner's cards of a full trick.

    `entries` are (seat, card, strength) in play order (rules "Resolving the trick").
    """
    rmask = smask = 0
    for _, card, s in entries:
        if s == FLASH_STRENGTH:
            return None, [], []
        rmask |= RBIT[card]
        smask |= SBIT[card]
    gone = rmask & smask
    if gone:
        vbit = VBIT
        cancelled = [c for _, c, _ in entries if vbit[c] & gone]
        rest = [e for e in entries if not vbit[e[1]] & gone]
    else:
        cancelled = []
        rest = list(entries)
    if not rest:
        return None, cancelled, []
    best = max(rest, key=_strength_of)
    return best[0], cancelled, [c for _, c, _ in rest]


def _strength_of(entry: tuple[int, str, int]) -> int:
    return entry[2]


def declaration_error(card: str, declared: int | None) -> InvalidInput | None:
    """`infinity` needs `declared` 17 or 0; no other card takes one ("Playing a card")."""
    if card == INFINITY:
        if declared is not None and declared not in DECLARATIONS:
            return bad_input(say(T.DECLARED_VALUE, declared=declared), "declared")
        if declared not in DECLARATIONS:
            return bad_input(
                say(T.DECLARED_MISSING),
                "declared",
                "missing-declared",
            )
    elif declared is not None:
        return bad_input(say(T.DECLARED_OTHER, card=card), "declared")
    return None


def check_declared(trick: Sequence[TrickCard]) -> None:
    """`infinity` carries 17 or 0 (API contract); no other card carries a declaration."""
    for i, t in enumerate(trick):
        if t.card == INFINITY:
            if t.declared is not None and t.declared not in DECLARATIONS:
                raise bad_input(
                    say(T.TRICK_DECLARED_VALUE, i=i, declared=t.declared),
                    f"trick[{i}].declared",
                )
            if t.declared not in DECLARATIONS:
                raise bad_input(
                    say(T.TRICK_DECLARED_MISSING, i=i),
                    f"trick[{i}].declared",
                    "missing-declared",
                )
        elif t.declared is not None:
            raise bad_input(
                say(T.TRICK_DECLARED_OTHER, i=i, card=t.card),
                f"trick[{i}].declared",
            )


def trick_state(trick: Sequence[TrickCard]) -> tuple[int, int]:
    """(top strength, numbered value bits) of a partial trick; top = -1 when empty."""
    top = -1
    mask = 0
    for t in trick:
        s = strength(t.card, t.declared)
        if s > top:
            top = s
        mask |= VBIT[t.card]
    return top, mask
