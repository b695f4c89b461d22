"""What numwars declares to the API (engine/core/spec.py): `SPEC`, listed by engine.registry."""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.base import Deal, LegalMoves, MoveCheck, RoundScore, RoundSetup, TrickResult
from engine.core.spec import (
    BAD_TRICK,
    DEAL_DOC,
    DECK_DOC,
    HAND_AND_TRICK,
    LEGAL_DOC,
    NOT_IN_DECK,
    RESOLVE_DOC,
    RESOLVE_TRICK,
    SCORE_DOC,
    VALIDATE_DOC,
    DeckOperation,
    Operation,
    RulesetSpec,
    SheetRounds,
    duplicates,
)
from engine.numwars import bots, summary
from engine.numwars.examples import EXAMPLES
from engine.numwars.requests import (
    NumWarsDealRequest,
    NumWarsDeckQuery,
    NumWarsHandRequest,
    NumWarsMoveRequest,
    NumWarsRoundIn,
    NumWarsScoreRequest,
    NumWarsTrickRequest,
)
from engine.numwars.rules import NumWars
from engine.numwars.view import View

_rules = NumWars()
_moves = (NOT_IN_DECK, HAND_AND_TRICK, BAD_TRICK)


def _round(body: NumWarsRoundIn, n: int, previous: RoundScore | None, options: Any) -> Any:
    """A sheet round is the score-round request as sent (the score-round request takes no
    options: a round's `options`, the sheet's, are checked by the API and not kept)."""
    return {"players": msgspec.to_builtins(body.players), "bomb_outcome": body.bomb_outcome}


def _role(data: dict[str, Any], seat: int) -> str:
    role: str = data["players"][seat]["role"]
    return role


SPEC = RulesetSpec(
    rules=NumWars,
    names={"en": "Num Wars", "fr": "Num Wars"},
    view=View,
    view_component="NumWarsView",
    actions=("play", "pass", "exchange", "neutralize"),
    phases=(
        "exchange",
        "play",
        "neutralize",
        "over",
    ),  # the kernel's Phase (tests/engine/test_registry.py)
    lowest_wins=False,
    community=False,
    deck=DeckOperation(
        query=NumWarsDeckQuery,
        call=lambda q: NumWars().deck(q.players),
        description=DECK_DOC,
    ),
    operations=(
        Operation(
            path="deal",
            request=NumWarsDealRequest,
            answer=Deal,
            call=lambda d: NumWars(d.options).deal(RoundSetup(players=d.players, seed=d.seed)),
            summary="deal a round",
            description=DEAL_DOC
            + " Adds `roles`: the secret role of each seat from the role draw.",
            section="setup",
            examples=EXAMPLES.get("deal", ()),
        ),
        Operation(
            path="legal-moves",
            request=NumWarsHandRequest,
            answer=LegalMoves,
            call=lambda d: _rules.legal_moves(d.players, d.hand, d.trick),
            summary="legal moves",
            description=LEGAL_DOC,
            section="turn",
            refusals=_moves,
            examples=EXAMPLES.get("legal-moves", ()),
        ),
        Operation(
            path="validate-move",
            request=NumWarsMoveRequest,
            answer=MoveCheck,
            call=lambda d: _rules.validate_move(d.players, d.hand, d.trick, d.card),
            call_in=lambda d, language: _rules.validate_move(
                d.players, d.hand, d.trick, d.card, language
            ),
            summary="validate a move",
            description=VALIDATE_DOC
            + " Reasons: `card-not-in-hand`, `special-lead`, `must-follow-color`, "
            "`must-play-trump`, `must-raise`.",
            section="turn",
            refusals=_moves,
            examples=EXAMPLES.get("validate-move", ()),
        ),
        Operation(
            path="resolve-trick",
            request=NumWarsTrickRequest,
            answer=TrickResult,
            call=lambda d: _rules.resolve_trick(d.players, d.trick, d.roles, d.joker_neutralizes),
            summary="resolve a trick",
            description=RESOLVE_DOC
            + " `bomb` tells the Bomb's fate when it is in the trick (`roles` is then required, and must agree with the role "
            "cards in the trick; `joker_neutralizes` is the complice's choice, default true).",
            section="hierarchy",
            refusals=(
                NOT_IN_DECK,
                duplicates("within the trick"),
                RESOLVE_TRICK,
                (
                    "`roles` that is not one role per seat, missing while the Bomb is in the "
                    "trick, or that disagrees with the role cards played",
                    "bad-request",
                ),
            ),
            examples=EXAMPLES.get("resolve-trick", ()),
        ),
        Operation(
            path="score-round",
            request=NumWarsScoreRequest,
            answer=RoundScore,
            call=lambda d: _rules.score_round(d.players, d.bomb_outcome),
            summary="score a round",
            description=SCORE_DOC
            + " The whole table (3–8 players) with each role and the Bomb's outcome; `captured` "
            "holds every card won except the trump pairs captured as pairs, listed in `pairs`.",
            section="scoring",
            refusals=(
                ("a card outside the deck of that table size", "card-not-in-deck"),
                duplicates("across every `captured` and `pairs`"),
                (
                    "roles that are not exactly the roles of that table size (one of each), or "
                    "a pair that is not rainbow-X with shadow-X",
                    "bad-request",
                ),
                (
                    "a `bomb_outcome` the table's roles cannot give, or the `bomb` card in no "
                    "pile or in another than the one the outcome sends it to",
                    "bomb-mismatch",
                ),
            ),
            examples=EXAMPLES.get("score-round", ()),
        ),
    ),
    sheet=SheetRounds(body=NumWarsRoundIn, complete=_round, role=_role),
    summary=summary.TEXT,
    bots=bots.BOTS,
    notes=summary.NOTES,
)
