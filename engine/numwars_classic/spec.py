"""What numwars-classic declares to the API (engine/core/spec.py): `SPEC`, listed by
engine.registry."""

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
from engine.numwars_classic import bots, summary
from engine.numwars_classic.examples import EXAMPLES
from engine.numwars_classic.options import ClassicOptions
from engine.numwars_classic.requests import (
    ClassicDealRequest,
    ClassicDeckQuery,
    ClassicHandRequest,
    ClassicMoveRequest,
    ClassicRoundIn,
    ClassicScoreRequest,
    ClassicTrickRequest,
)
from engine.numwars_classic.rules import NumWarsClassic
from engine.numwars_classic.view import View

_rules = NumWarsClassic()
_moves = (HAND_AND_TRICK, BAD_TRICK)
ALLIANCE = ("`alliance` at a table of other than 4, 6 or 8 players", "bad-option")


def _round(body: ClassicRoundIn, n: int, previous: RoundScore | None, options: Any) -> Any:
    """A sheet round: the piles as sent, with the sheet's options."""
    return {"players": msgspec.to_builtins(body.players), "options": options}


SPEC = RulesetSpec(
    rules=NumWarsClassic,
    names={"en": "Num Wars (classic edition)", "fr": "Num Wars (édition classique)"},
    view=View,
    view_component="NumWarsClassicView",
    actions=("play", "pass", "exchange", "show"),
    phases=(
        "exchange",
        "show",
        "play",
        "over",
    ),  # the kernel's Phase (tests/engine/test_registry.py)
    lowest_wins=False,
    community=False,
    deck=DeckOperation(
        query=ClassicDeckQuery,
        call=lambda q: NumWarsClassic(ClassicOptions(speed=q.speed)).deck(q.players),
        description=DECK_DOC,
    ),
    operations=(
        Operation(
            path="deal",
            request=ClassicDealRequest,
            answer=Deal,
            call=lambda d: NumWarsClassic(d.options).deal(
                RoundSetup(players=d.players, seed=d.seed)
            ),
            summary="deal a round",
            description=DEAL_DOC,
            section="setup",
            refusals=(ALLIANCE,),
            examples=EXAMPLES.get("deal", ()),
        ),
        Operation(
            path="legal-moves",
            request=ClassicHandRequest,
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
            request=ClassicMoveRequest,
            answer=MoveCheck,
            call=lambda d: _rules.validate_move(d.players, d.hand, d.trick, d.card),
            call_in=lambda d, language: _rules.validate_move(
                d.players, d.hand, d.trick, d.card, language
            ),
            summary="validate a move",
            description=VALIDATE_DOC
            + " Reasons: `card-not-in-hand`, `must-follow-color`, `must-play-trump`, `must-raise`.",
            section="turn",
            refusals=_moves,
            examples=EXAMPLES.get("validate-move", ()),
        ),
        Operation(
            path="resolve-trick",
            request=ClassicTrickRequest,
            answer=TrickResult,
            call=lambda d: _rules.resolve_trick(d.players, d.trick),
            summary="resolve a trick",
            description=RESOLVE_DOC,
            section="hierarchy",
            refusals=(duplicates("within the trick"), RESOLVE_TRICK),
            examples=EXAMPLES.get("resolve-trick", ()),
        ),
        Operation(
            path="score-round",
            request=ClassicScoreRequest,
            answer=RoundScore,
            call=lambda d: NumWarsClassic(d.options).score_round(d.players),
            summary="score a round",
            description=SCORE_DOC
            + " From 1 player (one pile at a time) up to 8; with `alliance` the answer adds the "
            "team totals and `winners` lists the winning team's seats.",
            section="scoring",
            refusals=(duplicates("across every `captured`"), ALLIANCE),
            examples=EXAMPLES.get("score-round", ()),
        ),
    ),
    sheet=SheetRounds(body=ClassicRoundIn, complete=_round),
    summary=summary.TEXT,
    bots=bots.BOTS,
    notes=summary.NOTES,
)
