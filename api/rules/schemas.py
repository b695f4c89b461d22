"""Request bodies of the public API (api-contract.md), as strict msgspec structs.

Responses are the engine's own result structs (engine/base.py). Requests reuse the engine's
input structs (piles, bids, options, trick cards) through subclasses that only tighten their
annotations, so that the spec states exactly what the server takes:

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

from engine.core.base import TrickCard
from engine.core.cards import canonical
from engine.numking import NumKing, NumKingBid, NumKingOptions
from engine.numking.cards import MAX_STREAK
from engine.numwars import NumWarsOptions, NumWarsPile
from engine.numwars.cards import BOMB_OUTCOMES, ROLES
from engine.numwars_classic import ClassicOptions, ClassicPile
from engine.numwin import NumWinHand, NumWinOptions
from engine.numwin.cards import MAX_COMBINATION, TARGET_SIZE
from engine.numwin.rules import MAX_TURNS
from engine.registry import RULESETS

#: Seeds are 63-bit, as the contract fixes them for stored games (0 <= seed < 2^63).
MAX_SEED = 2**63 - 1
#: The most seats at any table (every ruleset: 8 players).
MAX_SEATS = max(cls.max_players for cls in RULESETS.values())
#: numking: the most cards per player that score-round takes (k_max of the smallest table,
#: 36 // 2, as the engine scores it); `round` of a deal reaches 19 with `zeros` at 2 players.
NUMKING_MAX_CARDS = NumKing().k_max(NumKing.min_players)
NUMKING_MAX_ROUND = NumKing(NumKingOptions(zeros=True)).k_max(NumKing.min_players)


@cache
def deck_codes(ruleset_id: str) -> tuple[tuple[str, ...], int, int]:
    """Every card code a ruleset's stateless endpoints take, the largest deck's size and the
    most copies of one card: the one place the spec learns a ruleset's cards.

    Asks the engine for the deck of every player count with the default options, as those
    endpoints use them (none of the card-carrying requests takes a deck option: numking's
    `zeros` cards are not among its codes), so it follows the engine's decks as they change.
    """
    cls = RULESETS[ruleset_id]
    rules = cls()
    codes: dict[str, None] = {}
    largest = copies = 0
    for players in range(cls.min_players, cls.max_players + 1):
        cards = rules.deck(players).cards
        codes.update(dict.fromkeys(cards))
        largest = max(largest, len(cards))
        copies = max(copies, *Counter(cards).values())
    return tuple(canonical(codes)), largest, copies


def _card(ruleset_id: str) -> msgspec.Meta:
    codes, _, _ = deck_codes(ruleset_id)
    return msgspec.Meta(
        description=f"a card code of the {ruleset_id} deck (rules/cards.md)",
        extra_json_schema={"enum": list(codes)},
    )


def _cards(ruleset_id: str, what: str) -> msgspec.Meta:
    """A list of card codes: at most the largest deck; without repeats when no card has two
    copies (numwars)."""
    _, largest, copies = deck_codes(ruleset_id)
    extra: dict[str, Any] = {"uniqueItems": True} if copies == 1 else {}
    return msgspec.Meta(max_length=largest, description=what, extra_json_schema=extra or None)


def _pairs(ruleset_id: str, what: str) -> msgspec.Meta:
    _, largest, _ = deck_codes(ruleset_id)
    return msgspec.Meta(max_length=largest // 2, description=what)


PAIR = msgspec.Meta(min_length=2, max_length=2, description="two card codes")

NumWarsCard = Annotated[str, _card("numwars")]
ClassicCard = Annotated[str, _card("numwars-classic")]
NumKingCard = Annotated[str, _card("numking")]
NumWinCard = Annotated[str, _card("numwin")]

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


def players_range(ruleset_id: str) -> msgspec.Meta:
    cls = RULESETS[ruleset_id]
    low, high = cls.min_players, cls.max_players
    return msgspec.Meta(ge=low, le=high, description=f"number of players ({low}-{high})")


NumWarsPlayers = Annotated[int, players_range("numwars")]
ClassicPlayers = Annotated[int, players_range("numwars-classic")]
NumKingPlayers = Annotated[int, players_range("numking")]
NumWinPlayers = Annotated[int, players_range("numwin")]
NotDeclared = Annotated[None, msgspec.Meta(description="only numking's infinity declares 17 or 0")]


class Request(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


# --- engine input structs, bounded -------------------------------------------------------------


class NumWarsTrickCard(TrickCard, frozen=True, forbid_unknown_fields=True):
    seat: Seat
    card: NumWarsCard
    declared: NotDeclared = None


class ClassicTrickCard(TrickCard, frozen=True, forbid_unknown_fields=True):
    seat: Seat
    card: ClassicCard
    declared: NotDeclared = None


#: numking's `infinity` declaration: 17 or 0, required on `infinity` only.
Declared = (
    Annotated[
        int,
        msgspec.Meta(
            description="infinity only, and then required: 17 or 0",
            extra_json_schema={"enum": [17, 0]},
        ),
    ]
    | None
)


class NumKingTrickCard(TrickCard, frozen=True, forbid_unknown_fields=True):
    seat: Seat
    card: NumKingCard
    declared: Declared = None


class NumWarsOptionsInput(NumWarsOptions, frozen=True, kw_only=True, forbid_unknown_fields=True):
    exchange: Annotated[
        int, msgspec.Meta(ge=0, le=5, description="cards each player passes right (0-5)")
    ] = 0


@cache
def _numking_deck_rules(zeros: bool) -> NumKing:
    """The two rules objects the trick and scoring endpoints need, built once."""
    return NumKing(NumKingOptions(zeros=zeros))


class NumKingDeckInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The one numking option that changes the deck, for the trick and scoring endpoints."""

    zeros: bool = msgspec.field(default=False)

    def rules(self) -> NumKing:
        return _numking_deck_rules(self.zeros)


class NumKingOptionsInput(NumKingOptions, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max_cards: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=NUMKING_MAX_ROUND,
                description="last round's hand size (default: the most the deck allows)",
            ),
        ]
        | None
    ) = None
    first_bidder: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEATS - 1)] = 0


class NumWinOptionsInput(NumWinOptions, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max_turns: Annotated[
        int, msgspec.Meta(ge=0, le=MAX_TURNS, description="end the round after this many turns")
    ] = 0


class NumWarsPileInput(NumWarsPile, frozen=True, kw_only=True, forbid_unknown_fields=True):
    captured: Annotated[
        list[NumWarsCard], _cards("numwars", "every card won, except pairs captured as pairs")
    ]
    pairs: Annotated[
        list[Annotated[list[NumWarsCard], PAIR]],
        _pairs("numwars", "trump pairs captured as pairs: rainbow-X with shadow-X"),
    ] = msgspec.field(default_factory=list)
    role: Annotated[str, msgspec.Meta(extra_json_schema={"enum": list(ROLES)})]


class ClassicPileInput(ClassicPile, frozen=True, kw_only=True, forbid_unknown_fields=True):
    captured: Annotated[list[ClassicCard], _cards("numwars-classic", "every card won")]


class NumKingBidInput(NumKingBid, frozen=True, kw_only=True, forbid_unknown_fields=True):
    bid: Annotated[int, msgspec.Meta(ge=0, le=NUMKING_MAX_ROUND, description="at most `cards`")]
    tricks: Annotated[
        int, msgspec.Meta(ge=0, le=NUMKING_MAX_ROUND, description="tricks taken, at most `cards`")
    ]
    streak: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=MAX_STREAK,
            description=f"rounds in a row with the bid met before this one (a match has at "
            f"most {MAX_STREAK + 1} rounds)",
        ),
    ] = 0


class NumWinHandInput(NumWinHand, frozen=True, kw_only=True, forbid_unknown_fields=True):
    combination: Annotated[
        list[NumWinCard],
        msgspec.Meta(
            max_length=MAX_COMBINATION, description="the final combination, locked pairs apart"
        ),
    ]
    locked: Annotated[list[Annotated[list[NumWinCard], PAIR]], _pairs("numwin", "locked pairs")] = (
        msgspec.field(default_factory=list)
    )


# --- deal -----------------------------------------------------------------------------------


class NumWarsDealRequest(Request, frozen=True):
    players: NumWarsPlayers
    seed: Seed
    options: NumWarsOptionsInput = NumWarsOptionsInput()


class ClassicDealRequest(Request, frozen=True):
    players: ClassicPlayers
    seed: Seed
    options: ClassicOptions = ClassicOptions()


class NumKingDealRequest(Request, frozen=True):
    players: NumKingPlayers
    seed: Seed
    options: NumKingOptionsInput = NumKingOptionsInput()
    round: Annotated[
        int, msgspec.Meta(ge=1, le=NUMKING_MAX_ROUND, description="cards per player (round k)")
    ] = 1
    first_bidder: Seat | None = None  # the leader; default options.first_bidder


class NumWinDealRequest(Request, frozen=True):
    players: NumWinPlayers
    seed: Seed
    options: NumWinOptionsInput = NumWinOptionsInput()


# --- legal-moves, validate-move, resolve-trick -----------------------------------------------


class NumWarsHandRequest(Request, frozen=True):
    players: NumWarsPlayers
    hand: Annotated[list[NumWarsCard], _cards("numwars", "the player's hand")]
    trick: Annotated[list[NumWarsTrickCard], TRICK] = []


class ClassicHandRequest(Request, frozen=True):
    players: ClassicPlayers
    hand: Annotated[list[ClassicCard], _cards("numwars-classic", "the player's hand")]
    trick: Annotated[list[ClassicTrickCard], TRICK] = []


class NumKingHandRequest(Request, frozen=True):
    players: NumKingPlayers
    hand: Annotated[list[NumKingCard], _cards("numking", "the player's hand")]
    trick: Annotated[list[NumKingTrickCard], TRICK] = []
    options: NumKingDeckInput = NumKingDeckInput()


class NumWarsMoveRequest(NumWarsHandRequest, frozen=True, kw_only=True):
    card: NumWarsCard


class ClassicMoveRequest(ClassicHandRequest, frozen=True, kw_only=True):
    card: ClassicCard


class NumKingMoveRequest(NumKingHandRequest, frozen=True, kw_only=True):
    card: NumKingCard
    declared: Declared = None


class NumWarsTrickRequest(Request, frozen=True):
    players: NumWarsPlayers
    trick: Annotated[list[NumWarsTrickCard], TRICK]
    roles: (
        Annotated[
            list[Annotated[str, msgspec.Meta(extra_json_schema={"enum": list(ROLES)})]],
            msgspec.Meta(
                max_length=MAX_SEATS, description="role by seat; required when the Bomb is played"
            ),
        ]
        | None
    ) = None
    joker_neutralizes: bool = True  # the complice's choice when Bomb + Joker + a threat


class ClassicTrickRequest(Request, frozen=True):
    players: ClassicPlayers
    trick: Annotated[list[ClassicTrickCard], TRICK]


class NumKingTrickRequest(Request, frozen=True):
    players: NumKingPlayers
    trick: Annotated[list[NumKingTrickCard], TRICK]
    options: NumKingDeckInput = NumKingDeckInput()


# --- score-round ------------------------------------------------------------------------------


class NumWarsScoreRequest(Request, frozen=True):
    players: Annotated[
        list[NumWarsPileInput],
        msgspec.Meta(min_length=3, max_length=MAX_SEATS, description="the whole table, 3-8"),
    ]
    bomb_outcome: Annotated[str, msgspec.Meta(extra_json_schema={"enum": list(BOMB_OUTCOMES)})]


class ClassicScoreRequest(Request, frozen=True):
    players: Annotated[list[ClassicPileInput], PLAYERS]
    options: ClassicOptions = ClassicOptions()


class NumKingScoreRequest(Request, frozen=True):
    cards: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=NUMKING_MAX_ROUND,
            description="cards per player this round (19 at most: two players with `zeros`)",
        ),
    ]
    players: Annotated[list[NumKingBidInput], PLAYERS]
    options: NumKingDeckInput = NumKingDeckInput()


def _at_least(cards: int) -> msgspec.Meta:
    """numwin: a final combination holds at least `cards` cards counting both lists, a locked
    pair counting two (api-contract), stated as the alternatives JSON Schema can check."""
    return msgspec.Meta(
        extra_json_schema={
            "anyOf": [
                {
                    "properties": {
                        "combination": {"minItems": max(0, cards - 2 * pairs)},
                        "locked": {"minItems": pairs},
                    },
                    **({"required": ["locked"]} if pairs else {}),
                }
                for pairs in range((cards + 1) // 2 + 1)
            ]
        }
    )


class NumWinScoreRequest(Request, frozen=True):
    players: Annotated[list[Annotated[NumWinHandInput, _at_least(TARGET_SIZE)]], PLAYERS]
    caller: Seat | None = None
    options: NumWinOptionsInput = NumWinOptionsInput()


# --- catalogue --------------------------------------------------------------------------------


class PlayerRange(msgspec.Struct, frozen=True):
    min: int
    max: int


class RulesetInfo(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    id: str
    name: str
    players: PlayerRange
    options: dict[str, object]
    rules_version: int  # engine.core.match "Rules versions": what a stored game is replayed by
    description: str | None = None
    summary: dict[str, str] | None = None
    language: str | None = None


class Catalogue(msgspec.Struct, frozen=True):
    rulesets: list[RulesetInfo]


class Health(msgspec.Struct, frozen=True):
    status: str
