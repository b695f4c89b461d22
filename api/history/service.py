"""The history service: an account's history and stats (api-contract.md, `GET /v1/me/history`, `GET /v1/me/stats`;
rules/app.md "History and stats").

History: the account's score sheets (owned, or naming it as a player) and the stored games
where it holds a joined seat, newest first (`at`: when each last changed), by keyset pages:
the opaque cursor is the last item's `(at, kind, id)`, so a page never repeats or skips an
item whatever is added meanwhile. Each item carries what a list screen shows (the ruleset's
name, the players' names, the totals, the account's players and score, the winners), read for
the whole page at once: a page costs the same few statements whatever its length (the page,
then its sheets, their players and rounds, its games with the account's seats, their seats'
names), never one per item.

Stats are computed from the stored rows on every request, never kept: they always equal a
recomputation. They cover the finished sheets on which the account is a confirmed player
(the owner's own player entries are confirmed at creation) and the finished (`over`) stored
games where it holds a joined seat; a game that seated a bot counts apart (`vs_bots`, the
same figures), never in the main ones (api-contract.md, "Edge cases settled", Bots). Per ruleset: `played`, `won` (a shared win counts),
`win_rate`, the account's `average_round_score` and `best_round_score` (the lowest in numwin)
over every round it played in them, tie-break rounds included; numwars adds `by_role`, from
the roles of the sheets' round inputs (a stored game's result does not hold the roles).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import String, literal, select, tuple_, union_all
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts.sessions import Caller
from api.db.engine import aware
from api.db.models import Game, GameSeat, table
from api.history.schemas import (
    HistoryItem,
    HistoryOut,
    RoleStats,
    RulesetStats,
    StatsOut,
)
from api.http.domain import DomainError, Invalid, field_error
from api.http.responses import HEX_ID
from api.sheets.repository import PLAYERS, ROUNDS, SHEETS
from api.sheets.rules import make_rules, settle
from api.sheets.schemas import Standing
from engine.core.base import RoundScore
from engine.core.texts import say, text
from engine.registry import SPECS

GAMES = table(Game)
SEATS = table(GameSeat)
BOTS = SEATS.alias("bot_seats")  # a game's other seats, for whether one is a bot
KINDS = ("scoresheet", "game")


BAD_CURSOR = text(
    "bad-cursor",
    "not a cursor of this list: pass `next_cursor` of the previous page as it is",
    "pas un curseur de cette liste\u00a0: passez tel quel le `next_cursor` de la page précédente",
)


def _bad_cursor() -> DomainError:
    return field_error(Invalid, "bad-cursor", "cursor", say(BAD_CURSOR))


def encode_cursor(at: datetime, kind: str, item_id: str) -> str:
    raw = json.dumps([aware(at).isoformat(), kind, item_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        at, kind, item_id = json.loads(raw)
        moment = datetime.fromisoformat(at)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        raise _bad_cursor() from None
    if moment.tzinfo is None or kind not in KINDS or not isinstance(item_id, str):
        raise _bad_cursor()
    if not HEX_ID.fullmatch(item_id):  # ids are 32 hex digits (a NUL once reached the SQL)
        raise _bad_cursor()
    try:  # in range once in UTC (year 1 at +14:00 is not)
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise _bad_cursor() from None
    return moment, kind, item_id


async def history(
    engine: AsyncEngine, caller: Caller, limit: int, cursor: str | None, language: str = "en"
) -> HistoryOut:
    me = caller.account_id
    named = select(PLAYERS.c.sheet_id).where(PLAYERS.c.account_id == me)
    sheets = select(
        literal("scoresheet", String).label("kind"),
        SHEETS.c.id.label("id"),
        SHEETS.c.ruleset.label("ruleset"),
        SHEETS.c.updated_at.label("at"),
    ).where((SHEETS.c.owner_id == me) | SHEETS.c.id.in_(named))
    seated = select(SEATS.c.game_id).where(SEATS.c.account_id == me, SEATS.c.joined.is_(True))
    games = select(
        literal("game", String).label("kind"),
        GAMES.c.id.label("id"),
        GAMES.c.ruleset.label("ruleset"),
        GAMES.c.updated_at.label("at"),
    ).where(GAMES.c.id.in_(seated))
    items = union_all(sheets, games).subquery()
    query = select(items).order_by(items.c.at.desc(), items.c.kind.desc(), items.c.id.desc())
    if cursor is not None:
        at, kind, item_id = decode_cursor(cursor)
        query = query.where(
            tuple_(items.c.at, items.c.kind, items.c.id) < tuple_(at, kind, item_id)
        )
    async with engine.connect() as conn:
        rows = (await conn.execute(query.limit(limit + 1))).all()
        page = rows[:limit]
        sheet_results = await _sheet_results(
            conn, me, [r.id for r in page if r.kind == "scoresheet"]
        )
        game_results = await _game_results(conn, me, [r.id for r in page if r.kind == "game"])
    results = {**sheet_results, **game_results}
    out = [
        _item(r.kind, r.id, r.ruleset, aware(r.at), results[r.kind, r.id], language) for r in page
    ]
    last = page[-1] if page else None
    more = len(rows) > limit and last is not None
    return HistoryOut(
        items=out,
        next_cursor=encode_cursor(last.at, last.kind, last.id) if more and last else None,
    )


# --- what each sheet and game was, for an account -----------------------------------------------


@dataclass
class Played:
    """One finished sheet or game as one account played it: its positions' round scores and
    roles (numwars sheets), and whether it won."""

    ruleset: str
    won: bool
    scores: list[int] = field(default_factory=list)
    roles: list[tuple[str, int]] = field(default_factory=list)


@dataclass(frozen=True)
class Summary:
    """What a history item shows of a sheet or a game, for one account (indices into
    `names`)."""

    finished: bool
    won: bool
    names: list[str]
    seats: list[int]
    totals: list[int] | None
    winners: list[int]


def _item(
    kind: str, item_id: str, ruleset: str, at: datetime, summary: Summary, language: str = "en"
) -> HistoryItem:
    """An item as a list screen shows it, the ruleset named in `language`."""
    spec = SPECS.get(ruleset)
    totals = summary.totals
    return HistoryItem(
        kind="game" if kind == "game" else "scoresheet",
        id=item_id,
        ruleset=ruleset,
        finished=summary.finished,
        won=summary.won,
        at=at,
        ruleset_name=spec.names.get(language, spec.name) if spec is not None else ruleset,
        players=summary.names,
        seats=summary.seats,
        totals=totals,
        score=totals[summary.seats[0]]
        if totals is not None and summary.seats and summary.seats[0] < len(totals)
        else None,
        winners=summary.winners,
    )


@dataclass
class _SheetRows:
    ruleset: str
    options: dict[str, Any]
    planned: int
    players: int = 0
    mine: list[int] = field(default_factory=list)
    rounds: list[tuple[dict[str, Any], RoundScore]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)


async def _sheets(
    conn: AsyncConnection, me: str, sheet_ids: Iterable[str] | None
) -> dict[str, _SheetRows]:
    """Sheets with the account's positions and rounds: the given ids, or (None) every
    finished sheet on which the account is a confirmed player."""
    query = select(SHEETS.c.id, SHEETS.c.ruleset, SHEETS.c.options, SHEETS.c.planned_rounds)
    if sheet_ids is None:
        confirmed = select(PLAYERS.c.sheet_id).where(
            PLAYERS.c.account_id == me, PLAYERS.c.confirmed.is_(True)
        )
        query = query.where(SHEETS.c.finished_at.is_not(None), SHEETS.c.id.in_(confirmed))
    else:
        ids = list(sheet_ids)
        if not ids:
            return {}
        query = query.where(SHEETS.c.id.in_(ids))
    found = {
        r.id: _SheetRows(r.ruleset, r.options, r.planned_rounds) for r in await conn.execute(query)
    }
    if not found:
        return found
    players = await conn.execute(
        select(
            PLAYERS.c.sheet_id,
            PLAYERS.c.position,
            PLAYERS.c.name,
            PLAYERS.c.account_id,
            PLAYERS.c.confirmed,
        )
        .where(PLAYERS.c.sheet_id.in_(list(found)))
        .order_by(PLAYERS.c.sheet_id, PLAYERS.c.position)
    )
    for p in players:
        sheet = found[p.sheet_id]
        sheet.players += 1
        sheet.names.append(p.name)
        if p.account_id == me and (sheet_ids is not None or p.confirmed):
            sheet.mine.append(p.position)
    rounds = await conn.execute(
        select(ROUNDS.c.sheet_id, ROUNDS.c.input, ROUNDS.c.scores)
        .where(ROUNDS.c.sheet_id.in_(list(found)))
        .order_by(ROUNDS.c.sheet_id, ROUNDS.c.n)
    )
    for r in rounds:
        found[r.sheet_id].rounds.append((r.input, msgspec.convert(r.scores, RoundScore)))
    return found


def _sheet_played(sheet: _SheetRows) -> tuple[Standing, Played]:
    """The sheet's standing, and what the account's positions did on it."""
    rules = make_rules(sheet.ruleset, sheet.options)
    standing = settle(rules, sheet.players, sheet.planned, [s for _, s in sheet.rounds])
    won = standing.finished and any(p in standing.winners for p in sheet.mine)
    played = Played(sheet.ruleset, won)
    role = SPECS[sheet.ruleset].sheet.role  # per-round stats by role (numwars), if any
    for data, scores in sheet.rounds:
        by_seat = {p.seat: p.score for p in scores.players}
        for position in sheet.mine:
            played.scores.append(by_seat[position])
            if role is not None:
                played.roles.append((role(data, position), by_seat[position]))
    return standing, played


async def _sheet_results(
    conn: AsyncConnection, me: str, sheet_ids: list[str]
) -> dict[tuple[str, str], Summary]:
    found = await _sheets(conn, me, sheet_ids)
    results: dict[tuple[str, str], Summary] = {}
    for sheet_id, sheet in found.items():
        standing, played = _sheet_played(sheet)
        results["scoresheet", sheet_id] = Summary(
            finished=standing.finished,
            won=played.won,
            names=sheet.names,
            seats=sheet.mine,
            totals=standing.totals,
            winners=standing.winners,
        )
    return results


async def _games(conn: AsyncConnection, me: str, game_ids: list[str] | None) -> list[Any]:
    """The account's joined seats of the given games, or (None) of every game over; `bots`:
    whether the game seats a bot (its stats count apart, `vs_bots`)."""
    bots = (
        select(BOTS.c.seat)
        .where(BOTS.c.game_id == GAMES.c.id, BOTS.c.bot.is_not(None))
        .exists()
        .label("bots")
    )
    query = (
        select(GAMES.c.id, GAMES.c.ruleset, GAMES.c.status, GAMES.c.result, SEATS.c.seat, bots)
        .select_from(GAMES.join(SEATS, SEATS.c.game_id == GAMES.c.id))
        .where(SEATS.c.account_id == me, SEATS.c.joined.is_(True))
    )
    if game_ids is None:
        query = query.where(GAMES.c.status == "over")
    else:
        if not game_ids:
            return []
        query = query.where(GAMES.c.id.in_(game_ids))
    return list((await conn.execute(query)).all())


def _game_played(row: Any) -> Played:
    result = row.result if row.status == "over" and isinstance(row.result, dict) else {}
    played = Played(row.ruleset, row.seat in result.get("winners", []))
    for round_score in result.get("rounds", []):
        for p in round_score.get("players", []):
            if p.get("seat") == row.seat:
                played.scores.append(p["score"])
    return played


async def _game_results(
    conn: AsyncConnection, me: str, game_ids: list[str]
) -> dict[tuple[str, str], Summary]:
    """The page's games as the account played them (one row per joined seat of it), with
    every seat's name (one statement for the page)."""
    rows = await _games(conn, me, game_ids)
    names: dict[str, list[str]] = defaultdict(list)
    if rows:
        seats = await conn.execute(
            select(SEATS.c.game_id, SEATS.c.name)
            .where(SEATS.c.game_id.in_({r.id for r in rows}))
            .order_by(SEATS.c.game_id, SEATS.c.seat)
        )
        for seat in seats:
            names[seat.game_id].append(seat.name)
    results: dict[tuple[str, str], Summary] = {}
    for row in rows:
        over = row.status == "over" and isinstance(row.result, dict)
        result = row.result if over else {}
        earlier = results.get(("game", row.id))
        totals = result.get("totals")
        winners = result.get("winners")
        results["game", row.id] = Summary(
            finished=row.status == "over",
            won=(earlier is not None and earlier.won) or _game_played(row).won,
            names=names[row.id],
            seats=sorted({*(earlier.seats if earlier else []), row.seat}),
            totals=list(totals) if isinstance(totals, list) else None,
            winners=list(winners) if isinstance(winners, list) else [],
        )
    return results


# --- stats ----------------------------------------------------------------------------------


def aggregate(games: Iterable[Played]) -> dict[str, RulesetStats]:
    """The stats of the finished sheets and games an account played, per ruleset."""
    by_ruleset: dict[str, list[Played]] = defaultdict(list)
    for played in games:
        by_ruleset[played.ruleset].append(played)
    out: dict[str, RulesetStats] = {}
    for ruleset, spec in SPECS.items():
        group = by_ruleset.get(ruleset)
        if not group:
            continue
        scores = [s for g in group for s in g.scores]
        won = sum(g.won for g in group)
        best = (min if spec.lowest_wins else max)(scores) if scores else None
        roles: dict[str, list[int]] = defaultdict(list)
        for g in group:
            for role, role_score in g.roles:
                roles[role].append(role_score)
        out[ruleset] = RulesetStats(
            played=len(group),
            won=won,
            win_rate=won / len(group),
            average_round_score=sum(scores) / len(scores) if scores else None,
            best_round_score=best,
            by_role=(
                {
                    role: RoleStats(rounds=len(values), average_score=sum(values) / len(values))
                    for role, values in sorted(roles.items())
                }
                if spec.sheet.role is not None
                else None
            ),
        )
    return out


async def stats(engine: AsyncEngine, caller: Caller) -> StatsOut:
    me = caller.account_id
    async with engine.connect() as conn:
        sheets = await _sheets(conn, me, None)
        games = await _games(conn, me, None)
    played: list[Played] = []
    for sheet in sheets.values():
        standing, one = _sheet_played(sheet)
        if standing.finished and sheet.mine:
            played.append(one)
    played.extend(_game_played(row) for row in games if not row.bots)
    vs_bots = [_game_played(row) for row in games if row.bots]
    return StatsOut(rulesets=aggregate(played), vs_bots=aggregate(vs_bots))


class HistoryService:
    """An account's history and stats, on one database (one per app, shared by its requests).

    It reads the score sheets' and the stored games' tables together, so it sits above both
    areas (`api.sheets`, `api.games`), not in either, nor in accounts (below them)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def history(
        self, caller: Caller, limit: int, cursor: str | None, language: str = "en"
    ) -> HistoryOut:
        return await history(self.engine, caller, limit, cursor, language)

    async def stats(self, caller: Caller) -> StatsOut:
        return await stats(self.engine, caller)
