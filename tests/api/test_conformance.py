"""Every conformance case runs through the real app (one parametrised test).

The cases are the repository's copy (tests/conformance/cases/); with ../shared/conformance
beside the repository, its cases that the copy lacks or holds otherwise run too (marked
`upstream`), and tests/conformance/test_upstream.py fails until they are copied.
"""

from __future__ import annotations

from typing import Any

import pytest

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


@pytest.mark.parametrize("case", _cases())
def test_conformance_case(client: Any, case: dict[str, Any]) -> None:
    response = client.request(case["method"], case["path"], json=case["request"])
    assert response.status_code == case["status"], response.text
    subset_match(case["expect"], response.json())


def test_subset_match_is_strict_about_lists() -> None:
    subset_match({"a": [{"x": 1}]}, {"a": [{"x": 1, "y": 2}], "b": 3})
    with pytest.raises(AssertionError):
        subset_match({"a": [1, 2]}, {"a": [2, 1]})
    with pytest.raises(AssertionError):
        subset_match({"a": [1]}, {"a": [1, 1]})
    with pytest.raises(AssertionError):
        subset_match({"a": 1}, {"a": True})
