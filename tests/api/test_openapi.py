"""The committed spec equals what the app serves; every operation is documented."""

from __future__ import annotations

import json
from typing import Any

from api.app import openapi_json
from tests.conftest import ROOT


def test_committed_spec_matches_the_app() -> None:
    committed = (ROOT / "openapi" / "openapi.json").read_text(encoding="utf-8")
    assert committed == openapi_json(), "openapi/openapi.json is stale: run `numrules openapi`"


def test_served_spec_is_the_same(client: Any) -> None:
    served = client.get("/openapi.json")
    assert served.status_code == 200
    assert served.json() == json.loads(openapi_json())
    assert client.get("/docs").status_code == 200


def test_every_operation_has_summary_description_and_errors() -> None:
    spec = json.loads(openapi_json())
    assert spec["openapi"].startswith("3.1")
    for path, item in spec["paths"].items():
        for method, op in item.items():
            where = f"{method.upper()} {path}"
            assert op.get("summary"), where
            assert op.get("description"), where
            assert op.get("operationId", "")[:1].isupper(), where
            if method == "post" and "requestBody" in op:  # (abandon, stream-tickets: none)
                assert {"400", "413", "422"} <= set(op["responses"]), where
                body = op["requestBody"]["content"]["application/json"]
                examples = body.get("examples") or body.get("example")
                examples = examples or body["schema"].get("examples")
                assert examples, f"{where}: no request example"
                success = [c for c in ("200", "201", "202") if c in op["responses"]]
                if not success:  # 204: no body to show
                    assert "204" in op["responses"], where
                    continue
                ok = op["responses"][success[0]]["content"]["application/json"]
                assert ok.get("examples"), f"{where}: no response example"


def test_every_415_says_the_body_is_not_declared_as_json() -> None:
    """415 is about the `Content-Type`, never the body's bytes (that is 400 `malformed-json`):
    the accounts' operations said "The body is not JSON" for both."""
    spec = json.loads(openapi_json())
    for path, item in spec["paths"].items():
        for method, op in item.items():
            refused = op.get("responses", {}).get("415")
            if refused is not None:
                description = refused["description"]
                assert "not declared as JSON" in description, f"{method} {path}: {description}"


def test_card_code_pattern_is_in_the_spec() -> None:
    assert "^((red|blue|green|yellow|rainbow|shadow)-" in openapi_json()


# --- an exact spec (issue 10): what the schema says is what the server takes -------------------


def _request_components() -> dict[str, Any]:
    """Every component a request body reaches, by name."""
    spec = json.loads(openapi_json())
    components: dict[str, Any] = spec["components"]["schemas"]
    found: dict[str, Any] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref.rsplit("/", 1)[1]
                if name not in found:
                    found[name] = components[name]
                    walk(components[name])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for item in spec["paths"].values():
        for op in item.values():
            if "requestBody" in op:
                walk(op["requestBody"])
    return found


def _arrays(node: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if node.get("type") == "array":
            found.append((where, node))
        for key, value in node.items():
            found.extend(_arrays(value, f"{where}/{key}"))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.extend(_arrays(value, f"{where}[{i}]"))
    return found


def test_request_schemas_refuse_unknown_fields_and_bound_every_list() -> None:
    components = _request_components()
    assert len(components) >= 25, sorted(components)
    for name, component in components.items():
        if "oneOf" in component:  # one variant per ruleset (CreateGame …): each is checked
            variants = [ref["$ref"].rsplit("/", 1)[1] for ref in component["oneOf"]]
            assert set(variants) <= set(components), name
            continue
        assert component["additionalProperties"] is False, name
        for where, array in _arrays(component):
            assert "maxItems" in array, f"{name}{where}"


def test_every_request_integer_is_bounded() -> None:
    def integers(node: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
        found = []
        if isinstance(node, dict):
            if node.get("type") == "integer":
                found.append((where, node))
            for key, value in node.items():
                found.extend(integers(value, f"{where}/{key}"))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                found.extend(integers(value, f"{where}[{i}]"))
        return found

    for name, component in _request_components().items():
        for where, schema in integers(component, name):
            bounded = ("minimum" in schema and "maximum" in schema) or "enum" in schema
            assert bounded, where


def test_nullable_seats_keep_their_bounds() -> None:
    components = _request_components()
    seat = {"type": "integer", "minimum": 0, "maximum": 7}
    for name, field in [("NumKingDealRequest", "first_bidder"), ("NumWinScoreRequest", "caller")]:
        options = components[name]["properties"][field]["anyOf"]
        assert {"type": "null"} in options, name
        assert any(seat.items() <= o.items() for o in options), (name, options)
    declared = components["NumKingTrickCard"]["properties"]["declared"]["anyOf"]
    assert any(o.get("enum") == [17, 0] for o in declared)


def test_closed_sets_of_strings_are_enums() -> None:
    components = _request_components()
    pile = components["NumWarsPileInput"]["properties"]
    assert pile["role"]["enum"] == ["poseur", "complice", "demineur", "agent", "civil"]
    outcome = components["NumWarsScoreRequest"]["properties"]["bomb_outcome"]
    assert "kept" in outcome["enum"] and "stolen" in outcome["enum"]
    roles = components["NumWarsTrickRequest"]["properties"]["roles"]["anyOf"][0]
    assert roles["items"]["enum"] == pile["role"]["enum"]


def test_the_accounts_closed_sets_are_enums_in_answers_too() -> None:
    """A generated client types `age_range`, `locale` and a reset's `status` as their values,
    not as any string (issue 23, front-end notes)."""
    from api.accounts.schemas import AGE_RANGES

    components = json.loads(openapi_json())["components"]["schemas"]
    for name in ("Account", "SignedUp"):
        properties = components[name]["properties"]
        assert sorted(properties["age_range"]["enum"]) == sorted(AGE_RANGES), name
        assert sorted(properties["locale"]["enum"]) == ["en", "fr"], name
    assert sorted(components["Terms"]["properties"]["locale"]["enum"]) == ["en", "fr"]
    assert components["ResetAccepted"]["properties"]["status"]["enum"] == ["accepted"]
    request = components["SignUp"]["properties"]["age_range"]["enum"]
    assert sorted(request) == sorted(AGE_RANGES)


def test_the_event_stream_says_how_its_lines_end() -> None:
    """Lines end with CRLF (Litestar's Server-Sent Events): the operation says so, and what a
    front-end reads them with; the exchange event's schema says what it is."""
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    description = spec["paths"]["/v1/games/{game_id}/stream"]["get"]["description"]
    assert "CRLF" in description and "EventSource" in description
    components = spec["components"]["schemas"]
    assert components["ExchangeEventOut"]["description"].startswith("Exchange:")
    assert "receive" in components["ExchangeData"]["description"]


def test_each_ruleset_lists_its_own_cards() -> None:
    """Card fields enumerate exactly the codes of that ruleset's decks (from the engine)."""
    from engine.registry import RULESETS

    components = _request_components()
    for ruleset, component in [
        ("numwars", "NumWarsTrickCard"),
        ("numwars-classic", "ClassicTrickCard"),
        ("numking", "NumKingTrickCard"),
    ]:
        cls = RULESETS[ruleset]
        codes = set()
        for players in range(cls.min_players, cls.max_players + 1):
            codes |= set(cls().deck(players).cards)
        assert set(components[component]["properties"]["card"]["enum"]) == codes, ruleset
    hand = components["NumWinHandInput"]["properties"]["combination"]["items"]["enum"]
    assert "malus-2" in hand and "numx" not in hand
    assert "flash" not in components["NumWarsTrickCard"]["properties"]["card"]["enum"]


def _has_integers(schema: Any, components: dict[str, Any], seen: set[str]) -> bool:
    """Whether a schema (its references followed) holds an integer anywhere."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            if name in seen:
                return False
            seen.add(name)
            return _has_integers(components.get(name), components, seen)
        if schema.get("type") == "integer":
            return True
        return any(_has_integers(v, components, seen) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_integers(v, components, seen) for v in schema)
    return False


def test_float_integers_are_stated_as_refused() -> None:
    """A body holding an integer says that `4.0` is refused there (integers are never
    coerced)."""
    spec = json.loads(openapi_json())
    components = spec["components"]["schemas"]
    stated = 0
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method not in ("post", "put", "patch") or "requestBody" not in op:
                continue
            schema = op["requestBody"]["content"]["application/json"]["schema"]
            if _has_integers(schema, components, set()):
                assert "`4.0` where an integer is expected" in op["description"], path
                stated += 1
    assert stated > 20


def test_every_example_answer_fits_its_schema() -> None:
    """Each response example validates against its response schema (Litestar's rendering once
    dropped the nulls of examples, so `"winner": null` and a spectator's `"seat": null` went
    missing from required fields; found by a newcomer)."""
    import jsonschema_rs  # schemathesis' own validator

    spec = json.loads(openapi_json())
    checked = 0
    for path, item in spec["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                for media in response.get("content", {}).values():
                    schema = {**media.get("schema", {}), "components": spec["components"]}
                    for name, example in (media.get("examples") or {}).items():
                        validator = jsonschema_rs.Draft202012Validator(schema)
                        errors = [str(e) for e in validator.iter_errors(example["value"])]
                        assert not errors, (method, path, status, name, errors[:3])
                        checked += 1
    assert checked >= 25


def test_every_stored_games_answer_has_an_example() -> None:
    spec = json.loads(openapi_json())
    for path, item in spec["paths"].items():
        if not path.startswith("/v1/games"):
            continue
        for method, op in item.items():
            for status, response in op["responses"].items():
                for media_type, media in response.get("content", {}).items():
                    if status.startswith("2"):
                        has = media.get("examples") or media.get("example")
                        assert has, (method, path, status, media_type)
