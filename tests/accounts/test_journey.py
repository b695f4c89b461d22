"""The whole journey of a player of the score-keeping app over HTTP (issue 12, "Must show"):
sign up, verify the email, log in by pseudo and by email, keep a score sheet to its end
(rounds added, edited, deleted), read history and stats, forget the password and reset it
through a real SMTP server, log in with the new one while the old sessions are refused."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.accounts.conftest import Inbox, auth, new_pseudo

PASSWORD = "my first password"
NEW_PASSWORD = "my second password"


def _round(bids: list[int], tricks: list[int]) -> dict[str, Any]:
    return {"players": [{"bid": b, "tricks": t} for b, t in zip(bids, tricks, strict=True)]}


def _engine_scores(
    client: TestClient[Any], cards: int, body: dict[str, Any], streaks: list[int]
) -> list[int]:
    """The stateless score-round answer for the same round (the sheet derives `cards` and the
    streaks; the engine is the reference)."""
    players = [{**p, "streak": s} for p, s in zip(body["players"], streaks, strict=True)]
    r = client.post("/v1/rulesets/numking/score-round", json={"cards": cards, "players": players})
    assert r.status_code == 200, r.text
    return [p["score"] for p in r.json()["players"]]


def test_the_whole_journey(mail_client: TestClient[Any], inbox: tuple[Inbox, int]) -> None:
    client = mail_client
    mail = inbox[0]
    pseudo = new_pseudo()
    address = f"{pseudo}@example.org"

    # sign up: signed in at once; the email is verified by the link sent to it
    created = client.post(
        "/v1/accounts",
        json={
            "pseudo": pseudo,
            "password": PASSWORD,
            "age_range": "18-24",
            "accept_terms": True,
            "email": address,
        },
    )
    assert created.status_code == 201, created.text
    first_session = created.json()["token"]
    verify = mail.token(address, "confirm your email")
    assert client.post("/v1/email-verifications/confirm", json={"token": verify}).status_code == 200

    # log in by pseudo and by email
    by_pseudo = client.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
    by_email = client.post("/v1/sessions", json={"login": address, "password": PASSWORD})
    assert by_pseudo.status_code == by_email.status_code == 201
    session = by_email.json()["token"]
    me = auth(session)

    # a numking sheet (a community game: it needs the session) of two planned rounds
    friend = client.post(
        "/v1/accounts",
        json={
            "pseudo": new_pseudo(),
            "password": PASSWORD,
            "age_range": "50-plus",
            "accept_terms": True,
        },
    ).json()
    sheet = client.post(
        "/v1/scoresheets",
        json={
            "ruleset": "numking",
            "players": [
                {"name": "Me", "account": pseudo},
                {"name": "Friend", "account": friend["pseudo"]},
                {"name": "Guest"},
            ],
            "planned_rounds": 2,
        },
        headers=me,
    )
    assert sheet.status_code == 201, sheet.text
    url = f"/v1/scoresheets/{sheet.json()['id']}"
    assert "token" not in sheet.json() or sheet.json()["token"] is None  # owned: no sheet token

    # round 1 (1 card each): add, then correct it
    wrong = _round([0, 0, 0], [0, 0, 1])
    added = client.post(f"{url}/rounds", json=wrong, headers=me)
    assert added.status_code == 201, added.text
    assert added.json()["n"] == 1 and added.json()["dealer"] == 0
    right = _round([1, 0, 0], [1, 0, 0])
    version = client.get(url, headers=me).headers["etag"]
    replaced = client.put(f"{url}/rounds/1", json=right, headers={**me, "If-Match": version})
    assert replaced.status_code == 200, replaced.text
    one = _engine_scores(client, 1, right, [0, 0, 0])
    assert [p["score"] for p in replaced.json()["scores"]["players"]] == one

    # round 2 added twice by mistake: delete the extra one (it is 409 past the plan anyway)
    second = _round([1, 1, 0], [1, 1, 0])
    assert client.post(f"{url}/rounds", json=second, headers=me).status_code == 201
    past = client.post(f"{url}/rounds", json=second, headers=me)
    assert past.status_code == 409 and past.json()["code"] == "sheet-finished"
    version = client.get(url, headers=me).headers["etag"]
    deleted = client.delete(f"{url}/rounds/2", headers={**me, "If-Match": version})
    assert deleted.status_code == 204
    assert client.get(url, headers=me).json()["finished"] is False
    assert client.post(f"{url}/rounds", json=second, headers=me).status_code == 201

    # finished: totals from the engine's round scores, winners shown
    done = client.get(url, headers=me).json()
    streaks = [p["streak"] for p in replaced.json()["scores"]["players"]]
    two = _engine_scores(client, 2, second, streaks)
    totals = [a + b for a, b in zip(one, two, strict=True)]
    assert done["finished"] is True and done["totals"] == totals
    best = max(totals)
    assert done["winners"] == [i for i, t in enumerate(totals) if t == best]

    # history and stats
    history = client.get("/v1/me/history", headers=me).json()
    assert history["items"][0]["id"] == sheet.json()["id"]
    assert history["items"][0]["kind"] == "scoresheet" and history["items"][0]["finished"]
    assert history["items"][0]["won"] is (0 in done["winners"])
    stats = client.get("/v1/me/stats", headers=me).json()["rulesets"]["numking"]
    assert stats["played"] == 1 and stats["won"] == int(0 in done["winners"])
    assert stats["best_round_score"] == max(one[0], two[0])
    assert stats["average_round_score"] == (one[0] + two[0]) / 2

    # forgotten password: the reset token comes by email; every old session ends
    asked = client.post("/v1/password-resets", json={"login": pseudo})
    assert asked.status_code == 202
    token = mail.token(address, "reset your password")
    reset = client.post(
        "/v1/password-resets/confirm", json={"token": token, "password": NEW_PASSWORD}
    )
    assert reset.status_code == 204
    for old in (first_session, session, by_pseudo.json()["token"]):
        assert client.get("/v1/me", headers=auth(old)).status_code == 401
    refused = client.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
    assert refused.status_code == 401
    again = client.post("/v1/sessions", json={"login": address, "password": NEW_PASSWORD})
    assert again.status_code == 201
    # the sheet is still mine with the new session
    assert client.get(url, headers=auth(again.json()["token"])).json()["totals"] == totals

    # nothing secret was ever answered
    for answer in (created, by_pseudo, by_email, again):
        assert PASSWORD not in answer.text and NEW_PASSWORD not in answer.text
        assert "$argon2" not in answer.text
