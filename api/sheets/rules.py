"""The rules of a score sheet, pure (no database, no HTTP): a round body completed into the
round's score-round request, its score, the later rounds re-derived after a change, the
standing of the match, and the checks of planned rounds and claimed players.

What is per ruleset (the round body's struct, numking's `cards` and `streak`, a cap on the
rounds) is the ruleset's spec's (`SheetRounds`), read from the registry; every score, total
and winner is the engine's. A refusal is a domain error (`api.http.domain`); an engine
refusal (`EngineError`) is left to rise, as the stateless endpoints answer it. The sheets'
rulings are in `api.sheets.service`'s docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from api.http.body import body_refusal
from api.http.domain import Conflict, DomainError, FieldProblem, Invalid, field_error
from api.http.fields import made_rules
from api.http.problems import Problem, domain_problem, engine_problem
from api.sheets import texts as T
from api.sheets.schemas import Standing
from api.sheets.texts import NO_LONGER_SCORES
from engine import registry
from engine.core.base import RoundScore
from engine.core.errors import EngineError
from engine.core.texts import DEFAULT_LANGUAGE, say
from engine.registry import AnyRuleset


def make_rules(ruleset: str, options: dict[str, Any]) -> AnyRuleset:
    """The engine's rules object of a sheet (an engine refusal rises as `EngineError`; an
    ill-typed or unknown option as 422 `bad-option` at `options.<name>`: `made_rules`)."""
    rules: AnyRuleset = made_rules(ruleset, options)
    return rules


def score(rules: AnyRuleset, data: dict[str, Any]) -> RoundScore:
    """The engine's score of a round's `input` (a complete score-round request), by the call
    of the stateless `score-round` operation the ruleset's spec declares (refused as that
    operation refuses it)."""
    try:
        return registry.spec(rules.id).score(data)
    except msgspec.ValidationError as exc:
        raise body_refusal(exc, data) from None


def _check_options(sent: msgspec.Struct | None, names: Any, rules: AnyRuleset) -> None:
    """A round plays the sheet's options: each option sent (`names`, the keys of the body's
    `options`) must be the sheet's; one left out is the sheet's (not the default), so that a
    body may echo the sheet's options, or the ones its score-round request names."""
    if sent is None or not isinstance(names, dict):
        return
    for name, value in msgspec.structs.asdict(sent).items():
        if name not in names:
            continue
        own = getattr(rules.options, name)
        if value != own:
            raise field_error(
                Invalid,
                "options-mismatch",
                f"options.{name}",
                say(T.OPTIONS_MISMATCH, name=name, value=msgspec.json.encode(own).decode()),
            )


def round_input(
    rules: AnyRuleset,
    players: int,
    n: int,
    document: Any,
    previous: RoundScore | None,
) -> tuple[dict[str, Any], int | None]:
    """Round `n`'s complete score-round request from a round body, and its `dealer` if sent.

    `previous`: round n-1's scores (the game may derive from it: numking's streaks). The
    body's struct and the completion are the ruleset's (`SheetRounds` of its spec)."""
    if not isinstance(document, dict):
        raise Invalid(
            say(T.ROUND_OBJECT),
            code="validation-error",
            field="body",
            field_message=say(T.MUST_BE_OBJECT),
        )
    sheet = registry.spec(rules.id).sheet
    try:
        body: Any = msgspec.convert(document, sheet.body, strict=True)
    except msgspec.ValidationError as exc:
        raise body_refusal(exc, document, sheet.body) from None
    if len(body.players) != players:
        message = say(T.SCORE_EACH, players=players, count=len(body.players))
        raise field_error(Invalid, "bad-player-count", "players", message)
    if body.dealer is not None and body.dealer >= players:
        raise field_error(Invalid, "bad-request", "dealer", say(T.DEALER_SEAT, last=players - 1))
    _check_options(getattr(body, "options", None), document.get("options"), rules)
    options = msgspec.to_builtins(rules.options)
    return sheet.complete(body, n, previous, options), body.dealer


def rederive(
    rules: AnyRuleset,
    first: int,
    inputs: list[dict[str, Any]],
    before: RoundScore | None,
    stored: Sequence[RoundScore] = (),
) -> list[tuple[dict[str, Any], RoundScore]]:
    """Rounds `first`, `first`+1 … (inputs in order) derived again from the round before
    (`before`) as the ruleset's spec does it (numking: `cards` and streaks) and rescored.
    A round that no longer fits its new number is refused (422, naming it).

    A round whose input the derivation leaves as it is keeps its `stored` scores (the same
    input scores the same): checks added after it was stored apply to new input only, so a
    stored round that breaks one never blocks a change of another round."""
    out: list[tuple[dict[str, Any], RoundScore]] = []
    sheet = registry.spec(rules.id).sheet
    previous = before
    for k, original in enumerate(inputs):
        n = first + k
        try:
            data = sheet.rederive(original, n, previous)
            kept = k < len(stored) and data == original
            scores = stored[k] if kept else score(rules, data)
        except (DomainError, EngineError) as exc:
            raise RoundNoLongerScores(n, exc) from None
        out.append((data, scores))
        previous = scores
    return out


def settle(rules: AnyRuleset, players: int, planned: int, scores: Sequence[RoundScore]) -> Standing:
    """The sheet's standing by the engine's match rules: totals of the regular rounds, the
    leader, whether the match is over and its winners (tie-break rounds, when the ruleset
    breaks a tied total, decide them). A round the match does not call for is 409."""
    if not scores:
        return Standing(totals=[0] * players, leader=None, finished=False, winners=[], teams=None)
    regular = list(scores[:planned])
    extra = list(scores[planned:])
    result = rules.score_match(regular)
    teams = list(result.teams) if isinstance(result.teams, list) else None
    winners = list(result.winners)
    finished = len(regular) == planned
    if finished and result.tiebreak_needed:
        for k in range(len(extra) + 1):
            decision = rules.match_tiebreak(list(result.winners), extra[:k])
            if decision is None or not decision.another_round:
                if decision is not None:
                    winners = list(decision.winners)
                _no_more(planned, k, extra)
                break
            if k == len(extra):
                finished = False
                winners = list(decision.winners)
    elif finished:
        _no_more(planned, 0, extra)
    return Standing(
        totals=list(result.totals),
        leader=winners[0],
        finished=finished,
        winners=winners if finished else [],
        teams=teams,
    )


def _no_more(planned: int, tiebreaks: int, extra: Sequence[RoundScore]) -> None:
    if len(extra) > tiebreaks:
        last = planned + tiebreaks
        raise SheetFinished(say(T.FINISHED_PAST, last=last, next=last + 1, planned=planned))


class RoundNoLongerScores(Invalid):
    """Round `n`, renumbered or re-derived, refused by its ruleset (422): the refusal's
    detail quoted, its fields put under `rounds[n-1]`, in the caller's language."""

    default_code = "round-no-longer-scores"

    def __init__(self, n: int, refusal: DomainError | EngineError) -> None:
        self.n = n
        self.refusal = refusal
        super().__init__(self.render())

    def _inner(self, language: str) -> Problem:
        refusal = self.refusal
        if isinstance(refusal, DomainError):
            return domain_problem(refusal, language)
        return engine_problem(refusal, language)

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        reason = self._inner(language).detail
        return NO_LONGER_SCORES.render(language, n=self.n, reason=reason)

    def field_problems(self, language: str = DEFAULT_LANGUAGE) -> list[FieldProblem]:
        return [
            FieldProblem(f"rounds[{self.n - 1}].{e.field}", e.message)
            for e in self._inner(language).errors
        ]


class SheetFinished(Conflict):
    """A round the match no longer calls for (409 `sheet-finished`)."""

    default_code = "sheet-finished"


class PlayerBound(Conflict):
    """A claimed player held by another account, or a claimer who is another player (409)."""

    default_code = "player-bound"


def check_planned(rules: AnyRuleset, players: int, planned: int) -> None:
    """A ruleset may cap a match's rounds (numking deals `n` cards in round n: at most its
    match length), as its spec declares (`SheetRounds.most_rounds`)."""
    most_rounds = registry.spec(rules.id).sheet.most_rounds
    if most_rounds is not None:
        most = most_rounds(rules, players)
        if planned > most:
            message = say(
                T.MOST_ROUNDS, ruleset=rules.id, players=players, most=most, planned=planned
            )
            raise field_error(Invalid, "bad-request", "planned_rounds", message)


@dataclass(frozen=True)
class Seat:
    """A player of a sheet as a claim sees it: its position and the account bound to it."""

    position: int
    account_id: str | None


def check_player(players: Sequence[Seat], player: int, account_id: str) -> None:
    """A claim's `player`: a player of the sheet, held by no other account, and the claimer
    not already another player of it."""
    if player >= len(players):
        raise field_error(
            Invalid,
            "bad-request",
            "player",
            say(T.SHEET_PLAYER, last=len(players) - 1),
        )
    bound = players[player].account_id
    if bound is not None and bound != account_id:
        raise PlayerBound(say(T.PLAYER_BOUND, player=player))
    for p in players:
        if p.account_id == account_id and p.position != player:
            raise PlayerBound(say(T.PLAYER_ALREADY, player=p.position))
