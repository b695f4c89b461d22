"""Card codes (rules/cards.md): parsing, canonical order, deck checks.

A card is its lower-case string code everywhere in the engine (``"red-12"``, ``"joker"``).
Facts about a code are looked up once in a table of :class:`CardInfo`; copies of the same
card (two Jokers, two Flashes) are equal strings, so hands and piles are multisets of codes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated

import msgspec

from engine.core.errors import InvalidInput
from engine.core.texts import Message, Said, Text, say, text

COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow")
TRUMP_FAMILIES: tuple[str, ...] = ("rainbow", "shadow")
FAMILIES: tuple[str, ...] = COLOURS + TRUMP_FAMILIES
SPECIALS: tuple[str, ...] = (
    "numx",
    "infinity",
    "flash",
    "joker",
    "bomb",
    "quantum",
    "swipe",
    "flip",
    "malus-0",
    "malus-1",
    "malus-2",
)
MAX_VALUE = 16

#: Regular expression of a well-formed card code, used in the OpenAPI spec too.
CARD_PATTERN = (
    r"^((red|blue|green|yellow|rainbow|shadow)-(0|[1-9][0-9]{0,2})"
    r"|numx|infinity|flash|joker|bomb|quantum|swipe|flip|malus-[012])$"
)
_CARD_RE = re.compile(CARD_PATTERN)

#: A card code as a field type. Decoding does not run the pattern (the engine checks every
#: card against its deck and names a bad one precisely); JSON schemas still show it.
CardCode = Annotated[
    str,
    msgspec.Meta(
        description="a card code: a colour (red, blue, green, yellow, rainbow, shadow), a dash "
        "and a value without leading zeros, or a special card's name; e.g. red-7, shadow-12, joker",
        examples=["red-7", "shadow-12", "joker"],
        extra_json_schema={"pattern": CARD_PATTERN},
    ),
]


@dataclass(frozen=True, slots=True)
class CardInfo:
    code: str
    family: str  # a colour, "rainbow", "shadow", or "special"
    value: int | None  # None for cards without a value (specials)
    order: int  # canonical sort key (rules/cards.md)

    @property
    def is_classic(self) -> bool:
        return self.family in COLOURS

    @property
    def is_real_trump(self) -> bool:
        return self.family == "rainbow" or self.family == "shadow"

    @property
    def is_numbered(self) -> bool:
        return self.value is not None


def _build_table() -> dict[str, CardInfo]:
    table: dict[str, CardInfo] = {}
    for f, family in enumerate(FAMILIES):
        for value in range(MAX_VALUE + 1):
            code = f"{family}-{value}"
            table[code] = CardInfo(code, family, value, f * 100 + value)
    for s, code in enumerate(SPECIALS):
        table[code] = CardInfo(code, "special", None, 1000 + s)
    return table


CARDS: dict[str, CardInfo] = _build_table()

#: The card facts every game reads, as flat tables built once from :data:`CARDS` (the one
#: place they come from; a game's own tables are built from these):
#: each code's canonical rank (rules/cards.md "Canonical order"), as a table and a sort key;
ORDER: dict[str, int] = {code: c.order for code, c in CARDS.items()}
ORDER_KEY = ORDER.__getitem__
#: each numbered card's value;
VALUE: dict[str, int] = {code: c.value for code, c in CARDS.items() if c.value is not None}
#: each real trump's complement, ``rainbow-X`` ⇄ ``shadow-X`` (rules/cards.md "Pairs").
COMPLEMENT: dict[str, str] = {
    code: ("shadow-" if c.family == "rainbow" else "rainbow-") + str(c.value)
    for code, c in CARDS.items()
    if c.is_real_trump
}


#: Each card code as a sentence says it, in the app's words (« Rouge 1 », « Rainbow 7 »,
#: « Joker », "Red 1"): the words of a refusal's `{card}`, `{follow}`, `{legal}` … parameters,
#: so a player never reads a raw code or a Python-quoted one. Words, not sentences: not in the
#: catalogue.
_FAMILY_WORDS = {
    "red": ("Red", "Rouge"),
    "blue": ("Blue", "Bleu"),
    "green": ("Green", "Vert"),
    "yellow": ("Yellow", "Jaune"),
    "rainbow": ("Rainbow", "Rainbow"),
    "shadow": ("Shadow", "Shadow"),
}
_SPECIAL_WORDS = {
    "numx": ("Num-X", "Num-X"),
    "infinity": ("Infinity", "Infini"),
    "flash": ("Flash", "Flash"),
    "joker": ("Joker", "Joker"),
    "bomb": ("Bomb", "Bombe"),
    "quantum": ("Quantum", "Quantique"),
    "swipe": ("Swipe", "Swipe"),
    "flip": ("Flip", "Flip"),
    "malus-0": ("Malus 0", "Malus 0"),
    "malus-1": ("Malus 1", "Malus 1"),
    "malus-2": ("Malus 2", "Malus 2"),
}


def _card_word(c: CardInfo) -> Text:
    if c.family == "special":
        en, fr = _SPECIAL_WORDS[c.code]
    else:
        en, fr = (f"{word} {c.value}" for word in _FAMILY_WORDS[c.family])
    return Text(f"card-{c.code}", en, fr)


CARD_WORDS: dict[str, Text] = {code: _card_word(c) for code, c in CARDS.items()}


def card_words(params: Iterable[str]) -> dict[str, Mapping[str, Text]]:
    """The `words` of a text whose parameters `params` are card codes or lists of them."""
    return dict.fromkeys(params, CARD_WORDS)


NO_SUCH_CARD = text(
    "no-such-card",
    "card {card} does not exist (values run from 0 to {high})",
    "la carte {card} n’existe pas (les valeurs vont de 0 à {high})",
)
NOT_A_CARD = text(
    "not-a-card",
    "{card} is not a card code (expected e.g. 'red-7', 'shadow-12', 'joker')",
    "{card} n’est pas un code de carte (par exemple «\u00a0red-7\u00a0», «\u00a0shadow-12\u00a0», «\u00a0joker\u00a0»)",
)
NOT_IN_DECK = text(
    "card-not-in-deck", "card {card!r} is not in {deck}", "la carte {card!r} n’est pas dans {deck}"
)
TOO_MANY_COPIES = text(
    "duplicate-card",
    "card {card!r} appears more often than {deck} holds it ({copies})",
    "la carte {card!r} apparaît plus souvent que {deck} ne la contient ({copies})",
)
ONCE = text("once", "once", "une fois")
TIMES = text("times", "{count} times", "{count} fois")


def info(code: str) -> CardInfo:
    """The facts of a card code; :class:`InvalidInput` for a code no deck holds."""
    try:
        return CARDS[code]
    except (KeyError, TypeError):
        raise InvalidInput(_unknown_message(code), code="unknown-card") from None


#: How many characters of a bad value a message quotes (a 60 KB "card" is not echoed whole).
QUOTE_LIMIT = 40


def quoted(value: object) -> str:
    """A bad value as a message quotes it: a string in quotes cut to `QUOTE_LIMIT` characters
    with "…", anything else named by its JSON kind (never a Python repr)."""
    if isinstance(value, str):
        return repr(value if len(value) <= QUOTE_LIMIT else value[:QUOTE_LIMIT] + "…")
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    return "a list" if isinstance(value, list | tuple) else "an object"


def quoted_cards(cards: Sequence[object]) -> str:
    """A list of bad cards as a message quotes it: each one `quoted`, at most four."""
    shown = ", ".join(quoted(card) for card in cards[:4])
    return (shown + ", …" if len(cards) > 4 else shown) or "no card"


def _unknown_message(code: object) -> Said:
    if isinstance(code, str) and _CARD_RE.match(code):
        return say(NO_SUCH_CARD, card=quoted(code), high=MAX_VALUE)
    return say(NOT_A_CARD, card=quoted(code))


def is_well_formed(code: str) -> bool:
    return bool(_CARD_RE.match(code))


def value(code: str) -> int:
    v = CARDS[code].value
    assert v is not None, code
    return v


def sort_key(code: str) -> int:
    return ORDER[code]


def canonical(cards: Iterable[str]) -> list[str]:
    """Cards in canonical order: colours, Rainbow, Shadow by value, then the specials."""
    return sorted(cards, key=ORDER_KEY)


def complement(code: str) -> str | None:
    """``shadow-X`` for ``rainbow-X`` and the reverse; None for any other card."""
    return COMPLEMENT.get(code)


def numbered_deck(families: Sequence[str], low: int, high: int) -> list[str]:
    return [f"{family}-{v}" for family in families for v in range(low, high + 1)]


def check_cards(
    deck: Mapping[str, int],
    groups: Sequence[tuple[str, Sequence[object]]],
    *,
    deck_name: Message,
) -> None:
    """Check every card of every ``(field, cards)`` group against ``deck`` (card → copies).

    Raises :class:`InvalidInput` naming the first bad card: not a card code, not in this
    deck (``deck_name`` says which, e.g. "the 4-player numwars deck"), or more copies across
    all groups than the deck holds (rules/cards.md: a unique card at most once per request).
    The common, valid case takes one dictionary look-up per card; the error path then walks
    the groups again to name the culprit.
    """
    seen: dict[object, int] = {}
    copies = deck.get
    try:
        for _, cards in groups:
            for card in cards:
                n = seen.get(card, 0) + 1
                if n > copies(card, 0):  # type: ignore[call-overload]
                    _raise_card_error(deck, groups, deck_name)
                seen[card] = n
    except TypeError:  # an unhashable "card"
        _raise_card_error(deck, groups, deck_name)


def check_action_cards(deck: Mapping[str, int], action: object, *, deck_name: Message) -> None:
    """Refuse an action naming a card outside `deck` (card → copies), as everywhere in the
    API: `InvalidInput` `unknown-card` for no card at all, `card-not-in-deck` for a card of
    another deck (a round would only say the seat does not hold it: `card-not-in-hand`),
    `duplicate-card` for more copies than the deck holds; the field is `card` for an
    action's one card, `cards[i]` for one of its list."""
    groups: list[tuple[str, Sequence[object]]] = []
    card = getattr(action, "card", None)
    if card is not None:
        groups.append(("card", [card]))
    cards = getattr(action, "cards", None)
    if cards is not None:
        groups.append(("cards", cards))
    if not groups:
        return
    try:
        check_cards(deck, groups, deck_name=deck_name)
    except InvalidInput as exc:
        if [e.field for e in exc.errors] == ["card[0]"]:  # one card: its field is `card`
            raise InvalidInput(exc.said, code=exc.code, field="card") from None
        raise


def _raise_card_error(
    deck: Mapping[str, int], groups: Sequence[tuple[str, Sequence[object]]], deck_name: Message
) -> None:
    """Every bad card of the groups at once (each card is checked on its own: a copy too
    many is named where it appears)."""
    seen: Counter[str] = Counter()
    found: list[InvalidInput] = []
    for field, cards in groups:
        for i, card in enumerate(cards):
            where = f"{field}[{i}]"
            if not isinstance(card, str) or card not in CARDS:
                found.append(InvalidInput(_unknown_message(card), code="unknown-card", field=where))
                continue
            if card not in deck:
                found.append(
                    InvalidInput(
                        say(NOT_IN_DECK, card=card, deck=deck_name),
                        code="card-not-in-deck",
                        field=where,
                    )
                )
                continue
            seen[card] += 1
            if seen[card] > deck[card]:
                copies = say(ONCE) if deck[card] == 1 else say(TIMES, count=deck[card])
                found.append(
                    InvalidInput(
                        say(TOO_MANY_COPIES, card=card, deck=deck_name, copies=copies),
                        code="duplicate-card",
                        field=where,
                    )
                )
    if found:
        raise InvalidInput.every(found)
