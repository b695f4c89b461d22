"""Score sheets and history on SQLite too (the models serve both databases): SQLite keeps
no time-zone offset and compares times as text, which the history's cursor must survive."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from api.db import migrations
from tests.games.host import host
from tests.pg import FAST_HASHES
from tests.sheets.conftest import versioned
from tests.sheets.test_sheets import ROUND_A, ROUND_B

PLAYERS = [{"name": "A"}, {"name": "B"}, {"name": "C"}]


def test_sheets_and_history_pages_on_sqlite(sqlite_url: str) -> None:
    from api.app import create_app
    from api.ops.settings import Settings

    migrations.upgrade(sqlite_url)
    app = create_app(Settings(database_url=sqlite_url, check_db_on_start=False, **FAST_HASHES))
    client: TestClient[Any]
    with TestClient(app) as client:
        auth = host(client)  # sign-up and sessions on SQLite too
        made = []
        for _ in range(3):
            answer = client.post(
                "/v1/scoresheets",
                json={"ruleset": "numwars-classic", "players": PLAYERS, "planned_rounds": 2},
                headers=auth,
            )
            assert answer.status_code == 201, answer.text
            made.append(answer.json()["id"])
        url = f"/v1/scoresheets/{made[0]}"
        for body in (ROUND_A, ROUND_B):
            assert client.post(f"{url}/rounds", json=body, headers=auth).status_code == 201
        assert client.get(url, headers=auth).json()["finished"] is True
        assert (
            client.delete(f"{url}/rounds/1", headers=versioned(client, url, auth)).status_code
            == 204
        )
        seen, cursor = [], None
        for _ in range(5):
            query = f"?limit=1&cursor={cursor}" if cursor else "?limit=1"
            page = client.get(f"/v1/me/history{query}", headers=auth)
            assert page.status_code == 200, page.text
            seen += [i["id"] for i in page.json()["items"]]
            cursor = page.json()["next_cursor"]
            if cursor is None:
                break
        assert sorted(seen) == sorted(made) and seen[0] == made[0]
