"""Num Wars deck and card facts (rules/numwars.md "Deck", "Set-up"): formats, roles, and
per-code tables (kind, trump strength, colour asked, complement, value) read by the tricks,
the scoring and the round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.core.base import ROLES, Deal, RoundSetup
from engine.core.cards import (
    CARDS,
    COLOURS,
    FAMILIES,
    ORDER_KEY,
    numbered_deck,
)
from engine.core.errors import FieldError, InvalidInput
from engine.core.rng import Rng
from engine.core.texts import Said, say, text
from engine.core.tricks import check_players, check_seat
from engine.numwars import texts as T
from engine.numwars.texts import OUTCOME_WORDS, ROLE_WORDS

RULESET_ID = "numwars"
MIN_PLAYERS = 3
MAX_PLAYERS = 8

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

#: Whose pile the Bomb ends in after each outcome (The Bomb and the four roles: it "goes to the
#: pile of whoever captured it, or back to the poseur's pile when kept or protected"): the
#: `numx` and the Quantum are the agent's and the demineur's role cards, which never change
#: hands, and a capturing Shadow's player gives the outcome its name (the Rulings of the table).
BOMB_HOLDER: dict[str, str] = {
    "numx-capture": "agent",
    "stolen": "demineur",
    "civil-capture": "civil",
    "complice-capture": "complice",
    "protected": "poseur",
    "protected-quantum": "poseur",
    "kept": "poseur",
}
#: The roles a table needs for each outcome: its holder's and, when protected, the complice's
#: (the Joker neutralizes): with 3 players (no complice) only numx-capture, stolen and kept
#: can happen, with 4 (no civil) all but civil-capture.
OUTCOME_ROLES: dict[str, frozenset[str]] = {
    outcome: frozenset({holder, "complice"} if outcome.startswith("protected") else {holder})
    for outcome, holder in BOMB_HOLDER.items()
}

# Card classes (Card classes): kinds, trump strength, colour asked, complement.
CLASSIC, REAL, NUMX, ZERO, BOMB = 0, 1, 2, 3, 4
#: Each card's kind (CLASSIC, REAL, NUMX, ZERO, BOMB).
KIND: dict[str, int] = {}
#: Each card's trump strength (classics: -1).
STRENGTH: dict[str, int] = {}
#: The colour a card asks when it leads (None: trump); a real trump's complement is core's
#: COMPLEMENT, its value core's VALUE.
ASKED_COLOUR: dict[str, str | None] = {}
for _code, _c in CARDS.items():
    ASKED_COLOUR[_code] = _c.family if _c.family in COLOURS else None
    if _c.is_classic:
        KIND[_code] = CLASSIC
        STRENGTH[_code] = -1
    elif _c.is_real_trump:
        KIND[_code] = REAL
        STRENGTH[_code] = 2 + (_c.value or 0)
KIND.update(numx=NUMX, joker=ZERO, quantum=ZERO, bomb=BOMB)
STRENGTH.update(numx=1000, joker=1, quantum=1, bomb=0)
#: The suit a card follows in: its colour, or TRUMP for every trump (Card classes).
TRUMP = "trump"
SUIT: dict[str, str] = {code: colour or TRUMP for code, colour in ASKED_COLOUR.items()}


_ORDER_KEY = ORDER_KEY


def canon(cards: Sequence[str] | set[str]) -> list[str]:
    """Canonical order (rules/cards.md) through a local table, for the hot paths."""
    return sorted(cards, key=_ORDER_KEY)


def is_trump(card: str) -> bool:
    """Any real trump, zero-level trump or `numx` (Card classes)."""
    return KIND[card] != CLASSIC


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


def deal_round(setup: RoundSetup) -> Deal:
    """The seeded deal of `setup`, checked (rules "Set-up" 1-2, Ruling 4): the role draw
    shuffles the lot with the round's :class:`Rng` and gives ``lot[s]`` to seat ``s``; the
    rest of the deck is then shuffled and dealt in blocks, seat 0 first. Hands canonical."""
    n = setup.players
    check_players(n, MIN_PLAYERS, MAX_PLAYERS, RULESET_ID)
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


def deck_name(players: int) -> Said:
    return say(T.DECK, players=players)


def round_roles(players: int) -> Counter[str]:
    """Exactly one of each role the table has: complice with 4+, n-4 civils (Set-up 1)."""
    roles = Counter({"poseur": 1, "demineur": 1, "agent": 1})
    if players >= 4:
        roles["complice"] = 1
        roles["civil"] = players - 4
    return roles


def role_counts(roles: Counter[str]) -> list[str]:
    """A table's roles as ROLES_SET lists them: `"<count>:<role>"` each, by role (words in
    engine.numwars.texts.ROLE_COUNT_WORDS; a role not in them is said as it is)."""
    return [f"{n}:{r}" for r, n in sorted(roles.items()) if n > 0]


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
            say(T.ROLES_COUNT, players=players, count=len(roles)),
            code="bad-request",
            field=field,
        )
    for seat, role in enumerate(roles):
        if role not in ROLES:
            raise InvalidInput(
                say(T.NOT_A_ROLE, seat=seat, role=role, roles=", ".join(ROLES)),
                code="bad-request",
                field=per_seat.format(seat) if per_seat else f"{field}[{seat}]",
            )
    want = round_roles(players)
    got = Counter(str(r) for r in roles)
    if got != want:
        raise InvalidInput(
            say(T.ROLES_SET, players=players, expected=role_counts(want), got=role_counts(got)),
            code="bad-request",
            field=field,
        )


# The roles and the Bomb's fate are said in the game's words (« Complice », « Bombe
# gardée »), never as their codes, in the sentences below (engine.numwars.texts).
BOMB_OUT_OF_TABLE = text(
    "bomb-mismatch-table",
    "a {players}-player round has no {missing}: the Bomb cannot end as {outcome}",
    "une manche à {players} joueurs n’a pas de rôle {missing}\u00a0: l’issue «\u00a0{outcome}\u00a0» est "
    "impossible",
    words={"missing": ROLE_WORDS, "outcome": OUTCOME_WORDS},
)
BOMB_NOT_HELD = text(
    "bomb-mismatch-missing",
    "after {outcome} the Bomb is in the {holder}'s pile, but no pile holds it (the Bomb is "
    "always played: list it in `captured`)",
    "avec l’issue «\u00a0{outcome}\u00a0», la Bombe finit dans le tas du rôle {holder}, mais aucun tas ne "
    "la contient (la Bombe est toujours jouée\u00a0: inscris-la dans `captured`)",
    words={"holder": ROLE_WORDS, "outcome": OUTCOME_WORDS},
)
BOMB_WRONG_PILE = text(
    "bomb-mismatch",
    "after {outcome} the Bomb is in the {holder}'s pile, not in player {seat}'s (the {role})",
    "avec l’issue «\u00a0{outcome}\u00a0», la Bombe finit dans le tas du rôle {holder}, pas dans celui "
    "du joueur {seat} (rôle {role})",
    words={"holder": ROLE_WORDS, "role": ROLE_WORDS, "outcome": OUTCOME_WORDS},
)


def check_bomb(roles: Sequence[str], bombs: Sequence[int], outcome: str) -> None:
    """The Bomb's outcome against the piles (The Bomb and the four roles): the table has the
    roles the outcome needs, and the Bomb is in exactly the pile the outcome sends it to.

    `roles` are the seats' checked roles, `bombs` the seats whose `captured` lists the Bomb
    (check_cards allows it once); a refusal (`bomb-mismatch`) names `bomb_outcome` and the
    pile(s) concerned."""
    players = len(roles)
    missing = sorted(OUTCOME_ROLES[outcome] - set(roles))
    if missing:  # the complice (3 players) or a civil (3 or 4): one role at most
        message = say(BOMB_OUT_OF_TABLE, players=players, missing=missing[0], outcome=outcome)
        raise _bomb_error(message, [])
    holder = BOMB_HOLDER[outcome]
    if not bombs:
        message = say(BOMB_NOT_HELD, outcome=outcome, holder=holder)
        raise _bomb_error(message, [s for s, role in enumerate(roles) if role == holder])
    seat = bombs[0]
    if roles[seat] != holder:
        message = say(BOMB_WRONG_PILE, outcome=outcome, holder=holder, seat=seat, role=roles[seat])
        raise _bomb_error(message, [seat])


def _bomb_error(message: Said, seats: Sequence[int]) -> InvalidInput:
    error = InvalidInput(message, code="bomb-mismatch")
    fields = ["bomb_outcome", *(f"players[{s}].captured" for s in seats)]
    error.errors = [FieldError(f, message) for f in fields]
    return error


#: The cards of each format's playable deck (Deck; with 3 players no Joker, Set-up 1). Every
#: card is in it once, so a request's cards pass check_cards exactly when they are all in it
#: and all distinct.
PLAYABLE_SETS: dict[int, frozenset[str]] = {n: frozenset(playable_deck(n)) for n in FORMATS}
