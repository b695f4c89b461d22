"""Writes racing their account's `DELETE /v1/me`, against `numrules serve` on PostgreSQL with
real concurrent requests: a session read just before the account went must not turn its
write into a 500. An attacker found that a stored game created with the session, a log-in
with the password, a sheet claimed or created, sent at once with the deletion, were 500s:
the foreign keys refused the gone account. The account's row is locked for such a write
(`api.accounts.sessions.lock_account`), so the deletion waits for it, or the write sees the
account gone: 401."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import httpx
import pytest

from tests.api.process import ServeProcess

PASSWORD = "a long enough password"
PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


@pytest.fixture(scope="module")
def server(pg_head: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    served = ServeProcess(
        pg_head,
        tmp_path_factory.mktemp("races") / "serve.log",
        NUMRULES_PASSWORD_HASH_TIME_COST="1",
        NUMRULES_PASSWORD_HASH_MEMORY_KIB="8192",
        NUMRULES_RATE_LIMIT_PER_MINUTE="0",
    ).start()
    try:
        yield served
    finally:
        assert served.terminate() == 0


async def test_writes_racing_the_accounts_deletion_are_never_a_500(server: ServeProcess) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        for _ in range(6):
            pseudo = "r_" + secrets.token_hex(5)
            signed = await http.post(
                "/v1/accounts",
                json={
                    "pseudo": pseudo,
                    "password": PASSWORD,
                    "age_range": "25-34",
                    "accept_terms": True,
                },
            )
            assert signed.status_code == 201, signed.text
            session = {"Authorization": f"Bearer {signed.json()['token']}"}
            sheet = (
                await http.post(
                    "/v1/scoresheets", json={"ruleset": "numwars-classic", "players": PLAYERS}
                )
            ).json()
            writes = [
                *(
                    http.post(
                        "/v1/games",
                        json={"ruleset": "numking", "players": PLAYERS},
                        headers=session,
                    )
                    for _ in range(3)
                ),
                *(
                    http.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
                    for _ in range(2)
                ),
                *(
                    http.post(
                        f"/v1/scoresheets/{sheet['id']}/claim",
                        json={"token": sheet["token"], "player": 0},
                        headers=session,
                    )
                    for _ in range(2)
                ),
            ]
            answers = await asyncio.gather(
                *writes[:4], http.delete("/v1/me", headers=session), *writes[4:]
            )
            assert all(a.status_code < 500 for a in answers), [
                (a.request.url.path, a.status_code) for a in answers
            ]
