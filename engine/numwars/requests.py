"""numwars' request bodies: the stateless operations' (api-contract.md, "Stateless rules
endpoints") and the score sheet's round body, as strict bounded structs (engine/core/requests.py
says how they are bounded)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from engine.core.base import BOMB_OUTCOMES, Role, TrickCard
from engine.core.requests import (
    DEALER_DOC,
    MAX_SEATS,
    PAIR,
    SHEET_OPTIONS_DOC,
    TRICK,
    Dealer,
    NotDeclared,
    Request,
    RoundBody,
    Seat,
    Seed,
    card,
    cards,
    deck_players,
    pairs,
    players_range,
)
from engine.numwars.cards import BOMB_HOLDER, BONUSES, FORMATS, OUTCOME_ROLES, round_roles
from engine.numwars.options import NumWarsOptions
from engine.numwars.rules import NumWars
from engine.numwars.scoring import NumWarsPile

NumWarsCard = Annotated[str, card(NumWars)]
NumWarsPlayers = Annotated[int, players_range(NumWars)]
#: What each outcome means (rules/numwars.md, "Fate of the Bomb", first row that applies).
OUTCOME_MEANINGS = {
    "numx-capture": "the `numx` is in the Bomb's trick, or the Shadow that captures the Bomb is "
    "the agent's",
    "stolen": "the `quantum` remains a threat (it takes the Bomb before any Shadow), or the "
    "capturing Shadow is the demineur's",
    "civil-capture": "the capturing Shadow (the highest one left) is a civil's",
    "complice-capture": "the capturing Shadow is the complice's",
    "protected": "no threat left: the complice's Joker neutralized a Shadow",
    "protected-quantum": "no threat left: the Joker neutralized the Quantum (the demineur takes "
    "the Joker)",
    "kept": "no threat at all (the Bomb alone, with Rainbows, classic cards, the Joker)",
}


def _outcome_line(outcome: str) -> str:
    """One outcome: its meaning, the tables that can have it, the bonuses, the Bomb's pile."""
    sizes = [n for n in FORMATS if OUTCOME_ROLES[outcome] <= set(+round_roles(n))]
    bonuses = ", ".join(
        f"{'every civil' if role == 'civil' else role} {points:+d}".replace("-", "\u2212")
        for role, points in BONUSES[outcome].items()
    )
    holder = BOMB_HOLDER[outcome]
    pile = "back to the poseur's pile" if holder == "poseur" else f"to the {holder}'s pile"
    return (
        f"- `{outcome}`: {OUTCOME_MEANINGS[outcome]}. {sizes[0]}-{sizes[-1]} players. "
        f"Bonuses: {bonuses}. The Bomb goes {pile}."
    )


OUTCOME_DOC = (
    'The fate of the Bomb (Num Wars rules, "The Bomb and the four roles"), the first that '
    "applies:\n"
    + "\n".join(_outcome_line(o) for o in BOMB_OUTCOMES)
    + "\n\nRoles by table: 3 players, poseur, demineur and agent (the Joker is out); 4, the "
    "complice too; 5 to 8, one to four civils too. An outcome the table's roles cannot give, "
    "or the `bomb` card in another `captured` pile than the one the outcome sends it to (or in "
    "none: it is always played), is refused (422 `bomb-mismatch`, naming `bomb_outcome` and "
    "the piles concerned)."
)
#: The request's outcome: core's enum (engine.core.base.BombOutcome) with its meanings.
DocumentedBombOutcome = Annotated[
    str, msgspec.Meta(description=OUTCOME_DOC, extra_json_schema={"enum": list(BOMB_OUTCOMES)})
]


class NumWarsDeckQuery(msgspec.Struct, frozen=True, kw_only=True):
    players: Annotated[int, deck_players(NumWars)]


class NumWarsTrickCard(TrickCard, frozen=True, forbid_unknown_fields=True):
    seat: Seat
    card: NumWarsCard
    declared: NotDeclared = None


class NumWarsOptionsInput(NumWarsOptions, frozen=True, kw_only=True, forbid_unknown_fields=True):
    exchange: Annotated[
        int, msgspec.Meta(ge=0, le=5, description="cards each player passes right (0-5)")
    ] = 0


class NumWarsPileInput(NumWarsPile, frozen=True, kw_only=True, forbid_unknown_fields=True):
    captured: Annotated[
        list[NumWarsCard], cards(NumWars, "every card won, except pairs captured as pairs")
    ]
    pairs: Annotated[
        list[Annotated[list[NumWarsCard], PAIR]],
        pairs(NumWars, "trump pairs captured as pairs: rainbow-X with shadow-X"),
    ] = msgspec.field(default_factory=list)
    role: Role


class NumWarsDealRequest(Request, frozen=True):
    players: NumWarsPlayers
    seed: Seed
    options: NumWarsOptionsInput = NumWarsOptionsInput()


class NumWarsHandRequest(Request, frozen=True):
    players: NumWarsPlayers
    hand: Annotated[list[NumWarsCard], cards(NumWars, "the player's hand")]
    trick: Annotated[list[NumWarsTrickCard], TRICK] = []  # noqa: RUF012 (a msgspec default: copied)


class NumWarsMoveRequest(NumWarsHandRequest, frozen=True, kw_only=True):
    card: NumWarsCard


class NumWarsTrickRequest(Request, frozen=True):
    players: NumWarsPlayers
    trick: Annotated[list[NumWarsTrickCard], TRICK]
    roles: (
        Annotated[
            list[Role],
            msgspec.Meta(
                max_length=MAX_SEATS, description="role by seat; required when the Bomb is played"
            ),
        ]
        | None
    ) = None
    joker_neutralizes: bool = True  # the complice's choice when Bomb + Joker + a threat


class NumWarsScoreRequest(Request, frozen=True):
    players: Annotated[
        list[NumWarsPileInput],
        msgspec.Meta(min_length=3, max_length=MAX_SEATS, description="the whole table, 3-8"),
    ]
    bomb_outcome: DocumentedBombOutcome


class NumWarsRoundIn(RoundBody, frozen=True, kw_only=True):
    players: Annotated[
        list[NumWarsPileInput],
        msgspec.Meta(min_length=3, max_length=MAX_SEATS, description="the whole table, 3-8"),
    ]
    bomb_outcome: DocumentedBombOutcome
    options: Annotated[NumWarsOptionsInput, msgspec.Meta(description=SHEET_OPTIONS_DOC)] | None = (
        None
    )
    dealer: Annotated[Dealer, msgspec.Meta(description=DEALER_DOC)] = None
