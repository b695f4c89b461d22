"""Num Wars classic tricks as pure functions (rules/numwars-classic.md "Playing a card",
"The trump duel"): legal cards, the obligation a card breaks, the duel and its public result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from engine.core.base import (
    Capture,
    TrickCard,
    TrickResult,
)
from engine.core.cards import CARDS, NOT_IN_DECK, card_words
from engine.core.errors import InvalidInput
from engine.core.texts import Said, say, text
from engine.numwars_classic import texts as T
from engine.numwars_classic.cards import (
    DECK,
    DECK_NAME,
    JOKER,
    KIND,
    ORDER_KEY,
    PARTNER_CARD,
    RAINBOW,
    RAINBOW_CARD,
    SHADOW,
    SHADOW_CARD,
    TRUMP_ASKED,
    VALUE,
)


class ClassicFinishedTrick(msgspec.Struct, frozen=True, kw_only=True):
    """A finished trick (public): its number, leader and cards in play order, and how it
    resolved, as `resolve-trick` answers (rules "Resolving the trick")."""

    number: int
    leader: int
    cards: list[TrickCard]
    winner: int
    annulled: bool
    captures: list[Capture]
    pairs: list[Capture]
    next_leader: int


def asked_of(trick_cards: Iterable[str]) -> int | None:
    """What the trick asks: a colour kind, TRUMP_ASKED, or None (no card, or Jokers only).

    Ruling "Lead": a trump asks for trump (either family); a Joker asks nothing and the first
    non-Joker card sets what is asked.
    """
    for card in trick_cards:
        k = KIND[card]
        if k != JOKER:
            return TRUMP_ASKED if k >= RAINBOW else k
    return None


def undealt_cards(ranks: Iterable[int]) -> list[str]:
    """Cards given as ranks in DECK (which is canonical), in canonical order."""
    return list(map(DECK.__getitem__, sorted(ranks)))


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Canonical order (rules/cards.md) of cards of this deck, without a Python key call."""
    return sorted(cards, key=ORDER_KEY)


def distinct_in_order(hand: Iterable[str]) -> list[str]:
    """The distinct cards of `hand` in canonical order (two Jokers are one choice)."""
    return sort_cards(set(hand))


def legal_cards(hand: Iterable[str], trick_cards: Sequence[str]) -> list[str]:
    """Every distinct card of `hand` that may be played to the trick, in canonical order."""
    return legal_in_order(distinct_in_order(hand), trick_cards)


def legal_in_order(cards: list[str], trick_cards: Sequence[str]) -> list[str]:
    """`legal_cards` for distinct cards already in canonical order.

    Playing a card: Joker always; colour asked -> that colour or a trump, holding neither any
    card; trump asked -> a trump, holding none any card; Raise obligation on the trumps. The
    canonical order puts the colour asked, then the trumps, then the Joker, so the answer is
    those three groups concatenated.
    """
    asked = asked_of(trick_cards)
    if asked is None:
        return cards
    follow: list[str] = []
    trumps: list[str] = []
    joker: list[str] = []
    for card in cards:
        k = KIND[card]
        if k == JOKER:
            joker.append(card)
        elif k >= RAINBOW:
            trumps.append(card)
        elif k == asked:
            follow.append(card)
    if not follow and not trumps:
        return cards
    if trumps:
        trumps = raised_trumps(trumps, trick_cards)
    return follow + trumps + joker


def raised_trumps(trumps: list[str], trick_cards: Iterable[str]) -> list[str]:
    """The trumps held that the Raise obligation allows ("Playing a card").

    With a trump in the trick, only those higher than every trump in it or completing a pair
    (the other family, same value as one played); holding none of those, any trump.
    """
    top = -1
    completes: list[str] = []
    for card in trick_cards:
        if RAINBOW <= KIND[card] <= SHADOW:
            if VALUE[card] > top:
                top = VALUE[card]
            completes.append(PARTNER_CARD[card])
    if top < 0:
        return trumps
    raised = [c for c in trumps if VALUE[c] > top or c in completes]
    return raised or trumps


def broken_obligation(hand: Sequence[str], trick_cards: Sequence[str], card: str) -> str:
    """Which obligation a held but illegal `card` breaks (contract reason order)."""
    if RAINBOW <= KIND[card] <= SHADOW:
        return "must-raise"
    asked = asked_of(trick_cards)
    if asked != TRUMP_ASKED and any(KIND[c] == asked for c in hand):
        return "must-follow-color"
    return "must-play-trump"


#: Move refusals, said to the player (« tu », as the app does), cards in words (« Rouge 1 »,
#: never `'red-1'`: engine.core.cards.CARD_WORDS).
_CARD = card_words(["card"])
_REASON_TEXT = {
    "card-not-in-hand": text(
        "card-not-in-hand-quoted",
        "{card} is not in your hand",
        "{card} n’est pas dans ta main",
        _CARD,
    ),
    "must-follow-color": text(
        "classic-must-follow-color",
        "{card} does not follow the colour asked: play that colour, a trump or a Joker "
        "(Playing a card: Colour asked)",
        "{card} ne suit pas la couleur demandée\u00a0: joue cette couleur, un atout ou un Joker "
        "(Jouer une carte\u00a0: couleur demandée)",
        _CARD,
    ),
    "must-play-trump": text(
        "classic-must-play-trump",
        "{card} is not a trump: you hold a trump, so play a trump or a Joker "
        "(Playing a card: Trump asked / Colour asked)",
        "{card} n’est pas un atout\u00a0: tu as un atout, joue donc un atout ou un Joker "
        "(Jouer une carte\u00a0: atout demandé / couleur demandée)",
        _CARD,
    ),
    "must-raise": text(
        "classic-must-raise",
        "{card} neither beats every trump in the trick nor completes a pair, and you hold a "
        "trump that does (Playing a card: Raise obligation)",
        "{card} ne bat pas tous les atouts du pli et ne complète pas de paire, alors que tu "
        "as un atout qui le fait (Jouer une carte\u00a0: obligation de monter)",
        _CARD,
    ),
}
MAY_BE_PLAYED = text(
    "may-be-played-quoted", "{card} may be played", "{card} peut être jouée", _CARD
)


def check_card(card: object, field: str) -> None:
    """A code of this deck, else the contract's `unknown-card` / `card-not-in-deck`."""
    if isinstance(card, str) and card in KIND:
        return
    if isinstance(card, str) and card in CARDS:
        raise InvalidInput(
            say(NOT_IN_DECK, card=card, deck=DECK_NAME),
            code="card-not-in-deck",
            field=field,
        )
    raise InvalidInput(say(T.NOT_A_CARD, card=card), code="unknown-card", field=field)


def reason_message(reason: str, card: str) -> Said:
    return say(_REASON_TEXT[reason], card=card)


class DuelResult(msgspec.Struct, frozen=True):
    """Who takes what from one complete trick (seat -> cards), the split pairs, the winner."""

    takes: dict[int, list[str]]
    pairs: list[tuple[int, list[str]]]
    winner: int


def duel(trick: Sequence[tuple[int, str]]) -> DuelResult:
    """Resolve a complete trick by the trump duel ("Resolving the trick", rules 1–5)."""
    rainbow: dict[int, int] = {}
    shadow: dict[int, int] = {}
    for seat, card in trick:
        k = KIND[card]
        if k == RAINBOW:
            rainbow[VALUE[card]] = seat
        elif k == SHADOW:
            shadow[VALUE[card]] = seat
    everything = [card for _, card in trick]
    if not rainbow and not shadow:
        best = _highest_of_asked(trick)
        assert best is not None, "a complete trick holds a non-Joker card"
        return DuelResult({best: everything}, [], best)
    pair_values = sorted(rainbow.keys() & shadow.keys(), reverse=True)
    singles = [(v, s) for v, s in rainbow.items() if v not in shadow]
    singles += [(v, s) for v, s in shadow.items() if v not in rainbow]
    top_single = max(singles) if singles else None
    if top_single is not None and (not pair_values or top_single[0] > pair_values[0]):
        # Rule 2 (no pair) and rule 3 (S above every pair: the pairs do not split).
        return DuelResult({top_single[1]: everything}, [], top_single[1])
    # Rule 3 and its Ruling: only the pairs above S split, lower pairs stay with the rest.
    winning = [v for v in pair_values if top_single is None or v > top_single[0]]
    taken = {RAINBOW_CARD[v] for v in winning} | {SHADOW_CARD[v] for v in winning}
    takes: dict[int, list[str]] = {}
    pairs: list[tuple[int, list[str]]] = []
    for v in winning:
        pair = [RAINBOW_CARD[v], SHADOW_CARD[v]]
        takes[shadow[v]] = list(pair)
        pairs.append((shadow[v], pair))
    rest = [card for card in everything if card not in taken]
    # Rule 4: the rest to S, else the highest of the colour asked, else the top pair's Shadow.
    if top_single is not None:
        owner = top_single[1]
    else:
        best = _highest_of_asked(trick)
        owner = best if best is not None else shadow[winning[0]]
    if rest:
        takes.setdefault(owner, []).extend(rest)
    else:
        # Rule 5: nothing left, the Shadow player of the highest pair leads.
        owner = shadow[winning[0]]
    pairs.sort()
    return DuelResult(takes, pairs, owner)


def _highest_of_asked(trick: Sequence[tuple[int, str]]) -> int | None:
    """Seat of the highest card of the colour asked; None when a trump (or nothing) is asked."""
    asked = asked_of(card for _, card in trick)
    if asked is None or asked == TRUMP_ASKED:
        return None
    best_seat, best_value = None, -1
    for seat, card in trick:
        if KIND[card] == asked and VALUE[card] > best_value:
            best_seat, best_value = seat, VALUE[card]
    return best_seat


def trick_result(result: DuelResult) -> TrickResult:
    """The public shape of a duel: per-seat captures and pairs in canonical order."""
    return TrickResult(
        winner=result.winner,
        annulled=False,
        captures=[Capture(seat=s, cards=sort_cards(result.takes[s])) for s in sorted(result.takes)],
        pairs=[Capture(seat=s, cards=sort_cards(cards)) for s, cards in result.pairs],
        next_leader=result.winner,
    )
