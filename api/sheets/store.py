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
  owner and ends the sheet token (it edits no more).
* Confirmations: the owner's own player entries are confirmed at creation (or claim); a named
  account confirms with `POST .../confirm`. Any later change of rounds or `planned_rounds`
  clears the other accounts' confirmations (they confirmed the sheet as it was): nobody
  fills another account's stats.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import Row, and_, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from api.accounts.sessions import (
    ACCOUNTS,
    COMMUNITY_RULESETS,
    Caller,
    accounts_by_pseudo,
    community_locked,
)
from api.body import decode_error
from api.db.engine import aware
from api.db.models import Sheet, SheetPlayer, SheetRound, table
from api.problems import FieldProblem, ProblemError, engine_problem, shorten
from api.schemas import (
    ClassicScoreRequest,
    NumKingScoreRequest,
    NumWarsScoreRequest,
    NumWinScoreRequest,
)
from api.sheets.schemas import (
    ROUND_BODIES,
    ClaimSheet,
    ClassicRoundIn,
    CreateSheet,
    NumKingRoundIn,
    NumWarsRoundIn,
    NumWinRoundIn,
    PatchSheet,
    RoundAnswer,
    RoundOut,
    SheetCreated,
    SheetOut,
    SheetPlayerOut,
    Standing,
)
from api.tokens import SHEET_PREFIX, check_name, new_id, new_token, token_hash, unauthorized
from engine import registry
from engine.core.base import RoundScore
from engine.core.errors import EngineError
from engine.numking import NumKing
from engine.numwars import NumWars
from engine.numwars_classic import NumWarsClassic
from engine.numwin import NumWin
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
    """The engine's score of a round's `input` (a complete score-round request), by the calls
    of the stateless `score-round` endpoints (api/rules.py)."""
    try:
        if isinstance(rules, NumWars):
            wars = msgspec.convert(data, NumWarsScoreRequest, strict=True)
            return NumWars().score_round(list(wars.players), wars.bomb_outcome)
        if isinstance(rules, NumWarsClassic):
            classic = msgspec.convert(data, ClassicScoreRequest, strict=True)
            return NumWarsClassic(classic.options).score_round(list(classic.players))
        if isinstance(rules, NumKing):
            king = msgspec.convert(data, NumKingScoreRequest, strict=True)
            return king.options.rules().score_round(king.cards, list(king.players))
        win = msgspec.convert(data, NumWinScoreRequest, strict=True)
        return NumWin(win.options).score_round(list(win.players), win.caller)
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

    `previous`: round n-1's scores (numking streaks are read from it)."""
    if not isinstance(document, dict):
        raise ProblemError(
            422,
            "validation-error",
            "a round is a JSON object",
            [FieldProblem("body", "must be an object")],
        )
    try:
        body = msgspec.convert(document, ROUND_BODIES[rules.id], strict=True)
    except msgspec.ValidationError as exc:
        raise decode_error(exc, document) from None
    assert isinstance(body, NumWarsRoundIn | ClassicRoundIn | NumKingRoundIn | NumWinRoundIn)
    if len(body.players) != players:
        message = (
            f"the sheet has {players} players: a round scores each of them, not {len(body.players)}"
        )
        raise ProblemError(
            422, "bad-player-count", f"players: {message}", [FieldProblem("players", message)]
        )
    if body.dealer is not None and body.dealer >= players:
        raise _mismatch("bad-request", "dealer", f"must be a seat of the table, 0 … {players - 1}")
    piles = msgspec.to_builtins(body.players)
    if isinstance(body, NumWarsRoundIn):
        return {"players": piles, "bomb_outcome": body.bomb_outcome}, body.dealer
    _check_options(body.options, rules)
    options = msgspec.to_builtins(rules.options)
    if isinstance(body, ClassicRoundIn):
        return {"players": piles, "options": options}, body.dealer
    if isinstance(body, NumWinRoundIn):
        return {"players": piles, "caller": body.caller, "options": options}, body.dealer
    if body.cards is not None and body.cards != n:
        raise _mismatch(
            "cards-mismatch", "cards", f"this is round {n}: {n} cards, not {body.cards}"
        )
    streaks = numking_streaks(previous, players)
    for i, bid in enumerate(body.players):
        if bid.streak is not None and bid.streak != streaks[i]:
            raise _mismatch(
                "streak-mismatch",
                f"players[{i}].streak",
                f"the earlier rounds give a streak of {streaks[i]} before round {n}, "
                f"not {bid.streak} (leave `streak` out)",
            )
    bids = [
        {"bid": b.bid, "tricks": b.tricks, "streak": s}
        for b, s in zip(body.players, streaks, strict=True)
    ]
    return {"cards": n, "players": bids, "options": {"zeros": options["zeros"]}}, body.dealer


def numking_streaks(previous: RoundScore | None, players: int) -> list[int]:
    """Each player's streak before a round: the streak after the previous one (numking
    "Precision bonus"; `PlayerScore.streak` is the streak after the round), 0 in round 1."""
    if previous is None:
        return [0] * players
    by_seat = {p.seat: p.streak for p in previous.players}
    return [s if isinstance(s, int) else 0 for s in (by_seat.get(i, 0) for i in range(players))]


def rederive(
    rules: AnyRuleset,
    players: int,
    first: int,
    inputs: list[dict[str, Any]],
    before: RoundScore | None,
) -> list[tuple[dict[str, Any], RoundScore]]:
    """numking: rounds `first`, `first`+1 … (inputs in order) with their `cards` and streaks
    derived again from the round before (`before`) and rescored; other rulesets: as they are.
    A round that no longer fits its new number is refused (422, naming it)."""
    out: list[tuple[dict[str, Any], RoundScore]] = []
    previous = before
    for k, data in enumerate(inputs):
        n = first + k
        if isinstance(rules, NumKing):
            streaks = numking_streaks(previous, players)
            data = {
                **data,
                "cards": n,
                "players": [
                    {**p, "streak": s} for p, s in zip(data["players"], streaks, strict=True)
                ],
            }
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


@dataclass
class Loaded:
    row: Row[Any]
    owner: str | None
    players: list[Any]
    rounds: list[Any]
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
    rounds = (
        await conn.execute(
            select(ROUNDS.c.n, ROUNDS.c.dealer, ROUNDS.c.input, ROUNDS.c.scores)
            .where(ROUNDS.c.sheet_id == sheet_id)
            .order_by(ROUNDS.c.n)
        )
    ).all()
    rules = make_rules(row.ruleset, row.options)
    return Loaded(row, row.owner_pseudo, list(players), list(rounds), rules)


def _is_editor(sheet: Loaded, auth: Auth) -> bool:
    if auth.caller is not None:
        return bool(sheet.row.owner_id == auth.caller.account_id)
    digest = sheet.row.token_hash
    return (
        auth.token is not None
        and digest is not None
        and hmac.compare_digest(token_hash(auth.token), digest)
    )


def check_access(sheet: Loaded | None, sheet_id: str, auth: Auth, write: bool) -> Loaded:
    """The sheet if `auth` may read it (or change it, `write`); else 404, or 401 for a bearer
    token that is neither a live session nor this sheet's token. A sheet one may not see does
    not exist for them (404); an account named on it, which may read it, is told it may not
    change it (403 `not-owner`)."""
    if write and auth.token is None:
        raise unauthorized(
            "changing a score sheet needs its owner's session or its sheet token: "
            "Authorization: Bearer <token>"
        )
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
    """numking deals `n` cards in round n: at most its match length (`max_cards` or k_max)."""
    if isinstance(rules, NumKing):
        most = rules.match_rounds(players)
        if planned > most:
            message = (
                f"a numking match of {players} players has at most {most} rounds, not {planned}"
            )
            raise _mismatch("bad-request", "planned_rounds", message)


# --- the store --------------------------------------------------------------------------------


class SheetStore:
    """The score sheets of one database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create(self, body: CreateSheet, caller: Caller | None) -> SheetCreated:
        if body.ruleset in COMMUNITY_RULESETS and caller is None:
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
        sheet_id = new_id()
        now = datetime.now(UTC)
        token = None if caller is not None else new_token(SHEET_PREFIX)
        owner_id = None if caller is None else caller.account_id
        async with self.engine.begin() as conn:
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
        return SheetCreated(**msgspec.structs.asdict(out), token=token)

    async def get(self, sheet_id: str, auth: Auth) -> SheetOut:
        async with self.engine.connect() as conn:
            sheet = check_access(await load(conn, sheet_id), sheet_id, auth, write=False)
        return sheet_out(sheet)

    async def patch(self, sheet_id: str, auth: Auth, body: PatchSheet) -> SheetOut:
        async with self.engine.begin() as conn:
            sheet = check_access(await load(conn, sheet_id, lock=True), sheet_id, auth, write=True)
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
            changed = await load(conn, sheet_id)
        assert changed is not None
        return sheet_out(changed)

    async def delete(self, sheet_id: str, auth: Auth) -> None:
        async with self.engine.begin() as conn:
            sheet = check_access(await load(conn, sheet_id, lock=True), sheet_id, auth, write=True)
            await conn.execute(delete(SHEETS).where(SHEETS.c.id == sheet.row.id))

    async def add_round(self, sheet_id: str, auth: Auth, document: Any) -> RoundAnswer:
        async with self.engine.begin() as conn:
            sheet = check_access(await load(conn, sheet_id, lock=True), sheet_id, auth, write=True)
            if sheet.standing().finished:
                raise ProblemError(
                    409,
                    "sheet-finished",
                    f"the match is over after {len(sheet.rounds)} rounds "
                    f"({sheet.row.planned_rounds} planned and the tie-breaks it called for): "
                    "raise planned_rounds (PATCH) to play on",
                )
            scores = sheet.scores
            n = len(scores) + 1
            return await self._put_round(conn, sheet, n, document, scores)

    async def replace_round(self, sheet_id: str, auth: Auth, n: int, document: Any) -> RoundAnswer:
        async with self.engine.begin() as conn:
            sheet = check_access(await load(conn, sheet_id, lock=True), sheet_id, auth, write=True)
            scores = sheet.scores
            if not 1 <= n <= len(scores):
                raise ProblemError(404, "not-found", f"the sheet has no round {n}")
            return await self._put_round(conn, sheet, n, document, scores)

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
        )

    async def delete_round(self, sheet_id: str, auth: Auth, n: int) -> None:
        async with self.engine.begin() as conn:
            sheet = check_access(await load(conn, sheet_id, lock=True), sheet_id, auth, write=True)
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

    async def claim(self, sheet_id: str, caller: Caller, body: ClaimSheet) -> SheetOut:
        """The caller's account becomes the owner; the sheet token edits no more. A sheet one
        cannot claim (unknown, owned, another token) is 404 alike."""
        async with self.engine.begin() as conn:
            sheet = await load(conn, sheet_id, lock=True)
            if sheet is None or not _is_editor(sheet, Auth(body.token, None)):
                raise not_found(sheet_id)
            await conn.execute(
                update(SHEETS)
                .where(SHEETS.c.id == sheet_id)
                .values(
                    owner_id=caller.account_id,
                    token_hash=None,
                    version=SHEETS.c.version + 1,
                    updated_at=datetime.now(UTC),
                )
            )
            await conn.execute(
                update(PLAYERS)
                .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.account_id == caller.account_id)
                .values(confirmed=True)
            )
            changed = await load(conn, sheet_id)
        assert changed is not None
        return sheet_out(changed)

    async def confirm(self, sheet_id: str, caller: Caller) -> SheetOut:
        """A named account confirms the sheet as it is: from now on it counts in its stats."""
        async with self.engine.begin() as conn:
            sheet = await load(conn, sheet_id, lock=True)
            if sheet is None or not sheet.named(caller.account_id):
                raise not_found(sheet_id)
            await conn.execute(
                update(PLAYERS)
                .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.account_id == caller.account_id)
                .values(confirmed=True)
            )
            changed = await load(conn, sheet_id)
        assert changed is not None
        return sheet_out(changed)

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
                        "input": data,
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
