"""Every operation that takes `If-Match` answers an unquoted one (`If-Match: 3`) with a 422 on
`If-Match` that says the ETag is quoted and shows the quoted form (issue 23: games were fixed
first; the score sheets' writes and any operation to come are held to it here, found from the
spec rather than listed by hand). On the run's PostgreSQL database (tests/pg.py)."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.accounts.conftest import auth, sign_up

#: The operations known to take If-Match today: the spec may add more, never drop these.
KNOWN = {
    "PostGameAction",
    "UpdateScoresheet",
    "DeleteScoresheet",
    "AddScoresheetRound",
    "ReplaceScoresheetRound",
    "DeleteScoresheetRound",
    "ClaimScoresheet",
    "ConfirmScoresheet",
}
PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


def _example_body(operation: dict[str, Any]) -> Any:
    """The operation's own request example (a body its schema takes), or None without a body."""
    media = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if media is None:
        return None
    if "example" in media:
        return media["example"]
    if media.get("examples"):
        return next(iter(media["examples"].values()))["value"]
    return media["schema"]["examples"][0]


def test_an_unquoted_if_match_is_refused_naming_the_quoted_form_everywhere(
    games: TestClient[Any],
) -> None:
    spec = games.get("/openapi.json").json()
    taking = {
        (method, path): operation
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if any(p.get("name") == "If-Match" for p in operation.get("parameters", []))
    }
    assert {op["operationId"] for op in taking.values()} >= KNOWN

    owner = auth(sign_up(games)["token"])
    sheet = games.post(
        "/v1/scoresheets", json={"ruleset": "numwars-classic", "players": PLAYERS}, headers=owner
    )
    assert sheet.status_code == 201, sheet.text
    sheet_url = f"/v1/scoresheets/{sheet.json()['id']}"
    added = games.post(
        f"{sheet_url}/rounds",
        json={"players": [{"captured": ["red-2"]}, {"captured": []}, {"captured": []}]},
        headers=owner,
    )
    assert added.status_code in (200, 201), added.text
    game = games.post("/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS})
    assert game.status_code == 201, game.text
    seat = auth(game.json()["seats"][0]["token"])
    game_url = f"/v1/games/{game.json()['id']}"
    values = {"sheet_id": sheet.json()["id"], "n": "1", "game_id": game.json()["id"]}

    for (method, path), operation in taking.items():
        url = path.format(**values)
        credential = seat if "seatToken" in str(operation.get("security")) else owner
        body = _example_body(operation)
        if operation["operationId"] == "PostGameAction":
            body = games.get(game_url, headers=seat).json()["view"]["legal_actions"][0]
        for header, quoted in (("3", '"3"'), ("version 3", '"3"'), (" 12 ", '"12"')):
            answer = games.request(
                method.upper(),
                url,
                json=body,
                headers={**credential, "If-Match": header},
            )
            where = f"{method.upper()} {path} with If-Match: {header!r}"
            assert answer.status_code == 422, f"{where}: {answer.status_code} {answer.text}"
            problem = answer.json()
            assert problem["code"] == "validation-error", where
            assert problem["errors"][0]["field"] == "If-Match", where
            assert "quoted" in problem["detail"], where
            assert f"If-Match: {quoted}" in problem["detail"], where

    # nothing was changed by any of them
    assert games.get(sheet_url, headers=owner).json()["version"] == added.json()["version"]
    assert games.get(game_url).json()["version"] == 0
