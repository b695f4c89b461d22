"""Turn clocks (issue 26), through the service on the run's PostgreSQL database and over HTTP:
when a seat's deadline starts and when it is kept, a timeout's `auto` turn (the `basic`
bot's choice, seeded by the game's bot seed and version) and `abandon`, the sweep, the late
move's 409 `turn-timed-out`, the export's marks and its replay, the 422s of a bad clock in
both languages, and SQLite in one process (a timeout applied on read)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import msgspec
import pytest
from sqlalchemy import text

from api.db import migrations
from api.db.engine import create_engine
from api.games.bots import move_seed
from api.games.clock import clocked_seats, deadlines_after, due, from_epoch, start_deadlines
from api.games.fanout import Fanout
from api.games.schemas import Clock, CreateGame, GameCreated, SeatDeadline
from api.games.service import (
    Credential,
    Expected,
    GameService,
    TurnTimedOut,
    seat_credential,
)
from api.http.conditions import parse_if_match
from api.http.domain import Conflict, DomainError
from engine import registry
from engine.bots import choose
from engine.core.actions import Action
from engine.core.match import Match, MatchRecord, replay
from tests.games.host import host
from tests.languages import check_both

SEED = 7


#: The clocked games a test made, abandoned once it is over: no clock of theirs runs on in
#: the run's database (where every served process's sweep would play them out).
MADE: list[GameCreated] = []


def _run(url: str, scenario: Callable[[GameService], Awaitable[None]]) -> None:
    async def main() -> None:
        service = GameService(create_engine(url), Fanout())
        try:
            await scenario(service)
        finally:
            while MADE:
                made = MADE.pop()
                with contextlib.suppress(Conflict):  # over or abandoned already
                    await service.abandon(made.id, _seat(made, 0))
            await service.close()
            await service.engine.dispose()

    asyncio.run(main())


async def _create(
    service: GameService, seconds: int, on_timeout: str = "auto", **more: Any
) -> GameCreated:
    body = msgspec.convert(
        {
            "ruleset": "numwars-classic",
            "players": [{"name": n} for n in "ABC"],
            "seed": SEED,
            "clock": {"turn_seconds": seconds, "on_timeout": on_timeout},
            **more,
        },
        CreateGame,
    )
    created = await service.create(body)
    MADE.append(created)
    return created


def _seat(created: GameCreated, seat: int) -> Credential:
    token = created.seats[seat].token
    assert token is not None
    return seat_credential(token)


async def _bot_seed(service: GameService, game_id: str) -> int:
    async with service.engine.connect() as conn:
        row = (
            await conn.execute(text("SELECT bot_seed FROM games WHERE id = :g"), {"g": game_id})
        ).one()
        return int(row.bot_seed)


async def _log(service: GameService, game_id: str) -> list[tuple[int, dict[str, Any]]]:
    async with service.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT seat, action FROM game_actions WHERE game_id = :g ORDER BY seq"),
            {"g": game_id},
        )
        out = []
        for r in rows:
            action = r.action if isinstance(r.action, dict) else msgspec.json.decode(r.action)
            out.append((r.seat, {k: v for k, v in action.items() if k != "v"}))
        return out


def timed_out_log(bot_seed: int, turns: int, seconds: int = 1) -> list[tuple[int, dict[str, Any]]]:
    """The log of a numwars-classic game (3 seats, seed `SEED`) whose every turn times out,
    as one process makes it, for `turns` timeouts: the seats due, the earliest deadline first
    (a tie by seat), each turn played whole with the `basic` choice from the seat's view,
    seeded by the bot seed, the version and the seat (the clock's own functions decide when
    a turn ends; the time moves on a second per timeout)."""
    rules = registry.make("numwars-classic")
    match = Match(rules, 3, SEED)
    clock = Clock(turn_seconds=seconds)
    bots: list[str | None] = [None, None, None]
    now = from_epoch(0)
    deadlines = start_deadlines(match, bots, clock, now, 0)
    log: list[tuple[int, dict[str, Any]]] = []
    done = 0
    while done < turns and match.result() is None:
        now += timedelta(seconds=seconds)
        for seat in due(deadlines, now):
            entry = next((d for d in deadlines or () if d["seat"] == seat), None)
            if entry is None:
                continue
            since = entry["since"]
            while True:
                mine = next((d for d in deadlines or () if d["seat"] == seat), None)
                if mine is None or mine["since"] != since or match.result() is not None:
                    break
                action = choose(
                    rules,
                    match.view(seat),
                    level="basic",
                    seed=move_seed(bot_seed, len(log), seat),
                )
                before = (match.index, match.phase)
                events = match.apply(seat, action)
                log.append((seat, msgspec.to_builtins(action)))
                deadlines = deadlines_after(
                    deadlines, match, bots, clock, events, before, now, len(log)
                )
            done += 1
            if done >= turns:
                break
    return log


async def _refusal(call: Awaitable[Any]) -> DomainError:
    with pytest.raises(DomainError) as caught:
        await call
    return caught.value


def _expected(said: str) -> Expected:
    condition = parse_if_match(said)
    assert condition is not None
    return Expected(condition, said)


# -- deadlines ----------------------------------------------------------------------------


def test_a_turn_s_deadline_starts_with_it_and_its_own_steps_keep_it(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        created = await _create(service, 600)
        assert created.clock == Clock(turn_seconds=600, on_timeout="auto")
        start = created.deadlines
        assert isinstance(start, list) and [d.seat for d in start] == [0, 1, 2]
        assert len({d.at for d in start}) == 1  # the exchange: every seat's turn, at once
        seats = [_seat(created, s) for s in range(3)]
        game = await service.get(created.id, seats[0])
        assert game.deadline == start[0].at and game.deadlines == start
        spectator = await service.get(created.id, None)
        assert spectator.deadline is None and spectator.deadlines == start
        # seat 0 passes one card: its turn goes on (the exchange is card by card)
        step = game.view.legal_actions[0]
        answer, _ = await service.act(created.id, seats[0], step, None, None)
        assert answer.deadlines == start and answer.deadline == start[0].at
        # seat 0 ends its exchange: it owes nothing now, the others keep theirs
        while (view := (await service.get(created.id, seats[0])).view).legal_actions:
            answer, _ = await service.act(created.id, seats[0], view.legal_actions[0], None, None)
        assert answer.deadline is None
        assert answer.deadlines == [d for d in start if d.seat != 0]
        for seat in (1, 2):
            while (view := (await service.get(created.id, seats[seat])).view).legal_actions:
                answer, _ = await service.act(
                    created.id, seats[seat], view.legal_actions[0], None, None
                )
        # the play: one seat's turn, started now
        game = await service.get(created.id, None)
        assert game.view.phase == "play"
        assert game.deadlines is not msgspec.UNSET
        assert [d.seat for d in game.deadlines] == [game.view.current_player]
        assert game.deadlines[0].at > start[0].at
        # an unclocked game says nothing of clocks
        plain = msgspec.convert(
            {"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]}, CreateGame
        )
        unclocked = await service.create(plain)
        shown = msgspec.to_builtins(await service.get(unclocked.id, _seat(unclocked, 0)))
        assert not {"clock", "deadlines", "deadline"} & set(shown)
        assert not {"clock", "deadlines"} & set(msgspec.to_builtins(unclocked))

    _run(pg_head, scenario)


def test_a_read_shows_the_stored_deadlines_held_or_read(pg_head: str) -> None:
    """A read of a game this process holds at its version shows the deadlines its last action
    made (not parsed again), a read of one it does not hold parses the row's: both are the
    stored ones, at every action; an abandoned game shows none, though the process still
    holds its match at that version."""

    async def stored(service: GameService, game_id: str) -> list[Any]:
        async with service.engine.connect() as conn:
            row = (
                await conn.execute(
                    text("SELECT deadlines::text FROM games WHERE id = :g"), {"g": game_id}
                )
            ).one()
        return [
            SeatDeadline(seat=int(d["seat"]), at=datetime.fromisoformat(d["at"]))
            for d in sorted(msgspec.json.decode(row[0]), key=lambda d: d["seat"])
        ]

    async def scenario(service: GameService) -> None:
        created = await _create(service, 600)
        seats = [_seat(created, s) for s in range(3)]
        for step in range(30):
            actor = (await service.get(created.id, None)).view.actors[0]
            view = (await service.get(created.id, seats[actor])).view
            answer, _ = await service.act(
                created.id, seats[actor], view.legal_actions[0], None, None
            )
            want = await stored(service, created.id)
            assert answer.deadlines == want, step
            for seat in (None, 0, 1, 2):
                held = await service.get(created.id, None if seat is None else seats[seat])
                mine = next((d.at for d in want if d.seat == seat), None)
                assert (held.deadlines, held.deadline) == (want, mine), (step, seat)
            if step % 5 == 0:
                service._cache.clear()  # read, not held
                read = await service.get(created.id, seats[0])
                assert read.deadlines == want, step
        await service.abandon(created.id, seats[0])
        for seat in (None, 0, 1):
            game = await service.get(created.id, None if seat is None else seats[seat])
            assert game.status == "abandoned" and game.deadlines == [] and game.deadline is None

    _run(pg_head, scenario)


# -- timeouts -----------------------------------------------------------------------------


def test_auto_plays_the_seats_whole_turns_with_the_basic_choice(pg_head: str) -> None:
    """A read after the deadline applies it first: each seat's whole exchange (five passes)
    played as the `basic` bot plays it, once, after a public `timeout` event; then the play's
    first turn has its own deadline."""

    async def scenario(service: GameService) -> None:
        created = await _create(service, 1)
        await asyncio.sleep(1.1)
        game = await service.get(created.id, _seat(created, 1))
        bot_seed = await _bot_seed(service, created.id)
        expected = timed_out_log(bot_seed, 3)
        assert await _log(service, created.id) == expected
        assert game.version == len(expected) and game.view.phase == "play"
        assert game.deadlines is not msgspec.UNSET and len(game.deadlines) == 1
        events = (await service.events(created.id, None, 0)).events
        shown = [(e.seat, msgspec.to_builtins(e.data)) for e in events if e.kind == "timeout"]
        assert shown == [
            (0, {"on_timeout": "auto", "version": 0}),
            (1, {"on_timeout": "auto", "version": 5}),
            (2, {"on_timeout": "auto", "version": 10}),
        ]
        again = await service.get(created.id, None)  # nothing is applied twice
        assert again.version == game.version
        # the export marks the actions played by timeout, and replays to the same game
        await service.abandon(created.id, _seat(created, 0))
        assert (await service.get(created.id, None)).deadlines == []  # its clocks stopped
        async with service.engine.connect() as conn:
            stopped = "SELECT deadline FROM games WHERE id = :g"
            assert (await conn.execute(text(stopped), {"g": created.id})).scalar() is None
        export = await service.export(created.id)
        assert [a.timeout for a in export.actions] == [True] * len(expected)
        record = MatchRecord.from_export(msgspec.json.encode(export))
        replayed = replay(record)
        match = Match(registry.make("numwars-classic"), 3, SEED)
        for seat, action in expected:
            match.apply(seat, msgspec.convert(action, Action))
        assert replayed.snapshot() == match.snapshot()

    _run(pg_head, scenario)


def test_abandon_ends_the_game_with_a_timeout_event(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        created = await _create(service, 1, "abandon")
        view = (await service.get(created.id, _seat(created, 0))).view
        await asyncio.sleep(1.1)
        game = await service.get(created.id, None)
        assert game.status == "abandoned" and game.deadlines == [] and game.version == 0
        events = (await service.events(created.id, None, 0)).events
        shown = [(e.seat, msgspec.to_builtins(e.data)) for e in events if e.kind == "timeout"]
        assert shown == [(0, {"on_timeout": "abandon", "version": 0})]
        # the seat whose turn ended by timeout: 409 turn-timed-out; another: game over
        seat0, seat1 = _seat(created, 0), _seat(created, 1)
        late = await _refusal(service.act(created.id, seat0, view.legal_actions[0], None, None))
        assert isinstance(late, TurnTimedOut) and late.code == "turn-timed-out"
        assert "abandoned" in late.render("en") and "abandonnée" in late.render("fr")
        # how it ended, in words (it read "Text(key='timeout-abandon', en=…)": an attacker's
        # finding)
        assert "Text(" not in late.render("en") + late.render("fr"), late.render("en")
        over = await _refusal(service.act(created.id, seat1, view.legal_actions[0], None, None))
        assert isinstance(over, Conflict) and over.code == "game-over"
        assert (await service.export(created.id)).actions == []

    _run(pg_head, scenario)


def test_a_late_move_is_refused_and_the_timeout_applies_once(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        # the move that finds its deadline passed: the timeout is applied, not the move
        created = await _create(service, 1)
        seat0 = _seat(created, 0)
        view = (await service.get(created.id, seat0)).view
        await asyncio.sleep(1.1)
        late = await _refusal(service.act(created.id, seat0, view.legal_actions[0], None, None))
        assert isinstance(late, TurnTimedOut)
        assert "version 0" in late.render("en") and "version 0" in late.render("fr")
        bot_seed = await _bot_seed(service, created.id)
        assert await _log(service, created.id) == timed_out_log(bot_seed, 3)
        # sent again with If-Match of the version it saw: still late (before 412)
        again = await _refusal(
            service.act(created.id, seat0, view.legal_actions[0], _expected('"0"'), None)
        )
        assert isinstance(again, TurnTimedOut)
        # without If-Match, the seat has not acted since: its refused move is late too
        third = await _refusal(service.act(created.id, seat0, view.legal_actions[0], None, None))
        assert isinstance(third, TurnTimedOut)
        # a move from the version after the timeout is judged as any move
        game = await service.get(created.id, None)
        turn = game.view.current_player
        assert turn is not None
        mine = (await service.get(created.id, _seat(created, turn))).view
        answer, _ = await service.act(
            created.id,
            _seat(created, turn),
            mine.legal_actions[0],
            _expected(f'"{game.version}"'),
            None,
        )
        assert answer.version == game.version + 1

    _run(pg_head, scenario)


def test_the_sweep_applies_a_deadline_nobody_reads_once(sqlite_url: str) -> None:
    """On a database of its own (on the run's PostgreSQL one, the in-process app of the other
    tests sweeps too: tests/games/test_clocks_served.py has the replicas)."""
    migrations.upgrade(sqlite_url)

    async def scenario(service: GameService) -> None:
        timeouts: list[str] = []
        service.on_timeout = timeouts.append
        created = await _create(service, 1)
        assert await service.sweep_clocks() == 0  # not yet
        await asyncio.sleep(1.1)
        assert await service.sweep_clocks() == 1
        log = await _log(service, created.id)
        assert log == timed_out_log(await _bot_seed(service, created.id), 3)
        assert timeouts == ["auto"] * 3
        assert await service.sweep_clocks() == 0  # the play's first deadline is a second away
        assert await _log(service, created.id) == log and timeouts == ["auto"] * 3

    _run(sqlite_url, scenario)


def test_bots_have_no_clock(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        body = msgspec.convert(
            {
                "ruleset": "numwars-classic",
                "players": [{"name": "A"}, {"name": "B", "bot": "basic"}, {"name": "C"}],
                "clock": {"turn_seconds": 600},
            },
            CreateGame,
        )
        created = await service.create(body)
        MADE.append(created)
        assert created.deadlines is not msgspec.UNSET
        assert [d.seat for d in created.deadlines] == [0, 2]
        match = Match(registry.make("numwars-classic"), 3, 1)
        assert clocked_seats(match, [None, "basic", None]) == [0, 2]
        await service.idle()

    _run(pg_head, scenario)


def test_sqlite_applies_a_timeout_on_read(sqlite_url: str) -> None:
    migrations.upgrade(sqlite_url)

    async def scenario(service: GameService) -> None:
        created = await _create(service, 1)
        await asyncio.sleep(1.1)
        game = await service.get(created.id, None)
        assert game.version == len(timed_out_log(await _bot_seed(service, created.id), 3))
        assert game.view.phase == "play"

    _run(sqlite_url, scenario)


# -- over HTTP ----------------------------------------------------------------------------

BAD_CLOCKS = {
    "zero": ({"turn_seconds": 0}, "clock.turn_seconds", "validation-error"),
    "a day and a second": ({"turn_seconds": 86_401}, "clock.turn_seconds", "validation-error"),
    "an unknown on_timeout": (
        {"turn_seconds": 60, "on_timeout": "pause"},
        "clock.on_timeout",
        "validation-error",
    ),
    "an unknown field": ({"turn_seconds": 60, "bank": 3}, "clock.bank", "unknown-field"),
    "not an integer": ({"turn_seconds": 1.5}, "clock.turn_seconds", "validation-error"),
    "no turn_seconds": ({"on_timeout": "auto"}, "clock.turn_seconds", "missing-field"),
}


@pytest.mark.parametrize("case", sorted(BAD_CLOCKS))
def test_a_bad_clock_is_422_in_both_languages(games: Any, case: str) -> None:
    clock, field, code = BAD_CLOCKS[case]
    body = {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"], "clock": clock}

    def create(client: Any, headers: dict[str, str]) -> Any:
        return client.post("/v1/games", json=body, headers={**host(client), **headers})

    en, fr = check_both(games, code, create)
    assert en["errors"][0]["field"] == fr["errors"][0]["field"] == field, en


def test_a_clocked_game_over_http(games: Any) -> None:
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": n} for n in "ABC"],
        "clock": {"turn_seconds": 1, "on_timeout": "auto"},
    }
    created = games.post("/v1/games", json=body, headers=host(games))
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["clock"] == {"turn_seconds": 1, "on_timeout": "auto"}
    assert [d["seat"] for d in game["deadlines"]] == [0, 1, 2]
    assert game["deadlines"][0]["at"].endswith("Z")
    auth = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
    seen = games.get(f"/v1/games/{game['id']}", headers=auth).json()
    assert seen["deadline"] == game["deadlines"][0]["at"]
    time.sleep(1.1)
    late = games.post(
        f"/v1/games/{game['id']}/actions",
        json=seen["view"]["legal_actions"][0],
        headers={**auth, "If-Match": '"0"'},
    )
    assert late.status_code == 409 and late.json()["code"] == "turn-timed-out", late.text
    now = games.get(f"/v1/games/{game['id']}", headers=auth).json()
    assert now["version"] == 15 and now["view"]["phase"] == "play"
    mine = [d["at"] for d in now["deadlines"] if d["seat"] == 0]
    assert now["deadline"] == (mine[0] if mine else None)
    assert now["deadline"] is None or now["deadline"] > seen["deadline"]
    events = games.get(f"/v1/games/{game['id']}/events").json()["events"]
    assert [e["seat"] for e in events if e["kind"] == "timeout"] == [0, 1, 2]
    assert games.post(f"/v1/games/{game['id']}/abandon", headers=auth).status_code == 200
