"""The baseline of bench/games.py: the stored games' reads and writes with asyncpg directly.

Per action, the statements the API runs (traced with SQLAlchemy's cursor events, as of
api/games/service.py `act` and `get`), in the same transactions, computing nothing:

- the acting seat's view, when the driver needs it (the seat did not make the last action):
  outside any transaction (the API reads in autocommit on PostgreSQL), SELECT the game row
  joined with the seat whose token hash it is; the first read of a game also SELECTs its seat
  names (the API keeps them per process);
- the action, as the API's hot action does once its process wrote the game's last action
  (every action of a game but its first): the API's one statement that writes it all, with
  its guards, alone in autocommit (`api.games.repository.APPEND_HOT_PG`: the game's row moved
  on if still active at that version with that seat's token, the action, its events, the
  NOTIFY); a game's first action as the locked path does: one transaction, SELECT the game
  row FOR UPDATE joined with the token's seat, then `APPEND_PG`. `--mode four`: every action
  the locked path's (the API before the hot action, session 16); `--mode six`: the
  statements of before issue 27 (INSERT the action, INSERT its events, UPDATE the game
  RETURNING pg_notify(…)), to compare with an older tree's runs.

The actions, their events and when a view is read are those of a real four-player Num Wars
match, played once with the engine before the clock starts (every game replays it). A game
is created as the API does (INSERT the game, INSERT its four seats), inside the timed window
like the driver's POST /v1/games. Prints one JSON line.

    python -m bench.raw_asyncpg --dsn postgresql://postgres@127.0.0.1/db --conc 16 --duration 5
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import secrets
import time
from typing import Any

import asyncpg
import msgspec
import uvloop

from api.games.repository import APPEND_HOT_PG, APPEND_PG
from bench.stored import summary
from engine import registry
from engine.core.match import Match

SEED = 1
CHANNEL = "numrules_games"


Step = tuple[bool, int, str, list[tuple[int, str, str | None, str]], str, str | None, int, str]


def script() -> tuple[list[Step], str]:
    """The match once: per action (view read first?, seat, action JSON, events (seq offset,
    kind, visibility JSON, payload JSON), status, result JSON, events so far, the events as
    `APPEND_PG` takes them); options."""
    rules = registry.make("numwars", {})
    match = Match(rules, 4, SEED)
    steps = []
    previous = -1
    event_seq = 0
    while not match.is_over:
        view = match.view(None)
        seat = view.actors[0]
        action = match.view(seat).legal_actions[0]
        events = match.apply(seat, action)
        rows = []
        stored = []
        for e in events:
            event_seq += 1
            payload = msgspec.to_builtins(e)
            rows.append(
                (
                    event_seq,
                    payload["kind"],
                    None if e.to is None else json.dumps(list(e.to)),
                    msgspec.json.encode({**payload}).decode(),
                )
            )
            stored.append([event_seq, {**payload, "v": 1}, None if e.to is None else list(e.to)])
        result = match.result()
        steps.append(
            (
                seat != previous,
                seat,
                msgspec.json.encode(action).decode(),
                rows,
                "over" if result is not None else "active",
                None if result is None else msgspec.json.encode(result).decode(),
                event_seq,
                msgspec.json.encode(stored).decode(),
            )
        )
        previous = seat
    return steps, msgspec.json.encode(msgspec.to_builtins(rules.options)).decode()


GAME_AND_SEAT = (
    "SELECT games.*, game_seats.seat AS token_seat FROM games LEFT OUTER JOIN game_seats "
    "ON game_seats.game_id = games.id AND game_seats.token_hash = $2 WHERE games.id = $1"
)
NAMES = "SELECT name FROM game_seats WHERE game_id = $1 ORDER BY seat"
INSERT_GAME = (
    "INSERT INTO games (id, ruleset, options, rules_version, seed, salt, seed_commitment, "
    "players, status, version, event_seq, result, creator_id) "
    "VALUES ($1, 'numwars', $2::jsonb, 1, $3, $4, $5, 4, 'active', 0, 0, NULL, NULL)"
)
INSERT_SEAT = (
    "INSERT INTO game_seats (game_id, seat, name, token_hash, account_id, joined) "
    "VALUES ($1, $2, $3, $4, NULL, false)"
)
INSERT_ACTION = (
    "INSERT INTO game_actions (game_id, seq, seat, action) VALUES ($1, $2, $3, $4::jsonb)"
)
INSERT_EVENT = (
    "INSERT INTO game_events (game_id, seq, kind, visibility, payload) "
    "VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)"
)
UPDATE_GAME = (
    "UPDATE games SET version = $2, event_seq = $3, status = $4, result = $5::jsonb, "
    f"updated_at = now() WHERE id = $1 RETURNING pg_notify('{CHANNEL}', games.id)"
)


async def run(
    dsn: str, conc: int, duration: float, pool_size: int, mode: str = "hot"
) -> dict[str, Any]:
    steps, options = script()
    # named as numrules' connections are: migration 0016's trigger lets its writes through
    # after the same test (its WHEN), as it lets numrules' through
    pool = await asyncpg.create_pool(
        dsn,
        min_size=min(conc, pool_size),
        max_size=pool_size,
        server_settings={"application_name": "numrules raw-asyncpg"},
    )
    lat: list[float] = []
    games = 0
    deadline = time.perf_counter() + duration

    async def loop() -> None:
        nonlocal games
        while time.perf_counter() < deadline:
            gid = secrets.token_hex(16)
            hashes = [hashlib.sha256(secrets.token_bytes(32)).hexdigest() for _ in range(4)]
            async with pool.acquire() as conn, conn.transaction():
                await conn.execute(INSERT_GAME, gid, options, SEED, secrets.token_hex(16), "0" * 64)
                await conn.executemany(
                    INSERT_SEAT, [(gid, i, f"p{i}", h) for i, h in enumerate(hashes)]
                )
            for version, step in enumerate(steps, 1):
                read, seat, action, events, status, result, event_seq, stored = step
                if time.perf_counter() >= deadline:
                    return
                if read:
                    async with pool.acquire() as conn:
                        await conn.fetchrow(GAME_AND_SEAT, gid, hashes[seat])
                        if version == 1:
                            await conn.fetch(NAMES, gid)
                t0 = time.perf_counter()
                args = (gid, version - 1, event_seq, status, result or "null", False, "null")
                args += (None, None, seat, action, stored, None, None, None, None)
                if mode == "hot" and version > 1:
                    async with pool.acquire() as conn:
                        written = await conn.fetchrow(APPEND_HOT_PG, *args, hashes[seat])
                        assert written is not None
                    lat.append((time.perf_counter() - t0) * 1e3)
                    continue
                async with pool.acquire() as conn, conn.transaction():
                    await conn.fetchrow(GAME_AND_SEAT + " FOR UPDATE OF games", gid, hashes[seat])
                    if mode != "six":
                        written = await conn.fetchrow(APPEND_PG, *args)
                        assert written is not None
                    else:
                        await conn.execute(INSERT_ACTION, gid, version, seat, action)
                        if events:
                            await conn.executemany(
                                INSERT_EVENT, [(gid, seq, k, vis, p) for seq, k, vis, p in events]
                            )
                        await conn.fetchrow(UPDATE_GAME, gid, version, event_seq, status, result)
                lat.append((time.perf_counter() - t0) * 1e3)
            games += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(conc)))
    wall = time.perf_counter() - t0
    await pool.close()
    return summary(lat, wall, games=games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--conc", type=int, default=1)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--pool-size", type=int, default=20)
    parser.add_argument(
        "--mode",
        choices=("hot", "four", "six"),
        default="hot",
        help="hot: the API's (default); four: every action locked; six: before issue 27",
    )
    args = parser.parse_args()
    print(
        json.dumps(uvloop.run(run(args.dsn, args.conc, args.duration, args.pool_size, args.mode)))
    )


if __name__ == "__main__":
    main()
