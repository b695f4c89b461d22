"""`numwars` — Num Wars, secret-roles edition (rules/numwars.md).

The stateless answers (deck, deal, legal moves, trick resolution, scoring) live here as pure
functions over card codes; the round state machine is in :mod:`engine.numwars_state`.

Points the spec leaves to the implementation, and the choice made:
- The role draw shuffles the lot with the round's :class:`Rng` and gives ``lot[s]`` to seat
  ``s``; the rest of the deck is then shuffled and dealt in blocks, seat 0 first.
- ``RoundSetup.leader`` is ignored: the dealer leads the first trick (Set-up 4, Ruling).
- ``resolve_trick`` also checks that the roles agree with the role cards of the trick (the
  Bomb's player is the poseur, …): role cards never change hands, so any other pairing is an
  impossible request (``bad-request``).
- A score-round breakdown always ends with the role line, even at 0 points, so the table
  sees every role at the end of the round.
- A stored round passes exchange cards one at a time (``Pass``; ``Exchange`` applies several)
  and asks the complice (``Neutralize``) only when the choice can change something: Bomb +
  Joker + a threat and no ``numx`` in the complete trick.

Speed (the play-out benchmark and the stateless endpoints): facts about a card are looked up
in per-code tables (kind, trump strength, colour asked, complement, value); legal moves are
comprehensions over the hand (the trumps listed only when the colour asked is missing), sorted
once at the end; a trick without the Bomb and without a pair is resolved by
:func:`plain_result`, the others with the contest kept as card -> seat and the captures
dealt out in canonical order; value groups come from one sort by (value, canonical order)
and a label/points table; the endpoints run the shared checks (check_players, check_trick,
check_cards) only when :func:`valid_play` cannot show the request valid in one pass, and
check the roles with one sort in the valid case. The plain versions these replace are kept
as references in tests/engine/test_numwars_fast.py and test_numwars_checks.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import groupby
from typing import TYPE_CHECKING, ClassVar

import msgspec

from engine.base import (
    BombResult,
    Capture,
    Deal,
    DeckInfo,
    LegalMoves,
    MatchResult,
    MoveCheck,
    PlayerScore,
    RoundScore,
    RoundSetup,
    RoundState,
    ScoreLine,
    TrickCard,
    TrickResult,
)
from engine.cards import CARDS, COLOURS, FAMILIES, check_cards, numbered_deck
from engine.core.match import Match, TiebreakDecision, check_rules_version
from engine.errors import InvalidInput
from engine.rng import Rng
from engine.scoring import best_seats, match_totals, value_group_points
from engine.tricks import check_players, check_seat, check_trick

if TYPE_CHECKING:
    from engine.numwars_state import NumWarsRound

ROLES = ("poseur", "complice", "demineur", "agent", "civil")
BOMB_OUTCOMES = (
    "numx-capture",
    "stolen",
    "civil-capture",
    "complice-capture",
    "protected",
    "protected-quantum",
    "kept",
)

#: Role cards (Set-up 1) and the role each gives; they can never be passed (Set-up 3).
ROLE_OF_CARD: dict[str, str] = {
    "bomb": "poseur",
    "joker": "complice",
    "quantum": "demineur",
    "numx": "agent",
}
ROLE_CARDS = frozenset(ROLE_OF_CARD)
SPECIAL_CARDS = ("numx", "joker", "bomb", "quantum")

#: Deck table: players -> (highest value, cards per player, set aside).
FORMATS: dict[int, tuple[int, int, int]] = {
    3: (12, 27, 1),
    4: (12, 20, 2),
    5: (12, 16, 2),
    6: (16, 17, 4),
    7: (16, 15, 1),
    8: (16, 13, 2),
}

#: Bonuses of each Bomb outcome by role (The Bomb and the four roles, bonus table).
BONUSES: dict[str, dict[str, int]] = {
    "numx-capture": {"agent": -10},
    "stolen": {"demineur": 50, "agent": 30},
    "civil-capture": {"civil": 15},
    "complice-capture": {"agent": 30},
    "protected": {"poseur": 30, "complice": 20, "agent": 30},
    "protected-quantum": {"poseur": 30, "complice": 20, "demineur": 20, "agent": 30},
    "kept": {"poseur": 50, "agent": 30},
}

# Card classes (Card classes): kinds, trump strength, colour asked, complement.
CLASSIC, REAL, NUMX, ZERO, BOMB = 0, 1, 2, 3, 4
_KIND: dict[str, int] = {}
_STRENGTH: dict[str, int] = {}
_COLOUR: dict[str, str | None] = {}
_COMP: dict[str, str] = {}
_VALUE: dict[str, int] = {}
_ORDER: dict[str, int] = {}
for _code, _c in CARDS.items():
    _ORDER[_code] = _c.order
    _COLOUR[_code] = _c.family if _c.family in COLOURS else None
    if _c.value is not None:
        _VALUE[_code] = _c.value
    if _c.is_classic:
        _KIND[_code] = CLASSIC
        _STRENGTH[_code] = -1
    elif _c.is_real_trump:
        _KIND[_code] = REAL
        _STRENGTH[_code] = 2 + (_c.value or 0)
        _COMP[_code] = ("shadow-" if _c.family == "rainbow" else "rainbow-") + str(_c.value)
_KIND.update(numx=NUMX, joker=ZERO, quantum=ZERO, bomb=BOMB)
_STRENGTH.update(numx=1000, joker=1, quantum=1, bomb=0)
#: The suit a card follows in: its colour, or TRUMP for every trump (Card classes).
TRUMP = "trump"
SUIT: dict[str, str] = {code: colour or TRUMP for code, colour in _COLOUR.items()}
#: The colour a card asks when it leads (None: trump), and a real trump's complement.
ASKED_COLOUR: dict[str, str | None] = _COLOUR
COMPLEMENT: dict[str, str] = _COMP
#: Each card's trump strength (classics: -1).
STRENGTH: dict[str, int] = _STRENGTH


_ORDER_KEY = _ORDER.__getitem__


def canon(cards: Sequence[str] | set[str]) -> list[str]:
    """Canonical order (rules/cards.md) through a local table, for the hot paths."""
    return sorted(cards, key=_ORDER_KEY)


def is_trump(card: str) -> bool:
    """Any real trump, zero-level trump or `numx` (Card classes)."""
    return _KIND[card] != CLASSIC


_DECKS: dict[int, tuple[str, ...]] = {}


def deck_cards(players: int) -> list[str]:
    """The whole deck of the format for `players` (Deck: reduced 0–12 or full 0–16)."""
    deck = _DECKS.get(players)
    if deck is None:
        high = FORMATS[players][0]
        deck = tuple(canon(numbered_deck(FAMILIES, 0, high) + list(SPECIAL_CARDS)))
        _DECKS[players] = deck
    return list(deck)


_PLAYABLE: dict[int, Counter[str]] = {}


def playable_deck(players: int) -> Counter[str]:
    """The cards that can be in play: with 3 players the Joker is out (Set-up 1)."""
    deck = _PLAYABLE.get(players)
    if deck is None:
        deck = Counter(c for c in deck_cards(players) if players > 3 or c != "joker")
        _PLAYABLE[players] = deck
    return deck


_RANKS: dict[int, tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]] = {}


def _deal_ranks(players: int) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]:
    """The deck of the format (canonical), then the role lot and the rest of the deck (without
    the lot, and without the Joker with 3 players) as ranks in it: the lot is drawn, then the
    rest shuffled and dealt (Set-up 1-2). Shuffling ranks moves them exactly as it would move
    the codes, and a hand of ranks is made canonical by a plain sort."""
    ranks = _RANKS.get(players)
    if ranks is None:
        deck = tuple(deck_cards(players))
        rank = {c: i for i, c in enumerate(deck)}
        lot = role_lot(players)
        excluded = set(lot) | ({"joker"} if players == 3 else set())
        rest = tuple(rank[c] for c in deck if c not in excluded)
        ranks = _RANKS[players] = (deck, tuple(rank[c] for c in lot), rest)
    return ranks


_DECK_NAMES = {n: f"the {n}-player numwars deck" for n in FORMATS}


def deck_name(players: int) -> str:
    return _DECK_NAMES.get(players) or f"the {players}-player numwars deck"


def round_roles(players: int) -> Counter[str]:
    """Exactly one of each role the table has: complice with 4+, n-4 civils (Set-up 1)."""
    roles = Counter({"poseur": 1, "demineur": 1, "agent": 1})
    if players >= 4:
        roles["complice"] = 1
        roles["civil"] = players - 4
    return roles


def role_lot(players: int) -> list[str]:
    """The face-down lot of the role draw, in the spec's order (Set-up 1)."""
    lot = ["bomb", "quantum", "numx", *(["joker"] if players >= 4 else [])]
    return [*lot, "red-1", "blue-1", "green-1", "yellow-1"][:players]


#: The roles of a round, sorted, by player count: the common, valid case of check_roles.
_ROLE_SETS: dict[int, list[str]] = {n: sorted(round_roles(n).elements()) for n in FORMATS}


def check_roles(roles: Sequence[object], players: int, field: str, *, per_seat: str = "") -> None:
    """Roles by seat: each in ROLES and exactly one of each role the round has.

    `per_seat`: when given (e.g. ``players[{}].role``), the field of one seat's bad role.
    The common, valid case is one sort and one comparison; the checks below name the error.
    """
    try:
        if len(roles) == players and sorted(roles) == _ROLE_SETS.get(players):  # type: ignore[type-var]
            return
    except TypeError:  # roles that do not sort (not all strings): reported below
        pass
    if len(roles) != players:
        raise InvalidInput(
            f"roles lists one role per seat ({players}), not {len(roles)}",
            code="bad-request",
            field=field,
        )
    for seat, role in enumerate(roles):
        if role not in ROLES:
            raise InvalidInput(
                f"seat {seat}: {role!r} is not a role (expected one of {', '.join(ROLES)})",
                code="bad-request",
                field=per_seat.format(seat) if per_seat else f"{field}[{seat}]",
            )
    want = round_roles(players)
    got = Counter(str(r) for r in roles)
    if got != want:
        expected = ", ".join(f"{n} {r}" for r, n in sorted(want.items()))
        raise InvalidInput(
            f"a {players}-player round has exactly {expected}; got "
            + ", ".join(f"{n} {r}" for r, n in sorted(got.items())),
            code="bad-request",
            field=field,
        )


#: The cards of each format's playable deck (Deck; with 3 players no Joker, Set-up 1). Every
#: card is in it once, so a request's cards pass check_cards exactly when they are all in it
#: and all distinct.
_PLAYABLE_SETS: dict[int, frozenset[str]] = {n: frozenset(playable_deck(n)) for n in FORMATS}


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
    if len(seen) != len(hand) + n or not seen <= _PLAYABLE_SETS[players]:
        return None
    return played, cards


# --- Legal moves -------------------------------------------------------------------------


def contesting(cards: Sequence[str]) -> list[str]:
    """Cards of a trick still contesting it: a completed trump pair leaves (Trump pairs)."""
    out: list[str] = []
    for card in cards:
        comp = _COMP.get(card)
        if comp is not None and comp in out:
            out.remove(comp)
        else:
            out.append(card)
    return out


def _raising(trumps: list[str], contest: Sequence[str]) -> list[str]:
    """Of the trumps held, those a forced trump play allows: the raising ones if any
    (Following 3). Classic cards have strength -1, so with no trump contesting (top -1) every
    trump is allowed."""
    strength = _STRENGTH
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
    strength = _STRENGTH
    trumps = [c for c in hand if strength[c] >= 0]
    return _raising(trumps, contest) if trumps else trumps


def legal_cards(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    """Legal cards of `hand` (distinct cards, none of them in the trick) on a trick holding
    `cards` in play order (Leading, Following 0-3); the result is a new list in the hand's
    order. The hand's trumps are listed only when the colour asked is missing."""
    kind = _KIND
    if not cards:  # a classic card or a real trump; a special only from a hand of specials
        normal = [c for c in hand if kind[c] <= REAL]
        return normal or list(hand)
    colour = _COLOUR
    asked = colour[cards[0]]
    base = [c for c in hand if colour[c] == asked] if asked is not None else []
    if not base:  # Following 1-2: a trump if any, raising if possible (Following 3)
        trumps = [c for c in hand if kind[c] != CLASSIC]
        if not trumps:
            return list(hand)
        base = _raising(trumps, contesting(cards))
    # The steal rule (Following 0): a held complement of a contesting real trump. A real trump
    # of the trick whose complement is in the hand cannot have paired, so it is contesting.
    comp_of = _COMP
    steal = [comp for c in cards if (comp := comp_of.get(c)) is not None and comp in hand]
    if steal:
        legal = set(base).union(steal)
        return [c for c in hand if c in legal]
    return base


def illegal_reason(
    hand: Sequence[str], cards: Sequence[str], card: str, legal: Sequence[str] | None = None
) -> tuple[str, str]:
    """(reason, message) for a card of the hand that `legal_cards` refuses: the first
    obligation it breaks, in the contract's order.

    `legal`: the legal cards in canonical order, when the caller has them. The hand's cards of
    the colour asked are then exactly the legal ones of that colour (Following 0: when the
    hand holds the colour, all of it is legal; otherwise none is), so the short list is
    filtered instead of the hand."""
    if not cards:
        return (
            "special-lead",
            f"{card} may lead only when the hand holds no classic card and no real trump",
        )
    colour = _COLOUR
    asked = colour[cards[0]]
    if asked is not None:
        if legal is None:
            follow = canon([c for c in hand if colour[c] == asked])
        else:
            follow = [c for c in legal if colour[c] == asked]
        if follow:
            return (
                "must-follow-color",
                f"{asked} is asked and the hand holds {', '.join(follow)}: play {asked}",
            )
    what = f"{asked} is asked and the hand holds none" if asked else "trump is asked"
    if _KIND[card] == CLASSIC:
        return ("must-play-trump", f"{what}: a trump must be played, not {card}")
    raising = _trump_choice(hand, contesting(cards))
    return (
        "must-raise",
        f"{card} does not raise over the contesting trumps; raise with {', '.join(canon(raising))}",
    )


# --- Trick resolution --------------------------------------------------------------------


#: By colour asked, each card's rank in the colour contest: its value if of that colour,
#: else -1 (Winning the contest 4: the highest card of the colour asked).
_RANK_IN: dict[str | None, dict[str, int]] = {
    colour: {code: _VALUE[code] if c == colour else -1 for code, c in _COLOUR.items()}
    for colour in COLOURS
}


def contest_winner(contest: Sequence[tuple[int, str]], asked: str | None, leader: int) -> int:
    """Seat winning the contest (Winning the contest 1-4, incl. the trump-asked Ruling).

    `numx` (strength 1000) and real trumps (strength 2 + value) are the only strengths above
    1; two contesting real trumps never share a value (they pair).
    """
    best_seat, best = -1, 1
    strength = _STRENGTH
    for seat, card in contest:
        s = strength[card]
        if s > best:
            best_seat, best = seat, s
    if best_seat >= 0:
        return best_seat
    colour = asked
    if colour is None:
        kind = _KIND
        for _, card in contest:
            if kind[card] == CLASSIC:
                colour = _COLOUR[card]
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
    winner = contest_winner(trick, _COLOUR[lead], leader)
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
    comp_of = _COMP
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
        list(zip(contest.values(), contest, strict=True)), _COLOUR[lead], leader
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
        shadows.sort(key=_VALUE.__getitem__, reverse=True)
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


#: The value of each classic card (Scoring a round: only classic cards form value groups).
_CLASSIC_VALUE: dict[str, int] = {c: _VALUE[c] for c, k in _KIND.items() if k == CLASSIC}
#: Label and points of a group of `count` classic cards of value `v`: [count][v].
_CLASSIC_VALUE_KEY = _CLASSIC_VALUE.__getitem__
#: Sort key of a classic card: its value, then its canonical order (value groups).
_GROUP_ORDER_KEY = {c: v * 10_000 + _ORDER[c] for c, v in _CLASSIC_VALUE.items()}.__getitem__
_GROUP_LINE: list[list[tuple[str, int]]] = [
    [(f"{count} × value {v}", value_group_points(v, count) if count else 0) for v in range(17)]
    for count in range(5)
]


def value_lines(cards: Sequence[str]) -> list[ScoreLine]:
    """Classic cards grouped by value across colours, one line per value ascending
    (Scoring a round); the same lines as :func:`engine.scoring.value_groups`. One sort by
    (value, canonical order) leaves the groups consecutive, each in canonical order."""
    classic = [c for c in cards if c in _CLASSIC_VALUE]
    classic.sort(key=_GROUP_ORDER_KEY)
    lines = []
    for v, group in groupby(classic, _CLASSIC_VALUE_KEY):
        held = list(group)
        label, points = _GROUP_LINE[len(held)][v]
        lines.append(ScoreLine(label=label, cards=held, points=points))
    return lines


def score_pile(
    captured: Sequence[str],
    pairs: Sequence[Sequence[str]],
    role: str,
    outcome: str,
    seat: int = -1,
) -> PlayerScore:
    """A player's round (Scoring a round): value groups, captured pairs, role bonus."""
    lines = value_lines(captured)
    if pairs:
        for pair in sorted(pairs, key=lambda p: _VALUE[p[0]]):
            cards = canon(list(pair))
            lines.append(
                ScoreLine(
                    label=f"pair {cards[0]} + {cards[1]}", cards=cards, points=_VALUE[cards[0]]
                )
            )
    lines.append(
        ScoreLine(
            label=f"role bonus ({role}, {outcome})", cards=[], points=role_bonus(role, outcome)
        )
    )
    total = 0
    for line in lines:
        total += line.points
    return PlayerScore(seat=seat, score=total, breakdown=lines)


#: Points of a group of `count` classic cards of value `v`: [count][v].
_GROUP_POINTS: list[list[int]] = [[points for _, points in row] for row in _GROUP_LINE]
_CLASSIC_VALUE_GET = _CLASSIC_VALUE.get


def pile_points(
    captured: Sequence[str], pairs: Sequence[Sequence[str]], role: str, outcome: str
) -> int:
    """The total of :func:`score_pile` without its breakdown (the end of a played round;
    the breakdown is built when asked for). Tests compare both on every play-out."""
    points = _GROUP_POINTS
    total = 0
    for v, count in Counter(map(_CLASSIC_VALUE_GET, captured)).items():
        if v is not None:
            total += points[count][v]
    for pair in pairs:
        total += _VALUE[pair[0]]
    return total + BONUSES[outcome].get(role, 0)


def score_piles(piles: Sequence[NumWarsPile], bomb_outcome: str) -> RoundScore:
    """Scoring a round for checked piles: each seat's score and the winners (ties share)."""
    players = [
        score_pile(p.captured, p.pairs, p.role, bomb_outcome, s) for s, p in enumerate(piles)
    ]
    return RoundScore(players=players, winners=best_seats([p.score for p in players]))


def _check_role_cards(played: Sequence[tuple[int, str]], roles: Sequence[str]) -> None:
    """Role cards never change hands (Set-up 1): the seat that played one has its role. The
    first mismatch is reported in the order of ROLE_OF_CARD."""
    seat_of = {card: seat for seat, card in played}
    for card, role in ROLE_OF_CARD.items():
        if card in seat_of and roles[seat_of[card]] != role:
            raise InvalidInput(
                f"seat {seat_of[card]} played {card}, the {role}'s card, but roles "
                f"names it {roles[seat_of[card]]}",
                code="bad-request",
                field=f"roles[{seat_of[card]}]",
            )


class NumWarsOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    exchange: int = 0  # cards each player passes to the right neighbour before play (0-5)
    tiebreak: bool = False  # break a tied match total as numwars-classic does


class NumWarsPile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's round for score-round: cards won, pairs captured as pairs, role."""

    captured: list[str]
    pairs: list[list[str]] = []
    role: str


class NumWars:
    """Num Wars, secret-roles edition: the rules object (rules/numwars.md)."""

    id: ClassVar[str] = "numwars"
    name: ClassVar[str] = "Num Wars"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 8
    Options: ClassVar[type[NumWarsOptions]] = NumWarsOptions

    def __init__(self, options: NumWarsOptions | None = None) -> None:
        self.options = options or NumWarsOptions()
        k = self.options.exchange
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= 5:
            raise InvalidInput(
                f"exchange passes 0 to 5 cards, not {k!r}",
                code="bad-option",
                field="options.exchange",
            )

    def _players(self, players: int) -> None:
        check_players(players, self.min_players, self.max_players, self.id)

    def deck(self, players: int) -> DeckInfo:
        """Deck table: the whole deck of the format; 3 players: the Joker is the set-aside."""
        self._players(players)
        _, hand, aside = FORMATS[players]
        return DeckInfo(players=players, cards=deck_cards(players), hand_size=hand, set_aside=aside)

    def deal(self, setup: RoundSetup) -> Deal:
        """Set-up 1-2: the role draw, then the rest dealt up to the hand size; Ruling 4."""
        n = setup.players
        self._players(n)
        check_seat(setup.dealer, n, "dealer")
        rng = Rng(setup.seed)
        deck, lot_ranks, rest_ranks = _deal_ranks(n)
        lot = list(lot_ranks)
        rng.shuffle(lot)
        rest = list(rest_ranks)
        rng.shuffle(rest)
        k = FORMATS[n][1] - 1
        card = deck.__getitem__
        hands = [list(map(card, sorted([lot[s], *rest[s * k : (s + 1) * k]]))) for s in range(n)]
        aside = list(map(card, sorted(rest[n * k :])))
        return Deal(
            hands=hands,
            set_aside=[*aside, "joker"] if n == 3 else aside,
            dealer=setup.dealer,
            leader=setup.dealer,
            roles=[ROLE_OF_CARD.get(deck[r], "civil") for r in lot],
        )

    def new_round(self, setup: RoundSetup) -> NumWarsRound:
        from engine.numwars_state import NumWarsRound

        return NumWarsRound(self, setup)

    def _check(self, players: int, hand: list[str], trick: list[TrickCard]) -> list[str]:
        """The checks of legal-moves and validate-move (check_players, check_trick and
        check_hand_and_trick, whose check_cards is called here with the trick's cards listed
        once), run only when :func:`valid_play` is unsure; returns the trick's cards in play
        order."""
        valid = valid_play(players, hand, trick, complete=False)
        if valid is not None:
            return valid[1]
        check_players(players, self.min_players, self.max_players, self.id)
        check_trick(trick, players, complete=False)
        cards = [t.card for t in trick]
        check_cards(
            playable_deck(players), [("hand", hand), ("trick", cards)], deck_name=deck_name(players)
        )
        return cards

    def legal_moves(self, players: int, hand: list[str], trick: list[TrickCard]) -> LegalMoves:
        """Leading (with the special-lead Ruling) and Following 0-3."""
        cards = self._check(players, hand, trick)
        return LegalMoves(legal=canon(legal_cards(hand, cards)))

    def validate_move(
        self, players: int, hand: list[str], trick: list[TrickCard], card: str
    ) -> MoveCheck:
        """Legal or the first broken obligation: card-not-in-hand, special-lead,
        must-follow-color, must-play-trump, must-raise."""
        cards = self._check(players, hand, trick)
        if card not in _PLAYABLE_SETS[players]:
            if card not in CARDS:
                raise InvalidInput(
                    f"{card!r} is not a card code", code="unknown-card", field="card"
                )
            raise InvalidInput(
                f"card {card!r} is not in {deck_name(players)}",
                code="card-not-in-deck",
                field="card",
            )
        legal = canon(legal_cards(hand, cards))
        if card in legal:
            return MoveCheck(
                legal=True, reason=None, message=f"{card} may be played", legal_moves=legal
            )
        if card not in hand:
            reason, message = "card-not-in-hand", f"{card} is not in the hand"
        else:
            reason, message = illegal_reason(hand, cards, card, legal)
        return MoveCheck(legal=False, reason=reason, message=message, legal_moves=legal)

    def resolve_trick(
        self,
        players: int,
        trick: list[TrickCard],
        roles: list[str] | None = None,
        joker_neutralizes: bool = True,
    ) -> TrickResult:
        """Trump pairs, the contest winner and the Bomb; `roles` needed when the Bomb is in."""
        valid = valid_play(players, [], trick, complete=True)
        if valid is None:
            check_players(players, self.min_players, self.max_players, self.id)
            check_trick(trick, players, complete=True)
            cards = [t.card for t in trick]
            check_cards(
                playable_deck(players),
                [("hand", []), ("trick", cards)],
                deck_name=deck_name(players),
            )
            played = [(t.seat, t.card) for t in trick]
        else:
            played, cards = valid
        if roles is None:
            if "bomb" in cards:
                raise InvalidInput(
                    "the trick holds the Bomb: roles (one per seat) are needed to resolve it",
                    code="bad-request",
                    field="roles",
                )
        else:
            check_roles(roles, players, "roles")
            for seat, card in played:
                role = ROLE_OF_CARD.get(card)
                if role is not None and roles[seat] != role:
                    _check_role_cards(played, roles)
        return resolve(played, roles, joker_neutralizes)

    def score_round(self, piles: list[NumWarsPile], bomb_outcome: str) -> RoundScore:
        """Scoring a round: value groups, pairs captured as pairs, the Bomb's role bonuses."""
        n = len(piles)
        self._players(n)
        groups: list[tuple[str, Sequence[object]]] = []
        for i, pile in enumerate(piles):
            groups.append((f"players[{i}].captured", pile.captured))
            for j, pair in enumerate(pile.pairs):
                groups.append((f"players[{i}].pairs[{j}]", pair))
        check_cards(playable_deck(n), groups, deck_name=deck_name(n))
        for i, pile in enumerate(piles):
            for j, pair in enumerate(pile.pairs):
                cards = canon(pair)
                if (
                    len(cards) != 2
                    or _COMP.get(cards[0]) != cards[1]
                    or not cards[0].startswith("rainbow-")
                ):
                    raise InvalidInput(
                        f"a captured pair is rainbow-X with shadow-X, not {pair!r}",
                        code="bad-request",
                        field=f"players[{i}].pairs[{j}]",
                    )
        check_roles([p.role for p in piles], n, "players", per_seat="players[{}].role")
        if bomb_outcome not in BOMB_OUTCOMES:
            raise InvalidInput(
                f"{bomb_outcome!r} is not a Bomb outcome (expected one of {', '.join(BOMB_OUTCOMES)})",
                code="bad-request",
                field="bomb_outcome",
            )
        return score_piles(piles, bomb_outcome)

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        """Match: totals add up; a tied total is a tie unless `tiebreak` (Ruling)."""
        totals = match_totals(rounds)
        winners = best_seats(totals)
        return MatchResult(
            totals=totals,
            winners=winners,
            tiebreak_needed=self.options.tiebreak and len(winners) > 1,
        )

    # -- match policy (engine.core.match) --------------------------------------------------
    #: Rules version (engine.core.match, "Rules versions"): bumped by any change that would
    #: replay a recorded match differently; `rules_versions` lists every version still replayed.
    rules_version: ClassVar[int] = 1
    rules_versions: ClassVar[tuple[int, ...]] = (1,)

    def for_version(self, version: int) -> NumWars:
        """The rules object playing `version`: version 1 is the only one, played by `self`."""
        check_rules_version(self, version)
        return self

    def new_match(self, players: int, seed: int, rules_version: int | None = None) -> Match:
        """A whole match (rules "Match") of `players`, seeded `seed` (engine.core.match)."""
        return Match(self, players, seed, rules_version)

    def match_rounds(self, players: int) -> int:
        """As many rounds as players, each dealing once (rules "Match")."""
        self._players(players)
        return players

    def round_setup(
        self, players: int, index: int, seed: int, previous: RoundState | None
    ) -> RoundSetup:
        """Round `index` is dealt by seat `index mod n` (rules/README.md, "Seats")."""
        return RoundSetup(players=players, seed=seed, dealer=index % players, round=index + 1)

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakDecision | None:
        """With `tiebreak`, the tie-break of numwars-classic (rules "Match", Ruling); else the
        tie stands (None)."""
        if not self.options.tiebreak:
            return None
        from engine.numwars_classic import decide_tiebreak

        return decide_tiebreak(tied, rounds)

    # -- end of match policy ----------------------------------------------------------------
