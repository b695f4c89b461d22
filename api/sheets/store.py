"""Score sheets: create, read, change, rounds, claim, confirm (api-contract.md, "Accounts,
score sheets, history"; rules/app.md, "Score sheets").

A sheet is a match played with physical cards: the ruleset and its options (defaults written
out), the players, the planned rounds, and its rounds. Each round keeps the complete
`score-round` request it was scored from (`input`: what was sent, with what the sheet knows
filled in) and the engine's answer (`scores`); every score comes from the engine, by the same
calls as the stateless `score-round` endpoints (:func:`score`). Totals, leader, winners and
whether the match is over are the engine's too (`score_match`, `match_tiebreak`), recomputed
from the stored scores on every read (:func:`settle`).

Rulings of this service (the contract leaves them open):

* A round takes the sheet's options: a round body may leave `options` out, and one that sends
  them must send exactly the sheet's (422 `options-mismatch`).
* numking: `cards` is the round number and each `streak` the one after the previous round;
  sent and different, 422 (`cards-mismatch`, `streak-mismatch`). Replacing or deleting a
  round re-derives and rescores every later round (a deleted round renumbers the later
  ones, so their `cards` change; a round that no longer fits is refused, 422, and nothing
  changes).
* A round keeps the dealer it was recorded with, also when renumbered.
* Rounds past `planned_rounds` are tie-break rounds, accepted only while the ruleset's
  tie-break (numwars-classic `tiebreak`, numwars `tiebreak`) calls for another one; any
  change that would leave a round the match no longer calls for is 409 `sheet-finished`.
* Access: the owner's session or (anonymous Num Wars sheets) the sheet token changes a sheet;
  accounts named as players read it and may confirm it; anyone else gets 404, a bearer token
  that is neither a live session nor this sheet's token 401. A claim makes the caller the
  owner and ends the sheet token (it edits no more); with `player`, that player is bound to
  the caller's account (one player per account per sheet; another account's player stays
  theirs: 409 `player-bound`).
* Confirmations: the owner's own player entries are confirmed at creation (or claim); a named
  account confirms with `POST .../confirm`. Any later change of rounds or `planned_rounds`
  clears the other accounts' confirmations (they confirmed the sheet as it was): nobody
  fills another account's stats.
* Versions (issue 21): every change of the players, planned rounds, rounds or owner moves
  `version` (the `ETag`); a confirmation does not. A round's correction or deletion needs
  `If-Match` (428): made on an old reading, it would undo another phone's change, and a
  repeated deletion would remove the round renumbered into the deleted one's place.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import Row, and_, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from api.accounts.sessions import (
    ACCOUNTS,
    Caller,
    accounts_by_pseudo,
    community_locked,
    is_community,
    lock_account,
)
from api.db.engine import aware
from api.db.models import Sheet, SheetPlayer, SheetRound, table
from api.http.body import check_ruleset, decode_error
from api.http.conditions import IfMatch
from api.http.problems import FieldProblem, ProblemError, engine_problem, shorten
from api.http.tokens import SHEET_PREFIX, check_name, new_id, new_token, token_hash, unauthorized
from api.sheets.formats import decode_round_input, round_input_document
from api.sheets.idempotency import (
    Answers,
    Conditions,
    Written,
    purge,
    request_hash,
)
from api.sheets.schemas import (
    ClaimSheet,
    CreateSheet,
    PatchSheet,
    RoundAnswer,
    RoundOut,
    SheetCreated,
    SheetOut,
    SheetPlayerOut,
    Standing,
)
from engine import registry
from engine.core.base import RoundScore
from engine.core.errors import EngineError
from engine.registry import AnyRuleset

SHEETS = table(Sheet)
PLAYERS = table(SheetPlayer)
ROUNDS = table(SheetRound)

#: rules/app.md "Jeux de la communauté 🔒": these rulesets' sheets need an account.
SHEET_ID = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class Auth:
    """The bearer token of a request, and the account whose live session it is (if any)."""

    token: str | None
    caller: Caller | None


def not_found(sheet_id: str) -> ProblemError:
    return ProblemError(404, "not-found", f"no score sheet {shorten(sheet_id)!r}")


def _wrong_token() -> ProblemError:
    return unauthorized("the bearer token is neither a live session nor this sheet's token")


def _engine(exc: EngineError) -> ProblemError:
    return ProblemError.of(engine_problem(exc))


def make_rules(ruleset: str, options: dict[str, Any]) -> AnyRuleset:
    try:
        return registry.make(ruleset, options)
    except EngineError as exc:
        raise _engine(exc) from None


# --- the rules of a sheet (pure) --------------------------------------------------------------


def score(rules: AnyRuleset, data: dict[str, Any]) -> RoundScore:
    """The engine's score of a round's `input` (a complete score-round request), by the call
    of the stateless `score-round` operation the ruleset's spec declares."""
    try:
        return registry.spec(rules.id).score(data)
    except msgspec.ValidationError as exc:
        raise decode_error(exc, data) from None
    except EngineError as exc:
        raise _engine(exc) from None


def _mismatch(code: str, field: str, message: str) -> ProblemError:
    return ProblemError(422, code, f"{field}: {message}", [FieldProblem(field, message)])


def _check_options(sent: msgspec.Struct | None, rules: AnyRuleset) -> None:
    """A round plays the sheet's options: sent options must be exactly the sheet's."""
    if sent is None:
        return
    for name, value in msgspec.structs.asdict(sent).items():
        own = getattr(rules.options, name)
        if value != own:
            raise _mismatch(
                "options-mismatch",
                f"options.{name}",
                f"the sheet plays {name}={msgspec.json.encode(own).decode()}: a round takes "
                "the sheet's options (leave `options` out)",
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
        raise ProblemError(
            422,
            "validation-error",
            "a round is a JSON object",
            [FieldProblem("body", "must be an object")],
        )
    sheet = registry.spec(rules.id).sheet
    try:
        body: Any = msgspec.convert(document, sheet.body, strict=True)
    except msgspec.ValidationError as exc:
        raise decode_error(exc, document) from None
    if len(body.players) != players:
        message = (
            f"the sheet has {players} players: a round scores each of them, not {len(body.players)}"
        )
        raise ProblemError(
            422, "bad-player-count", f"players: {message}", [FieldProblem("players", message)]
        )
    if body.dealer is not None and body.dealer >= players:
        raise _mismatch("bad-request", "dealer", f"must be a seat of the table, 0 … {players - 1}")
    _check_options(getattr(body, "options", None), rules)
    options = msgspec.to_builtins(rules.options)
    try:
        return sheet.complete(body, n, previous, options), body.dealer
    except EngineError as exc:
        raise _engine(exc) from None


def rederive(
    rules: AnyRuleset,
    players: int,
    first: int,
    inputs: list[dict[str, Any]],
    before: RoundScore | None,
) -> list[tuple[dict[str, Any], RoundScore]]:
    """Rounds `first`, `first`+1 … (inputs in order) derived again from the round before
    (`before`) as the ruleset's spec does it (numking: `cards` and streaks) and rescored.
    A round that no longer fits its new number is refused (422, naming it)."""
    out: list[tuple[dict[str, Any], RoundScore]] = []
    sheet = registry.spec(rules.id).sheet
    previous = before
    for k, data in enumerate(inputs):
        n = first + k
        data = sheet.rederive(data, n, previous)
        try:
            scores = score(rules, data)
        except ProblemError as exc:
            problem = exc.problem
            raise ProblemError(
                422,
                "round-no-longer-scores",
                f"round {n} (as renumbered or re-derived) no longer scores: {problem.detail}",
                [FieldProblem(f"rounds[{n - 1}].{e.field}", e.message) for e in problem.errors],
            ) from None
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
    try:
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
    except EngineError as exc:
        raise _engine(exc) from None
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
        raise ProblemError(
            409,
            "sheet-finished",
            f"the match is over after round {last}: round {last + 1} is past the "
            f"{planned} planned rounds and no tie-break round is due",
        )


# --- rows -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredRound:
    """A round row, its input read by the stored format's codec (api.sheets.formats)."""

    n: int
    dealer: int
    input: dict[str, Any]
    scores: dict[str, Any]


@dataclass
class Loaded:
    row: Row[Any]
    owner: str | None
    players: list[Any]
    rounds: list[StoredRound]
    rules: AnyRuleset

    @property
    def scores(self) -> list[RoundScore]:
        return [msgspec.convert(r.scores, RoundScore) for r in self.rounds]

    def standing(self) -> Standing:
        return settle(self.rules, len(self.players), self.row.planned_rounds, self.scores)

    def named(self, account_id: str) -> bool:
        return any(p.account_id == account_id for p in self.players)


async def load(conn: AsyncConnection, sheet_id: str, lock: bool = False) -> Loaded | None:
    if not SHEET_ID.fullmatch(sheet_id):
        return None
    query = (
        select(SHEETS, ACCOUNTS.c.pseudo.label("owner_pseudo"))
        .select_from(SHEETS.outerjoin(ACCOUNTS, SHEETS.c.owner_id == ACCOUNTS.c.id))
        .where(SHEETS.c.id == sheet_id)
    )
    if lock:
        query = query.with_for_update(of=SHEETS)
    row = (await conn.execute(query)).first()
    if row is None:
        return None
    players = (
        await conn.execute(
            select(PLAYERS, ACCOUNTS.c.pseudo)
            .select_from(PLAYERS.outerjoin(ACCOUNTS, PLAYERS.c.account_id == ACCOUNTS.c.id))
            .where(PLAYERS.c.sheet_id == sheet_id)
            .order_by(PLAYERS.c.position)
        )
    ).all()
    rows = await conn.execute(
        select(ROUNDS.c.n, ROUNDS.c.dealer, ROUNDS.c.input, ROUNDS.c.scores)
        .where(ROUNDS.c.sheet_id == sheet_id)
        .order_by(ROUNDS.c.n)
    )
    body = registry.spec(row.ruleset).sheet.body
    rounds = [StoredRound(r.n, r.dealer, decode_round_input(r.input, body), r.scores) for r in rows]
    rules = make_rules(row.ruleset, row.options)
    return Loaded(row, row.owner_pseudo, list(players), rounds, rules)


def _is_editor(sheet: Loaded, auth: Auth) -> bool:
    if auth.caller is not None:
        return bool(sheet.row.owner_id == auth.caller.account_id)
    digest = sheet.row.token_hash
    return (
        auth.token is not None
        and digest is not None
        and hmac.compare_digest(token_hash(auth.token), digest)
    )


def needs_token() -> ProblemError:
    return unauthorized(
        "changing a score sheet needs its owner's session or its sheet token: "
        "Authorization: Bearer <token>"
    )


def check_access(sheet: Loaded | None, sheet_id: str, auth: Auth, write: bool) -> Loaded:
    """The sheet if `auth` may read it (or change it, `write`); else 404, or 401 for a bearer
    token that is neither a live session nor this sheet's token. A sheet one may not see does
    not exist for them (404); an account named on it, which may read it, is told it may not
    change it (403 `not-owner`)."""
    if write and auth.token is None:
        raise needs_token()
    if auth.token is not None and auth.caller is None:
        if sheet is None or not _is_editor(sheet, auth):
            raise _wrong_token()
        return sheet
    if sheet is None or auth.caller is None:
        raise not_found(sheet_id)
    if _is_editor(sheet, auth) or (not write and sheet.named(auth.caller.account_id)):
        return sheet
    if sheet.named(auth.caller.account_id):
        raise ProblemError(
            403,
            "not-owner",
            "only the sheet's owner (or its sheet token) changes it; a player named on it "
            "reads and confirms it",
        )
    raise not_found(sheet_id)


def sheet_out(sheet: Loaded, standing: Standing | None = None) -> SheetOut:
    standing = standing or sheet.standing()
    return SheetOut(
        id=sheet.row.id,
        ruleset=sheet.row.ruleset,
        options=sheet.row.options,
        owner=sheet.owner,
        players=[
            SheetPlayerOut(name=p.name, account=p.pseudo, confirmed=p.confirmed)
            for p in sheet.players
        ],
        planned_rounds=sheet.row.planned_rounds,
        rounds=[
            RoundOut(
                n=r.n, dealer=r.dealer, input=r.input, scores=msgspec.convert(r.scores, RoundScore)
            )
            for r in sheet.rounds
        ],
        totals=standing.totals,
        leader=standing.leader,
        finished=standing.finished,
        winners=standing.winners,
        teams=standing.teams,
        version=sheet.row.version,
        created_at=aware(sheet.row.created_at),
        updated_at=aware(sheet.row.updated_at),
    )


def _check_planned(rules: AnyRuleset, players: int, planned: int) -> None:
    """A ruleset may cap a match's rounds (numking deals `n` cards in round n: at most its
    match length), as its spec declares (`SheetRounds.most_rounds`)."""
    most_rounds = registry.spec(rules.id).sheet.most_rounds
    if most_rounds is not None:
        most = most_rounds(rules, players)
        if planned > most:
            message = (
                f"a {rules.id} match of {players} players has at most {most} rounds, not {planned}"
            )
            raise _mismatch("bad-request", "planned_rounds", message)


# --- versions ---------------------------------------------------------------------------------

NO_CONDITIONS = Conditions()


def _sender(auth: Auth) -> str:
    """Whose `Idempotency-Key` it is: the session's account, else the sheet token's."""
    if auth.caller is not None:
        return f"account:{auth.caller.account_id}"
    return f"sheet-token:{token_hash(auth.token or '')}"


def _precondition(sheet: Loaded, if_match: IfMatch | None, required: bool) -> None:
    """`If-Match` against the locked sheet's version: 412 `version-mismatch` (with the
    sheet's `ETag`) when it moved, 428 `if-match-required` when `required` and none."""
    version = sheet.row.version
    if if_match is None:
        if required:
            raise ProblemError(
                428,
                "if-match-required",
                f'this change needs If-Match: "<version>", the ETag of the sheet as read '
                f'(now If-Match: "{version}"): a round corrected or deleted on an old reading '
                "would undo another's change",
                headers={"ETag": f'"{version}"'},
            )
        return
    if not if_match.matches(version):
        raise ProblemError(
            412,
            "version-mismatch",
            f"the sheet is at version {version}, not the one in If-Match: read it again",
            headers={"ETag": f'"{version}"'},
        )


def _check_player(sheet: Loaded, player: int, account_id: str) -> None:
    """A claim's `player`: a player of the sheet, held by no other account, and the claimer
    not already another player of it."""
    players = len(sheet.players)
    if player >= players:
        raise _mismatch(
            "bad-request", "player", f"must be a player of the sheet, 0 … {players - 1}"
        )
    bound = sheet.players[player].account_id
    if bound is not None and bound != account_id:
        raise ProblemError(
            409, "player-bound", f"player {player} is bound to another account already"
        )
    for p in sheet.players:
        if p.account_id == account_id and p.position != player:
            raise ProblemError(
                409,
                "player-bound",
                f"you play on this sheet already, as player {p.position}: an account is one "
                "player of a sheet",
            )


async def _reread(conn: AsyncConnection, sheet_id: str) -> Written:
    changed = await load(conn, sheet_id)
    assert changed is not None
    out = sheet_out(changed)
    return Written(200, out, out.version)


# --- the store --------------------------------------------------------------------------------


class SheetStore:
    """The score sheets of one database.

    Every write runs in one transaction with the sheet's row locked (`SELECT … FOR UPDATE`;
    on SQLite every transaction is `BEGIN IMMEDIATE`): look up the request's
    `Idempotency-Key` (a retry replays the first answer), check who may write, then
    `If-Match` against the locked version, change the sheet and bump its version, store the
    answer under the key, commit. Concurrent writers of one sheet thus run one after the
    other, each checking the version the previous one left: of ten deletes of round 1 sent
    with the same `If-Match`, one deletes and nine are 412.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def _write(
        self,
        sheet_id: str,
        sender: str,
        conditions: Conditions,
        request: str,
        access: Callable[[Loaded | None], Loaded],
        work: Callable[[AsyncConnection, Loaded], Awaitable[Written]],
        must_match: bool = False,
    ) -> Written:
        """Run `work` on the locked sheet once `access` lets `sender` write and `If-Match`
        holds (required: `must_match`), or replay the stored answer of the same keyed request.
        Two requests with one key racing on different rows meet on the key's row: the loser
        rolls back and, looking again, replays (or refuses) as a later retry would."""
        for attempt in range(2):
            try:
                async with self.engine.begin() as conn:
                    sheet = await load(conn, sheet_id, lock=True)
                    answers = None
                    if conditions.key is not None:
                        answers = Answers(conn, sender, conditions.key, request)
                        stored = await answers.replay()
                        if stored is not None:
                            return stored
                    allowed = access(sheet)
                    if answers is not None:
                        answers.refuse_reuse()
                    _precondition(allowed, conditions.if_match, must_match)
                    written = await work(conn, allowed)
                    if answers is not None:
                        await answers.remember(written)
            except IntegrityError:
                if conditions.key is None or attempt:
                    raise
                continue
            if conditions.key is not None:
                await purge(self.engine)
            return written
        raise AssertionError("unreachable")  # pragma: no cover

    async def _edit(
        self,
        sheet_id: str,
        auth: Auth,
        conditions: Conditions,
        request: str,
        work: Callable[[AsyncConnection, Loaded], Awaitable[Written]],
        must_match: bool = False,
    ) -> Written:
        """A write of the sheet's editor: its owner's session or its sheet token."""
        if auth.token is None:
            raise needs_token()  # authentication comes first, before any key is looked up
        return await self._write(
            sheet_id,
            _sender(auth),
            conditions,
            request,
            lambda sheet: check_access(sheet, sheet_id, auth, write=True),
            work,
            must_match,
        )

    async def create(
        self, body: CreateSheet, caller: Caller | None, key: str | None = None
    ) -> Written:
        """A new sheet; with `key`, a retry of the same body gets the same answer (the sheet
        token included) and creates nothing more."""
        check_ruleset(body.ruleset)
        if is_community(body.ruleset) and caller is None:
            raise community_locked(body.ruleset)
        for i, player in enumerate(body.players):
            check_name(player.name, f"players[{i}].name")
        rules = make_rules(body.ruleset, body.options)
        players = len(body.players)
        try:
            default = rules.match_rounds(players)
        except EngineError as exc:
            raise _engine(exc) from None
        planned = default if body.planned_rounds is None else body.planned_rounds
        _check_planned(rules, players, planned)
        sender = "anonymous" if caller is None else f"account:{caller.account_id}"
        request = request_hash("create", body)
        for attempt in range(2):
            try:
                async with self.engine.begin() as conn:
                    answers = None
                    if key is not None:
                        answers = Answers(conn, sender, key, request)
                        stored = await answers.replay()
                        if stored is not None:
                            return stored
                        answers.refuse_reuse()
                    created, token = await self._insert(conn, body, caller, rules, planned)
                    written = Written(201, created, created.version)
                    if answers is not None:
                        await answers.remember(written, token)
            except IntegrityError:
                if key is None or attempt:
                    raise
                continue
            if key is not None:
                await purge(self.engine)
            return written
        raise AssertionError("unreachable")  # pragma: no cover

    async def _insert(
        self,
        conn: AsyncConnection,
        body: CreateSheet,
        caller: Caller | None,
        rules: AnyRuleset,
        planned: int,
    ) -> tuple[SheetCreated, str | None]:
        sheet_id = new_id()
        now = datetime.now(UTC)
        token = None if caller is not None else new_token(SHEET_PREFIX)
        owner_id = None if caller is None else caller.account_id
        if caller is not None:
            await lock_account(conn, caller.account_id)
        accounts = await accounts_by_pseudo(conn, [p.account for p in body.players], "players")
        await conn.execute(
            insert(SHEETS).values(
                id=sheet_id,
                ruleset=rules.id,
                options=msgspec.to_builtins(rules.options),
                owner_id=owner_id,
                token_hash=None if token is None else token_hash(token),
                planned_rounds=planned,
                version=0,
                created_at=now,
                updated_at=now,
            )
        )
        await conn.execute(
            insert(PLAYERS),
            [
                {
                    "sheet_id": sheet_id,
                    "position": i,
                    "name": p.name,
                    "account_id": accounts[i],
                    "confirmed": accounts[i] is not None and accounts[i] == owner_id,
                }
                for i, p in enumerate(body.players)
            ],
        )
        sheet = await load(conn, sheet_id)
        assert sheet is not None
        out = sheet_out(sheet)
        return SheetCreated(**msgspec.structs.asdict(out), token=token), token

    async def get(self, sheet_id: str, auth: Auth) -> SheetOut:
        async with self.engine.connect() as conn:
            sheet = check_access(await load(conn, sheet_id), sheet_id, auth, write=False)
        return sheet_out(sheet)

    async def patch(
        self, sheet_id: str, auth: Auth, body: PatchSheet, conditions: Conditions = NO_CONDITIONS
    ) -> Written:
        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            players = len(sheet.players)
            if body.players is not None:
                if len(body.players) != players:
                    message = f"the sheet has {players} players: name each of them, in order"
                    raise ProblemError(
                        422,
                        "bad-player-count",
                        f"players: {message}",
                        [FieldProblem("players", message)],
                    )
                for i, player in enumerate(body.players):
                    check_name(player.name, f"players[{i}].name")
                for i, player in enumerate(body.players):
                    await conn.execute(
                        update(PLAYERS)
                        .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.position == i)
                        .values(name=player.name)
                    )
            replanned = (
                body.planned_rounds is not None and body.planned_rounds != sheet.row.planned_rounds
            )
            if body.planned_rounds is not None and replanned:
                _check_planned(sheet.rules, players, body.planned_rounds)
                standing = settle(sheet.rules, players, body.planned_rounds, sheet.scores)
                await conn.execute(
                    update(SHEETS)
                    .where(SHEETS.c.id == sheet_id)
                    .values(planned_rounds=body.planned_rounds)
                )
            else:
                standing = sheet.standing()
            await self._touch(conn, sheet, standing, reconfirm=replanned)
            return await _reread(conn, sheet_id)

        request = request_hash("patch", sheet_id, body)
        return await self._edit(sheet_id, auth, conditions, request, work)

    async def delete(
        self, sheet_id: str, auth: Auth, conditions: Conditions = NO_CONDITIONS
    ) -> Written:
        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            await conn.execute(delete(SHEETS).where(SHEETS.c.id == sheet.row.id))
            return Written(204, None, None)

        request = request_hash("delete", sheet_id)
        return await self._edit(sheet_id, auth, conditions, request, work)

    async def add_round(
        self, sheet_id: str, auth: Auth, document: Any, conditions: Conditions = NO_CONDITIONS
    ) -> Written:
        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            if sheet.standing().finished:
                raise ProblemError(
                    409,
                    "sheet-finished",
                    f"the match is over after {len(sheet.rounds)} rounds "
                    f"({sheet.row.planned_rounds} planned and the tie-breaks it called for): "
                    "raise planned_rounds (PATCH) to play on",
                )
            scores = sheet.scores
            answer = await self._put_round(conn, sheet, len(scores) + 1, document, scores)
            return Written(201, answer, answer.version)

        request = request_hash("add-round", sheet_id, document)
        return await self._edit(sheet_id, auth, conditions, request, work)

    async def replace_round(
        self,
        sheet_id: str,
        auth: Auth,
        n: int,
        document: Any,
        conditions: Conditions = NO_CONDITIONS,
    ) -> Written:
        """Needs `If-Match`: a correction made on an old reading would silently undo
        another phone's (428 `if-match-required` without one)."""

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            scores = sheet.scores
            if not 1 <= n <= len(scores):
                raise ProblemError(404, "not-found", f"the sheet has no round {n}")
            answer = await self._put_round(conn, sheet, n, document, scores)
            return Written(200, answer, answer.version)

        request = request_hash("replace-round", sheet_id, n, document)
        return await self._edit(sheet_id, auth, conditions, request, work, must_match=True)

    async def _put_round(
        self,
        conn: AsyncConnection,
        sheet: Loaded,
        n: int,
        document: Any,
        scores: list[RoundScore],
    ) -> RoundAnswer:
        players = len(sheet.players)
        previous = scores[n - 2] if n >= 2 else None
        data, dealer = round_input(sheet.rules, players, n, document, previous)
        new = score(sheet.rules, data)
        dealers = [r.dealer for r in sheet.rounds]
        later = rederive(sheet.rules, players, n + 1, [r.input for r in sheet.rounds[n:]], new)
        rounds = [(data, new), *later]
        all_scores = [*scores[: n - 1], *(s for _, s in rounds)]
        standing = settle(sheet.rules, players, sheet.row.planned_rounds, all_scores)
        own_dealer = (n - 1) % players if dealer is None else dealer
        new_dealers = [own_dealer, *dealers[n:]]
        await self._write_rounds(conn, sheet.row.id, n, rounds, new_dealers)
        await self._touch(conn, sheet, standing, reconfirm=True)
        return RoundAnswer(
            n=n,
            dealer=own_dealer,
            input=data,
            scores=new,
            totals=standing.totals,
            leader=standing.leader,
            finished=standing.finished,
            winners=standing.winners,
            teams=standing.teams,
            version=sheet.row.version + 1,
        )

    async def delete_round(
        self, sheet_id: str, auth: Auth, n: int, conditions: Conditions = NO_CONDITIONS
    ) -> Written:
        """Needs `If-Match`: a deletion renumbers the later rounds, so a repeated or late
        `DELETE …/rounds/1` would delete another round (428 `if-match-required` without)."""

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            scores = sheet.scores
            if not 1 <= n <= len(scores):
                raise ProblemError(404, "not-found", f"the sheet has no round {n}")
            players = len(sheet.players)
            before = scores[n - 2] if n >= 2 else None
            later = rederive(sheet.rules, players, n, [r.input for r in sheet.rounds[n:]], before)
            all_scores = [*scores[: n - 1], *(s for _, s in later)]
            standing = settle(sheet.rules, players, sheet.row.planned_rounds, all_scores)
            dealers = [r.dealer for r in sheet.rounds[n:]]
            await self._write_rounds(conn, sheet.row.id, n, later, dealers)
            await self._touch(conn, sheet, standing, reconfirm=True)
            return Written(204, None, sheet.row.version + 1)

        request = request_hash("delete-round", sheet_id, n)
        return await self._edit(sheet_id, auth, conditions, request, work, must_match=True)

    async def claim(
        self,
        sheet_id: str,
        caller: Caller,
        body: ClaimSheet,
        conditions: Conditions = NO_CONDITIONS,
    ) -> Written:
        """The caller's account becomes the owner; the sheet token edits no more. A sheet one
        cannot claim (unknown, owned, another token) is 404 alike. With `player`, that player
        is bound to the caller's account (confirmed: the sheet counts in its history and
        stats); 409 `player-bound` when another account holds that player or the caller
        already plays on the sheet as another."""

        def access(sheet: Loaded | None) -> Loaded:
            if sheet is None or not _is_editor(sheet, Auth(body.token, None)):
                raise not_found(sheet_id)
            return sheet

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            me = caller.account_id
            await lock_account(conn, me)
            if body.player is not None:
                _check_player(sheet, body.player, me)
                await conn.execute(
                    update(PLAYERS)
                    .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.position == body.player)
                    .values(account_id=me)
                )
            await conn.execute(
                update(SHEETS)
                .where(SHEETS.c.id == sheet_id)
                .values(
                    owner_id=me,
                    token_hash=None,
                    version=SHEETS.c.version + 1,
                    updated_at=datetime.now(UTC),
                )
            )
            await conn.execute(
                update(PLAYERS)
                .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.account_id == me)
                .values(confirmed=True)
            )
            return await _reread(conn, sheet_id)

        request = request_hash("claim", sheet_id, body)
        sender = f"account:{caller.account_id}"
        return await self._write(sheet_id, sender, conditions, request, access, work)

    async def confirm(
        self, sheet_id: str, caller: Caller, conditions: Conditions = NO_CONDITIONS
    ) -> Written:
        """A named account confirms the sheet as it is: from now on it counts in its stats.
        It changes no score, so the version stays (`If-Match` confirms the version read)."""

        def access(sheet: Loaded | None) -> Loaded:
            if sheet is None or not sheet.named(caller.account_id):
                raise not_found(sheet_id)
            return sheet

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            await conn.execute(
                update(PLAYERS)
                .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.account_id == caller.account_id)
                .values(confirmed=True)
            )
            return await _reread(conn, sheet_id)

        request = request_hash("confirm", sheet_id)
        sender = f"account:{caller.account_id}"
        return await self._write(sheet_id, sender, conditions, request, access, work)

    # -- writing ---------------------------------------------------------------------------

    async def _write_rounds(
        self,
        conn: AsyncConnection,
        sheet_id: str,
        first: int,
        rounds: list[tuple[dict[str, Any], RoundScore]],
        dealers: list[int],
    ) -> None:
        """Rounds `first`, `first`+1 … become `rounds` (the later ones are removed)."""
        await conn.execute(delete(ROUNDS).where(ROUNDS.c.sheet_id == sheet_id, ROUNDS.c.n >= first))
        now = datetime.now(UTC)
        if rounds:
            await conn.execute(
                insert(ROUNDS),
                [
                    {
                        "sheet_id": sheet_id,
                        "n": first + k,
                        "dealer": dealer,
                        "input": round_input_document(data),
                        "scores": msgspec.to_builtins(scores),
                        "created_at": now,
                    }
                    for k, ((data, scores), dealer) in enumerate(zip(rounds, dealers, strict=True))
                ],
            )

    async def _touch(
        self, conn: AsyncConnection, sheet: Loaded, standing: Standing, reconfirm: bool
    ) -> None:
        """A new version; `finished_at` kept in step with the standing; with `reconfirm`
        (rounds or planned rounds changed) the other accounts' confirmations cleared."""
        finished_at = (sheet.row.finished_at or datetime.now(UTC)) if standing.finished else None
        await conn.execute(
            update(SHEETS)
            .where(SHEETS.c.id == sheet.row.id)
            .values(
                version=SHEETS.c.version + 1, finished_at=finished_at, updated_at=datetime.now(UTC)
            )
        )
        if reconfirm:
            owner = sheet.row.owner_id
            others: ColumnElement[bool] = PLAYERS.c.account_id.is_not(None)
            if owner is not None:
                others = and_(others, PLAYERS.c.account_id != owner)
            await conn.execute(
                update(PLAYERS)
                .where(PLAYERS.c.sheet_id == sheet.row.id, others)
                .values(confirmed=False)
            )
