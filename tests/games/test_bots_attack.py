"""Attacks on issue 25's surfaces (bots and hints in stored games), over HTTP on PostgreSQL,
each a finding that was fixed:

- a bot seat bound to an account (`{"bot": …, "account": pseudo}`) was accepted: that account
  joined it, then acted for it, saw its hand and asked hints for a seat the other players
  see as a bot (and the game counted in its stats). Refused now: 422 `bad-bot-seat`;
- hints spent no quota: a network (or an account) could keep the thinkers busy with hints
  from as many seats as it creates games, past the bot-CPU quota that bounds bot moves. A
  hint's think time is now charged to the caller's account, else network, and past the
  quota a hint is 429 `bot-quota` with `Retry-After`, said in the caller's language;
- a burst of games with expert bots, created at once by one owner before any think was
  charged, queued all their expert moves in the thinkers ahead of everyone else's (a hint of
  another player waited 6 s for a 0.2 s budget behind 30 such games), overshooting the quota
  by a think per game. An owner's expert moves and hints now think one at a time per
  process, each after the quota check of the ones before;
- a think budget that is no budget: `numrules play --bot-seconds nan|inf|-1|0` was taken (nan
  and inf turn the expert's time cap off), and `NUMRULES_BOT_SECONDS=inf` too (no time cap,
  and a dead process's hint claim never lapses). Refused now.
"""

from __future__ import annotations

import asyncio
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
from tests.games.test_bots import bearer, wait_for_turn

EN = {"Accept-Language": "en"}
FR = {"Accept-Language": "fr"}


@pytest.fixture(scope="module")
def attack_app(pg_head: str) -> Litestar:
    return quota_app(pg_head)


@pytest.fixture(scope="module")
def client(attack_app: Litestar) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(attack_app) as c:
        yield c


def overspend(url: str, owner: str) -> None:
    """Charge `owner` 60 s of think time this minute: past the quota (5 s a window)."""
    sql(
        url,
        "INSERT INTO bot_cpu (owner, minute, seconds) VALUES (:o, :m, 60) "
        "ON CONFLICT (owner, minute) DO UPDATE SET seconds = bot_cpu.seconds + 60",
        o=owner,
        m=int(time.time() // 60),
    )


def forgive_networks(url: str) -> None:
    """The networks' think time forgotten: this run's other tests (their test client's, their
    served processes' 127.0.0.1) spend the same networks' quotas in the same database."""
    sql(url, "DELETE FROM bot_cpu WHERE owner LIKE 'network:%'")


def spent(url: str, owner: str) -> float:
    (row,) = sql(
        url, "SELECT coalesce(sum(seconds), 0) AS s FROM bot_cpu WHERE owner = :o", o=owner
    )
    return float(row.s)


def test_a_bot_seat_bound_to_an_account_is_refused(client: Any) -> None:
    other = sign_up(client)
    players = [
        {"name": "Ada"},
        {"name": "Bot", "bot": "basic", "account": other["pseudo"]},
        {"name": "Cy", "bot": "random"},
    ]
    said = {}
    for language in (EN, FR):
        answer = client.post(
            "/v1/games",
            json={"ruleset": "numking", "players": players, "options": {"max_cards": 2}},
            headers={**host(client), **language},
        )
        assert answer.status_code == 422, answer.text
        problem = answer.json()
        assert problem["code"] == "bad-bot-seat"
        assert [e["field"] for e in problem["errors"]] == ["players[1].account"]
        assert answer.headers["content-language"] == language["Accept-Language"]
        said[language["Accept-Language"]] = problem["detail"]
    assert said["en"] != said["fr"] and "bot" in said["en"]
    # an account on a human seat, bots beside it: as before
    players[1] = {"name": "Bot", "bot": "basic"}
    players[0] = {"name": "Ada", "account": other["pseudo"]}
    answer = client.post(
        "/v1/games",
        json={"ruleset": "numking", "players": players, "options": {"max_cards": 2}},
        headers=host(client),
    )
    assert answer.status_code == 201, answer.text


def test_hints_spend_the_bot_cpu_quota_of_a_network(client: Any, pg_head: str) -> None:
    """A seat token's hints are charged to its network (Num Wars: no account anywhere); past
    the quota a hint is refused, in the caller's language, and nothing is claimed."""
    forgive_networks(pg_head)
    seats = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Bot", "bot": "random"}]
    answer = client.post("/v1/games", json={"ruleset": "numwars", "players": seats, "seed": 3})
    assert answer.status_code == 201, answer.text
    created = answer.json()
    (row,) = sql(pg_head, "SELECT bot_owner FROM games WHERE id = :g", g=created["id"])
    owner = row.bot_owner  # the creator's network: the hints' caller's too
    assert owner.startswith("network:")
    game = wait_for_turn(client, created["id"], created["seats"][0]["token"])
    turn = game["view"]["actors"][0]
    token = created["seats"][turn]["token"]
    before = spent(pg_head, owner)
    url = f"/v1/games/{created['id']}/hint"
    assert client.post(url, headers=bearer(token)).status_code == 200
    assert spent(pg_head, owner) > before
    overspend(pg_head, owner)
    said = {}
    for language in (EN, FR):
        refused = client.post(url, headers={**bearer(token), **language})
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "bot-quota"
        assert refused.headers["content-language"] == language["Accept-Language"]
        assert 1 <= int(refused.headers["retry-after"]) <= 120
        said[language["Accept-Language"]] = refused.json()["detail"]
    assert said["en"] != said["fr"] and "network" in said["en"] and "réseau" in said["fr"]
    assert "hint" in said["en"] and "conseil" in said["fr"]


def test_hints_spend_the_bot_cpu_quota_of_an_account(client: Any, pg_head: str) -> None:
    """A session's hints are charged to its account, not to its network: another account
    still gets hints."""
    me = sign_up(client)
    session = auth(me["token"])
    players = [{"name": "Me", "account": me["pseudo"]}, {"name": "Bo"}, {"name": "Cy"}]
    answer = client.post(
        "/v1/games",
        json={"ruleset": "numking", "players": players, "options": {"max_cards": 2}, "seed": 4},
        headers=session,
    )
    assert answer.status_code == 201, answer.text
    created = answer.json()
    game_id = created["id"]
    assert client.post(f"/v1/games/{game_id}/seats/0/join", headers=session).status_code == 200
    me_id = client.get("/v1/me", headers=session).json()["id"]
    owner = f"account:{me_id}"
    tokens = [s["token"] for s in created["seats"]]
    game = wait_for_turn(client, game_id, tokens[0])
    assert game["view"]["actors"] == [0]
    assert client.post(f"/v1/games/{game_id}/hint", headers=session).status_code == 200
    assert spent(pg_head, owner) > 0
    overspend(pg_head, owner)
    refused = client.post(f"/v1/games/{game_id}/hint", headers={**session, **EN})
    assert refused.status_code == 429 and refused.json()["code"] == "bot-quota"
    assert "account" in refused.json()["detail"]
    # the account's quota is its own: another account's session at its table gets hints
    other = sign_up(client)
    theirs = auth(other["token"])
    players = [{"name": "They", "account": other["pseudo"]}, {"name": "Bo"}, {"name": "Cy"}]
    answer = client.post(
        "/v1/games",
        json={"ruleset": "numking", "players": players, "options": {"max_cards": 2}, "seed": 4},
        headers=theirs,
    )
    assert answer.status_code == 201, answer.text
    theirs_id = answer.json()["id"]
    assert client.post(f"/v1/games/{theirs_id}/seats/0/join", headers=theirs).status_code == 200
    wait_for_turn(client, theirs_id, answer.json()["seats"][0]["token"])
    assert client.post(f"/v1/games/{theirs_id}/hint", headers=theirs).status_code == 200


# -- a burst of expert games: one think at a time per owner ---------------------------------


@pytest.fixture
def served(pg_head: str, tmp_path: Path) -> Iterator[ServeProcess]:
    env = {
        "NUMRULES_RATE_LIMIT_PER_MINUTE": "0",
        "NUMRULES_BOT_WORKERS": "0",
        "NUMRULES_BOT_SAMPLES": "100000",  # the time cap ends each expert move: 0.2 s
        "NUMRULES_BOT_SECONDS": "0.2",
        "NUMRULES_BOT_CPU_SECONDS": "0.5",
        "NUMRULES_BOT_CPU_WINDOW_SECONDS": "120",
    }
    process = ServeProcess(pg_head, tmp_path / "served.log", **env).start()
    try:
        yield process
    finally:
        if process.process is not None and process.process.poll() is None:
            process.terminate()


def expert_thinks(http: httpx.Client) -> tuple[float, float]:
    """`numrules_bot_think_seconds{level="expert"}`'s count and sum: each think's wall time,
    from its submission to the thinkers to its answer (its wait in their queue included)."""
    found = {"count": 0.0, "sum": 0.0}
    for line in http.get("/metrics").text.splitlines():
        m = re.match(r'numrules_bot_think_seconds_(count|sum)\{level="expert"\} (\S+)', line)
        if m:
            found[m[1]] = float(m[2])
    return found["count"], found["sum"]


def test_a_burst_of_expert_games_thinks_one_at_a_time_per_owner(
    served: ServeProcess, pg_head: str
) -> None:
    """Twelve games of expert bots created at once by one network all passed the creation's
    quota check (nothing was charged yet), and each queued its expert move in the thinkers
    at once, ahead of everyone else's: the last waited 11 thinks of 0.2 s (a mean of 1.3 s a
    think). Now an owner's expert moves think one at a time, each after the quota check of
    the ones before: none waits in the queue behind another of its owner's, then the quota
    is spent and they play `basic`."""
    body = {"ruleset": "numwars", "players": [{"name": f"E{i}", "bot": "expert"} for i in range(3)]}

    async def burst() -> list[tuple[int, str | None]]:
        async with httpx.AsyncClient(base_url=served.url, timeout=60) as http:
            answers = await asyncio.gather(*[http.post("/v1/games", json=body) for _ in range(12)])
        return [(a.status_code, a.json().get("code")) for a in answers]

    forgive_networks(pg_head)
    with httpx.Client(base_url=served.url, timeout=60) as http:
        count, total = expert_thinks(http)
        answers = asyncio.run(burst())
        # on a busy machine the first games' bots may have thought past the quota before the
        # last creations were read: those are refused, as they should be (the CI run of
        # session 38 saw 3 of 12); enough were created for their thinks to compete
        created = [status for status, _ in answers if status == 201]
        assert len(created) >= 4, answers
        assert all(a == (201, None) or a == (429, "bot-quota") for a in answers), answers
        time.sleep(4)  # the bots play on, as basic once the quota is spent
        after, after_total = expert_thinks(http)
        refused = http.post("/v1/games", json=body)
        assert refused.status_code == 429 and refused.json()["code"] == "bot-quota"
    thinks = after - count
    assert thinks >= 1
    assert (after_total - total) / thinks < 0.45, (thinks, after_total - total)
    assert "Traceback" not in served.output(), served.output()[-3000:]


def test_owner_locks_serialize_one_owner_only() -> None:
    from api.games.bots import OwnerLocks

    locks = OwnerLocks()
    running: dict[str | None, int] = {}
    peak: dict[str | None, int] = {}

    async def think(owner: str | None) -> None:
        async with locks.holding(owner):
            running[owner] = running.get(owner, 0) + 1
            peak[owner] = max(peak.get(owner, 0), running[owner])
            await asyncio.sleep(0.01)
            running[owner] -= 1

    async def main() -> None:
        await asyncio.gather(*[think(o) for o in ["a", "a", "a", "b", "b", None, None] * 2])

    asyncio.run(main())
    assert peak == {"a": 1, "b": 1, None: 4}  # no owner: no lock
    assert len(locks) == 0  # no lock outlives its users


# -- the think budget's seconds: finite and above 0 ------------------------------------------


@pytest.mark.parametrize("seconds", ["-1", "0", "nan", "inf"])
def test_numrules_play_refuses_a_budget_that_is_no_budget(
    seconds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--bot-seconds nan` or `inf` turned the expert's time cap off, `-1` was taken as is."""
    from api.cli import main

    with pytest.raises(SystemExit) as exited:
        argv = ["play", "--ruleset", "numking", "--players", "3", "--bots", "expert"]
        main([*argv, "--bot-seconds", seconds])
    assert exited.value.code == 2
    assert "--bot-seconds" in capsys.readouterr().err


def test_the_bot_seconds_setting_is_finite(monkeypatch: pytest.MonkeyPatch) -> None:
    """`NUMRULES_BOT_SECONDS=inf`: no time cap, and a dead process's hint claim (lapsing after
    10 s + 4 budgets) would never lapse."""
    from pydantic import ValidationError

    from api.ops.settings import Settings

    monkeypatch.setenv("NUMRULES_BOT_SECONDS", "inf")
    with pytest.raises(ValidationError):
        Settings()
