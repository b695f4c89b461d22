"""Every conformance case runs through the real app (one parametrised test).

The cases are the repository's copy (tests/conformance/cases/); with ../shared/conformance
beside the repository, its cases that the copy lacks or holds otherwise run too (marked
`upstream`), and tests/conformance/test_upstream.py fails until they are copied.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import jsonschema_rs  # schemathesis' own validator
import pytest

from api.app import spec_dict
from tests.conformance import repository_cases, upstream_changes


def _cases() -> list[Any]:
    cases = [
        pytest.param(case, id=f"{file.removesuffix('.json')}: {name}")
        for (file, name), case in repository_cases().items()
    ]
    cases += [
        pytest.param(case, id=f"upstream {file.removesuffix('.json')}: {name}")
        for (file, name), case in upstream_changes().items()
    ]
    return cases


def subset_match(expected: Any, actual: Any, where: str = "$") -> None:
    """The conformance README's rule: keys given must match; lists whole, elements subset."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}.{key} missing from {actual!r}"
            subset_match(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: expected a list, got {actual!r}"
        assert len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            subset_match(e, a, f"{where}[{i}]")
    else:
        assert actual == expected and type(actual) is type(expected), (
            f"{where}: {actual!r} != {expected!r}"
        )


@cache
def _operations() -> list[tuple[re.Pattern[str], str, dict[str, Any]]]:
    """The served spec's operations: (path pattern, method, operation)."""
    spec = spec_dict()
    found = []
    for path, item in spec["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\{[a-z_]+\\}", "[^/]+", re.escape(path)) + "$")
        found.extend((pattern, method, operation) for method, operation in item.items())
    # a literal path (/v1/rulesets/numking/deal) before the template it also matches
    return sorted(found, key=lambda entry: entry[0].pattern.count("[^/]+"))


def answer_errors(method: str, url: str, status: int, media_type: str, body: Any) -> list[str]:
    """What is wrong with an answer by its operation's response schema in the served spec
    (an operation, status and media type the spec lacks are errors too)."""
    path = url.split("?", 1)[0]
    spec = spec_dict()
    for pattern, verb, operation in _operations():
        if verb == method.lower() and pattern.match(path):
            response = operation["responses"].get(str(status))
            if response is None:
                return [f"{method} {path}: no {status} in the spec"]
            media = (response.get("content") or {}).get(media_type)
            if media is None:
                return [f"{method} {path} {status}: no {media_type} in the spec"]
            schema = {**media["schema"], "components": spec["components"]}
            validator = jsonschema_rs.Draft202012Validator(schema)
            return [str(e) for e in validator.iter_errors(body)]
    return [f"{method} {path}: no such operation in the spec"]


@pytest.mark.parametrize("case", _cases())
def test_conformance_case(client: Any, case: dict[str, Any]) -> None:
    response = client.request(case["method"], case["path"], json=case["request"])
    assert response.status_code == case["status"], response.text
    subset_match(case["expect"], response.json())
    media_type = response.headers["content-type"].split(";")[0]
    errors = answer_errors(
        case["method"], case["path"], response.status_code, media_type, response.json()
    )
    assert not errors, errors[:3]


def test_answers_are_held_to_their_schema() -> None:
    """The live-answer check fails an answer its schema refuses, and an unknown operation."""
    path = "/v1/rulesets/numwars-classic/score-round"
    good = {"players": [{"seat": 0, "score": 0, "breakdown": []}], "winners": [0]}
    assert answer_errors("POST", path, 200, "application/json", good) == []
    assert answer_errors("POST", path, 200, "application/json", {**good, "winners": "0"})
    assert answer_errors("POST", path, 200, "application/json", {"players": []})
    assert answer_errors("POST", "/v1/nowhere", 200, "application/json", good)
    assert answer_errors("POST", path, 299, "application/json", good)
    view = {"ruleset": "numwars", "phase": "play"}
    assert answer_errors("GET", "/v1/games/abc", 200, "application/json", {"view": view})


def test_subset_match_is_strict_about_lists() -> None:
    subset_match({"a": [{"x": 1}]}, {"a": [{"x": 1, "y": 2}], "b": 3})
    with pytest.raises(AssertionError):
        subset_match({"a": [1, 2]}, {"a": [2, 1]})
    with pytest.raises(AssertionError):
        subset_match({"a": [1]}, {"a": [1, 1]})
    with pytest.raises(AssertionError):
        subset_match({"a": 1}, {"a": True})
