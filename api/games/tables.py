"""Open tables and rematches of stored games (issue 26; api-contract.md, "Turn clocks, open
tables, rematch" and the settled "Open tables.", "Seeds of shared tables.", "Rematch."): the
open tables' list, claiming and leaving a seat, starting a waiting game, and the rematch of a
finished one. The creation of a game with open seats is :meth:`GameService.create`'s; the
helpers below the flow (seals, cursor, words) are :mod:`api.games.seating`.

Every write locks the game's row first (`SELECT … FOR UPDATE`; SQLite's transactions are
`BEGIN IMMEDIATE`): concurrent claims of one seat are serialized there, so exactly one wins
and each other one reads the seat taken; concurrent rematches of one game create one game.

A waiting game's round is not dealt to anyone: it has no event until it starts, then its
round 1 starts exactly as a created game's does (the `round-start` and each seat's `deal`),
bots filling the seats still open when the creator asks. It lapses (abandoned) once
`waiting_hours` have passed: the list hides it at once, and the first access abandons it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from sqlalchemy import func, select, text, tuple_, update
from sqlalchemy.ext.asyncio import AsyncConnection

from api.accounts.sessions import Caller, lock_account
from api.db.engine import aware
from api.db.models import Account, table
from api.games.bots import owner_of
from api.games.clock import clock_of, earliest, from_epoch, start_deadlines
from api.games.fanout import channel_of
from api.games.formats import event_document
from api.games.repository import GAMES, SEATS, GameRow, StoredEvent, deadline_values
from api.games.schemas import (
    ClaimedSeat,
    CreateGame,
    GameCreated,
    GameOut,
    LeftSeat,
    OpenTable,
    OpenTables,
    SeatOut,
    SeatToken,
    StartGame,
    Status,
)
from api.games.seating import (
    ALREADY_SEATED,
    GAME_STARTED,
    NEVER_STARTED,
    NOT_SEATED,
    NOT_THE_CREATOR,
    REMATCH_NEEDS_SEAT,
    REMATCH_TOO_SOON,
    SEAT_TAKEN,
    SEATS_OPEN,
    NewSeat,
    decode_cursor,
    encode_cursor,
    seal,
    unseal,
)
from api.games.service import (
    ALREADY,
    NO_SEAT,
    Credential,
    GameService,
    GameStateConflict,
    _status,
    bot_seat,
)
from api.http.body import check_ruleset
from api.http.domain import Conflict, Forbidden, NotFound, Unauthenticated, refuse_body
from api.http.tokens import SEAT_PREFIX, new_token, token_hash, unheld_token_hash
from engine import registry
from engine.core.match import Match
from engine.core.texts import say

ACCOUNTS = table(Account)
#: A seat's columns as the flows below read them.
_SEAT_COLUMNS = (
    SEATS.c.seat,
    SEATS.c.name,
    SEATS.c.token_hash,
    SEATS.c.account_id,
    SEATS.c.joined,
    SEATS.c.bot,
    SEATS.c.open,
    SEATS.c.open_name,
    SEATS.c.claim_seal,
    SEATS.c.token_pending,
)


def _conflict_of_status(status: str) -> Conflict:
    """A seat claimed, left or filled in a game no longer waiting."""
    if status == "active":
        return Conflict(say(GAME_STARTED), code="game-started")
    return GameStateConflict("game-over", say(ALREADY, status=_status(status)))


class Tables:
    """The open tables and rematches of the games `games` stores."""

    def __init__(self, games: GameService) -> None:
        self.games = games

    # -- the list ------------------------------------------------------------------------

    async def list_open(self, ruleset: str | None, limit: int, cursor: str | None) -> OpenTables:
        """Waiting games newest first (`created_at`, then id: a keyset, so a page never
        repeats or skips a game created meanwhile), those past their wait left out; each with
        its public seats only: names, bots, which are open (no token, hand, seed or
        account)."""
        if ruleset is not None:
            check_ruleset(ruleset)
        since = datetime.now(UTC) - timedelta(hours=self.games.waiting_hours)
        query = (
            select(GAMES.c.id, GAMES.c.ruleset, GAMES.c.options, GAMES.c.created_at)
            .where(GAMES.c.status == "waiting", GAMES.c.created_at > since)
            .order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc())
            .limit(limit + 1)
        )
        if ruleset is not None:
            query = query.where(GAMES.c.ruleset == ruleset)
        if cursor is not None:
            at, last_id = decode_cursor(cursor)
            query = query.where(tuple_(GAMES.c.created_at, GAMES.c.id) < tuple_(at, last_id))
        async with self.games.reader.connect() as conn:
            rows = (await conn.execute(query)).all()
            page = rows[:limit]
            seats: dict[str, list[Any]] = {r.id: [] for r in page}
            if page:
                for s in await conn.execute(
                    select(SEATS.c.game_id, SEATS.c.seat, SEATS.c.name, SEATS.c.bot, SEATS.c.open)
                    .where(SEATS.c.game_id.in_(list(seats)))
                    .order_by(SEATS.c.game_id, SEATS.c.seat)
                ):
                    seats[s.game_id].append(s)
        items = [
            OpenTable(
                id=r.id,
                ruleset=r.ruleset,
                options=r.options,
                players=[
                    SeatOut(seat=s.seat, name=s.name, bot=s.bot, open=s.open) for s in seats[r.id]
                ],
                open_seats=[s.seat for s in seats[r.id] if s.open],
                created_at=aware(r.created_at).isoformat().replace("+00:00", "Z"),
            )
            for r in page
        ]
        last = page[-1] if page else None
        more = len(rows) > limit and last is not None
        return OpenTables(
            items=items,
            next_cursor=encode_cursor(last.created_at, last.id) if more and last else None,
        )

    # -- claiming, leaving, starting -----------------------------------------------------

    async def _locked(self, conn: AsyncConnection, game_id: str) -> GameRow:
        """The game's row, locked; a waiting game past its wait is abandoned first (in this
        transaction: the caller's refusal of an abandoned game then stands once committed)."""
        game = await self.games._game(conn, game_id, lock=True)
        if self.games.lapsed(game):
            await self.games.repository.abandon(conn, game_id)
            game = await self.games._game(conn, game_id, lock=True)
        return game

    async def _seats(self, conn: AsyncConnection, game_id: str) -> list[Any]:
        rows = await conn.execute(
            select(*_SEAT_COLUMNS).where(SEATS.c.game_id == game_id).order_by(SEATS.c.seat)
        )
        return list(rows.all())

    async def claim(
        self,
        game_id: str,
        seat: int,
        caller: Caller,
        session_token: str,
        body_refusal: Exception | None = None,
    ) -> tuple[ClaimedSeat, bool]:
        """Claim an open seat for the caller's account: its token, and whether the seat is
        newly claimed (201) or was the account's already (200: the same token when the same
        session asks, else a fresh one for the same seat; see api.games.seating). One seat per
        account and game; the last open seat filled starts the game. `body_refusal`: a body
        it takes none of, refused once the game and the seat are found
        (api.http.body.unwanted_body)."""
        lapsed = False
        refusal: Exception | None = None
        answer: tuple[ClaimedSeat, bool] | None = None
        started: Match | None = None
        owed = False
        async with self.games.engine.begin() as conn:
            await lock_account(conn, caller.account_id, caller.session_hash)
            game = await self._locked(conn, game_id)
            lapsed = game.status == "abandoned"
            seats = await self._seats(conn, game_id)
            if not 0 <= seat < len(seats):  # the path takes any integer: checked here
                raise NotFound(say(NO_SEAT, game=game_id, seat=seat))
            mine = [s for s in seats if s.account_id == caller.account_id]
            if body_refusal is not None:  # raised after the commit, as any refusal here
                refusal = body_refusal
            elif mine:
                held = mine[0]
                if held.seat != seat or held.claim_seal is None:
                    refusal = Conflict(say(ALREADY_SEATED, seat=held.seat), code="already-seated")
                else:
                    token = unseal(held.claim_seal, session_token)
                    if token is None or token_hash(token) != held.token_hash:
                        token = new_token(SEAT_PREFIX)  # another session: a fresh token
                        await conn.execute(
                            update(SEATS)
                            .where(SEATS.c.game_id == game_id, SEATS.c.seat == seat)
                            .values(
                                token_hash=token_hash(token), claim_seal=seal(token, session_token)
                            )
                        )
                    answer = ClaimedSeat(seat=seat, token=token, status=game.status), False
            elif not seats[seat].open:
                refusal = Conflict(say(SEAT_TAKEN, seat=seat), code="seat-taken")
            elif game.status != "waiting":
                refusal = _conflict_of_status(game.status)
            else:
                token = new_token(SEAT_PREFIX)
                taken = await conn.execute(
                    update(SEATS)
                    .where(SEATS.c.game_id == game_id, SEATS.c.seat == seat, SEATS.c.open)
                    .values(
                        open=False,
                        account_id=caller.account_id,
                        joined=True,
                        name=seats[seat].open_name or _distinct(caller.pseudo, seat, seats),
                        token_hash=token_hash(token),
                        claim_seal=seal(token, session_token),
                    )
                )
                if taken.rowcount != 1:  # the row lock makes this impossible; never two winners
                    raise Conflict(say(SEAT_TAKEN, seat=seat), code="seat-taken")
                status: Status = "waiting"
                if not any(s.open for s in seats if s.seat != seat):
                    started, owed = await self._start(conn, game)
                    status = "active"
                answer = ClaimedSeat(seat=seat, token=token, status=status), True
        if lapsed:
            self.games.fanout.publish(game_id)
        if refusal is not None:
            raise refusal
        assert answer is not None
        self._started(game_id, started, owed)
        return answer

    async def leave(
        self, game_id: str, seat: int, caller: Caller, body_refusal: Exception | None = None
    ) -> LeftSeat:
        """Leave a seat before the start: open again (with the name it was opened with), its
        token revoked, unbound from the account. `body_refusal`: a body it takes none of,
        refused once the game and the seat are found and the seat is the caller's
        (api.http.body.unwanted_body)."""
        async with self.games.engine.begin() as conn:
            game = await self._locked(conn, game_id)
            seats = await self._seats(conn, game_id)
            if not 0 <= seat < len(seats):  # the path takes any integer: checked here
                raise NotFound(say(NO_SEAT, game=game_id, seat=seat))
            row = seats[seat]
            if row.account_id != caller.account_id or not row.joined:
                raise Forbidden(say(NOT_SEATED, seat=seat), code="not-your-seat")
            refuse_body(body_refusal)
            if game.status != "waiting":
                raise _conflict_of_status(game.status)
            # a seat the creator named keeps its name; a claimed one its opening name
            open_name = row.open_name if row.claim_seal is not None else row.name
            await conn.execute(
                update(SEATS)
                .where(SEATS.c.game_id == game_id, SEATS.c.seat == seat)
                .values(
                    open=True,
                    account_id=None,
                    joined=False,
                    name=open_name or "",
                    open_name=open_name,
                    token_hash=unheld_token_hash(),
                    claim_seal=None,
                )
            )
            # its tickets too: one redeemed after the start would show the next holder's hand
            await self.games.repository.drop_tickets(conn, game_id, seat)
        self.games.fanout.publish(game_id)
        return LeftSeat(
            seat=seat,
            open=True,
            open_seats=[s.seat for s in seats if s.open or s.seat == seat],
        )

    async def start(
        self, game_id: str, body: StartGame, caller: Caller, credential: Credential
    ) -> GameOut:
        """Start a waiting game now (its creator's session): the seats still open are played
        by bots of `fill_with_bots` (409 `seats-open` without it)."""
        async with self.games.engine.begin() as conn:
            game = await self._locked(conn, game_id)
            if game.creator_id != caller.account_id:
                raise Forbidden(say(NOT_THE_CREATOR, what="start"), code="not-the-creator")
            if game.status != "waiting":
                raise _conflict_of_status(game.status)
            seats = await self._seats(conn, game_id)
            opened = [s.seat for s in seats if s.open]
            # the answer is the creator's seat's view if it holds one, else a spectator's
            seated = any(s.account_id == caller.account_id and s.joined for s in seats)
            if opened and body.fill_with_bots is None:
                raise Conflict(
                    say(SEATS_OPEN, seats=", ".join(map(str, opened))), code="seats-open"
                )
            if opened:  # the bots' think time is the creator's quota (api.games.bots.Limits)
                owner = game.bot_owner or owner_of(caller.account_id, None)
                if body.fill_with_bots == "expert" and owner is not None:
                    await self.games._check_bot_quota(conn, owner)
                await conn.execute(
                    update(GAMES).where(GAMES.c.id == game_id).values(bot_owner=owner)
                )
            for seat in opened:
                await conn.execute(
                    update(SEATS)
                    .where(SEATS.c.game_id == game_id, SEATS.c.seat == seat)
                    .values(
                        open=False,
                        bot=body.fill_with_bots,
                        name=func.coalesce(SEATS.c.open_name, f"Robot {seat + 1}"),
                    )
                )
            match, owed = await self._start(conn, game)
        self._started(game_id, match, owed)
        return await self.games.get(game_id, credential if seated else None)

    async def _start(self, conn: AsyncConnection, game: GameRow) -> tuple[Match, bool]:
        """The waiting game starts: round 1 dealt as a created game's is (its `round-start`
        and each seat's `deal`), status `active`, a bot's first move owed if a bot acts.
        The one place a waiting game becomes active (the last claim, `POST …/start`): where
        a clocked game's first deadline is set, since no clock runs while a game waits."""
        match = Match(registry.make(game.ruleset, game.options), game.players, game.seed)
        opening = match.round_start_events()
        stored = [StoredEvent(i + 1, event_document(e), e.to) for i, e in enumerate(opening)]
        bots = [s.bot for s in await self._seats(conn, game.id)]
        owed = bot_seat(match, bots) is not None
        await self.games.repository.add_events(conn, game.id, stored)
        values: dict[str, Any] = {
            "status": "active",
            "event_seq": len(stored),
            "bot_pending": owed,
            "updated_at": func.now(),
        }
        clock = clock_of(game)
        if clock is not None:  # the first turns start now, by the database's clock
            now = from_epoch(await self.games.repository.now(conn))
            deadlines = start_deadlines(match, bots, clock, now, 0)
            values.update(deadlines=deadlines, **deadline_values(earliest(deadlines)))
        await conn.execute(update(GAMES).where(GAMES.c.id == game.id).values(**values))
        if self.games.notify:
            await conn.execute(
                text("SELECT pg_notify(:channel, :game)"),
                {"channel": channel_of(game.id), "game": game.id},
            )
        return match, owed

    def _started(self, game_id: str, match: Match | None, owed: bool) -> None:
        """After the commit of a start: the new match cached, streams woken, bots kicked."""
        if match is None:
            return
        self.games._names_cache.pop(game_id, None)
        self.games._put(game_id, 0, match)
        self.games.fanout.publish(game_id)
        if owed:
            self.games.kick(game_id)

    # -- rematch -------------------------------------------------------------------------

    async def rematch(
        self, game_id: str, caller: Credential | None, body_refusal: Exception | None = None
    ) -> tuple[GameCreated, bool]:
        """The game's rematch, created by its first caller (201) and the same for every later
        one (200): seats rotated by one (the player of old seat `s` sits at `s - 1`, so the
        old seat 1 is the new seat 0), names, accounts (bound as they were) and bots kept,
        the creation request kept wholesale but for a fresh seed (never the creator's). Each
        old seat gets its new seat's token once, on its first call: the creator of the
        rematch at once, the others when they call (`token` absent after). `body_refusal`:
        a body it takes none of, refused once the caller and the game are checked
        (api.http.body.unwanted_body)."""
        if caller is None:
            raise Unauthenticated(say(REMATCH_NEEDS_SEAT))
        games = self.games
        async with games.engine.begin() as conn:
            game = await games._game(conn, game_id, lock=True)
            old_seat = await games._seat(conn, game_id, caller)
            assert old_seat is not None
            holder = (await self._seats(conn, game_id))[old_seat].account_id
            if holder is not None:  # serialized with a new password's revocations
                await lock_account(conn, holder, caller.digest if caller.account_id else None)
                old_seat = await games._seat(conn, game_id, caller)  # its token still the seat's
                assert old_seat is not None
            refuse_body(body_refusal)
            if game.status in ("waiting", "active"):
                raise Conflict(say(REMATCH_TOO_SOON), code="game-active")
            if game.event_seq == 0:  # cancelled or lapsed while waiting: never dealt
                raise Conflict(say(NEVER_STARTED), code="never-started")
            seat = (old_seat - 1) % game.players
            if game.rematch_id is None:
                created, match, owed = await self._create_rematch(conn, game, old_seat)
                await conn.execute(
                    update(GAMES).where(GAMES.c.id == game_id).values(rematch_id=created.id)
                )
                fresh = True
            else:
                created = await self._rematch_answer(conn, game.rematch_id, seat)
                fresh = False
        if fresh:
            games._put(created.id, 0, match)
            if owed:
                games.kick(created.id)
        return created, fresh

    async def _create_rematch(
        self, conn: AsyncConnection, game: GameRow, caller_seat: int
    ) -> tuple[GameCreated, Match, bool]:
        kept: dict[str, Any] = dict(game.created_with or {})
        if not kept:  # a game created before its request was kept
            kept = {"ruleset": game.ruleset, "options": {**game.options, "hints": game.hints}}
        old = await self._seats(conn, game.id)
        pseudos = await self._pseudos(conn, [s.account_id for s in old])
        order = [old[(j + 1) % len(old)] for j in range(len(old))]
        seats = [
            NewSeat(
                name=s.name,
                account_id=s.account_id,
                joined=s.joined,
                bot=s.bot,
                open=s.open,
                open_name=s.open_name,
                issue=s.seat == caller_seat,
                pending=s.bot is None and not s.open and s.seat != caller_seat,
                pseudo=pseudos.get(s.account_id or ""),
            )
            for s in order
        ]
        players = [
            {"name": s.name or None, "open": s.open, **({"bot": s.bot} if s.bot else {})}
            for s in order
        ]
        body = msgspec.convert({**kept, "players": players, "seed": None}, CreateGame)
        rules, hints = self.games.rules_of(body)
        return await self.games.insert_game(
            conn, body, rules, hints, seats, game.creator_id, game.bot_owner
        )

    async def _pseudos(self, conn: AsyncConnection, ids: list[str | None]) -> dict[str, str]:
        wanted = [i for i in ids if i is not None]
        if not wanted:
            return {}
        rows = await conn.execute(
            select(ACCOUNTS.c.id, ACCOUNTS.c.pseudo).where(ACCOUNTS.c.id.in_(wanted))
        )
        return {r.id: r.pseudo for r in rows}

    async def _rematch_answer(self, conn: AsyncConnection, new_id: str, seat: int) -> GameCreated:
        """The existing rematch as `POST /v1/games` answers it, with the caller's new seat's
        token if it was never fetched (then issued, once)."""
        games = self.games
        new = await games._game(conn, new_id, lock=True)
        seats = await self._seats(conn, new_id)
        token: str | None = None
        if seats[seat].token_pending:
            token = new_token(SEAT_PREFIX)
            await conn.execute(
                update(SEATS)
                .where(SEATS.c.game_id == new_id, SEATS.c.seat == seat)
                .values(token_hash=token_hash(token), token_pending=False)
            )
        pseudos = await self._pseudos(conn, [s.account_id for s in seats])
        match = await games._match(conn, new)
        return GameCreated(
            id=new.id,
            ruleset=new.ruleset,
            options=new.options,
            rules_version=new.rules_version,
            version=new.version,
            status=new.status,
            seed_commitment=new.seed_commitment,
            seats=[
                SeatToken(
                    seat=s.seat,
                    name=s.name,
                    token=token if s.seat == seat else None,
                    account=pseudos.get(s.account_id or ""),
                    bot=s.bot,
                    open=s.open,
                )
                for s in seats
            ],
            view=match.view(None),
            open_seats=[s.seat for s in seats if s.open],
            seeded_by_creator=new.seeded_by_creator,
        )


def _key(name: str) -> str:
    """A name as people read it (api.http.tokens.check_names: case and spaces aside)."""
    return " ".join(name.split()).casefold()


def _distinct(pseudo: str, seat: int, seats: Any) -> str:
    """The claimer's pseudo as the name of a seat opened without one, told apart from the
    other seats' names (`players[i].name` never repeats at a table: 422 `duplicate-name` at
    creation) by its place when it would repeat one: « bob (2) »."""
    taken = {_key(s.name if not s.open else s.open_name or "") for s in seats if s.seat != seat}
    return pseudo if _key(pseudo) not in taken else f"{pseudo} ({seat + 1})"
