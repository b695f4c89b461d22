"""Score-sheet versions (issue 21, item 6; api-contract.md, "Score sheets: versions"), against
`numrules serve` on PostgreSQL with real concurrent HTTP requests (`asyncio.gather` over an
`httpx.AsyncClient`): `ETag` and `If-Match` keep two phones from overwriting each other and a
repeated `DELETE …/rounds/1` from deleting the rounds after it; `Idempotency-Key` replays a
write's first answer (a lost 201 of a new sheet, its token included); a claim binds the
claimer's player.

Found by an attacker: ten concurrent `DELETE …/rounds/1` on a 3-round sheet deleted all three
rounds (each renumbers the rest), and a correction made on an old reading silently undid
another phone's."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from api.accounts.sessions import Caller
from api.db.engine import create_engine
from api.http.domain import Unauthenticated
from api.http.tokens import token_hash
from api.sheets.idempotency import _derive
from api.sheets.schemas import ClaimSheet, CreateSheet
from api.sheets.service import SheetService
from tests.api.process import ServeProcess
from tests.sheets.test_sheets import ROUND_A, ROUND_B, ROUND_C

PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]
CLASSIC = {"ruleset": "numwars-classic", "players": PLAYERS}


@pytest.fixture(scope="module")
def server(pg_head: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    served = ServeProcess(
        pg_head,
        tmp_path_factory.mktemp("sheets") / "serve.log",
        NUMRULES_PASSWORD_HASH_TIME_COST="1",
        NUMRULES_PASSWORD_HASH_MEMORY_KIB="8192",
        NUMRULES_RATE_LIMIT_PER_MINUTE="0",
    ).start()
    try:
        yield served
    finally:
        assert served.terminate() == 0


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def client(server: ServeProcess) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server.url, timeout=30)


async def sheet_with_rounds(
    http: httpx.AsyncClient, rounds: list[dict[str, Any]], body: dict[str, Any] | None = None
) -> tuple[str, dict[str, str]]:
    """An anonymous classic sheet with `rounds` scored: its url and its token's header."""
    made = await http.post("/v1/scoresheets", json=body or CLASSIC)
    assert made.status_code == 201, made.text
    url, auth = f"/v1/scoresheets/{made.json()['id']}", bearer(made.json()["token"])
    for played in rounds:
        added = await http.post(f"{url}/rounds", json=played, headers=auth)
        assert added.status_code == 201, added.text
    return url, auth


async def read(http: httpx.AsyncClient, url: str, auth: dict[str, str]) -> httpx.Response:
    answer = await http.get(url, headers=auth)
    assert answer.status_code == 200, answer.text
    return answer


async def sign_up(http: httpx.AsyncClient) -> tuple[str, dict[str, str]]:
    pseudo = "v_" + secrets.token_hex(5)
    body = {
        "pseudo": pseudo,
        "password": "a long enough password",
        "age_range": "25-34",
        "accept_terms": True,
    }
    created = await http.post("/v1/accounts", json=body)
    assert created.status_code == 201, created.text
    return pseudo, bearer(created.json()["token"])


def inputs(sheet: dict[str, Any]) -> list[Any]:
    return [r["input"]["players"] for r in sheet["rounds"]]


# --- If-Match ---------------------------------------------------------------------------------


async def test_ten_concurrent_deletes_of_round_1_delete_one_round(server: ServeProcess) -> None:
    async with client(server) as http:
        url, auth = await sheet_with_rounds(http, [ROUND_A, ROUND_B, ROUND_C])
        etag = (await read(http, url, auth)).headers["etag"]
        assert etag == '"3"'
        headers = {**auth, "If-Match": etag}
        answers = await asyncio.gather(
            *(http.delete(f"{url}/rounds/1", headers=headers) for _ in range(10))
        )
        sheet = (await read(http, url, auth)).json()
    statuses = Counter(a.status_code for a in answers)
    assert statuses == {204: 1, 412: 9}, statuses
    assert inputs(sheet) == [ROUND_B["players"], ROUND_C["players"]]
    assert sheet["version"] == 4
    done = next(a for a in answers if a.status_code == 204)
    assert done.headers["etag"] == '"4"'
    for refused in (a for a in answers if a.status_code == 412):
        assert refused.json()["code"] == "version-mismatch"
        assert refused.headers["etag"] == '"4"'


async def test_two_phones_never_overwrite_each_other(server: ServeProcess) -> None:
    async with client(server) as http:
        url, auth = await sheet_with_rounds(http, [ROUND_A, ROUND_B])
        seen = (await read(http, url, auth)).headers["etag"]  # both phones read version 2
        phone_a = await http.put(
            f"{url}/rounds/1", json=ROUND_C, headers={**auth, "If-Match": seen}
        )
        assert phone_a.status_code == 200, phone_a.text
        assert phone_a.headers["etag"] == '"3"' and phone_a.json()["version"] == 3
        phone_b = await http.put(
            f"{url}/rounds/1", json=ROUND_B, headers={**auth, "If-Match": seen}
        )
        assert phone_b.status_code == 412, phone_b.text
        assert phone_b.json()["code"] == "version-mismatch"
        assert phone_b.headers["etag"] == '"3"'
        sheet = (await read(http, url, auth)).json()
        assert inputs(sheet) == [ROUND_C["players"], ROUND_B["players"]]  # A's correction kept
        # at once: one of the two corrections is applied, the other told to read again
        race = await asyncio.gather(
            *(
                http.put(f"{url}/rounds/2", json=body, headers={**auth, "If-Match": '"3"'})
                for body in (ROUND_A, ROUND_C)
            )
        )
        assert sorted(a.status_code for a in race) == [200, 412]
        won = next(a for a in race if a.status_code == 200)
        sheet = (await read(http, url, auth)).json()
        assert sheet["rounds"][1]["input"] == won.json()["input"] and sheet["version"] == 4


async def test_a_round_is_corrected_or_deleted_only_with_if_match(server: ServeProcess) -> None:
    async with client(server) as http:
        url, auth = await sheet_with_rounds(http, [ROUND_A, ROUND_B])
        put = await http.put(f"{url}/rounds/1", json=ROUND_C, headers=auth)
        deleted = await http.delete(f"{url}/rounds/1", headers=auth)
        for refused in (put, deleted):
            assert refused.status_code == 428, refused.text
            assert refused.json()["code"] == "if-match-required"
            assert refused.headers["etag"] == '"2"'
            assert 'If-Match: "2"' in refused.json()["detail"]
        sheet = (await read(http, url, auth)).json()
        assert inputs(sheet) == [ROUND_A["players"], ROUND_B["players"]] and sheet["version"] == 2
        # a header that is no entity tag: 4xx, saying the ETag is quoted
        for header in ("2", "version 2", '"2'):
            bad = await http.delete(f"{url}/rounds/1", headers={**auth, "If-Match": header})
            assert bad.status_code == 422, bad.text
            assert bad.json()["errors"][0]["field"] == "If-Match"
            quoted = '"2"' if header == "2" else '"3"'  # the version sent, quoted, or an example
            assert (
                f"If-Match: {quoted}" in bad.json()["detail"] and "quoted" in bad.json()["detail"]
            )
        weak = await http.delete(f"{url}/rounds/1", headers={**auth, "If-Match": 'W/"2"'})
        assert weak.status_code == 412  # compared strongly: a weak tag never matches
        listed = await http.delete(f"{url}/rounds/2", headers={**auth, "If-Match": '"1", "2"'})
        assert listed.status_code == 204
        assert (await read(http, url, auth)).json()["version"] == 3


async def test_etag_on_reads_and_writes_confirm_keeps_the_version(server: ServeProcess) -> None:
    async with client(server) as http:
        pseudo, named = await sign_up(http)
        _, owner = await sign_up(http)
        body = {**CLASSIC, "players": [{"name": "Ada", "account": pseudo}, *PLAYERS[1:]]}
        made = await http.post("/v1/scoresheets", json=body, headers=owner)
        assert made.status_code == 201 and made.headers["etag"] == '"0"'
        url = f"/v1/scoresheets/{made.json()['id']}"
        first = await read(http, url, owner)
        assert first.headers["etag"] == '"0"' and first.json()["version"] == 0
        added = await http.post(f"{url}/rounds", json=ROUND_A, headers=owner)
        assert added.headers["etag"] == '"1"' and added.json()["version"] == 1
        patched = await http.patch(
            url, json={"players": [{"name": n} for n in ("A", "B", "C")]}, headers=owner
        )
        assert patched.headers["etag"] == '"2"' and patched.json()["version"] == 2
        stale = await http.patch(
            url, json={"planned_rounds": 4}, headers={**owner, "If-Match": '"1"'}
        )
        assert stale.status_code == 412 and stale.json()["code"] == "version-mismatch"
        confirmed = await http.post(f"{url}/confirm", headers={**named, "If-Match": '"2"'})
        assert confirmed.status_code == 200, confirmed.text
        assert confirmed.headers["etag"] == '"2"' and confirmed.json()["version"] == 2
        assert confirmed.json()["players"][0]["confirmed"] is True
        assert (await read(http, url, named)).headers["etag"] == '"2"'
        late = await http.post(f"{url}/confirm", headers={**named, "If-Match": '"1"'})
        assert late.status_code == 412  # confirming a version one has not read: refused
        gone = await http.delete(url, headers={**owner, "If-Match": '"2"'})
        assert gone.status_code == 204 and "etag" not in gone.headers


# --- Idempotency-Key ----------------------------------------------------------------------------


async def test_retried_writes_replay_their_first_answer(server: ServeProcess) -> None:
    async with client(server) as http:
        url, auth = await sheet_with_rounds(http, [ROUND_A])
        # a round sent five times at once with one key: scored once, the same answer five times
        key = {**auth, "Idempotency-Key": str(uuid.uuid4())}
        added = await asyncio.gather(
            *(http.post(f"{url}/rounds", json=ROUND_B, headers=key) for _ in range(5))
        )
        assert {a.status_code for a in added} == {201}
        assert all(a.json() == added[0].json() for a in added) and added[0].json()["n"] == 2
        assert sum(a.headers.get("idempotent-replayed") == "true" for a in added) == 4
        assert {a.headers["etag"] for a in added} == {'"2"'}
        assert inputs((await read(http, url, auth)).json()) == [
            ROUND_A["players"],
            ROUND_B["players"],
        ]
        # the same key with another body: refused, nothing applied
        reused = await http.post(f"{url}/rounds", json=ROUND_C, headers=key)
        assert reused.status_code == 422 and reused.json()["code"] == "idempotency-key-reused"

        # a correction retried: the first answer again, the version moved once
        put = {**auth, "If-Match": '"2"', "Idempotency-Key": str(uuid.uuid4())}
        first = await http.put(f"{url}/rounds/1", json=ROUND_C, headers=put)
        again = await http.put(f"{url}/rounds/1", json=ROUND_C, headers=put)
        assert first.status_code == again.status_code == 200, again.text
        assert again.json() == first.json() and again.headers["etag"] == '"3"'
        assert again.headers["idempotent-replayed"] == "true"
        assert (await read(http, url, auth)).json()["version"] == 3

        # a deletion retried with the same If-Match and key deletes nothing more
        gone = {**auth, "If-Match": '"3"', "Idempotency-Key": str(uuid.uuid4())}
        deletes = await asyncio.gather(
            *(http.delete(f"{url}/rounds/1", headers=gone) for _ in range(3))
        )
        assert [d.status_code for d in deletes] == [204] * 3
        assert {d.headers["etag"] for d in deletes} == {'"4"'}
        retried = await http.delete(f"{url}/rounds/1", headers=gone)
        assert retried.status_code == 204 and retried.headers["idempotent-replayed"] == "true"
        sheet = (await read(http, url, auth)).json()
        assert inputs(sheet) == [ROUND_B["players"]] and sheet["version"] == 4
        # without a key, the retry's If-Match is stale: 412, nothing deleted
        plain = await http.delete(f"{url}/rounds/1", headers={**auth, "If-Match": '"3"'})
        assert plain.status_code == 412
        assert len((await read(http, url, auth)).json()["rounds"]) == 1

        # the sheet's deletion retried: 204 again
        bye = {**auth, "Idempotency-Key": str(uuid.uuid4())}
        assert (await http.delete(url, headers=bye)).status_code == 204
        replayed = await http.delete(url, headers=bye)
        assert replayed.status_code == 204 and replayed.headers["idempotent-replayed"] == "true"


async def test_a_lost_201_is_retried_and_gets_its_token_once_more(
    server: ServeProcess, pg_head: str
) -> None:
    key = {"Idempotency-Key": str(uuid.uuid4())}
    async with client(server) as http:
        made = await asyncio.gather(
            *(http.post("/v1/scoresheets", json=CLASSIC, headers=key) for _ in range(4))
        )
        assert {m.status_code for m in made} == {201}, [m.text for m in made]
        assert len({m.json()["id"] for m in made}) == 1  # one sheet made
        assert all(m.json() == made[0].json() for m in made)
        token = made[0].json()["token"]
        assert len({m.headers["location"] for m in made}) == 1
        url = made[0].headers["location"]
        assert (await http.get(url, headers=bearer(token))).status_code == 200
        later = await http.post("/v1/scoresheets", json=CLASSIC, headers=key)
        assert later.json()["token"] == token and later.headers["idempotent-replayed"] == "true"
        other = await http.post(
            "/v1/scoresheets", json={**CLASSIC, "planned_rounds": 5}, headers=key
        )
        assert other.status_code == 422 and other.json()["code"] == "idempotency-key-reused"
        # a session's keys are its own: the same key makes its own sheet
        _, session = await sign_up(http)
        owned = await http.post("/v1/scoresheets", json=CLASSIC, headers={**session, **key})
        assert owned.status_code == 201 and owned.json()["id"] != made[0].json()["id"]
        assert "token" not in owned.json()
        # without a session a guessable key is refused: it is all that guards the token
        short = await http.post("/v1/scoresheets", json=CLASSIC, headers={"Idempotency-Key": "1"})
        assert short.status_code == 422, short.text
        assert short.json()["errors"][0]["field"] == "Idempotency-Key"
        short = await http.post(
            "/v1/scoresheets", json=CLASSIC, headers={**session, "Idempotency-Key": "1"}
        )
        assert short.status_code == 201  # a session's own key may be short
    # the token is nowhere in the database but as a hash, nor in any log line
    conn = await asyncpg.connect(pg_head.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        stored = await conn.fetch("SELECT * FROM scoresheet_idempotency_keys")
    finally:
        await conn.close()
    assert stored and not any(token in str(dict(row)) for row in stored)
    assert not any(key["Idempotency-Key"] in str(dict(row)) for row in stored)
    assert token not in server.output()


# --- claim with `player` ----------------------------------------------------------------------


async def test_a_claim_binds_the_claimers_player(server: ServeProcess) -> None:
    async with client(server) as http:
        pseudo, ada = await sign_up(http)
        bo_pseudo, _ = await sign_up(http)
        url, auth = await sheet_with_rounds(http, [ROUND_A, ROUND_B, ROUND_C])
        token = auth["Authorization"].removeprefix("Bearer ")
        out_of_range = await http.post(
            f"{url}/claim", json={"token": token, "player": 3}, headers=ada
        )
        assert out_of_range.status_code == 422, out_of_range.text
        assert out_of_range.json()["errors"][0]["field"] == "player"
        stale = await http.post(
            f"{url}/claim", json={"token": token, "player": 1}, headers={**ada, "If-Match": '"2"'}
        )
        assert stale.status_code == 412
        claimed = await http.post(
            f"{url}/claim", json={"token": token, "player": 1}, headers={**ada, "If-Match": '"3"'}
        )
        assert claimed.status_code == 200, claimed.text
        sheet = claimed.json()
        assert sheet["owner"] == pseudo and claimed.headers["etag"] == '"4"'
        assert sheet["players"][1] == {"name": "Bo", "account": pseudo, "confirmed": True}
        assert sheet["finished"] is True
        history = (await http.get("/v1/me/history", headers=ada)).json()["items"]
        assert sheet["id"] in [item["id"] for item in history]
        stats = (await http.get("/v1/me/stats", headers=ada)).json()["rulesets"]
        assert stats["numwars-classic"]["played"] == 1
        assert stats["numwars-classic"]["won"] == int(1 in sheet["winners"])

        # a player bound to another account, or a claimer already on the sheet: 409
        named = {**CLASSIC, "players": [{"name": "Ada", "account": bo_pseudo}, *PLAYERS[1:]]}
        url2, auth2 = await sheet_with_rounds(http, [ROUND_A], named)
        token2 = auth2["Authorization"].removeprefix("Bearer ")
        bound = await http.post(f"{url2}/claim", json={"token": token2, "player": 0}, headers=ada)
        assert bound.status_code == 409 and bound.json()["code"] == "player-bound"
        mine = {**CLASSIC, "players": [*PLAYERS[:2], {"name": "Cy", "account": pseudo}]}
        url3, auth3 = await sheet_with_rounds(http, [], mine)
        token3 = auth3["Authorization"].removeprefix("Bearer ")
        twice = await http.post(f"{url3}/claim", json={"token": token3, "player": 0}, headers=ada)
        assert twice.status_code == 409 and twice.json()["code"] == "player-bound"
        # refused claims change nothing: the token still edits, nobody owns the sheets
        for where, with_token in ((url2, auth2), (url3, auth3)):
            unchanged = (await read(http, where, with_token)).json()
            assert unchanged["owner"] is None and unchanged["version"] in (0, 1)
        own = await http.post(f"{url3}/claim", json={"token": token3, "player": 2}, headers=ada)
        assert own.status_code == 200 and own.json()["players"][2]["confirmed"] is True


async def test_a_key_past_its_24_hours_is_a_new_key(server: ServeProcess, pg_head: str) -> None:
    """A key's stored answer past its 24 hours, not yet purged (each process purges at most
    once a minute, after a keyed write that commits): an attacker found that every later
    write with that key was a 500 (the expired row was passed over, then its digest clashed
    on insert, twice), and stayed one, since a failed write purges nothing. Past its time a
    key is a new key: the write is applied and its answer stored afresh."""
    async with client(server) as http:
        url, auth = await sheet_with_rounds(http, [ROUND_A])
        key = str(uuid.uuid4())
        keyed = {**auth, "Idempotency-Key": key}
        first = await http.patch(url, json={"planned_rounds": 4}, headers=keyed)
        assert first.status_code == 200, first.text
        sender = "sheet-token:" + token_hash(auth["Authorization"].removeprefix("Bearer "))
        digest = _derive(b"numrules sheet idempotency", sender, key).hex()
        conn = await asyncpg.connect(pg_head.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            aged = await conn.execute(
                "UPDATE scoresheet_idempotency_keys SET created_at = now() - interval '25 hours'"
                " WHERE digest = $1",
                digest,
            )
        finally:
            await conn.close()
        assert aged == "UPDATE 1"
        other = await http.patch(url, json={"planned_rounds": 5}, headers=keyed)
        assert other.status_code == 200, other.text
        assert other.json()["planned_rounds"] == 5 and "idempotent-replayed" not in other.headers
        again = await http.patch(url, json={"planned_rounds": 5}, headers=keyed)
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
        assert again.json() == other.json()


async def test_a_claim_or_a_sheet_by_an_account_deleted_meanwhile_is_401(
    server: ServeProcess, pg_head: str
) -> None:
    """A claim racing its claimer's `DELETE /v1/me` (the session read, then the account gone
    before the claim's writes): an attacker found it a 500, the player's and the owner's
    foreign keys refused. The claimer's account is locked for the write (so a deletion waits
    for it, or it sees the account gone): 401 `unauthorized`; a new sheet likewise."""
    async with client(server) as http:
        pseudo, session = await sign_up(http)
        account = (await http.get("/v1/me", headers=session)).json()["id"]
        made = (await http.post("/v1/scoresheets", json=CLASSIC)).json()
        assert (await http.delete("/v1/me", headers=session)).status_code == 204
    caller = Caller(account, pseudo, "a session read before the account was deleted")
    engine = create_engine(pg_head)
    store = SheetService(engine)
    try:
        for attempt in (
            store.claim(made["id"], caller, ClaimSheet(token=made["token"], player=0)),
            store.claim(made["id"], caller, ClaimSheet(token=made["token"])),
            store.create(msgspec.convert(CLASSIC, CreateSheet), caller),
        ):
            with pytest.raises(Unauthenticated) as refused:  # 401, the service's domain error
                await attempt
            assert refused.value.code == "unauthorized"
    finally:
        await engine.dispose()
    async with client(server) as http:
        still = await http.post(
            f"/v1/scoresheets/{made['id']}/rounds", json=ROUND_A, headers=bearer(made["token"])
        )
        assert still.status_code == 201, "the sheet is still its token's"


async def test_claims_racing_the_claimers_deletion_are_never_a_500(server: ServeProcess) -> None:
    async with client(server) as http:
        for _ in range(6):
            _, session = await sign_up(http)
            made = (await http.post("/v1/scoresheets", json=CLASSIC)).json()
            claim = {"token": made["token"], "player": 0}
            url = f"/v1/scoresheets/{made['id']}/claim"
            answers = await asyncio.gather(
                *(http.post(url, json=claim, headers=session) for _ in range(3)),
                http.delete("/v1/me", headers=session),
                *(http.post("/v1/scoresheets", json=CLASSIC, headers=session) for _ in range(3)),
            )
            assert all(a.status_code < 500 for a in answers), [a.text for a in answers]
