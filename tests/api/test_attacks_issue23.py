"""A hostile client against what issue 23 added (every invalid field at once, answers in the
caller's language): each test was a wrong answer found by attacking a running server, the
request kept as it was sent.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from api.http import fields
from api.http.fields import find_flaws
from api.http.problems import cut_quotes
from engine.core.errors import InvalidInput
from engine.core.texts import CATALOG, LANGUAGES, MAX_RANGES, pick_language
from engine.numwars.requests import NumWarsMoveRequest
from engine.numwars_classic.requests import ClassicScoreRequest

FR = {"Accept-Language": "fr"}
NUMWARS_ROUND = {
    "players": [
        {"captured": ["red-5", "blue-5", "green-5", "bomb"], "role": "demineur"},
        {"captured": ["red-12"], "pairs": [["rainbow-7", "shadow-7"]], "role": "poseur"},
        {"captured": ["blue-1", "green-1"], "role": "agent"},
        {"captured": ["rainbow-4", "joker"], "role": "complice"},
    ],
    "bomb_outcome": "stolen",
}


# --- Accept-Language -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("a," * MAX_RANGES + "fr", "en"),  # past the ranges read
        ("fr," + "a," * 500_000, "fr"),  # 1 MB after the range that counts
        ("fr;" + "a;" * 500_000, "en"),  # one range of a million parameters: left out
        ("*;q=0.5, en;q=0", "fr"),  # `*`: any language the header names nowhere else
        ("fr;q=0, *", "en"),
        ("*, fr;q=0.1", "en"),
        ("en;q=0, fr;q=0", "en"),  # nothing acceptable: the default
    ],
)
def test_accept_language_reads_its_first_ranges_only(header: str, language: str) -> None:
    """A 4 MB `Accept-Language` of short ranges took 13 s of the server's CPU (a 4 MB header
    of another name: 0.2 s); only the first ranges are read now. `*` was read as English even
    where the header refused English."""
    started = time.process_time()
    assert pick_language(header) == language
    assert time.process_time() - started < 0.5  # 2 s before


def test_a_huge_accept_language_is_answered_as_a_short_one(client: Any) -> None:
    header = "fr;q=0.9," * 7000  # 63 KB
    response = client.get("/v1/rulesets/numwars", headers={"Accept-Language": header})
    assert response.status_code == 200
    assert response.headers["content-language"] == "fr"
    assert "Accept-Language" in response.headers["vary"]


# --- every invalid field at once -------------------------------------------------------------


def test_a_list_past_its_bound_is_not_walked_item_by_item(monkeypatch: Any) -> None:
    """64 KiB of small valid items in a list bounded to 8 took 130 ms to refuse (a valid body:
    5 ms): the walk looked at every item. Items past the bound are not looked at now; those
    within it are still named."""
    visits = 0
    walk = fields._Walk.value

    def counted(self: Any, *args: Any) -> None:
        nonlocal visits
        visits += 1
        walk(self, *args)

    monkeypatch.setattr(fields._Walk, "value", counted)
    body = {"players": [{"captured": ["red-1", "red-2", "red-3"]}] * 2600}
    flaws = find_flaws(body, ClassicScoreRequest)
    assert [(f.field, f.code) for f in flaws] == [("players", "max-items")]
    assert visits < 100, visits  # 23,403 before
    late = {"players": 4, "hand": ["red-1"] * 300 + [1], "trick": [], "card": 2}
    named = [(f.field, f.code) for f in find_flaws(late, NumWarsMoveRequest)]
    assert named == [("hand", "max-items"), ("card", "type")]


# --- French problems -------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_text_is_cut_by_the_quotes_of_its_own_words(language: str) -> None:
    """A problem's detail has every quoted value cut short; an elision's apostrophe was read as
    a quote, so "'x' n'est pas une issue de la Bombe (attendu : l'une de …)" lost its middle:
    "n'est … l'" was one "quoted value" of more than 40 characters. Every text, rendered with
    short values, is now sent whole."""
    for key, words in CATALOG.items():
        for value in ("x", "red-7 blue-7"):
            said = words.render(language, **dict.fromkeys(words.params, value))
            if len(said) <= 400:
                assert cut_quotes(said) == said, key


def test_an_unknown_bomb_outcome_is_said_whole_in_french(client: Any) -> None:
    body = {**NUMWARS_ROUND, "bomb_outcome": "x" * 5000}
    problem = client.post("/v1/rulesets/numwars/score-round", json=body, headers=FR).json()
    assert problem["status"] == 422
    assert (
        "n’est pas une issue de la Bombe (attendu\u00a0: l’une de numx-capture" in problem["detail"]
    )
    assert "x" * 41 not in problem["detail"]  # the value is still cut short


def test_several_bad_cards_are_said_in_french_in_the_detail_too(client: Any) -> None:
    """Two refusals of the engine at once (`InvalidInput.every`): the entries were French, the
    detail listing them English."""
    players = [dict(p) for p in NUMWARS_ROUND["players"]]  # type: ignore[call-overload]
    players[1] = {**players[1], "pairs": [["bomb", "bomb"]]}
    body = {**NUMWARS_ROUND, "players": players}
    response = client.post("/v1/rulesets/numwars/score-round", json=body, headers=FR)
    problem = response.json()
    assert response.status_code == 422 and response.headers["content-language"] == "fr"
    assert [e["field"] for e in problem["errors"]] == [
        "players[1].pairs[0][0]",
        "players[1].pairs[0][1]",
    ]
    assert all("apparaît" in e["message"] for e in problem["errors"])
    assert problem["detail"] == "\u202f; ".join(  # French typography: "<field> : <message>"
        f"{e['field']}\u00a0: {e['message']}" for e in problem["errors"]
    )
    english = client.post("/v1/rulesets/numwars/score-round", json=body).json()
    assert "appears more often" in english["detail"] and "apparaît" not in english["detail"]


def test_a_joined_refusal_keeps_its_english_message() -> None:
    one = InvalidInput("first", code="unknown-card", field="hand[0]")
    two = InvalidInput("second", code="unknown-card", field="hand[1]")
    joined = InvalidInput.every([one, two])
    assert joined.message == str(joined) == "hand[0]: first; hand[1]: second"
    # plain strings: the same in every language; only the French colon and semicolon differ
    assert joined.render("fr") == "hand[0]\u00a0: first\u202f; hand[1]\u00a0: second"
