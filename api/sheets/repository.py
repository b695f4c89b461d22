"""The score sheets' rows: the statements that read and write them, with the stored round
input's codec (`api.sheets.formats`) and the keyed answers' rows (`api.sheets.idempotency`).

No rule of the game and no access check lives here: a `Loaded` sheet is its rows as stored,
and each write is told what to write (`api.sheets.service` decides). Every function takes the
connection of the caller's transaction, so a flow's reads and writes commit or roll back as
one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import Row, and_, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from api.accounts.sessions import ACCOUNTS
from api.db.models import Sheet, SheetPlayer, SheetRound, table
from api.http.responses import HEX_ID
from api.sheets.formats import decode_round_input, round_input_document
from api.sheets.rules import Seat, make_rules, settle
from api.sheets.schemas import Standing
from engine import registry
from engine.core.base import RoundScore
from engine.registry import AnyRuleset

SHEETS = table(Sheet)
PLAYERS = table(SheetPlayer)
ROUNDS = table(SheetRound)


@dataclass(frozen=True)
class StoredRound:
    """A round row, its input read by the stored format's codec (api.sheets.formats)."""

    n: int
    dealer: int
    input: dict[str, Any]
    scores: dict[str, Any]


@dataclass
class Loaded:
    """A sheet as stored: its row (with its owner's pseudo), players, rounds and rules."""

    row: Row[Any]
    owner: str | None
    players: list[Any]
    rounds: list[StoredRound]
    rules: AnyRuleset

    @property
    def scores(self) -> list[RoundScore]:
        return [msgspec.convert(r.scores, RoundScore) for r in self.rounds]

    @property
    def seats(self) -> list[Seat]:
        return [Seat(p.position, p.account_id) for p in self.players]

    def standing(self) -> Standing:
        return settle(self.rules, len(self.players), self.row.planned_rounds, self.scores)

    def named(self, account_id: str) -> bool:
        return any(p.account_id == account_id for p in self.players)


async def load(conn: AsyncConnection, sheet_id: str, lock: bool = False) -> Loaded | None:
    """The sheet `sheet_id` (None: no such sheet, or an id of another form); `lock`: its row
    locked until the transaction ends (`SELECT … FOR UPDATE`)."""
    if not HEX_ID.fullmatch(sheet_id):
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


async def insert_sheet(
    conn: AsyncConnection,
    sheet_id: str,
    rules: AnyRuleset,
    owner_id: str | None,
    token_digest: str | None,
    planned: int,
    players: list[tuple[str, str | None]],
) -> None:
    """A new sheet at version 0 and its players (`(name, account id)` in seat order); the
    owner's own player entries are confirmed."""
    now = datetime.now(UTC)
    await conn.execute(
        insert(SHEETS).values(
            id=sheet_id,
            ruleset=rules.id,
            options=msgspec.to_builtins(rules.options),
            owner_id=owner_id,
            token_hash=token_digest,
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
                "name": name,
                "account_id": account,
                "confirmed": account is not None and account == owner_id,
            }
            for i, (name, account) in enumerate(players)
        ],
    )


async def rename_players(conn: AsyncConnection, sheet_id: str, names: list[str]) -> None:
    for i, name in enumerate(names):
        await conn.execute(
            update(PLAYERS)
            .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.position == i)
            .values(name=name)
        )


async def set_planned(conn: AsyncConnection, sheet_id: str, planned: int) -> None:
    await conn.execute(update(SHEETS).where(SHEETS.c.id == sheet_id).values(planned_rounds=planned))


async def delete_sheet(conn: AsyncConnection, sheet_id: str) -> None:
    await conn.execute(delete(SHEETS).where(SHEETS.c.id == sheet_id))


async def write_rounds(
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


async def touch(conn: AsyncConnection, sheet: Loaded, finished: bool, reconfirm: bool) -> None:
    """A new version; `finished_at` kept in step with the standing (`finished`); with
    `reconfirm` (rounds or planned rounds changed) the other accounts' confirmations cleared."""
    finished_at = (sheet.row.finished_at or datetime.now(UTC)) if finished else None
    await conn.execute(
        update(SHEETS)
        .where(SHEETS.c.id == sheet.row.id)
        .values(version=SHEETS.c.version + 1, finished_at=finished_at, updated_at=datetime.now(UTC))
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


async def bind_player(conn: AsyncConnection, sheet_id: str, position: int, account_id: str) -> None:
    await conn.execute(
        update(PLAYERS)
        .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.position == position)
        .values(account_id=account_id)
    )


async def set_owner(conn: AsyncConnection, sheet_id: str, account_id: str) -> None:
    """The account owns the sheet; the sheet token ends; a new version."""
    await conn.execute(
        update(SHEETS)
        .where(SHEETS.c.id == sheet_id)
        .values(
            owner_id=account_id,
            token_hash=None,
            version=SHEETS.c.version + 1,
            updated_at=datetime.now(UTC),
        )
    )


async def confirm_player(conn: AsyncConnection, sheet_id: str, account_id: str) -> None:
    """The account's player entries on the sheet are confirmed (its stats count the sheet)."""
    await conn.execute(
        update(PLAYERS)
        .where(PLAYERS.c.sheet_id == sheet_id, PLAYERS.c.account_id == account_id)
        .values(confirmed=True)
    )
