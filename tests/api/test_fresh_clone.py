"""What a newcomer from a fresh clone found where the README and the service disagreed (issue
21's review), each against a served `numrules serve` on PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.api.process import ServeProcess
from tests.sheets.test_sheets import ROUND_A
from tests.sheets.test_versions import CLASSIC, bearer, client, sign_up


@pytest.fixture(scope="module")
def server(pg_head: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    served = ServeProcess(
        pg_head,
        tmp_path_factory.mktemp("fresh") / "serve.log",
        NUMRULES_PASSWORD_HASH_TIME_COST="1",
        NUMRULES_PASSWORD_HASH_MEMORY_KIB="8192",
        NUMRULES_RATE_LIMIT_PER_MINUTE="0",
    ).start()
    try:
        yield served
    finally:
        assert served.terminate() == 0


async def test_the_terms_name_their_language_and_vary_by_it(server: ServeProcess) -> None:
    async with client(server) as http:
        for language in ("fr", "en"):
            terms = await http.get("/v1/terms", headers={"Accept-Language": language})
            assert terms.status_code == 200
            assert terms.json()["locale"] == language
            assert terms.headers["content-language"] == language
            assert "accept-language" in terms.headers["vary"].lower()


async def test_an_unquoted_if_match_on_a_game_names_the_quoted_form(server: ServeProcess) -> None:
    async with client(server) as http:
        made = await http.post("/v1/games", json=CLASSIC)
        assert made.status_code == 201, made.text
        game = made.json()
        seat = game["seats"][0]
        mine = await http.get(f"/v1/games/{game['id']}", headers=bearer(seat["token"]))
        action = mine.json()["view"]["legal_actions"][0]
        url = f"/v1/games/{game['id']}/actions"
        unquoted = await http.post(
            url, json=action, headers={**bearer(seat["token"]), "If-Match": "0"}
        )
        assert unquoted.status_code == 422, unquoted.text
        assert unquoted.json()["errors"][0]["field"] == "If-Match"
        assert 'If-Match: "0"' in unquoted.json()["detail"]
        assert (await http.get(f"/v1/games/{game['id']}")).json()["version"] == 0  # unchanged
        quoted = await http.post(
            url, json=action, headers={**bearer(seat["token"]), "If-Match": '"0"'}
        )
        assert quoted.status_code == 200, quoted.text


async def test_a_sheets_unquoted_if_match_is_echoed_quoted(server: ServeProcess) -> None:
    async with client(server) as http:
        made = await http.post("/v1/scoresheets", json=CLASSIC)
        url, auth = f"/v1/scoresheets/{made.json()['id']}", bearer(made.json()["token"])
        assert (await http.post(f"{url}/rounds", json=ROUND_A, headers=auth)).status_code == 201
        refused = await http.delete(f"{url}/rounds/1", headers={**auth, "If-Match": "7"})
        assert refused.status_code == 422
        assert 'If-Match: "7"' in refused.json()["detail"]


async def test_a_replayed_sheet_answer_is_the_first_answers_bytes(server: ServeProcess) -> None:
    async with client(server) as http:
        made = await http.post("/v1/scoresheets", json=CLASSIC)
        url, auth = f"/v1/scoresheets/{made.json()['id']}", bearer(made.json()["token"])
        key = {**auth, "Idempotency-Key": str(uuid.uuid4())}
        first = await http.post(f"{url}/rounds", json=ROUND_A, headers=key)
        again = await http.post(f"{url}/rounds", json=ROUND_A, headers=key)
        assert first.status_code == again.status_code == 201
        assert again.headers["idempotent-replayed"] == "true"
        assert again.content == first.content


async def test_an_api_key_sent_as_a_session_is_told_what_it_is(server: ServeProcess) -> None:
    async with client(server) as http:
        _, session = await sign_up(http)
        made = await http.post("/v1/me/api-keys", json={"name": "ci"}, headers=session)
        assert made.status_code == 201, made.text
        key = made.json()["key"]
        me = await http.get("/v1/me", headers=bearer(key))
        assert me.status_code == 401
        assert "API key" in me.json()["detail"] and key not in me.text
