"""A hostile client's requests (issue 10, "An attacker"): each is a short RFC 9457 problem.

Every test here was a wrong answer found by attacking a running server (a 500, a message in
the decoder's own words, an imprecise detail); the request is kept as it was sent.
"""

from __future__ import annotations

from typing import Any

import pytest

PROBLEM = "application/problem+json"
SCORE = "/v1/rulesets/numking/score-round"
JSON = {"content-type": "application/json"}
#: An answer to a bad request stays short whatever the request held.
MAX_ANSWER = 2048


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    assert len(response.content) <= MAX_ANSWER
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["code"] == code, body
    assert body["type"].endswith("/" + code) and body["title"] and body["detail"]
    return body


DEEP = b"[" * 30000 + b"]" * 30000  # 60,000 bytes: under the 64 KiB cap


@pytest.mark.parametrize(
    ("content", "code", "field"),
    [
        # a wrong type first: the typed decoder stops there, then the untyped decode that
        # places the error (api.body.decode_error) recursed to a 500
        (b'{"cards":4,"players":' + DEEP + b"}", "validation-error", "players[0]"),
        (b'{"cards":4,"zz":' + DEEP + b"}", "unknown-field", "zz"),
        (DEEP, "validation-error", "body"),
    ],
)
def test_deeply_nested_json_is_a_422_not_a_500(
    client: Any, content: bytes, code: str, field: str
) -> None:
    assert len(content) <= 64 * 1024
    body = _problem(client.post(SCORE, content=content, headers=JSON), 422, code)
    assert body["errors"][0]["field"] == field
    assert "recursion" not in body["detail"].lower()
