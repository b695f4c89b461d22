"""The score sheets' service: create, read, change, rounds, claim, confirm (api-contract.md, "Accounts,
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import msgspec
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts.sessions import (
    Caller,
    account_by_pseudo,
    accounts_by_pseudo,
    community_locked,
    is_community,
    lock_account,
)
from api.db.engine import aware
from api.http.body import check_ruleset, decode_document
from api.http.conditions import IfMatch
from api.http.domain import (
    Forbidden,
    Invalid,
    NotFound,
    PreconditionRequired,
    Unauthenticated,
    VersionMismatch,
    field_error,
    refuse_body,
)
from api.http.idempotency import request_hash
from api.http.problems import shorten
from api.http.tokens import SHEET_PREFIX, check_names, new_id, new_token, token_hash
from api.sheets import repository as rows, texts as T
from api.sheets.idempotency import Answers, Conditions, Written, purge
from api.sheets.repository import Loaded
from api.sheets.rules import (
    PlayerBound,
    SheetFinished,
    check_planned,
    check_player,
    make_rules,
    rederive,
    round_input,
    score,
    settle,
)
from api.sheets.schemas import (
    ClaimSheet,
    CreateSheet,
    PatchSheet,
    RoundAnswer,
    RoundOut,
    ShareSheet,
    SheetCreated,
    SheetOut,
    SheetPlayerOut,
    Standing,
)
from engine.core.base import RoundScore
from engine.core.texts import say


@dataclass(frozen=True)
class Auth:
    """The bearer token of a request, and the account whose live session it is (if any)."""

    token: str | None
    caller: Caller | None


class NotOwner(Forbidden):
    """A player named on the sheet, which it may read and confirm, not change (403)."""

    default_code = "not-owner"


def not_found(sheet_id: str) -> NotFound:
    return NotFound(say(T.NO_SHEET, sheet=shorten(sheet_id)))


def needs_token() -> Unauthenticated:
    return Unauthenticated(say(T.NEEDS_TOKEN))


def _wrong_token() -> Unauthenticated:
    return Unauthenticated(say(T.WRONG_TOKEN))


# --- access -----------------------------------------------------------------------------------


def is_editor(sheet: Loaded, auth: Auth) -> bool:
    """The owner's session, or (no session) the sheet's own token."""
    if auth.caller is not None:
        return bool(sheet.row.owner_id == auth.caller.account_id)
    digest = sheet.row.token_hash
    return (
        auth.token is not None
        and digest is not None
        and hmac.compare_digest(token_hash(auth.token), digest)
    )


def check_access(sheet: Loaded | None, sheet_id: str, auth: Auth, write: bool) -> Loaded:
    """The sheet if `auth` may read it (or change it, `write`); else `NotFound`, or
    `Unauthenticated` for a bearer token that is neither a live session nor this sheet's
    token. A sheet one may not see does not exist for them; an account named on it, which
    may read it, is told it may not change it (`NotOwner`)."""
    if write and auth.token is None:
        raise needs_token()
    if auth.token is not None and auth.caller is None:
        if sheet is None or not is_editor(sheet, auth):
            raise _wrong_token()
        return sheet
    if sheet is None or auth.caller is None:
        raise not_found(sheet_id)
    if is_editor(sheet, auth) or (not write and sheet.named(auth.caller.account_id)):
        return sheet
    if sheet.named(auth.caller.account_id):
        raise NotOwner(say(T.NOT_OWNER))
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


# --- versions ---------------------------------------------------------------------------------

NO_CONDITIONS = Conditions()


def _sender(auth: Auth) -> str:
    """Whose `Idempotency-Key` it is: the session's account, else the sheet token's."""
    if auth.caller is not None:
        return f"account:{auth.caller.account_id}"
    return f"sheet-token:{token_hash(auth.token or '')}"


def _precondition(sheet: Loaded, if_match: IfMatch | None, required: bool) -> None:
    """`If-Match` against the locked sheet's version: `VersionMismatch` (with the sheet's
    `ETag`) when it moved, `PreconditionRequired` when `required` and none."""
    version = sheet.row.version
    if if_match is None:
        if required:
            raise PreconditionRequired(
                say(T.IF_MATCH_REQUIRED, version=version),
                headers={"ETag": f'"{version}"'},
            )
        return
    if not if_match.matches(version):
        raise VersionMismatch(
            say(T.VERSION_MISMATCH, version=version),
            headers={"ETag": f'"{version}"'},
        )


async def _reread(conn: AsyncConnection, sheet_id: str) -> Written:
    changed = await rows.load(conn, sheet_id)
    assert changed is not None
    out = sheet_out(changed)
    return Written(200, out, out.version)


# --- the service ------------------------------------------------------------------------------


class SheetService:
    """The score sheets of one database (one per app, shared by its requests).

    Every write runs in one transaction with the sheet's row locked (`SELECT … FOR UPDATE`):
    look up the request's `Idempotency-Key` (a retry replays the first answer), check who may
    write, then `If-Match` against the locked version, change the sheet and bump its version,
    store the answer under the key, commit. Concurrent writers of one sheet thus run one
    after the other, each checking the version the previous one left: of ten deletes of
    round 1 sent with the same `If-Match`, one deletes and nine are `VersionMismatch`.
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
        replay_gone: bool = False,
        body_refusal: Exception | None = None,
    ) -> Written:
        """Run `work` on the locked sheet once `access` lets `sender` write and `If-Match`
        holds (required: `must_match`), or replay the stored answer of the same keyed request
        to a caller `access` still lets write (`replay_gone`: also once the sheet is gone, for
        the retry of its deletion). `body_refusal`: the refusal of a body sent to an operation
        that takes none, which `work` raises where its checks end; a replay raises it too (the
        key names the operation, not a body: a retry with a body is refused as the first
        request with it would have been, not answered as the first one was).
        Two requests with one key racing on different rows meet on the key's row: the loser
        rolls back and, looking again, replays (or refuses) as a later retry would."""
        for attempt in range(2):
            try:
                async with self.engine.begin() as conn:
                    sheet = await rows.load(conn, sheet_id, lock=True)
                    answers = None
                    stored = None
                    if conditions.key is not None:
                        answers = Answers(conn, sender, conditions.key, request)
                        stored = await answers.replay()
                    if stored is not None and sheet is None and replay_gone:
                        refuse_body(body_refusal)
                        return stored  # a retried deletion of the sheet answers as the first did
                    # a retry answers only a caller that may still write the sheet: not a token
                    # a claim ended, nor anyone once the sheet is deleted
                    allowed = access(sheet)
                    if stored is not None:
                        refuse_body(body_refusal)
                        return stored
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
        replay_gone: bool = False,
        body_refusal: Exception | None = None,
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
            replay_gone,
            body_refusal,
        )

    async def create(
        self, body: CreateSheet, caller: Caller | None, key: str | None = None
    ) -> Written:
        """A new sheet; with `key`, a retry of the same body gets the same answer (the sheet
        token included) and creates nothing more."""
        check_ruleset(body.ruleset)
        if is_community(body.ruleset) and caller is None:
            raise community_locked(body.ruleset)
        check_names([player.name for player in body.players])
        rules = make_rules(body.ruleset, body.options)
        players = len(body.players)
        default = rules.match_rounds(players)
        planned = default if body.planned_rounds is None else body.planned_rounds
        check_planned(rules, players, planned)
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
        rules: Any,
        planned: int,
    ) -> tuple[SheetCreated, str | None]:
        sheet_id = new_id()
        token = None if caller is not None else new_token(SHEET_PREFIX)
        owner_id = None if caller is None else caller.account_id
        if caller is not None:
            await lock_account(conn, caller.account_id)
        accounts = await accounts_by_pseudo(conn, [p.account for p in body.players], "players")
        await rows.insert_sheet(
            conn,
            sheet_id,
            rules,
            owner_id,
            None if token is None else token_hash(token),
            planned,
            [(p.name, accounts[i]) for i, p in enumerate(body.players)],
        )
        sheet = await rows.load(conn, sheet_id)
        assert sheet is not None
        out = sheet_out(sheet)
        return SheetCreated(**msgspec.structs.asdict(out), token=token), token

    async def get(self, sheet_id: str, auth: Auth) -> SheetOut:
        async with self.engine.connect() as conn:
            sheet = check_access(await rows.load(conn, sheet_id), sheet_id, auth, write=False)
        return sheet_out(sheet)

    async def patch(
        self, sheet_id: str, auth: Auth, body: PatchSheet, conditions: Conditions = NO_CONDITIONS
    ) -> Written:
        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            players = len(sheet.players)
            if body.players is not None:
                if len(body.players) != players:
                    message = say(T.NAME_EACH, players=players)
                    raise field_error(Invalid, "bad-player-count", "players", message)
                check_names([player.name for player in body.players])
                await rows.rename_players(conn, sheet_id, [p.name for p in body.players])
            replanned = (
                body.planned_rounds is not None and body.planned_rounds != sheet.row.planned_rounds
            )
            if body.planned_rounds is not None and replanned:
                check_planned(sheet.rules, players, body.planned_rounds)
                standing = settle(sheet.rules, players, body.planned_rounds, sheet.scores)
                await rows.set_planned(conn, sheet_id, body.planned_rounds)
            else:
                standing = sheet.standing()
            await rows.touch(conn, sheet, standing.finished, reconfirm=replanned)
            return await _reread(conn, sheet_id)

        request = request_hash("patch", sheet_id, body)
        return await self._edit(sheet_id, auth, conditions, request, work)

    async def delete(
        self,
        sheet_id: str,
        auth: Auth,
        conditions: Conditions = NO_CONDITIONS,
        body_refusal: Exception | None = None,
    ) -> Written:
        """Delete the sheet. `body_refusal`: a body it takes none of
        (api.http.body.unwanted_body), refused once the editor and the sheet are checked,
        where another write decodes its body."""

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            refuse_body(body_refusal)
            await rows.delete_sheet(conn, sheet.row.id)
            return Written(204, None, None)

        request = request_hash("delete", sheet_id)
        return await self._edit(
            sheet_id, auth, conditions, request, work, replay_gone=True, body_refusal=body_refusal
        )

    async def add_round(
        self, sheet_id: str, auth: Auth, document: Any, conditions: Conditions = NO_CONDITIONS
    ) -> Written:
        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            if sheet.standing().finished:
                raise SheetFinished(
                    say(
                        T.FINISHED_AFTER,
                        rounds=len(sheet.rounds),
                        planned=sheet.row.planned_rounds,
                    )
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
        another phone's (`PreconditionRequired` without one)."""

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            scores = sheet.scores
            if not 1 <= n <= len(scores):
                raise NotFound(say(T.NO_ROUND, n=n))
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
        later = rederive(sheet.rules, n + 1, [r.input for r in sheet.rounds[n:]], new, scores[n:])
        rounds = [(data, new), *later]
        all_scores = [*scores[: n - 1], *(s for _, s in rounds)]
        standing = settle(sheet.rules, players, sheet.row.planned_rounds, all_scores)
        own_dealer = (n - 1) % players if dealer is None else dealer
        new_dealers = [own_dealer, *dealers[n:]]
        await rows.write_rounds(conn, sheet.row.id, n, rounds, new_dealers)
        await rows.touch(conn, sheet, standing.finished, reconfirm=True)
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
        self,
        sheet_id: str,
        auth: Auth,
        n: int,
        conditions: Conditions = NO_CONDITIONS,
        body_refusal: Exception | None = None,
    ) -> Written:
        """Needs `If-Match`: a deletion renumbers the later rounds, so a repeated or late
        `DELETE …/rounds/1` would delete another round (`PreconditionRequired` without).
        `body_refusal`: a body it takes none of (api.http.body.unwanted_body), refused once
        the round is found, where a round's replacement decodes its body."""

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            scores = sheet.scores
            if not 1 <= n <= len(scores):
                raise NotFound(say(T.NO_ROUND, n=n))
            refuse_body(body_refusal)
            players = len(sheet.players)
            before = scores[n - 2] if n >= 2 else None
            inputs = [r.input for r in sheet.rounds[n:]]
            later = rederive(sheet.rules, n, inputs, before, scores[n:])
            all_scores = [*scores[: n - 1], *(s for _, s in later)]
            standing = settle(sheet.rules, players, sheet.row.planned_rounds, all_scores)
            dealers = [r.dealer for r in sheet.rounds[n:]]
            await rows.write_rounds(conn, sheet.row.id, n, later, dealers)
            await rows.touch(conn, sheet, standing.finished, reconfirm=True)
            return Written(204, None, sheet.row.version + 1)

        request = request_hash("delete-round", sheet_id, n)
        return await self._edit(
            sheet_id, auth, conditions, request, work, must_match=True, body_refusal=body_refusal
        )

    async def claim(
        self,
        sheet_id: str,
        caller: Caller,
        body: ClaimSheet,
        conditions: Conditions = NO_CONDITIONS,
    ) -> Written:
        """The caller's account becomes the owner; the sheet token edits no more. A sheet one
        cannot claim (unknown, owned, another token) is `NotFound` alike. With `player`, that
        player is bound to the caller's account (confirmed: the sheet counts in its history
        and stats); `PlayerBound` when another account holds that player or the caller
        already plays on the sheet as another."""

        def access(sheet: Loaded | None) -> Loaded:
            if sheet is None or not is_editor(sheet, Auth(body.token, None)):
                raise not_found(sheet_id)
            return sheet

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            me = caller.account_id
            await lock_account(conn, me)
            if body.player is not None:
                check_player(sheet.seats, body.player, me)
                await rows.bind_player(conn, sheet_id, body.player, me)
            await rows.set_owner(conn, sheet_id, me)
            await rows.confirm_player(conn, sheet_id, me)
            return await _reread(conn, sheet_id)

        request = request_hash("claim", sheet_id, body)
        sender = f"account:{caller.account_id}"
        return await self._write(sheet_id, sender, conditions, request, access, work)

    async def share(
        self, sheet_id: str, auth: Auth, document: Any, conditions: Conditions = NO_CONDITIONS
    ) -> Written:
        """The editor names an account as one of the sheet's players after the sheet was
        made: that account reads the sheet, finds it in its history and may confirm it (its
        stats count it once confirmed; the owner's own player is confirmed at once). Naming
        the account a player has already changes nothing; `PlayerBound` when another account
        holds the player or the account plays another player of the sheet. `document` is the
        parsed body, decoded once the editor and the sheet are checked (order of checks)."""

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            body = decode_document(document, ShareSheet)
            players = sheet.seats
            if body.player >= len(players):
                last = len(players) - 1
                raise field_error(Invalid, "bad-request", "player", say(T.SHEET_PLAYER, last=last))
            account = await account_by_pseudo(conn, body.account, "account")
            bound = players[body.player].account_id
            if bound == account:
                return await _reread(conn, sheet_id)
            if bound is not None:
                raise PlayerBound(say(T.PLAYER_BOUND, player=body.player))
            for p in players:
                if p.account_id == account:
                    raise PlayerBound(say(T.ACCOUNT_ALREADY, player=p.position))
            await rows.bind_player(conn, sheet_id, body.player, account)
            if account == sheet.row.owner_id:
                await rows.confirm_player(conn, sheet_id, account)
            await rows.touch(conn, sheet, sheet.standing().finished, reconfirm=False)
            return await _reread(conn, sheet_id)

        request = request_hash("share", sheet_id, document)
        return await self._edit(sheet_id, auth, conditions, request, work)

    async def confirm(
        self,
        sheet_id: str,
        caller: Caller,
        conditions: Conditions = NO_CONDITIONS,
        body_refusal: Exception | None = None,
    ) -> Written:
        """A named account confirms the sheet as it is: from now on it counts in its stats.
        It changes no score, so the version stays (`If-Match` confirms the version read).
        `body_refusal`: a body it takes none of (api.http.body.unwanted_body), refused once
        the caller and the sheet are checked, where another write decodes its body."""

        def access(sheet: Loaded | None) -> Loaded:
            if sheet is None or not sheet.named(caller.account_id):
                raise not_found(sheet_id)
            return sheet

        async def work(conn: AsyncConnection, sheet: Loaded) -> Written:
            refuse_body(body_refusal)
            await rows.confirm_player(conn, sheet_id, caller.account_id)
            return await _reread(conn, sheet_id)

        request = request_hash("confirm", sheet_id)
        sender = f"account:{caller.account_id}"
        return await self._write(
            sheet_id, sender, conditions, request, access, work, body_refusal=body_refusal
        )
