"""Num Wars tricks as pure functions over card codes (rules/numwars.md "Playing a card",
"Winning a trick", "The Bomb"): legal cards, the reason a card is illegal, trick resolution.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.base import (
    BombResult,
    Capture,
    TrickCard,
    TrickResult,
)
from engine.core.cards import CARDS, COLOURS, COMPLEMENT, VALUE, card_words
from engine.core.errors import InvalidInput
from engine.core.texts import Said, colour_word, say, text
from engine.numwars import texts as T
from engine.numwars.cards import (
    ASKED_COLOUR,
    BONUSES,
    CLASSIC,
    KIND,
    PLAYABLE_SETS,
    REAL,
    ROLE_OF_CARD,
    STRENGTH,
    canon,
)


class FinishedTrick(msgspec.Struct, frozen=True, kw_only=True):
    """A finished trick (public): its leader, its cards in play order, how it resolved (as
    `resolve-trick` answers) and the complice's choice on the Joker (None: not asked)."""

    leader: int
    cards: list[TrickCard]
    result: TrickResult
    neutralize: bool | None


def valid_play(
    players: object, hand: Sequence[str], trick: Sequence[TrickCard], *, complete: bool
) -> tuple[list[tuple[int, str]], list[str]] | None:
    """The trick as (seat, card) pairs and as cards, if the shared checks (check_players,
    check_trick, check_cards over hand and trick) would all accept the request; None when
    they might not, so that the caller runs them to raise the first error as they word it.

    The common, valid case is one pass over the trick and one set of the cards.
    """
    if type(players) is not int or not 3 <= players <= 8:
        return None
    n = len(trick)
    if (n != players) if complete else (n >= players):
        return None
    played: list[tuple[int, str]] = []
    cards: list[str] = []
    if n:
        seat = trick[0].seat
        if type(seat) is not int or not 0 <= seat < players:
            return None
        for entry in trick:  # clockwise from the leader, seats in range, no `declared`
            if entry.seat != seat or entry.declared is not None:
                return None
            played.append((entry.seat, entry.card))
            cards.append(entry.card)
            seat += 1
            if seat == players:
                seat = 0
    try:
        seen = set(hand)
        seen.update(cards)
    except TypeError:  # an unhashable "card"
        return None
    if len(seen) != len(hand) + n or not seen <= PLAYABLE_SETS[players]:
        return None
    return played, cards


# --- Legal moves -------------------------------------------------------------------------


def contesting(cards: Sequence[str]) -> list[str]:
    """Cards of a trick still contesting it: a completed trump pair leaves (Trump pairs)."""
    out: list[str] = []
    for card in cards:
        comp = COMPLEMENT.get(card)
        if comp is not None and comp in out:
            out.remove(comp)
        else:
            out.append(card)
    return out


def _raising(trumps: list[str], contest: Sequence[str]) -> list[str]:
    """Of the trumps held, those a forced trump play allows: the raising ones if any
    (Following 3). Classic cards have strength -1, so with no trump contesting (top -1) every
    trump is allowed."""
    strength = STRENGTH
    top = -1
    for c in contest:
        s = strength[c]
        if s > top:
            top = s
    if top < 0:
        return trumps
    raising = [c for c in trumps if strength[c] > top]
    return raising or trumps


def _trump_choice(hand: Sequence[str], contest: Sequence[str]) -> list[str]:
    """The trumps a forced trump play allows: the raising ones if any (Following 3)."""
    strength = STRENGTH
    trumps = [c for c in hand if strength[c] >= 0]
    return _raising(trumps, contest) if trumps else trumps


def legal_cards(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    """Legal cards of `hand` (distinct cards, none of them in the trick) on a trick holding
    `cards` in play order (Leading, Following 0-3); the result is a new list in the hand's
    order. The hand's trumps are listed only when the colour asked is missing."""
    kind = KIND
    if not cards:  # a classic card or a real trump; a special only from a hand of specials
        normal = [c for c in hand if kind[c] <= REAL]
        return normal or list(hand)
    colour = ASKED_COLOUR
    asked = colour[cards[0]]
    base = [c for c in hand if colour[c] == asked] if asked is not None else []
    if not base:  # Following 1-2: a trump if any, raising if possible (Following 3)
        trumps = [c for c in hand if kind[c] != CLASSIC]
        if not trumps:
            return list(hand)
        base = _raising(trumps, contesting(cards))
    # The steal rule (Following 0): a held complement of a contesting real trump. A real trump
    # of the trick whose complement is in the hand cannot have paired, so it is contesting.
    comp_of = COMPLEMENT
    steal = [comp for c in cards if (comp := comp_of.get(c)) is not None and comp in hand]
    if steal:
        legal = set(base).union(steal)
        return [c for c in hand if c in legal]
    return base


#: Move refusals, said to the player (« tu », as the app does), cards in words (« Rouge 1 »,
#: never `red-1`: engine.core.cards.CARD_WORDS).
SPECIAL_LEAD = text(
    "special-lead",
    "You may lead with {card} only when you hold no classic card and no real trump",
    "Tu ne peux entamer avec {card} que si tu n’as ni carte classique ni vrai atout",
    words=card_words(["card"]),
)
MUST_FOLLOW = text(
    "must-follow-color",
    "You must follow {asked}: you hold {follow}",
    "Il faut fournir du {asked}\u00a0: tu as {follow}",
    words=card_words(["follow"]),
)
MUST_TRUMP_COLOUR = text(
    "must-play-trump",
    "You hold no {asked}, the colour asked: play a trump, not {card}",
    "Tu n’as pas de {asked}, la couleur demandée\u00a0: joue un atout, pas {card}",
    words=card_words(["card"]),
)
MUST_TRUMP = text(
    "must-play-trump-asked",
    "Trump is asked: play a trump, not {card}",
    "L’atout est demandé\u00a0: joue un atout, pas {card}",
    words=card_words(["card"]),
)
MUST_RAISE = text(
    "must-raise",
    "{card} does not beat the trumps in contest: raise with {raising}",
    "{card} ne monte pas sur les atouts en lice\u00a0: monte avec {raising}",
    words=card_words(["card", "raising"]),
)
NOT_IN_HAND = text(
    "card-not-in-hand",
    "{card} is not in your hand",
    "{card} n’est pas dans ta main",
    words=card_words(["card"]),
)
QUOTED_NOT_IN_HAND = text(
    "card-not-in-hand-quoted",
    "{card} is not in your hand",
    "{card} n’est pas dans ta main",
    words=card_words(["card"]),
)
MAY_BE_PLAYED = text(
    "may-be-played", "{card} may be played", "{card} peut être jouée", words=card_words(["card"])
)


def illegal_reason(
    hand: Sequence[str], cards: Sequence[str], card: str, legal: Sequence[str] | None = None
) -> tuple[str, Said]:
    """(reason, message) for a card of the hand that `legal_cards` refuses: the first
    obligation it breaks, in the contract's order.

    `legal`: the legal cards in canonical order, when the caller has them. The hand's cards of
    the colour asked are then exactly the legal ones of that colour (Following 0: when the
    hand holds the colour, all of it is legal; otherwise none is), so the short list is
    filtered instead of the hand."""
    if not cards:
        return "special-lead", say(SPECIAL_LEAD, card=card)
    colour = ASKED_COLOUR
    asked = colour[cards[0]]
    if asked is not None:
        if legal is None:
            follow = canon([c for c in hand if colour[c] == asked])
        else:
            follow = [c for c in legal if colour[c] == asked]
        if follow:
            return "must-follow-color", say(
                MUST_FOLLOW, asked=colour_word(asked), follow=list(follow)
            )
    if KIND[card] == CLASSIC:
        if asked:
            return "must-play-trump", say(MUST_TRUMP_COLOUR, asked=colour_word(asked), card=card)
        return "must-play-trump", say(MUST_TRUMP, card=card)
    raising = _trump_choice(hand, contesting(cards))
    return "must-raise", say(MUST_RAISE, card=card, raising=canon(raising))


# --- Trick resolution --------------------------------------------------------------------


#: By colour asked, each card's rank in the colour contest: its value if of that colour,
#: else -1 (Winning the contest 4: the highest card of the colour asked).
_RANK_IN: dict[str | None, dict[str, int]] = {
    colour: {code: VALUE[code] if c == colour else -1 for code, c in ASKED_COLOUR.items()}
    for colour in COLOURS
}


def contest_winner(contest: Sequence[tuple[int, str]], asked: str | None, leader: int) -> int:
    """Seat winning the contest (Winning the contest 1-4, incl. the trump-asked Ruling).

    `numx` (strength 1000) and real trumps (strength 2 + value) are the only strengths above
    1; two contesting real trumps never share a value (they pair).
    """
    best_seat, best = -1, 1
    strength = STRENGTH
    for seat, card in contest:
        s = strength[card]
        if s > best:
            best_seat, best = seat, s
    if best_seat >= 0:
        return best_seat
    colour = asked
    if colour is None:
        kind = KIND
        for _, card in contest:
            if kind[card] == CLASSIC:
                colour = ASKED_COLOUR[card]
                break
        else:
            return leader
    best = -1
    rank = _RANK_IN[colour]
    for seat, card in contest:
        r = rank[card]
        if r > best:
            best_seat, best = seat, r
    return best_seat if best_seat >= 0 else leader


def neutralization_possible(contest: Sequence[str]) -> bool:
    """Bomb + Joker + at least one threat and no `numx` among the cards still contesting a
    complete trick: the complice has a choice (Joker neutralization). Special cards never
    pair, so they contest exactly when they are in the trick."""
    if "bomb" not in contest or "joker" not in contest or "numx" in contest:
        return False
    return "quantum" in contest or any(c.startswith("shadow-") for c in contest)


def plain_result(trick: Sequence[tuple[int, str]]) -> TrickResult:
    """A complete trick without the Bomb and without a pair: every card contests and the
    winner takes them all (Winning the contest)."""
    leader, lead = trick[0]
    winner = contest_winner(trick, ASKED_COLOUR[lead], leader)
    return TrickResult(
        winner=winner,
        annulled=False,
        captures=[Capture(seat=winner, cards=canon([c for _, c in trick]))],
        pairs=[],
        next_leader=winner,
        bomb=None,
    )


def resolve(
    trick: Sequence[tuple[int, str]], roles: Sequence[str] | None, joker_neutralizes: bool
) -> TrickResult:
    """Resolve a complete, checked trick (Trump pairs; Winning the contest; The Bomb).

    Without the Bomb and without a pair (most tricks) the winner takes every card. The cards
    still contesting are kept as card -> seat in play order: a real trump meets its complement
    with one look-up, and the Bomb finds the special cards' seats there (they never pair).
    """
    contest: dict[str, int] = {}
    pairs: list[tuple[int, list[str]]] = []
    comp_of = COMPLEMENT
    for seat, card in trick:
        comp = comp_of.get(card)
        if comp is not None and comp in contest:
            del contest[comp]
            # rainbow-X before shadow-X (canonical)
            pairs.append((seat, [comp, card] if card[0] == "s" else [card, comp]))
        else:
            contest[card] = seat
    has_bomb = "bomb" in contest
    if not has_bomb and not pairs:
        return plain_result(trick)
    # Where each card goes when not to the winner: the Bomb to its captor (or it stays), the
    # Joker to the demineur whose Quantum it neutralized, each pair to the seat completing it.
    goes_to: dict[str, int] = {}
    bomb: BombResult | None = None
    if has_bomb:
        assert roles is not None
        bomb = _bomb(contest, roles, joker_neutralizes)
        captor = bomb.captured_by
        goes_to["bomb"] = contest["bomb"] if captor is None else captor
        gone = bomb.neutralized
        if gone == "quantum":  # the demineur's consolation: the Joker
            goes_to["joker"] = contest["quantum"]
        elif gone is not None:  # a neutralized Shadow no longer contests
            del contest[gone]
    for seat, (rainbow, shadow) in pairs:
        goes_to[rainbow] = goes_to[shadow] = seat
    # The Bomb, the Joker and the Quantum may stay in the contest: strength 0 or 1 and no
    # colour, they never decide it (Winning the contest).
    leader, lead = trick[0]
    winner = contest_winner(
        list(zip(contest.values(), contest, strict=True)), ASKED_COLOUR[lead], leader
    )
    # Dealt out in canonical order, every capture comes out canonical.
    taken: dict[int, list[str]] = {}
    for card in canon([card for _, card in trick]):
        seat = goes_to.get(card, winner)
        if seat in taken:
            taken[seat].append(card)
        else:
            taken[seat] = [card]
    return TrickResult(
        winner=winner,
        annulled=False,
        captures=[Capture(seat=s, cards=taken[s]) for s in sorted(taken)],
        pairs=[Capture(seat=s, cards=p) for s, p in sorted(pairs)] if pairs else [],
        next_leader=winner,
        bomb=bomb,
    )


#: Fate of the Bomb captured by a Shadow, by the role of its player (Rulings).
_SHADOW_CAPTURE = {
    "civil": "civil-capture",
    "demineur": "stolen",
    "complice": "complice-capture",
    "agent": "numx-capture",
}
_SHADOWS = frozenset(c for c in CARDS if c.startswith("shadow-"))


def _bomb(contest: dict[str, int], roles: Sequence[str], joker_neutralizes: bool) -> BombResult:
    """Fate of the Bomb (The Bomb and the four roles), from the contesting cards' seats."""
    if "numx" in contest:
        return BombResult(outcome="numx-capture", captured_by=contest["numx"], neutralized=None)
    quantum = "quantum" in contest
    shadows = [card for card in contest if card in _SHADOWS]
    if len(shadows) > 1:  # strongest first; contesting Shadows have distinct values
        shadows.sort(key=VALUE.__getitem__, reverse=True)
    gone: str | None = None
    if joker_neutralizes and (quantum or shadows) and "joker" in contest:
        if shadows:
            gone = shadows.pop(0)
        else:
            gone = "quantum"
            quantum = False
    if quantum:  # Who captures the Bomb (Ruling): the Quantum before any Shadow.
        return BombResult(outcome="stolen", captured_by=contest["quantum"], neutralized=gone)
    if shadows:  # the highest Shadow left; the outcome follows its player's role (Rulings)
        seat = contest[shadows[0]]
        return BombResult(outcome=_SHADOW_CAPTURE[roles[seat]], captured_by=seat, neutralized=gone)
    if gone == "quantum":
        return BombResult(outcome="protected-quantum", captured_by=None, neutralized=gone)
    if gone is not None:
        return BombResult(outcome="protected", captured_by=None, neutralized=gone)
    return BombResult(outcome="kept", captured_by=None, neutralized=None)


# --- Scoring -----------------------------------------------------------------------------


def role_bonus(role: str, outcome: str) -> int:
    return BONUSES[outcome].get(role, 0)


def check_role_cards(played: Sequence[tuple[int, str]], roles: Sequence[str]) -> None:
    """Role cards never change hands (Set-up 1): the seat that played one has its role. The
    first mismatch is reported in the order of ROLE_OF_CARD."""
    seat_of = {card: seat for seat, card in played}
    for card, role in ROLE_OF_CARD.items():
        if card in seat_of and roles[seat_of[card]] != role:
            raise InvalidInput(
                say(
                    T.ROLE_CARD,
                    seat=seat_of[card],
                    card=card,
                    role=role,
                    named=roles[seat_of[card]],
                ),
                code="bad-request",
                field=f"roles[{seat_of[card]}]",
            )
