"""The shared pieces of the stateless endpoints' request bodies (api-contract.md), as strict
msgspec structs; each game's own requests are in its folder (`engine/<game>/requests.py`).

Responses are the engine's own result structs (engine/core/base.py). Requests reuse the
engine's input structs (piles, bids, options, trick cards) through subclasses that only
tighten their annotations, so that the spec states exactly what the server takes:

- every integer is bounded by what the rules allow (seats 0-7, player counts by ruleset,
  numking's `cards` and `streak`, seeds below 2^63 as stored games' seeds);
- every list is bounded by the deck (`maxItems`), every closed set of strings is an enum
  (roles, Bomb outcomes), and every card field lists exactly that ruleset's card codes;
- unknown fields are refused (`forbid_unknown_fields`, `additionalProperties: false`).

Card codes, roles and outcomes stay plain strings when decoding (their enums are schema-only):
the engine checks them against the deck of that player count and names a bad one precisely
(`unknown-card`, `card-not-in-deck` …), which a decoder's "invalid enum value" would not.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Annotated, Any

import msgspec

from engine.core.cards import canonical

#: Seeds are 63-bit, as the contract fixes them for stored games (0 <= seed < 2^63).
MAX_SEED = 2**63 - 1
#: The most seats at any table (every ruleset: 8 players; the contract's seats are 0-7).
MAX_SEATS = 8


@cache
def deck_codes(rules: Any) -> tuple[tuple[str, ...], int, int]:
    """Every card code a ruleset's stateless endpoints take, the largest deck's size and the
    most copies of one card: the one place the spec learns a ruleset's cards.

    Asks the engine for the deck of every player count with the default options, as those
    endpoints use them (none of the card-carrying requests takes a deck option: numking's
    `zeros` cards are not among its codes), so it follows the engine's decks as they change.
    """
    instance = rules()
    codes: dict[str, None] = {}
    largest = copies = 0
    for players in range(rules.min_players, rules.max_players + 1):
        cards = instance.deck(players).cards
        codes.update(dict.fromkeys(cards))
        largest = max(largest, len(cards))
        copies = max(copies, *Counter(cards).values())
    return tuple(canonical(codes)), largest, copies


def card(rules: Any) -> msgspec.Meta:
    codes, _, _ = deck_codes(rules)
    return msgspec.Meta(
        description=f"a card code of the {rules.id} deck (one of `enum`)",
        extra_json_schema={"enum": list(codes)},
    )


def cards(rules: Any, what: str) -> msgspec.Meta:
    """A list of card codes: at most the largest deck; without repeats when no card has two
    copies (numwars)."""
    _, largest, copies = deck_codes(rules)
    extra: dict[str, Any] = {"uniqueItems": True} if copies == 1 else {}
    return msgspec.Meta(max_length=largest, description=what, extra_json_schema=extra or None)


def pairs(rules: Any, what: str) -> msgspec.Meta:
    _, largest, _ = deck_codes(rules)
    return msgspec.Meta(max_length=largest // 2, description=what)


def players_range(rules: type[Any]) -> msgspec.Meta:
    low, high = rules.min_players, rules.max_players
    return msgspec.Meta(ge=low, le=high, description=f"number of players ({low}-{high})")


PAIR = msgspec.Meta(min_length=2, max_length=2, description="two card codes")

Seed = Annotated[
    int,
    msgspec.Meta(
        ge=0,
        le=MAX_SEED,
        description="0 to 2^63-1, as stored games' seeds: the same seed, the same deal "
        "(JavaScript numbers are exact only up to 2^53-1: send larger seeds from a BigInt)",
    ),
]
Seat = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEATS - 1, description="a seat, 0 to n-1")]
TRICK = msgspec.Meta(
    max_length=MAX_SEATS, description="the trick so far, in play order; the first is the leader"
)
PLAYERS = msgspec.Meta(
    min_length=1, max_length=MAX_SEATS, description="one entry per player, seat = index"
)
NotDeclared = Annotated[None, msgspec.Meta(description="only numking's infinity declares 17 or 0")]


class Request(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class RoundBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A score sheet's round body: the ruleset's `score-round` request with what the sheet
    knows made optional, plus `dealer`."""


Dealer = Seat | None
DEALER_DOC = "who dealt (default: the rotation, round n dealt by seat (n-1) mod players)"
#: A sheet round's `options`: a round plays the sheet's options, so they may be echoed.
SHEET_OPTIONS_DOC = (
    "the sheet's options, if sent (as `GET` of the sheet shows them, or some of them): each "
    "option sent must be the sheet's (422 `options-mismatch` otherwise); one left out is the "
    "sheet's"
)


def at_least(count: int) -> msgspec.Meta:
    """numwin: a final combination holds at least `count` cards counting both lists, a locked
    pair counting two (api-contract), stated as the alternatives JSON Schema can check."""
    return msgspec.Meta(
        extra_json_schema={
            "anyOf": [
                {
                    "properties": {
                        "combination": {"minItems": max(0, count - 2 * n)},
                        "locked": {"minItems": n},
                    },
                    **({"required": ["locked"]} if n else {}),
                }
                for n in range((count + 1) // 2 + 1)
            ]
        }
    )


def deck_players(rules: type[Any]) -> msgspec.Meta:
    """The `players` query parameter of a deck operation."""
    return msgspec.Meta(
        ge=rules.min_players, le=rules.max_players, description="number of players at the table"
    )
