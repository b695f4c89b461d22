"""A move in a clocked game names the version it was chosen on (issue 27's attack on the hot
action found the gap; api-contract.md "Turn clocks"), in a real headless Chromium.

Without `If-Match`, a move that reaches the server after its seat's turn ran out, and after the
timeout's own move handed the seat the next turn (it won the trick), is taken as the move of
that new turn: the server cannot tell what the seat last saw. The app therefore sends
`If-Match: "<version>"` with every move of a clocked game, which the server refuses with 409
`turn-timed-out` when the seat's turn ended by timeout at or after that version. Checked here:
the app's move in a clocked game carries the version the page showed (and is applied); in an
unclocked game it carries none; and the same request the app sends, made late (after the
timeout), is refused 409 `turn-timed-out`, in French, and changes nothing.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_app_play_browser import at_version, game_as, label
from tests.api.test_docs_browser import browser_path  # noqa: F401


def _created(base: str, clock: dict[str, Any] | None) -> tuple[str, list[str]]:
    body: dict[str, Any] = {
        "ruleset": "numwars",
        "players": [{"name": n} for n in ("Ada", "Bo", "Cy")],
        "seed": 2712,
    }
    if clock is not None:
        body["clock"] = clock
    made = httpx.post(f"{base}/v1/games", json=body, timeout=10)
    assert made.status_code == 201, made.text
    return made.json()["id"], [s["token"] for s in made.json()["seats"]]


def _move_in_the_app(chromium: Any, base: str, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """The acting seat's page plays its first legal card; the request the app sent, and
    the game after it."""
    state = game_as(base, game_id, None)
    (seat,) = state["view"]["actors"]
    own = game_as(base, game_id, tokens[seat])["view"]
    card = next(a["card"] for a in own["legal_actions"] if a["type"] == "play")
    screen = Screen(chromium, base, "fr-FR")
    sent: list[dict[str, str]] = []
    screen.page.on(
        "request",
        lambda r: (
            sent.append(r.headers) if r.method == "POST" and r.url.endswith("/actions") else None
        ),
    )
    try:
        screen.page.goto(f"{base}/parties/{game_id}#jeton={tokens[seat]}")
        at_version(screen, state["version"])
        with screen.page.expect_response(lambda r: r.url.endswith("/actions")) as answered:
            screen.page.get_by_role("button", name=label(card, "fr"), exact=True).first.click()
        assert answered.value.status == 200, answered.value.text()
        assert screen.errors == []
    finally:
        screen.context.close()
    (headers,) = sent
    return {"headers": headers, "before": state["version"], "after": game_as(base, game_id, None)}


def test_a_clocked_games_move_names_its_version_and_a_late_one_is_refused(
    browser: Any,  # noqa: F811
    served: str,  # noqa: F811
) -> None:
    game_id, tokens = _created(served, {"turn_seconds": 2, "on_timeout": "auto"})
    moved = _move_in_the_app(browser, served, game_id, tokens)
    assert moved["headers"].get("if-match") == f'"{moved["before"]}"'
    assert moved["after"]["version"] == moved["before"] + 1

    # the app's request, sent after the seat's turn ran out (and its timeout applied)
    state = moved["after"]
    (seat,) = state["view"]["actors"]
    own = game_as(served, game_id, tokens[seat])["view"]
    time.sleep(2.3)
    timed_out = game_as(served, game_id, None)  # a read applies the passed deadline
    assert timed_out["version"] == state["version"] + 1
    late = httpx.post(
        f"{served}/v1/games/{game_id}/actions",
        json=own["legal_actions"][0],
        headers={
            "Authorization": f"Bearer {tokens[seat]}",
            "If-Match": f'"{state["version"]}"',
            "Accept-Language": "fr",
        },
        timeout=10,
    )
    assert late.status_code == 409, late.text
    assert late.json()["code"] == "turn-timed-out"
    assert "le temps de la place" in late.json()["detail"], late.text  # in French
    assert game_as(served, game_id, None)["version"] == timed_out["version"]


def test_an_unclocked_games_move_names_no_version(browser: Any, served: str) -> None:  # noqa: F811
    game_id, tokens = _created(served, None)
    moved = _move_in_the_app(browser, served, game_id, tokens)
    assert "if-match" not in moved["headers"]
    assert moved["after"]["version"] == moved["before"] + 1
