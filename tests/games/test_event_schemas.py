"""Typed events in the spec (issue 23): `EventOut` is a `oneOf` of one schema per engine kind,
discriminated by `kind`, and every event the server sends (action answers and the events
endpoint, each viewer's, over HTTP on PostgreSQL) is valid against its kind's schema, held
strict: a `data` field the schema does not state fails the test."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonschema
import pytest

from api.app import openapi_json
from engine.core.events import EVENT_TYPES
from tests.games.driver import Table

REF = "#/components/schemas/"


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(openapi_json())
    return loaded


def test_event_out_is_a_discriminated_union_of_every_kind(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    event = schemas["EventOut"]
    assert event["discriminator"]["propertyName"] == "kind"
    mapping = event["discriminator"]["mapping"]
    assert set(mapping) == set(EVENT_TYPES)  # every kind the engine makes, `deal` included
    assert sorted(r["$ref"] for r in event["oneOf"]) == sorted(mapping.values())
    assert "default branch" in event["description"]
    for kind, ref in mapping.items():
        one = schemas[ref.removeprefix(REF)]
        assert one["properties"]["kind"] == {"enum": [kind]}
        assert set(one["required"]) == {"seq", "kind", "seat", "cards", "data", "to"}
        data = schemas[one["properties"]["data"]["$ref"].removeprefix(REF)]
        assert data["type"] == "object"
        assert one["properties"]["cards"]["items"]["pattern"]  # the card codes, as before
    trick = schemas[mapping["trick"].removeprefix(REF)]
    trick_data = schemas[trick["properties"]["data"]["$ref"].removeprefix(REF)]
    assert set(trick_data["required"]) == {"winner", "annulled", "next_leader"}
    assert set(trick_data["properties"]) >= {"captures", "pairs", "bomb", "cancelled"}


def _strict_validator(spec: dict[str, Any]) -> jsonschema.protocols.Validator:
    """EventOut with every `…Data` schema closed (no field beyond those it states)."""
    components = copy.deepcopy(spec["components"])
    for name, schema in components["schemas"].items():
        if name.endswith("Data") and isinstance(schema, dict):
            schema["additionalProperties"] = False
    root = {"$ref": REF + "EventOut", "components": components}
    validator_class = jsonschema.validators.validator_for(
        root, default=jsonschema.Draft202012Validator
    )
    return validator_class(root)


@pytest.mark.parametrize(
    ("ruleset", "players", "options"),
    [
        ("numwars-classic", 4, {"alliance": True}),
        ("numwars", 4, {"exchange": 1}),
        ("numking", 3, {}),
        ("numwin", 4, {"teams": True}),
    ],
)
def test_every_event_served_is_valid_against_its_kind(
    games: Any, spec: dict[str, Any], ruleset: str, players: int, options: dict[str, Any]
) -> None:
    validator = _strict_validator(spec)
    table = Table(games, ruleset, players, 41, options)
    rng = random.Random(41)
    seen: list[dict[str, Any]] = []
    for _ in range(400):
        if table.shadow.is_over or table.shadow.index > 1:
            break
        table.step(rng)
        seen += json.loads(table.bodies[-1])["events"]  # the action's answer
    for viewer in [None, *range(players)]:
        after, more = 0, True
        while more:
            page = table.get(f"/events?after={after}", viewer).json()
            seen += page["events"]
            after, more = page["next_after"], page["more"]
    kinds = {e["kind"] for e in seen}
    assert {"round-start", "deal", "round-over"} <= kinds, kinds
    for event in seen:
        errors = sorted(validator.iter_errors(event), key=str)
        assert not errors, (event, [e.message for e in errors][:3])
