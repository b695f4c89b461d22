"""The proof of issue 22: a ruleset is one folder and one registry line.

`tinytricks` (tests/fixtures/tinytricks/, the same files as a game of engine/) is registered
by the `tiny` fixture and a fresh app is built: with no line of api/ changed it is served in
every area — the catalogue and stateless operations, a stored game played to the end with
its export replayed by `MatchRecord.from_export`, a score sheet counted in the stats, the
spec and /docs. A spec missing a declaration fails when it is built, naming what is missing.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from engine import registry
from engine.core.match import MatchRecord, replay
from engine.core.spec import Operation, RulesetSpec, SheetRounds, SpecError
from tests.accounts.conftest import sign_up
from tests.fixtures.tinytricks.requests import TinyRoundIn
from tests.fixtures.tinytricks.rules import TinyTricks
from tests.fixtures.tinytricks.scoring import TinyPile
from tests.fixtures.tinytricks.spec import SPEC
from tests.games.driver import Table
from tests.pg import FAST_HASHES

ID = "tinytricks"


@pytest.fixture(scope="module")
def tiny(pg_head: str) -> Iterator[TestClient[Any]]:
    """tinytricks registered, and an app built afterwards (api/ was imported before)."""
    from api.app import create_app
    from api.ops.settings import Settings

    registry.register(SPEC)
    try:
        app = create_app(Settings(database_url=pg_head, check_db_on_start=True, **FAST_HASHES))
        with TestClient(app) as client:
            yield client
    finally:
        registry.unregister(ID)


def test_the_catalogue_and_the_stateless_operations(tiny: TestClient[Any]) -> None:
    assert ID in [r["id"] for r in tiny.get("/v1/rulesets").json()["rulesets"]]
    fr = tiny.get(f"/v1/rulesets/{ID}", headers={"Accept-Language": "fr"})
    assert fr.status_code == 200 and fr.headers["content-language"] == "fr"
    assert fr.json()["summary"]["turn"].startswith("Fournir la couleur")
    deck = tiny.get(f"/v1/rulesets/{ID}/deck?players=3").json()
    assert deck["hand_size"] == 2 and len(deck["cards"]) == 6
    assert tiny.get(f"/v1/rulesets/{ID}/deck?players=4").status_code == 422
    deal = tiny.post(f"/v1/rulesets/{ID}/deal", json={"players": 2, "seed": 1}).json()
    assert sorted(c for h in deal["hands"] for c in h) == sorted(deck["cards"])
    hand = {"players": 2, "hand": ["red-1", "blue-2"], "trick": [{"seat": 0, "card": "red-3"}]}
    legal = tiny.post(f"/v1/rulesets/{ID}/legal-moves", json=hand)
    assert legal.status_code == 200 and legal.json()["legal"] == ["red-1"]
    move = tiny.post(f"/v1/rulesets/{ID}/validate-move", json={**hand, "card": "blue-2"})
    assert move.json()["legal"] is False and move.json()["reason"] == "must-follow-color"
    trick = [{"seat": 1, "card": "blue-1"}, {"seat": 0, "card": "blue-3"}]
    won = tiny.post(f"/v1/rulesets/{ID}/resolve-trick", json={"players": 2, "trick": trick})
    assert won.json()["winner"] == 0
    piles = {"players": [{"captured": ["red-1", "red-2"]}, {"captured": []}]}
    scored = tiny.post(f"/v1/rulesets/{ID}/score-round", json=piles).json()
    assert scored["winners"] == [0] and scored["players"][0]["score"] == 2
    bad = tiny.post(f"/v1/rulesets/{ID}/legal-moves", json={**hand, "hand": ["green-1"]})
    assert bad.status_code == 422 and bad.json()["code"] == "card-not-in-deck"  # not its card
    unknown = tiny.post(f"/v1/rulesets/{ID}/deal", json={"players": 2, "seed": 1, "x": 1})
    assert unknown.status_code == 422 and unknown.json()["code"] == "unknown-field"


def test_a_stored_game_to_the_end_its_export_replayed(tiny: TestClient[Any]) -> None:
    table = Table(tiny, ID, 3, 2024)  # every answer held to the engine's own match
    assert table.created["view"]["ruleset"] == ID
    final = table.play_out(random.Random(3), every=2)
    assert final["status"] == "over" and final["result"]["winners"]
    wrong = Table(tiny, ID, 2, 7).post("/actions", 0, json={"type": "bid", "tricks": 1})
    assert wrong.status_code == 422 and "Tiny Tricks has no 'bid' action" in wrong.text
    refusal = wrong.json()  # the field's message is the detail without its "type: " prefix
    assert refusal["code"] == "validation-error"
    assert refusal["errors"] == [
        {"field": "type", "message": refusal["detail"][len("type: ") :], "code": "validation-error"}
    ]
    export = table.get("/export").json()
    record = MatchRecord.from_export(export)
    assert msgspec.to_builtins(replay(record).result()) == final["result"]


def test_a_score_sheet_and_the_stats(tiny: TestClient[Any]) -> None:
    me = sign_up(tiny, pseudo="tiny_owner")
    auth = {"Authorization": f"Bearer {me['token']}"}
    body = {
        "ruleset": ID,
        "players": [{"name": "Me", "account": "tiny_owner"}, {"name": "You"}],
        "planned_rounds": 1,
    }
    sheet = tiny.post("/v1/scoresheets", json=body, headers=auth)
    assert sheet.status_code == 201, sheet.text
    url = f"/v1/scoresheets/{sheet.json()['id']}/rounds"
    round_body = {"players": [{"captured": ["red-1", "red-2", "red-3"]}, {"captured": ["blue-1"]}]}
    answer = tiny.post(url, json=round_body, headers=auth)
    assert answer.status_code == 201, answer.text
    assert answer.json()["finished"] is True and answer.json()["winners"] == [0]
    refused = tiny.post(url, json={"players": [{"captured": []}]}, headers=auth)
    assert refused.status_code in (409, 422)
    stats = tiny.get("/v1/me/stats", headers=auth).json()["rulesets"]
    assert stats[ID]["played"] == 1 and stats[ID]["won"] == 1
    assert stats[ID]["best_round_score"] == 3 and "by_role" not in stats[ID]


def test_the_spec_and_the_docs(tiny: TestClient[Any]) -> None:
    spec = tiny.get("/openapi.json").json()
    ids = {op["operationId"] for item in spec["paths"].values() for op in item.values()}
    for op in ("Deck", "Deal", "LegalMoves", "ValidateMove", "ResolveTrick", "ScoreRound"):
        assert f"Tinytricks{op}" in ids
    deal = spec["paths"][f"/v1/rulesets/{ID}/deal"]["post"]
    assert deal["summary"] == "Tiny Tricks: deal a round"
    assert "Rules (setup): Six cards" in deal["description"]
    schemas = spec["components"]["schemas"]
    assert "TinyTricksView" in schemas and "TinyRoundIn" in schemas
    for body, noun in (("CreateGame", "Game"), ("CreateSheet", "Sheet")):
        variant = f"#/components/schemas/CreateTinyTricks{noun}"
        assert schemas[body]["discriminator"]["mapping"][ID] == variant
        assert schemas[variant.rsplit("/", 1)[1]]["properties"]["ruleset"]["const"] == ID
    view = schemas["GameOut"]["properties"]["view"]
    assert {"$ref": "#/components/schemas/TinyTricksView"} in view["oneOf"]
    assert view["discriminator"]["mapping"][ID] == "#/components/schemas/TinyTricksView"
    assert schemas["TinyTricksView"]["properties"]["ruleset"]["const"] == ID
    docs = tiny.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_an_unknown_ruleset_is_answered_with_the_set(tiny: TestClient[Any]) -> None:
    """As a `Literal` field's refusal read (tests/api/test_errors.py), now from the registry."""
    body = {"ruleset": "chess", "players": [{"name": "a"}, {"name": "b"}]}
    problem = tiny.post("/v1/games", json=body).json()
    message = (
        "must be one of 'numking', 'numwars', 'numwars-classic', 'numwin', 'tinytricks', "
        "not 'chess'"
    )
    assert problem["code"] == "validation-error"
    assert problem["errors"] == [{"field": "ruleset", "message": message, "code": "enum"}]
    assert problem["detail"] == f"ruleset: {message}"


def test_the_fixture_has_a_games_files() -> None:
    """The same file roles as every game of engine/ (tests/engine/test_values.py)."""
    from tests.engine.test_values import ROLES

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "tinytricks"
    assert [role for role in ROLES if not (folder / role).is_file()] == []


def test_a_game_whose_spec_misses_a_declaration_fails_at_import() -> None:
    sys.modules.pop("tests.fixtures.incomplete_spec", None)
    with pytest.raises(SpecError) as missing:
        importlib.import_module("tests.fixtures.incomplete_spec")
    assert str(missing.value) == "ruleset spec 'tinytricks': misses sheet"


def test_a_spec_missing_a_declaration_fails_when_built() -> None:
    with pytest.raises(SpecError) as missing:
        RulesetSpec(
            rules=TinyTricks,
            names={"en": "Tiny Tricks", "fr": "Petits Plis"},
            actions=("play",),
            lowest_wins=False,
            community=False,
            deck=SPEC.deck,
            operations=SPEC.operations,
            summary=SPEC.summary,
        )
    assert str(missing.value) == (
        "ruleset spec 'tinytricks': misses view, view_component, phases, sheet, bots"
    )
    with pytest.raises(SpecError, match="misses complete"):
        SheetRounds(body=TinyRoundIn)
    with pytest.raises(SpecError, match="operation 'deal': misses answer, call"):
        Operation(
            path="deal",
            request=SPEC.operations[0].request,
            summary="s",
            description="d",
            section="setup",
        )
    with pytest.raises(SpecError, match=r"`actions` must be action types"):
        dataclasses.replace(SPEC, actions=("play", "teleport"))  # rebuilt, so checked again
    with pytest.raises(SpecError, match=r"`names\['en'\]` is not the rules class's `name`"):
        dataclasses.replace(SPEC, names={"en": "Tiny", "fr": "Petits Plis"})
    with pytest.raises(SpecError, match="already registered"):
        registry.register(registry.SPECS["numwars"])


@pytest.mark.parametrize("players", [2, 3])
def test_the_fixture_keeps_the_engines_invariants(players: int) -> None:
    """As tests/engine/test_invariants.py holds every game: seeded random rounds are never
    stuck, conserve the cards, score as the scoring of the final state, replay to the same
    state, and no view shows another seat's hand; whole matches replay from their records."""
    rules = TinyTricks()
    for seed in range(40):
        rng = random.Random(seed)
        setup = rules.round_setup(players, 0, seed, None)
        state = rules.new_round(setup)
        dealt = sorted(c for hand in state.kernel.hands for c in hand)
        assert dealt == sorted(rules.deck(players).cards)
        while not state.is_over:
            for viewer in range(players):
                others = {c for s, h in enumerate(state.kernel.hands) if s != viewer for c in h}
                shown = msgspec.json.encode(state.view(viewer)).decode()
                assert not [c for c in others if f'"{c}"' in shown]  # nowhere in the view
            assert state.view(None).hand is None
            (seat,) = state.actors()
            legal = state.legal_actions(seat)
            assert legal, "stuck"
            state.apply(seat, rng.choice(legal))
        piles = state.kernel.piles
        assert sorted(c for p in piles for c in p) == dealt
        assert state.scores() == rules.score_round([TinyPile(captured=p) for p in piles])
        again = rules.new_round(setup)
        for seat, action in state.history:
            again.apply(seat, action)
        assert again.snapshot() == state.snapshot()
        match = rules.new_match(players=players, seed=seed)
        while not match.is_over:
            seat = match.actors()[0]
            match.apply(seat, rng.choice(match.legal_actions(seat)))
        assert replay(match.record()).result() == match.result()
