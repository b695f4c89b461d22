"""Bots' and hints' limits (issue 25, what the contract's "Edge cases settled", Bots, still
asked), over HTTP on PostgreSQL:

- the game option `hints` is declared in each ruleset's stored-game options (the spec's
  `CreateGame` variants, `GET /v1/rulesets/{id}`'s `game_options`), and `false` turns hints off;
- one hint in flight per seat across two served replicas, and a per-minute limit per seat
  (429 `hint-rate-limited` with `Retry-After`), with real concurrent requests;
- the bot-CPU quota per account (and per network without a session): past it the expert's
  moves are `basic` and a new game with an `expert` seat is 429 `bot-quota`;
- `GET /v1/me/stats`: a finished game with a bot seat counts under `vs_bots`, not in
  `rulesets`.
"""

from __future__ import annotations

import concurrent.futures
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from tests.accounts.conftest import auth, sign_up
from tests.api.process import ServeProcess
from tests.games.host import host
from tests.games.quota import quota_app, sql
from tests.games.test_bots import bearer, create, wait_for_turn

EN = {"Accept-Language": "en"}
FR = {"Accept-Language": "fr"}


@pytest.fixture(scope="module")
def limits_app(pg_head: str) -> Litestar:
    return quota_app(pg_head)


@pytest.fixture(scope="module")
def client(limits_app: Litestar) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(limits_app) as c:
        yield c


def think_counts(client: Any) -> dict[str, float]:
    """`numrules_bot_think_seconds_count` by level, as /metrics serves it."""
    found: dict[str, float] = {}
    for line in client.get("/metrics").text.splitlines():
        m = re.match(r'numrules_bot_think_seconds_count\{level="(\w+)"\} (\S+)', line)
        if m:
            found[m[1]] = float(m[2])
    return found


def play_to_the_end(client: Any, game_id: str, token: str) -> Any:
    """The person plays its first legal action each turn until the game is over."""
    while True:
        game = wait_for_turn(client, game_id, token)
        if game["status"] != "active":
            return game
        action = game["view"]["legal_actions"][0]
        acted = client.post(f"/v1/games/{game_id}/actions", json=action, headers=bearer(token))
        assert acted.status_code in (200, 409), acted.text


# -- the option `hints` ---------------------------------------------------------------------


def test_the_option_hints_is_declared_per_ruleset(client: Any) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    catalogue = client.get("/v1/rulesets").json()["rulesets"]
    assert len(catalogue) == 4
    for entry in catalogue:
        one = client.get(f"/v1/rulesets/{entry['id']}").json()
        assert one["game_options"] == {**one["options"], "hints": True}
        assert "hints" not in one["options"]  # the rules' options: sheets and deals take them
        variant = next(
            schemas[ref["$ref"].rsplit("/", 1)[1]]
            for ref in schemas["CreateGame"]["oneOf"]
            if schemas[ref["$ref"].rsplit("/", 1)[1]]["properties"]["ruleset"]["const"]
            == entry["id"]
        )
        name = variant["properties"]["options"]["$ref"].rsplit("/", 1)[1]
        assert name.endswith("GameOptions")
        options = schemas[name]
        assert options["additionalProperties"] is False
        assert set(options["properties"]) == {*one["options"], "hints"}
        hints = options["properties"]["hints"]
        assert hints["allOf"] == [{"type": "boolean"}, {"default": True}]
        assert "hints-off" in hints["description"]
    # the sheets' and stateless operations' options stay the rules' own
    assert "hints" not in schemas["NumWinOptionsInput"]["properties"]


def test_hints_false_turns_hints_off(client: Any) -> None:
    seats = [{"name": "Ada"}, {"name": "Bot", "bot": "basic"}, {"name": "Bo", "bot": "random"}]
    on = create(client, "numwars", seats, seed=2)
    off = create(client, "numwars", seats, options={"hints": False}, seed=2)
    assert off["options"] == on["options"]  # not a rules option: the rules see the same game
    for created, status in ((on, 200), (off, 409)):
        token = created["seats"][0]["token"]
        wait_for_turn(client, created["id"], token)
        answer = client.post(f"/v1/games/{created['id']}/hint", headers=bearer(token))
        assert answer.status_code == status, answer.text
    assert answer.json()["code"] == "hints-off"


# -- hints: one in flight per seat across replicas, a limit a minute ------------------------


@pytest.fixture
def replicas(pg_head: str, tmp_path: Path) -> Iterator[list[ServeProcess]]:
    env = {
        "NUMRULES_PASSWORD_HASH_TIME_COST": "1",
        "NUMRULES_PASSWORD_HASH_MEMORY_KIB": "8192",
        "NUMRULES_RATE_LIMIT_PER_MINUTE": "0",
        "NUMRULES_BOT_WORKERS": "0",
        "NUMRULES_BOT_SAMPLES": "100000",  # the time cap ends each hint: 1.5 s of thinking
        "NUMRULES_BOT_SECONDS": "1.5",
        "NUMRULES_HINTS_PER_MINUTE": "3",
    }
    started = [
        ServeProcess(pg_head, tmp_path / f"{name}.log", **env).start() for name in ("a", "b")
    ]
    try:
        yield started
    finally:
        for served in started:
            if served.process is not None and served.process.poll() is None:
                served.terminate()


def test_one_hint_in_flight_per_seat_across_replicas_and_a_limit_a_minute(
    replicas: list[ServeProcess],
) -> None:
    a, b = replicas
    with httpx.Client(base_url=a.url, timeout=30) as http:
        session = auth(sign_up(http)["token"])
        players = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]
        created = http.post(
            "/v1/games",
            json={"ruleset": "numking", "players": players, "seed": 4},
            headers=session,
        )
        assert created.status_code == 201, created.text
    game = created.json()
    turn = game["view"]["current_player"]
    token = game["seats"][turn]["token"]
    url = f"/v1/games/{game['id']}/hint"

    def ask(base: str, language: dict[str, str]) -> httpx.Response:
        return httpx.post(base + url, headers={**bearer(token), **language}, timeout=30)

    # six at once, three to each replica, in both languages: one thinks, five are refused
    asks = [(r.url, EN if i % 2 else FR) for i, r in enumerate([a, b] * 3)]
    with concurrent.futures.ThreadPoolExecutor(len(asks)) as pool:
        answers = list(pool.map(lambda args: ask(*args), asks))
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [200, 409, 409, 409, 409, 409], [r.text for r in answers]
    refused = [r for r in answers if r.status_code == 409]
    assert {r.json()["code"] for r in refused} == {"hint-in-flight"}
    details = {r.headers["content-language"]: r.json()["detail"] for r in refused}
    assert set(details) == {"en", "fr"} and details["en"] != details["fr"]
    # the refused ones did not count: two more this minute, then the limit (3 a minute)
    for replica in (b, a):
        assert ask(replica.url, EN).status_code == 200
    limited = {lang: ask(b.url, headers) for lang, headers in (("en", EN), ("fr", FR))}
    for language, answer in limited.items():
        assert answer.status_code == 429, answer.text
        assert answer.json()["code"] == "hint-rate-limited"
        assert answer.headers["content-language"] == language
        assert 1 <= int(answer.headers["retry-after"]) <= 60
        assert "3" in answer.json()["detail"]
    assert limited["en"].json()["detail"] != limited["fr"].json()["detail"]
    for served in replicas:
        assert "Traceback" not in served.output(), served.output()[-3000:]


# -- the bot-CPU quota ---------------------------------------------------------------------


def test_the_bot_cpu_quota_of_an_account(client: Any, pg_head: str) -> None:
    session = host(client)
    me = client.get("/v1/me", headers=session).json()
    owner = f"account:{me['id']}"
    seats = [{"name": "Ada"}, {"name": "Ex 1", "bot": "expert"}, {"name": "Ex 2", "bot": "expert"}]
    created = create(client, "numking", seats, options={"max_cards": 2}, seed=8)
    token = created["seats"][0]["token"]
    (row,) = sql(pg_head, "SELECT bot_owner FROM games WHERE id = :g", g=created["id"])
    assert row.bot_owner == owner
    for _ in range(20):  # the person acts until the bots have moved: their moves are charged
        game = wait_for_turn(client, created["id"], token)
        (spent,) = sql(pg_head, "SELECT sum(seconds) AS s FROM bot_cpu WHERE owner = :o", o=owner)
        if spent.s is not None:
            break
        action = game["view"]["legal_actions"][0]
        client.post(f"/v1/games/{created['id']}/actions", json=action, headers=bearer(token))
    assert spent.s is not None and spent.s > 0
    # past the quota (5 s a window): charged now, as if the bots had thought for 60 s
    minute = int(time.time() // 60)
    sql(
        pg_head,
        "INSERT INTO bot_cpu (owner, minute, seconds) VALUES (:o, :m, 60) "
        "ON CONFLICT (owner, minute) DO UPDATE SET seconds = bot_cpu.seconds + 60",
        o=owner,
        m=minute,
    )
    said = {}
    for language in (EN, FR):
        refused = client.post(
            "/v1/games",
            json={"ruleset": "numking", "players": seats, "options": {"max_cards": 2}},
            headers={**session, **language},
        )
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "bot-quota"
        assert 1 <= int(refused.headers["retry-after"]) <= 120
        said[language["Accept-Language"]] = refused.json()["detail"]
    assert said["en"] != said["fr"] and "account" in said["en"] and "compte" in said["fr"]
    basic = [{"name": "Ada"}, {"name": "B", "bot": "basic"}, {"name": "R", "bot": "random"}]
    assert create(client, "numking", basic, options={"max_cards": 2})["id"]
    # the game under way goes on: its expert seats now play as basic, never stall
    before = think_counts(client)
    over = play_to_the_end(client, created["id"], token)
    assert over["status"] == "over"
    after = think_counts(client)
    assert after.get("expert", 0) == before.get("expert", 0)
    assert after.get("basic", 0) > before.get("basic", 0)


def test_the_bot_cpu_quota_of_a_network(client: Any, pg_head: str) -> None:
    """Without a session (Num Wars), the creator's network pays; the address is not stored."""
    seats = [{"name": "Ada"}, {"name": "Ex", "bot": "expert"}, {"name": "Bo", "bot": "basic"}]
    answer = client.post("/v1/games", json={"ruleset": "numwars", "players": seats, "seed": 9})
    assert answer.status_code == 201, answer.text
    created = answer.json()
    (row,) = sql(pg_head, "SELECT bot_owner FROM games WHERE id = :g", g=created["id"])
    assert row.bot_owner.startswith("network:") and "testclient" not in row.bot_owner
    sql(
        pg_head,
        "INSERT INTO bot_cpu (owner, minute, seconds) VALUES (:o, :m, 60) "
        "ON CONFLICT (owner, minute) DO UPDATE SET seconds = bot_cpu.seconds + 60",
        o=row.bot_owner,
        m=int(time.time() // 60),
    )
    refused = client.post("/v1/games", json={"ruleset": "numwars", "players": seats})
    assert refused.status_code == 429 and refused.json()["code"] == "bot-quota"
    assert "network" in refused.json()["detail"]
    # an account's quota is its own: a session's new game is not refused for the network
    session = auth(sign_up(client)["token"])
    answer = client.post(
        "/v1/games", json={"ruleset": "numwars", "players": seats}, headers=session
    )
    assert answer.status_code == 201, answer.text


# -- stats ---------------------------------------------------------------------------------


def test_games_against_bots_count_apart_in_stats(client: Any) -> None:
    me = sign_up(client)
    session = auth(me["token"])
    players = [
        {"name": "Me", "account": me["pseudo"]},
        {"name": "B", "bot": "basic"},
        {"name": "R", "bot": "random"},
    ]
    created = client.post(
        "/v1/games",
        json={"ruleset": "numwars-classic", "players": players, "seed": 6},
        headers=session,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    joined = client.post(f"/v1/games/{game_id}/seats/0/join", headers=session)
    assert joined.status_code in (200, 201), joined.text
    assert client.get("/v1/me/stats", headers=session).json() == {"rulesets": {}, "vs_bots": {}}
    over = play_to_the_end(client, game_id, created.json()["seats"][0]["token"])
    stats = client.get("/v1/me/stats", headers=session).json()
    assert stats["rulesets"] == {}
    figures = stats["vs_bots"]["numwars-classic"]
    won = 0 in over["result"]["winners"]
    assert figures["played"] == 1 and figures["won"] == won and figures["win_rate"] == won
    # the game is in the history like any other
    items = client.get("/v1/me/history", headers=session).json()["items"]
    assert [i["id"] for i in items if i["kind"] == "game"] == [game_id]


def test_the_quota_window_and_its_retry_after() -> None:
    """The rolling window counts by the minute; past the quota, a new expert game may be
    created again once enough of the oldest minutes have left the window."""
    from api.games.bots import Limits, owner_of

    limits = Limits(cpu_seconds=10.0, cpu_window=600)  # 10 s per 10 minutes
    now = 100 * 60 + 30.0  # half a minute into minute 100
    assert limits.since(now) == 91
    assert not limits.over([(95, 4.0), (100, 5.9)])
    used = [(92, 6.0), (95, 3.0), (100, 2.0)]  # 11 s: over
    assert limits.over(used)
    # minute 92 leaves the window at the start of minute 102: 90 s from now
    assert limits.retry_after(used, now) == 90
    assert not Limits(cpu_seconds=0).over(used)  # 0: no quota
    assert owner_of("abc", "10.0.0.1") == "account:abc"
    network = owner_of(None, "10.0.0.1")
    assert network is not None and network.startswith("network:") and "10.0" not in network
    assert owner_of(None, None) is None
