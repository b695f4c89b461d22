"""The log-in throttle as an attacker meets it (issue 21, item 3): `numrules serve` on
PostgreSQL, real HTTP from distinct client networks — distinct loopback source addresses
(127.0.0.0/8 is all loopback) and, for IPv6, `X-Forwarded-For` through a trusted proxy.

Nobody can lock another user out: the strict limit is per (login, network), the per-login
ceiling only slows the networks that have failed on that login, and a clean network (the
owner's, elsewhere) always reaches the password check.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import httpx
import pytest

from tests.api.process import ServeProcess

PASSWORD = "the owner's real password"
STRICT = 5  # NUMRULES_LOGIN_MAX_FAILURES, the default
CEILING = 36  # NUMRULES_LOGIN_CEILING, lowered for the tests (100 by default)
PROXY = "127.0.0.1"  # the trusted proxy: its X-Forwarded-For names the client
#: Fresh IPv4 client networks (/32 by default): one loopback source address each, never the
#: proxy's.
_ADDRESSES = (f"127.0.{b}.{c}" for b, c in itertools.product(range(1, 255), range(1, 255)))


def fresh() -> str:
    return next(_ADDRESSES)


@pytest.fixture(scope="module")
def server(pg_head: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    served = ServeProcess(
        pg_head,
        tmp_path_factory.mktemp("throttle") / "serve.log",
        NUMRULES_PASSWORD_HASH_TIME_COST="1",
        NUMRULES_PASSWORD_HASH_MEMORY_KIB="8192",
        NUMRULES_RATE_LIMIT_PER_MINUTE="0",
        NUMRULES_LOGIN_CEILING=str(CEILING),
        NUMRULES_TRUSTED_PROXIES=f'["{PROXY}"]',
    ).start()
    try:
        yield served
    finally:
        assert served.terminate() == 0


@asynccontextmanager
async def client(server: ServeProcess, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client whose requests come from `address` (its TCP source address)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=server.url, transport=transport, timeout=30) as c:
        yield c


async def log_in(
    server: ServeProcess, address: str, login: str, password: str, **headers: str
) -> httpx.Response:
    async with client(server, address) as c:
        return await c.post(
            "/v1/sessions", json={"login": login, "password": password}, headers=headers
        )


def status_of(server: ServeProcess, address: str, login: str, password: str) -> int:
    return asyncio.run(log_in(server, address, login, password)).status_code


def sign_up(server: ServeProcess) -> str:
    pseudo = "own_" + secrets.token_hex(4)
    created = httpx.post(
        f"{server.url}/v1/accounts",
        json={"pseudo": pseudo, "password": PASSWORD, "age_range": "25-34", "accept_terms": True},
    )
    assert created.status_code == 201, created.text
    return pseudo


def owner_logs_in(server: ServeProcess, pseudo: str) -> None:
    """The owner, from a network that has never failed on the pseudo, gets a session."""
    answer = asyncio.run(log_in(server, fresh(), pseudo, PASSWORD))
    assert answer.status_code == 201, answer.text
    assert answer.json()["token"]


def wrong_from_each(server: ServeProcess, addresses: list[str], login: str) -> list[int]:
    """One wrong password from each address, all at once."""

    async def burst() -> list[int]:
        answers = await asyncio.gather(
            *(log_in(server, a, login, f"guess {a}!!") for a in addresses)
        )
        return [a.status_code for a in answers]

    return asyncio.run(burst())


def retry_after(answer: httpx.Response) -> int:
    assert answer.status_code == 429, answer.text
    assert answer.json()["code"] == "too-many-attempts"
    return int(answer.headers["retry-after"])


def test_the_old_lockout_no_longer_locks_the_owner_out(server: ServeProcess) -> None:
    """Five wrong passwords from one address used to lock the pseudo for 15 minutes from
    anywhere; now the owner, elsewhere, logs in — and the failing address is still held."""
    pseudo = sign_up(server)
    stranger = fresh()
    assert [status_of(server, stranger, pseudo, "wrong password") for _ in range(STRICT)] == [
        401
    ] * STRICT
    owner_logs_in(server, pseudo)
    answer = asyncio.run(log_in(server, stranger, pseudo, PASSWORD))
    assert 0 < retry_after(answer) <= 900


def test_a_stranger_on_one_network_never_locks_the_owner_out(server: ServeProcess) -> None:
    """A stranger hammers a pseudo from one network: 429 with Retry-After past the strict
    limit (the right password too, from there), while the owner logs in from a clean network
    at every point — also once the stranger spreads over networks past the per-login
    ceiling, and once the stranger's network is past its limit across logins."""
    pseudo = sign_up(server)
    stranger = fresh()
    for _ in range(STRICT):
        assert status_of(server, stranger, pseudo, "wrong password") == 401
        owner_logs_in(server, pseudo)
    for _ in range(3 * STRICT):
        answer = asyncio.run(log_in(server, stranger, pseudo, "wrong password"))
        assert 0 < retry_after(answer) <= 900
        owner_logs_in(server, pseudo)
    assert status_of(server, stranger, pseudo, PASSWORD) == 429
    # the stranger moves on to enough networks to pass the per-login ceiling
    assert wrong_from_each(server, [fresh() for _ in range(CEILING + 5)], pseudo) == [401] * (
        CEILING + 5
    )
    owner_logs_in(server, pseudo)
    assert status_of(server, stranger, pseudo, PASSWORD) == 429
    owner_logs_in(server, pseudo)


def test_guesses_spread_over_many_networks_are_slowed(server: ServeProcess) -> None:
    """40 networks guess one pseudo: each network's first guess reaches the password check
    (a clean network is never refused), the login passes its ceiling, and the networks that
    failed then get 429 with a Retry-After that grows with each attempt; a clean network
    still logs in with the right password, and a failing network that waits its delay is
    let through again."""
    pseudo = sign_up(server)
    failing = [fresh() for _ in range(CEILING - 2)]
    assert wrong_from_each(server, failing, pseudo) == [401] * len(failing)
    # the last networks, before and past the ceiling: all clean, none refused
    clean = [fresh() for _ in range(40 - len(failing))]
    assert wrong_from_each(server, clean, pseudo) == [401] * len(clean)
    failing += clean
    waits = []
    for address in failing[:8]:
        answer = asyncio.run(log_in(server, address, pseudo, "another guess"))
        waits.append(retry_after(answer))
    # 40 attempts: 4 past the ceiling; the 5th past waits 2⁴ s, then it doubles up to the
    # window's end (15 minutes from the login's first attempt)
    assert waits[:6] == [16, 32, 64, 128, 256, 512], waits
    assert all(512 < wait <= 900 for wait in waits[6:]), waits
    owner_logs_in(server, pseudo)
    assert status_of(server, fresh(), pseudo, "a clean network's guess") == 401
    # the right password from a failing network waits too (it is not told it is right)
    assert status_of(server, failing[0], pseudo, PASSWORD) == 429


def test_a_failing_network_that_waits_its_delay_is_let_through(server: ServeProcess) -> None:
    """Past the ceiling the delay starts at 1 s (then 2 s, 4 s …): a network that waits what
    Retry-After said reaches the password check again."""
    pseudo = sign_up(server)
    networks = [fresh() for _ in range(CEILING)]
    assert wrong_from_each(server, networks, pseudo) == [401] * CEILING
    first = asyncio.run(log_in(server, networks[0], pseudo, "wrong password"))
    delay = retry_after(first)
    assert delay == 1
    asyncio.run(asyncio.sleep(delay + 0.1))
    assert status_of(server, networks[0], pseudo, PASSWORD) == 201


def test_one_ipv6_64_is_one_network(server: ServeProcess) -> None:
    """IPv6 clients (behind the trusted proxy) are counted by /64: the guesses of two
    addresses in one /64 add up, while another /64 is a clean network."""
    pseudo = sign_up(server)

    def via_proxy(client_ip: str, password: str) -> httpx.Response:
        return asyncio.run(
            log_in(server, PROXY, pseudo, password, **{"X-Forwarded-For": client_ip})
        )

    for i in range(STRICT):
        host = f"2001:db8:1:2::{i + 1:x}" if i % 2 else f"2001:db8:1:2:ffff:{i}::9"
        assert via_proxy(host, "wrong password").status_code == 401
    assert 0 < retry_after(via_proxy("2001:db8:1:2:abcd::1", PASSWORD)) <= 900
    assert via_proxy("2001:db8:1:3::1", "wrong password").status_code == 401
    assert via_proxy("2001:db8:1:4::1", PASSWORD).status_code == 201


def test_a_network_spraying_logins_locks_only_itself(server: ServeProcess) -> None:
    """A network trying many logins is refused past its limit across logins (50), whatever
    the login; the owner of one of those logins still logs in from elsewhere."""
    pseudo = sign_up(server)
    sprayer = fresh()

    async def spray() -> list[int]:
        async with client(server, sprayer) as c:
            codes = []
            for i in range(51):
                login = pseudo if i % 20 == 0 else f"nobody_{secrets.token_hex(4)}"
                r = await c.post("/v1/sessions", json={"login": login, "password": "x" * 12})
                codes.append(r.status_code)
            return codes

    codes = asyncio.run(spray())
    assert codes[-1] == 429 and codes[:STRICT] == [401] * STRICT
    assert status_of(server, sprayer, f"nobody_{secrets.token_hex(4)}", "x" * 12) == 429
    owner_logs_in(server, pseudo)


def _same_problem(known: httpx.Response, unknown: httpx.Response) -> None:
    assert known.status_code == unknown.status_code
    assert re.sub(rb"\d+", b"N", known.content) == re.sub(rb"\d+", b"N", unknown.content)
    same = {"content-type", "www-authenticate", "content-length"}
    assert {h: known.headers.get(h) for h in same} == {h: unknown.headers.get(h) for h in same}
    assert ("retry-after" in known.headers) == ("retry-after" in unknown.headers)


def test_an_unknown_login_and_a_pseudo_are_throttled_alike(server: ServeProcess) -> None:
    """Enumeration: under the strict limit and past the ceiling, a known pseudo and a login
    no account has get the same answers (401, then the same 429 with the same delay)."""
    pseudo = sign_up(server)
    ghost = "ghost_" + secrets.token_hex(4)

    async def both(address: str) -> tuple[httpx.Response, httpx.Response]:
        known, unknown = await asyncio.gather(
            log_in(server, address, pseudo, "wrong password"),
            log_in(server, address, ghost, "wrong password"),
        )
        return known, unknown

    one = fresh()
    for _ in range(STRICT + 1):
        known, unknown = asyncio.run(both(one))
        _same_problem(known, unknown)
    assert known.status_code == 429
    for address in [fresh() for _ in range(CEILING)]:
        _same_problem(*asyncio.run(both(address)))
    # both logins are past the ceiling by as many attempts: the same delay, to the second
    known, unknown = asyncio.run(both(address))
    assert known.status_code == 429
    assert known.content == unknown.content
    assert known.headers["retry-after"] == unknown.headers["retry-after"]
