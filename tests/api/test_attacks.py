"""A hostile client's requests (issue 10, "An attacker"): each is a short RFC 9457 problem.

Every test here was a wrong answer found by attacking a running server (a 500, a message in
the decoder's own words, an imprecise detail); the request is kept as it was sent.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from api.app import app
from tests.api.serving import serve

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
    "content",
    [
        # a wrong type first: the typed decoder stopped there, then the untyped decode that
        # placed the error (api.http.body.decode_error) recursed to a 500; now the depth is
        # checked before any decoding (issue 21: deep bodies are 422 on field `body`)
        b'{"cards":4,"players":' + DEEP + b"}",
        b'{"cards":4,"zz":' + DEEP + b"}",
        DEEP,
    ],
)
def test_deeply_nested_json_is_a_422_not_a_500(client: Any, content: bytes) -> None:
    assert len(content) <= 64 * 1024
    body = _problem(client.post(SCORE, content=content, headers=JSON), 422, "validation-error")
    assert body["errors"][0]["field"] == "body"
    assert "recursion" not in body["detail"].lower()


def test_an_oversize_body_says_the_limit(client: Any) -> None:
    """Was "Request Entity Too Large": the client learns the cap only from the docs."""
    body = _problem(
        client.post(SCORE, content=b" " * (64 * 1024 + 1), headers=JSON), 413, "body-too-large"
    )
    assert "64 KiB" in body["detail"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/healthz", "GET, HEAD"),
        ("DELETE", SCORE, "POST"),
        ("TRACE", "/v1/rulesets", "GET, HEAD"),
    ],
)
def test_a_refused_method_names_the_allowed_ones(
    client: Any, method: str, path: str, allowed: str
) -> None:
    """Was "Method Not Allowed": the detail now says which methods the resource takes."""
    body = _problem(client.request(method, path), 405, "method-not-allowed")
    assert method in body["detail"] and allowed in body["detail"], body["detail"]


@pytest.mark.parametrize(
    "content",
    [b'{"cards":1e400,"players":[]}', b'{"cards":' + b"9" * 5000 + b'.5,"players":[]}'],
)
def test_an_out_of_range_number_is_plain_english(client: Any, content: bytes) -> None:
    """Was "Number out of range - at `$[...]`": msgspec's own path syntax in the detail."""
    body = _problem(client.post(SCORE, content=content, headers=JSON), 422, "validation-error")
    assert "`" not in body["detail"] and "$" not in body["detail"], body["detail"]
    assert "out of range" in body["detail"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'{"cards":NaN}', "byte 9"),
        (b'{"cards":4 /* a comment */}', "byte 11"),
        (b'\xef\xbb\xbf{"cards":4}', "byte 0"),
        (b'{"cards":', "ends"),
    ],
)
def test_a_malformed_json_message_is_whole(client: Any, content: bytes, words: str) -> None:
    """Was cut at 40 characters mid-word ("invalid character (by…"): the decoder's message
    quotes none of the client's text, so it is kept whole, where the JSON broke included."""
    body = _problem(client.post(SCORE, content=content, headers=JSON), 400, "malformed-json")
    assert "…" not in body["detail"], body["detail"]
    assert words in body["detail"], body["detail"]


DECK = "/v1/rulesets/numking/deck"


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        # was 200 for 4 players: the body refuses 4.0 for an integer, the query coerced it
        ("players=4.0", "players", "must be an integer"),
        ("players=%2B4", "players", "must be an integer"),
        ("players=4&max_cards=2.0", "max_cards", "must be an integer"),
        # was 200 for 5 players: the last of two values won, silently
        ("players=4&players=5", "players", "given 2 times"),
        ("players=4&zeros=true&zeros=false", "zeros", "given 2 times"),
        # was "Integer value out of range", the decoder's words
        ("players=" + "9" * 60, "players", "must be an integer at most 8"),
        ("players=" + "9" * 5000, "players", "must be an integer at most 8"),
        # was "must be an integer at most 8": below zero, it is the minimum that is broken
        ("players=-" + "9" * 60, "players", "must be an integer at least 2"),
        ("players=4&max_cards=-" + "9" * 60, "max_cards", "must be an integer at least"),
    ],
)
def test_a_query_parameter_is_one_exact_integer(
    client: Any, query: str, field: str, words: str
) -> None:
    body = _problem(client.get(f"{DECK}?{query}"), 422, "validation-error")
    assert body["errors"][0]["field"] == field, body
    assert words in body["errors"][0]["message"], body
    assert "9" * 41 not in body["detail"]


def test_exact_query_parameters_still_answer(client: Any) -> None:
    response = client.get(f"{DECK}?players=4&zeros=true&max_cards=3")
    assert response.status_code == 200, response.text
    assert response.json()["players"] == 4


@pytest.mark.parametrize("name", ["ruleset", "request"])
def test_only_query_parameters_are_held_to_one_value(client: Any, name: str) -> None:
    """`ruleset` is the path's and `request` the handler's own argument: a query parameter
    with their name is none of the operation's, and ignored like any unknown one."""
    response = client.get(f"/v1/rulesets/numking?{name}=a&{name}=b")
    assert response.status_code == 200, response.text
    assert response.json()["id"] == "numking"


def test_the_body_of_a_post_is_no_query_parameter(client: Any) -> None:
    response = client.post(
        f"{SCORE}?data=1&data=2",
        json={"cards": 1, "players": [{"bid": 0, "tricks": 0}, {"bid": 1, "tricks": 1}]},
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "types", [[b"application/json", b"text/plain"], [b"application/json", b"application/json"]]
)
def test_two_content_types_are_refused(types: list[bytes]) -> None:
    """Content-Type holds one value (RFC 9110 §8.3): with two, the first won (JSON, then text,
    was a 200), where a proxy in front may read the other one. Over a real server: the test
    client merges repeated headers into one before the app sees them."""
    content = b'{"cards":1,"players":[{"bid":0,"tricks":0},{"bid":1,"tricks":1}]}'
    head = b"".join(b"Content-Type: " + t + b"\r\n" for t in types)
    request = (
        b"POST "
        + SCORE.encode()
        + b" HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        + head
        + b"Content-Length: %d\r\n\r\n" % len(content)
        + content
    )
    status, body = _raw(request)
    assert status.startswith(b"HTTP/1.1 415"), status
    assert body is not None and body["code"] == "unsupported-media-type"
    assert "2 Content-Type headers" in body["detail"]


def _raw(request: bytes) -> tuple[bytes, dict[str, Any] | None]:
    with serve(app) as address, socket.create_connection(address, timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status, _, rest = answer.partition(b"\r\n")
    head, _, body = rest.partition(b"\r\n\r\n")
    assert b"content-type: application/problem+json" in head.lower(), answer[:300]
    return status, json.loads(body) if body else None


@pytest.mark.parametrize("host", [b"x:abc", b"x:99999999", b"x:0"])
def test_a_host_with_no_valid_port_is_a_400_not_a_500(host: bytes) -> None:
    """Litestar builds the request's URL from Host: a port that is no port raised inside the
    error handler itself, and uvicorn answered a bare 500 (found by attacking a server)."""
    for path in (b"/nope", b"/v1/rulesets/numwars/deck"):
        request = b"GET " + path + b" HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"
        status, body = _raw(request)
        assert status.startswith(b"HTTP/1.1 400"), status
        assert body is not None and body["code"] == "bad-host"


@pytest.mark.parametrize("path", ["/docs/assets/%00", "/docs/assets/" + "a" * 300, "/x%00y"])
def test_nul_bytes_and_overlong_names_are_404_not_500(client: Any, path: str) -> None:
    _problem(client.get(path), 404, "not-found")


@pytest.mark.parametrize("players", ["%D9%A3", "%EF%BC%94"])
def test_unicode_digits_are_no_integer(client: Any, players: str) -> None:
    response = client.get(f"/v1/rulesets/numwars/deck?players={players}")
    body = _problem(response, 422, "validation-error")
    assert body["errors"][0]["message"] == "must be an integer, not a string"


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("frr", "en"),
        ("fr;q=1.5", "en"),
        ("fr;q=inf", "en"),
        ("fr;level=1;q=0", "en"),
        ("fr;q=0", "en"),
        ("fr-CA;q=0.9, en;q=0.8", "fr"),
        ("de, fr;q=0.1", "fr"),
        ("en;q=0.5, fr", "fr"),
    ],
)
def test_accept_language_is_read_by_its_grammar(client: Any, header: str, language: str) -> None:
    """A language range is a tag's primary subtag and a quality is 0 … 1 (RFC 9110 §12.5.4):
    `frr` and `fr;q=1.5` were read as French (found by attacking a server)."""
    response = client.get("/v1/rulesets/numking", headers={"accept-language": header})
    assert response.status_code == 200 and response.headers["content-language"] == language


@pytest.mark.parametrize("seat", ["%D9%A1", "%EF%BC%91", "%2B1", "1_0", "%201", "1%20"])
def test_an_integer_path_parameter_is_written_in_ascii_digits(client: Any, seat: str) -> None:
    """The router read `{seat:int}` with Python's `int`: `/seats/١/join` (an Arabic-Indic
    one) reached the route as seat 1 and `1_0` as seat 10 (then 422 `maximum`), where the
    query refuses such values (test_unicode_digits_are_no_integer)."""
    path = f"/v1/games/{'0' * 32}/seats/{seat}/join"
    _problem(client.post(path, json={}), 404, "not-found")


@pytest.mark.parametrize(("seat", "status"), [("1", 401), ("-1", 401), ("9" * 30, 401)])
def test_an_integer_path_parameter_in_digits_still_reaches_its_route(
    client: Any, seat: str, status: int
) -> None:
    """Any integer reaches the route, which asks for the session first (a seat the game
    has not is 404 after it: tests/games/test_unread_bodies_order.py)."""
    answer = client.post(f"/v1/games/{'0' * 32}/seats/{seat}/join", json={})
    assert answer.status_code == status, answer.text
