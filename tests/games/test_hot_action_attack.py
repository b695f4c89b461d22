"""The hot action (issue 27: an action on a game this process wrote last, one statement in
autocommit, `APPEND_HOT_PG`) attacked against two real served processes on one PostgreSQL
database: double submits split across the processes, the seats of a simultaneous phase
racing each other, the game's actions alternating between processes (each one's cache stale
half the time), foreign and garbage tokens and an abandon from the other process while the
game is hot, an action sent just as a turn clock runs out, and a SIGKILL with hot actions in
flight.

Every check compares with the engine: a shadow match the answered actions (200) are applied
to in the order of the versions they answered, the views both processes serve, and the export
replayed (`MatchRecord.from_export`, `replay`).
"""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from api.games.bots import move_seed
from engine import registry
from engine.bots import choose
from engine.core.actions import Action
from engine.core.match import Match, MatchRecord, replay
from tests.games.test_served import Server, auth, builtins

PLAYERS4 = [{"name": n} for n in ("Ada", "Bo", "Cy", "Di")]
GARBAGE = "nrg_" + "x" * 43


@pytest.fixture(scope="module")
def servers(pg_head: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Server]]:
    """Two server processes, A and B, on the run's PostgreSQL database."""
    logs = tmp_path_factory.mktemp("hot")
    started: list[Server] = []
    try:
        for name in ("a", "b"):
            server = Server(pg_head, logs / f"{name}.log", NUMRULES_RATE_LIMIT_PER_MINUTE="0")
            server.start()
            started.append(server)
        yield started
    finally:
        for server in started:
            server.stop()


async def create(
    client: httpx.AsyncClient, ruleset: str, seed: int, clock: dict[str, Any] | None = None
) -> Any:
    body: dict[str, Any] = {"ruleset": ruleset, "players": PLAYERS4, "seed": seed}
    if clock is not None:
        body["clock"] = clock
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


class Game:
    """A game played over two servers, with its shadow match."""

    def __init__(self, created: Any, ruleset: str, seed: int) -> None:
        self.id = created["id"]
        self.path = f"/v1/games/{self.id}"
        self.tokens = [s["token"] for s in created["seats"]]
        self.shadow = Match(registry.make(ruleset, created["options"]), 4, seed)
        self.version = 0
        #: (version, seat, action document) of every action answered 200.
        self.answered: list[tuple[int, int, Any]] = []

    def took(self, answers: list[tuple[int, Any, httpx.Response]]) -> None:
        """The 200s of a batch: their versions follow the last one without a gap or a
        double, each answer's view is the shadow's once its action is applied in version
        order."""
        won = sorted(
            (
                (r.json()["version"], seat, action, r)
                for seat, action, r in answers
                if r.status_code == 200
            ),
            key=lambda t: t[0],
        )
        versions = [v for v, _, _, _ in won]
        assert versions == list(range(self.version + 1, self.version + 1 + len(won))), versions
        for version, seat, action, response in won:
            self.shadow.apply(seat, msgspec.convert(action, Action))
            assert response.json()["view"] == builtins(self.shadow.view(seat)), version
            self.answered.append((version, seat, action))
            self.version = version

    async def check_views(self, clients: list[httpx.AsyncClient]) -> None:
        """Both servers show every seat and the spectator the shadow's view, at its version."""
        for client in clients:
            for seat in [None, 0, 1, 2, 3]:
                headers = {} if seat is None else auth(self.tokens[seat])
                got = await client.get(self.path, headers=headers)
                assert got.status_code == 200, got.text
                assert got.json()["version"] == self.version, (str(client.base_url), seat)
                assert got.json()["view"] == builtins(self.shadow.view(seat)), seat

    async def check_export(self, client: httpx.AsyncClient) -> None:
        """The export (the game over or abandoned) is exactly the answered actions, and it
        replays to the shadow."""
        export = await client.get(f"{self.path}/export")
        assert export.status_code == 200, export.text
        actions = export.json()["actions"]
        assert [(a["seq"], a["seat"], a["action"]) for a in actions] == self.answered
        again = replay(MatchRecord.from_export(export.text))
        for seat in [None, 0, 1, 2, 3]:
            assert builtins(again.view(seat)) == builtins(self.shadow.view(seat))


async def post(client: httpx.AsyncClient, game: Game, token: str, action: Any) -> httpx.Response:
    return await client.post(f"{game.path}/actions", json=action, headers=auth(token))


async def race(
    game: Game, clients: list[httpx.AsyncClient], foreign: str, rng: random.Random, batches: int
) -> int:
    """Batches of every acting seat's legal actions, each sent 1-3 times, spread over the
    servers, with a garbage token, another game's token and another seat's token: checked
    as :meth:`Game.took` does; every few batches both servers' views. The last batch's index."""
    batch = 0
    for batch in range(batches):
        if game.shadow.result() is not None:
            break
        actors = game.shadow.actors()
        sends: list[tuple[int, Any, str, httpx.AsyncClient]] = []
        for seat in actors:
            legal = [builtins(a) for a in game.shadow.legal_actions(seat)]
            for action in rng.sample(legal, min(2, len(legal))):
                for _ in range(rng.randint(1, 3)):
                    sends.append((seat, action, game.tokens[seat], rng.choice(clients)))
        seat = actors[0]
        action = builtins(game.shadow.legal_actions(seat)[0])
        wrong = (seat + 1) % 4
        for token, as_seat in ((GARBAGE, -1), (foreign, -1), (game.tokens[wrong], wrong)):
            sends.append((as_seat, action, token, rng.choice(clients)))
        rng.shuffle(sends)
        # the first wave's statements all race the hot one of the server that wrote last
        responses = await asyncio.gather(*(post(c, game, t, a) for _, a, t, c in sends))
        answers = []
        for (seat, action, token, _), response in zip(sends, responses, strict=True):
            if token in (GARBAGE, foreign):
                assert response.status_code == 401, response.text
                continue
            assert response.status_code in (200, 409, 422), (batch, response.text)
            answers.append((seat, action, response))
        game.took(answers)
        assert any(r.status_code == 200 for _, _, r in answers), batch
        if batch % 4 == 3:
            await game.check_views(clients)
    return batch


# -- 1-4. double submits, simultaneous seats, alternating processes, foreign tokens ------------


async def test_racing_seats_and_double_submits_over_two_servers(servers: list[Server]) -> None:
    """numwars-classic (an exchange phase where every seat passes cards at once, then tricks):
    each batch sends every acting seat's legal actions 1-3 times each, spread over both
    servers (the game hot on whichever wrote last), with a garbage token, another game's
    token and a seat's token carrying another seat's action. Every answer is 200, 401, 409 or
    422 (never a 5xx); the 200s' versions follow each other without a gap or a double, each
    answer's view is the engine's; both servers then show every viewer the engine's view; an
    abandon from one server while the game is hot on the other refuses the next action there
    (409 `game-over`); the export is exactly the answered actions and replays."""
    rng = random.Random(2701)
    clients = [httpx.AsyncClient(base_url=s.url, timeout=30) for s in servers]
    try:
        game = Game(await create(clients[0], "numwars-classic", 27), "numwars-classic", 27)
        other = await create(clients[1], "numwars-classic", 28)
        foreign = other["seats"][0]["token"]
        batch = await race(game, clients, foreign, rng, 24)
        await game.check_views(clients)
        # hot on the server that wrote last: abandoned from the other one
        seat = game.shadow.actors()[0]
        action = builtins(game.shadow.legal_actions(seat)[0])
        last = clients[batch % 2]
        warm = await post(last, game, game.tokens[seat], action)
        assert warm.status_code == 200, warm.text
        game.took([(seat, action, warm)])
        elsewhere = clients[1 - batch % 2]
        abandoned = await elsewhere.post(f"{game.path}/abandon", headers=auth(game.tokens[3]))
        assert abandoned.status_code == 200, abandoned.text
        for seat in game.shadow.actors():
            for action in game.shadow.legal_actions(seat)[:2]:
                refused = await post(last, game, game.tokens[seat], builtins(action))
                assert refused.status_code == 409, refused.text
                assert refused.json()["code"] == "game-over", refused.text
            for token in (GARBAGE, foreign):
                refused = await post(last, game, token, builtins(action))
                assert refused.status_code == 401, refused.text
        for client in clients:
            got = await client.get(game.path)
            assert got.json()["status"] == "abandoned"
            assert got.json()["version"] == game.version
        await game.check_export(clients[0])
    finally:
        for client in clients:
            await client.aclose()


async def test_six_games_racing_at_once_over_two_servers(servers: list[Server]) -> None:
    """Six numwars-classic games raced as above all at once (hot statements of some games
    beside other games' locked actions sharing commits, on both servers): the same checks for
    every game, then each abandoned and its export exactly its answered actions."""
    clients = [httpx.AsyncClient(base_url=s.url, timeout=30) for s in servers]
    try:
        games = [
            Game(await create(clients[i % 2], "numwars-classic", 60 + i), "numwars-classic", 60 + i)
            for i in range(6)
        ]
        foreign = games[0].tokens[0]
        await asyncio.gather(
            *(
                race(g, clients, foreign if g is not games[0] else GARBAGE, random.Random(i), 8)
                for i, g in enumerate(games)
            )
        )
        for i, game in enumerate(games):
            await game.check_views(clients)
            abandon = await clients[i % 2].post(
                f"{game.path}/abandon", headers=auth(game.tokens[0])
            )
            assert abandon.status_code == 200, abandon.text
            await game.check_export(clients[1 - i % 2])
    finally:
        for client in clients:
            await client.aclose()


async def test_alternating_servers_keep_every_view_right(servers: list[Server]) -> None:
    """numwars played action by action, alternating the servers (and sometimes twice on the
    same, hot): after each action both servers show every seat the engine's view at the
    answered version; a double submit of the same action on both servers at once applies
    once; the export is exactly the answered actions."""
    rng = random.Random(2702)
    clients = [httpx.AsyncClient(base_url=s.url, timeout=30) for s in servers]
    try:
        game = Game(await create(clients[1], "numwars", 29), "numwars", 29)
        for step in range(40):
            (seat,) = game.shadow.actors()
            action = builtins(rng.choice(game.shadow.legal_actions(seat)))
            if step % 5 == 4:  # the same action on both servers and twice on each
                targets = [clients[0], clients[1], clients[0], clients[1]]
            else:
                targets = [clients[step % 2 if rng.random() < 0.7 else rng.randint(0, 1)]]
            responses = await asyncio.gather(
                *(post(c, game, game.tokens[seat], action) for c in targets)
            )
            statuses = [r.status_code for r in responses]
            assert statuses.count(200) == 1 and set(statuses) <= {200, 409, 422}, [
                r.text for r in responses
            ]
            game.took([(seat, action, r) for r in responses])
            if step % 3 == 0:
                for client in clients:
                    for viewer in (seat, (seat + 1) % 4):
                        got = await client.get(game.path, headers=auth(game.tokens[viewer]))
                        assert got.json()["version"] == game.version
                        assert got.json()["view"] == builtins(game.shadow.view(viewer))
        await game.check_views(clients)
        assert (
            await clients[0].post(f"{game.path}/abandon", headers=auth(game.tokens[0]))
        ).status_code == 200
        await game.check_export(clients[1])
    finally:
        for client in clients:
            await client.aclose()


# -- 5. an action sent just as its turn clock runs out ------------------------------------------


async def test_a_hot_action_at_the_deadline(servers: list[Server]) -> None:
    """numwars with a 1 s turn clock (`auto`): the seat to act sends its move to the server
    that wrote last (the game hot there) at its deadline give or take a few milliseconds.
    Either it is applied (200, at the next version, its deadlines those a GET shows) or it is
    409 `turn-timed-out` and the seat's turn was played once by its timeout (one `timeout`
    event for it, the log one action longer). Well before the deadline it is applied; well
    after it, it is refused. The export replays."""
    client = httpx.AsyncClient(base_url=servers[0].url, timeout=30)
    try:
        clock = {"turn_seconds": 1, "on_timeout": "auto"}
        created = await create(client, "numwars", 31, clock)
        game = Game(created, "numwars", 31)
        offsets = [-0.25, 0.08, -0.004, 0.15, 0.0, 0.004, 0.3, -0.015, 0.015]
        outcomes: list[tuple[float, int]] = []
        for offset in offsets:
            got = (await client.get(game.path, headers=auth(game.tokens[0]))).json()
            game_version = got["version"]
            (seat,) = got["view"]["actors"]
            mine = (await client.get(game.path, headers=auth(game.tokens[seat]))).json()
            # a move in time first (the locked path, or hot): the game is hot here after it
            action = mine["view"]["legal_actions"][0]
            first = await post(client, game, game.tokens[seat], action)
            if first.status_code != 200:
                log = (await client.get(f"{game.path}/events?after=0")).json()["events"]
                seen = [(e["seq"], e["kind"], e.get("seat"), e.get("data")) for e in log]
                raise AssertionError((first.text, outcomes, mine, seen))
            assert first.json()["version"] == game_version + 1
            (nxt,) = first.json()["view"]["actors"]
            deadline = datetime.fromisoformat(
                next(d["at"] for d in first.json()["deadlines"] if d["seat"] == nxt)
            )
            theirs = (await client.get(game.path, headers=auth(game.tokens[nxt]))).json()
            assert theirs["version"] == game_version + 1
            assert theirs["deadlines"] == first.json()["deadlines"]
            move = theirs["view"]["legal_actions"][-1]
            wait = (deadline - datetime.now(UTC)).total_seconds() + offset
            await asyncio.sleep(max(wait, 0))
            late = await post(client, game, game.tokens[nxt], move)
            after = (await client.get(game.path, headers=auth(game.tokens[nxt]))).json()
            events = (await client.get(f"{game.path}/events?after=0")).json()["events"]
            timeouts = [
                e
                for e in events
                if e["kind"] == "timeout" and e["data"]["version"] == game_version + 1
            ]
            outcomes.append((offset, late.status_code))
            assert late.status_code in (200, 409, 422), late.text
            in_time = late.status_code == 200 and late.json()["version"] == game_version + 2
            assert len(timeouts) == (0 if in_time else 1), (outcomes, timeouts)
            if offset < -0.05:  # well in time: applied at the next version
                assert in_time, late.text
            if offset > 0.05:  # well past its deadline: never applied as that turn's move
                assert not in_time, outcomes
            if in_time:
                if after["version"] == game_version + 2:  # no later timeout meanwhile
                    assert after["deadlines"] == late.json()["deadlines"]
                    assert after["view"] == late.json()["view"]
            else:
                # the seat's turn played once by its timeout; the move refused as late, or
                # (the timeout applied before it came, by a sweep) taken as the seat's next
                # turn's move, which the engine judges (api.games.service.act)
                assert [t["seat"] for t in timeouts] == [nxt], timeouts
                assert after["version"] >= game_version + 2
                if late.status_code == 409:
                    assert late.json()["code"] == "turn-timed-out", late.text
        assert (
            await client.post(f"{game.path}/abandon", headers=auth(game.tokens[0]))
        ).status_code == 200
        export = (await client.get(f"{game.path}/export")).json()
        versions = [a["seq"] for a in export["actions"]]
        assert versions == list(range(1, len(versions) + 1))
        replay(MatchRecord.from_export(msgspec.json.encode(export)))
    finally:
        await client.aclose()


async def test_a_late_move_after_a_timeout_that_gave_the_seat_the_turn_again(
    servers: list[Server], pg_head: str
) -> None:
    """numwars, 1 s `auto` clock: the game is played on until the seat to act is one whose
    timeout move (the `basic` bot's, seeded by the game's bot seed) wins the trick, so that
    it leads the next one. Its deadline passes, the timeout is applied (by a read), then the
    seat sends the move it chose from the view it had before its deadline (one of its legal
    follows that is also a legal lead). With `If-Match` naming the version it chose on, the
    move is 409 `turn-timed-out` (api-contract.md, "Turn clocks": its turn ended by timeout
    after the version it last saw) and nothing moves; the app sends it so
    (tests/api/test_app_clocked_move_browser.py). Without `If-Match` the server cannot know
    what the seat saw: the move, legal in the turn the timeout handed the seat, is that
    turn's (as `POST /v1/games/{id}/actions` documents: only a move the game refuses is
    taken for a late one then)."""
    client = httpx.AsyncClient(base_url=servers[0].url, timeout=30)
    try:
        clock = {"turn_seconds": 1, "on_timeout": "auto"}
        created = await create(client, "numwars", 33, clock)
        game = Game(created, "numwars", 33)
        conn = await asyncpg.connect(pg_head.replace("+asyncpg", ""))
        try:
            bot_seed = await conn.fetchval("SELECT bot_seed FROM games WHERE id = $1", game.id)
        finally:
            await conn.close()
        rules = registry.make("numwars", created["options"])
        late: Any = None
        for _ in range(120):
            (seat,) = game.shadow.actors()
            auto = choose(
                rules,
                game.shadow.view(seat),
                level="basic",
                seed=move_seed(bot_seed, game.version, seat),
            )
            trial = copy.deepcopy(game.shadow)
            trial.apply(seat, auto)
            if trial.actors() == [seat]:
                leads = trial.legal_actions(seat)
                late = next((a for a in game.shadow.legal_actions(seat) if a in leads), None)
                if late is not None:
                    break
            action = builtins(game.shadow.legal_actions(seat)[0])
            answer = await post(client, game, game.tokens[seat], action)
            assert answer.status_code == 200, answer.text
            game.took([(seat, action, answer)])
        assert late is not None, "no such position"
        mine = (await client.get(game.path, headers=auth(game.tokens[seat]))).json()
        assert builtins(late) in mine["view"]["legal_actions"]
        deadline = datetime.fromisoformat(mine["deadline"])
        await asyncio.sleep((deadline - datetime.now(UTC)).total_seconds() + 0.1)
        seen = (await client.get(game.path)).json()  # the timeout applied
        assert seen["version"] == game.version + 1, seen["version"]
        chosen_on = {**auth(game.tokens[seat]), "If-Match": f'"{game.version}"'}
        answer = await client.post(f"{game.path}/actions", json=builtins(late), headers=chosen_on)
        assert answer.status_code == 409, answer.text
        assert answer.json()["code"] == "turn-timed-out"
        assert (await client.get(game.path)).json()["version"] == seen["version"]
        answer = await post(client, game, game.tokens[seat], builtins(late))
        assert answer.status_code == 200, answer.text  # taken as the new turn's move
        assert answer.json()["version"] == seen["version"] + 1
    finally:
        await client.aclose()


# -- 6. a SIGKILL with hot actions in flight ----------------------------------------------------


def test_a_server_killed_with_hot_actions_in_flight(pg_head: str, tmp_path: Path) -> None:
    """Eight numwars games played at once on one server (each hot after its first action),
    SIGKILL while their actions are in flight: after a restart every action answered 200 is
    in its game's log at the version it answered, none twice (the export replays), at most
    one more per game."""
    server = Server(pg_head, tmp_path / "kill.log", NUMRULES_RATE_LIMIT_PER_MINUTE="0")
    server.start()
    games: list[Game] = []
    try:

        async def scenario() -> None:
            async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
                for seed in range(40, 48):
                    games.append(Game(await create(client, "numwars", seed), "numwars", seed))

                async def play(game: Game) -> None:
                    rng = random.Random(game.id)
                    while True:
                        (seat,) = game.shadow.actors()
                        action = builtins(rng.choice(game.shadow.legal_actions(seat)))
                        try:
                            answer = await post(client, game, game.tokens[seat], action)
                        except httpx.TransportError:
                            return
                        assert answer.status_code == 200, answer.text
                        game.took([(seat, action, answer)])

                players = [asyncio.ensure_future(play(g)) for g in games]
                while sum(len(g.answered) for g in games) < 80:
                    await asyncio.sleep(0.01)
                await asyncio.sleep(random.Random().uniform(0, 0.01))
                server.kill()
                await asyncio.gather(*players)

        asyncio.run(scenario())
        server.start()

        async def after() -> None:
            async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
                for game in games:
                    got = (await client.get(game.path)).json()
                    assert game.version <= got["version"] <= game.version + 1
                    abandon = await client.post(
                        f"{game.path}/abandon", headers=auth(game.tokens[0])
                    )
                    assert abandon.status_code == 200
                    export = (await client.get(f"{game.path}/export")).json()
                    actions = [(a["seq"], a["seat"], a["action"]) for a in export["actions"]]
                    assert actions[: len(game.answered)] == game.answered
                    replay(MatchRecord.from_export(msgspec.json.encode(export)))

        asyncio.run(after())
    finally:
        server.stop()
