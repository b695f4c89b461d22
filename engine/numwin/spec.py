"""What numwin declares to the API (engine/core/spec.py): `SPEC`, listed by engine.registry."""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.base import Deal, RoundScore, RoundSetup
from engine.core.spec import (
    DEAL_DOC,
    DECK_DOC,
    SCORE_DOC,
    DeckOperation,
    Operation,
    RulesetSpec,
    SheetRounds,
    duplicates,
)
from engine.numwin import bots, summary
from engine.numwin.examples import EXAMPLES
from engine.numwin.requests import (
    NumWinDealRequest,
    NumWinDeckQuery,
    NumWinRoundIn,
    NumWinScoreRequest,
)
from engine.numwin.rules import NumWin
from engine.numwin.view import View

TEAMS = ("`teams` at a table of other than 4 players", "bad-option")


def _round(body: NumWinRoundIn, n: int, previous: RoundScore | None, options: Any) -> Any:
    """A sheet round: the hands and the caller as sent, with the sheet's options."""
    return {"players": msgspec.to_builtins(body.players), "caller": body.caller, "options": options}


SPEC = RulesetSpec(
    rules=NumWin,
    names={"en": "Num Win", "fr": "Num Win"},
    view=View,
    view_component="NumWinView",
    actions=("draw", "take", "discard", "swap", "add", "snap", "call", "target", "show"),
    phases=(
        "show",
        "draw",
        "play",
        "action",
        "over",
    ),  # the kernel's Phase (tests/engine/test_registry.py)
    lowest_wins=True,
    community=True,
    deck=DeckOperation(
        query=NumWinDeckQuery, call=lambda q: NumWin().deck(q.players), description=DECK_DOC
    ),
    operations=(
        Operation(
            path="deal",
            request=NumWinDealRequest,
            answer=Deal,
            call=lambda d: NumWin(d.options).deal(RoundSetup(players=d.players, seed=d.seed)),
            summary="deal a round",
            description=DEAL_DOC
            + " Adds the face-up `discard` starter card and `draw_pile_count`.",
            section="setup",
            refusals=(TEAMS,),
            examples=EXAMPLES.get("deal", ()),
        ),
        Operation(
            path="score-round",
            request=NumWinScoreRequest,
            answer=RoundScore,
            call=lambda d: NumWin(d.options).score_round(d.players, d.caller),
            summary="score a round",
            description=SCORE_DOC
            + " Each player's final combination and locked pairs (at least 5 cards in all, a "
            "locked pair counting two) and who called; the lowest score wins.",
            section="scoring",
            refusals=(
                duplicates("across every `combination` and `locked`"),
                (
                    "a locked pair of two cards that may not pair, or a `caller` that is not a "
                    "seat of the table",
                    "bad-request",
                ),
                TEAMS,
            ),
            examples=EXAMPLES.get("score-round", ()),
        ),
    ),
    sheet=SheetRounds(body=NumWinRoundIn, complete=_round),
    summary=summary.TEXT,
    bots=bots.BOTS,
    notes=summary.NOTES,
)
