"""What numking declares to the API (engine/core/spec.py): `SPEC`, listed by engine.registry.

A score sheet's numking round is derived from the earlier ones (rules/app.md, "Score
sheets"): `cards` is the round number and each `streak` the one after the previous round.
That derivation is numking's own business, here (`streaks`, `_round`, `_rederive`).
"""

from __future__ import annotations

from typing import Any

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
    mismatch,
)
from engine.core.texts import say
from engine.numking import bots, summary, texts as T
from engine.numking.examples import EXAMPLES
from engine.numking.options import NumKingOptions
from engine.numking.requests import (
    NumKingDealRequest,
    NumKingDeckQuery,
    NumKingHandRequest,
    NumKingMoveRequest,
    NumKingRoundIn,
    NumKingScoreRequest,
    NumKingTrickRequest,
)
from engine.numking.rules import NumKing, check_tricks
from engine.numking.view import View

NUMKING_DECLARED = (
    ("`declared` on another card than infinity", "bad-request"),
    ("infinity without `declared`, in the trick or as `card`", "missing-declared"),
)
_moves = (HAND_AND_TRICK, BAD_TRICK, *NUMKING_DECLARED)


def streaks(previous: RoundScore | None, players: int) -> list[int]:
    """Each player's streak before a round: the streak after the previous one ("Precision
    bonus"; `PlayerScore.streak` is the streak after the round), 0 in round 1."""
    if previous is None:
        return [0] * players
    by_seat = {p.seat: p.streak for p in previous.players}
    return [s if isinstance(s, int) else 0 for s in (by_seat.get(i, 0) for i in range(players))]


def _round(body: NumKingRoundIn, n: int, previous: RoundScore | None, options: Any) -> Any:
    """Round `n` deals `n` cards and each streak follows the previous round: sent and
    different, refused (`cards-mismatch`, `streak-mismatch`). The whole table's tricks add up
    to at most `n` (`too-many-tricks`; fewer: annulled tricks)."""
    if body.cards is not None and body.cards != n:
        raise mismatch("cards-mismatch", "cards", say(T.CARDS_MISMATCH, n=n, cards=body.cards))
    derived = streaks(previous, len(body.players))
    for i, bid in enumerate(body.players):
        if bid.streak is not None and bid.streak != derived[i]:
            raise mismatch(
                "streak-mismatch",
                f"players[{i}].streak",
                say(T.STREAK_MISMATCH, derived=derived[i], n=n, streak=bid.streak),
            )
    check_tricks(n, [b.tricks for b in body.players])
    bids = [
        {"bid": b.bid, "tricks": b.tricks, "streak": s}
        for b, s in zip(body.players, derived, strict=True)
    ]
    return {"cards": n, "players": bids, "options": {"zeros": options["zeros"]}}


def _rederive(data: dict[str, Any], n: int, previous: RoundScore | None) -> dict[str, Any]:
    """A stored round renumbered to `n` (or after a changed earlier round): `cards` and the
    streaks derived again. Renumbered, its tricks must fit its new `cards` (as a new round's);
    a round keeping its number is not held to that check, which came after it was stored."""
    players = data["players"]
    if data.get("cards") != n:
        check_tricks(n, [p["tricks"] for p in players])
    derived = streaks(previous, len(players))
    return {
        **data,
        "cards": n,
        "players": [{**p, "streak": s} for p, s in zip(players, derived, strict=True)],
    }


def _most_rounds(rules: NumKing, players: int) -> int:
    """numking deals `n` cards in round n: at most its match length (`max_cards` or k_max)."""
    return rules.match_rounds(players)


SPEC = RulesetSpec(
    rules=NumKing,
    names={"en": "Num King", "fr": "Num King"},
    view=View,
    view_component="NumKingView",
    actions=("bid", "play"),
    phases=("bid", "play", "over"),  # the kernel's Phase (tests/engine/test_registry.py)
    lowest_wins=False,
    community=True,
    deck=DeckOperation(
        query=NumKingDeckQuery,
        call=lambda q: NumKing(NumKingOptions(zeros=q.zeros, max_cards=q.max_cards)).deck(
            q.players
        ),
        description=DECK_DOC + " `hand_size` is the last round's hand (`max_cards` when given) and "
        "`set_aside` that round's reserve.",
        refusals=(("`max_cards` above the most the deck gives that table", "bad-option"),),
    ),
    operations=(
        Operation(
            path="deal",
            request=NumKingDealRequest,
            answer=Deal,
            call=lambda d: NumKing(d.options).deal(
                RoundSetup(players=d.players, seed=d.seed, round=d.round, leader=d.first_bidder)
            ),
            summary="deal a round",
            description=DEAL_DOC
            + " `round` is k, the cards per player; `first_bidder` is the leader.",
            section="setup",
            refusals=(
                (
                    "`round` above the table's last round, or `first_bidder` that is not a seat "
                    "of the table",
                    "bad-request",
                ),
                (
                    "`options.max_cards` above the most the deck gives that table (18 at most "
                    "without `zeros`), or `options.first_bidder` that is not a seat of the table",
                    "bad-option",
                ),
            ),
            examples=EXAMPLES.get("deal", ()),
        ),
        Operation(
            path="legal-moves",
            request=NumKingHandRequest,
            answer=LegalMoves,
            call=lambda d: d.options.rules().legal_moves(d.players, d.hand, d.trick),
            summary="legal moves",
            description=LEGAL_DOC
            + " `infinity` lists the declarations (17, 0) allowed for the Infinity card.",
            section="turn",
            refusals=_moves,
            examples=EXAMPLES.get("legal-moves", ()),
        ),
        Operation(
            path="validate-move",
            request=NumKingMoveRequest,
            answer=MoveCheck,
            call=lambda d: d.options.rules().validate_move(
                d.players, d.hand, d.trick, d.card, d.declared
            ),
            call_in=lambda d, language: d.options.rules().validate_move(
                d.players, d.hand, d.trick, d.card, d.declared, language
            ),
            summary="validate a move",
            description=VALIDATE_DOC
            + " Reasons: `card-not-in-hand`, `must-beat`. `infinity` needs `declared`.",
            section="turn",
            refusals=_moves,
            examples=EXAMPLES.get("validate-move", ()),
        ),
        Operation(
            path="resolve-trick",
            request=NumKingTrickRequest,
            answer=TrickResult,
            call=lambda d: d.options.rules().resolve_trick(d.players, d.trick),
            summary="resolve a trick",
            description=RESOLVE_DOC,
            section="hierarchy",
            refusals=(duplicates("within the trick"), RESOLVE_TRICK, *NUMKING_DECLARED),
            examples=EXAMPLES.get("resolve-trick", ()),
        ),
        Operation(
            path="score-round",
            request=NumKingScoreRequest,
            answer=RoundScore,
            call=lambda d: d.options.rules().score_round(d.cards, d.players),
            summary="score a round",
            description=SCORE_DOC
            + " Each player's bid, tricks taken and precision streak before the round; each "
            "result adds the streak after it and the precision bonus. With `options.zeros` "
            "(38 cards) a round of two players may deal 19 cards.",
            section="scoring",
            refusals=(
                ("a `bid` or `tricks` above `cards`", "bad-request"),
                ("`cards` 19 without `options.zeros`", "bad-request"),
            ),
            examples=EXAMPLES.get("score-round", ()),
        ),
    ),
    sheet=SheetRounds(
        body=NumKingRoundIn,
        complete=_round,
        rederive=_rederive,
        most_rounds=_most_rounds,
        refusals=(
            ("`cards` other than the round number", "cards-mismatch"),
            ("a `streak` other than the earlier rounds give", "streak-mismatch"),
            ("tricks adding up to more than the round's cards", "too-many-tricks"),
        ),
    ),
    summary=summary.TEXT,
    bots=bots.BOTS,
    notes=summary.NOTES,
    # a lone round is the largest hand's (round k = k cards each), the one with most play
    lone_round=lambda rules, players: rules.deck(players).hand_size,
)
