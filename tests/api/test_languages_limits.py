"""The refusals of limits, throttles and failures in English and French (issue 23), each from
a real request (tests/languages.py checks both answers): an app made by the factory with a
setting lowered (the rate limit, a database on a closed port), with a test-only route that
fails (`internal-error`) or that raises Litestar's own 429 (`too-many-requests`), and a
`numrules serve` process of its own for the server's refusals (a body past its deadline,
connections past `NUMRULES_MAX_CONCURRENCY`).

tests/api/test_languages.py reads :data:`CASES` to know where each code is tested."""

from __future__ import annotations

import json
import secrets
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest
from litestar import Litestar, get
from litestar.exceptions import TooManyRequestsException
from litestar.testing import TestClient

from api.ops.settings import Settings
from tests.api.process import ServeProcess
from tests.api.serving import free_port
from tests.languages import Case, check_both
from tests.problem_check import SpecIndex

SCORE = "/v1/rulesets/numking/score-round"
SCORE_BODY = json.dumps({"cards": 3, "players": [{"bid": 1, "tricks": 1}]}).encode()
#: The served process's deadline for a body (seconds): short, so the 408 comes quickly.
BODY_SECONDS = 1.0
#: Its concurrency limit: the busy case holds this many connections open, then asks.
CONCURRENCY = 3


def _app(**settings: Any) -> Litestar:
    from api.app import create_app

    return create_app(Settings(check_db_on_start=False, **settings))


@get("/v1/test-only/fails", sync_to_thread=False, include_in_schema=False)
def _fails() -> None:
    """A bug: an exception nothing expects."""
    raise RuntimeError("a test-only failure")


@get("/v1/test-only/throttled", sync_to_thread=False, include_in_schema=False)
def _throttled() -> None:
    """A 429 that names no code of its own (Litestar's exception, its default detail): no
    layer of the service raises one today, `too-many-requests` is what such a 429 is
    answered with."""
    raise TooManyRequestsException()


def _with_route(handler: Any) -> Litestar:
    app = _app()
    app.register(handler)
    return app


# --- apps made by the factory ------------------------------------------------------------------


def _rate_limited(_: Any, headers: dict[str, str]) -> Any:
    """A limit of 1 a minute: the second request of a window is refused (a third is sent
    when a window ended between the first two)."""
    with TestClient(_app(rate_limit_per_minute=1)) as client:
        for _ in range(3):
            answer = client.get("/v1/rulesets", headers=headers)
            if answer.status_code == 429:
                return answer
        return answer


def _too_many_requests(_: Any, headers: dict[str, str]) -> Any:
    with TestClient(_with_route(_throttled)) as client:
        return client.get("/v1/test-only/throttled", headers=headers)


def _internal_error(_: Any, headers: dict[str, str]) -> Any:
    with TestClient(_with_route(_fails), raise_server_exceptions=False) as client:
        return client.get("/v1/test-only/fails", headers=headers)


def _database_unavailable(_: Any, headers: dict[str, str]) -> Any:
    """A database URL naming a port where nothing listens: the connection is refused."""
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/numrules"
    with TestClient(_app(database_url=url, db_connect_timeout_seconds=2)) as client:
        return client.get("/v1/games/" + secrets.token_hex(16), headers=headers)


APP_CASES: dict[str, Case] = {
    "rate-limited": _rate_limited,
    "too-many-requests": _too_many_requests,
    "internal-error": _internal_error,
    "database-unavailable": _database_unavailable,
}


# --- a served process ---------------------------------------------------------------------------


def _response(data: bytes) -> httpx.Response:
    """A raw HTTP/1.1 answer read to the close, as httpx's."""
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    fields = [tuple(part.strip() for part in line.split(":", 1)) for line in lines]
    return httpx.Response(int(status_line.split(" ", 2)[1]), headers=fields, content=body)


def _read_to_close(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def _head(path: str, headers: dict[str, str], length: int | None = None) -> bytes:
    lines = [f"POST {path} HTTP/1.1" if length is not None else f"GET {path} HTTP/1.1"]
    lines.append("Host: test")
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if length is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {length}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _request_timeout(server: ServeProcess, headers: dict[str, str]) -> Any:
    """The headers at once, then half the body and nothing more: once the body's deadline
    passes, the server answers 408 (in the headers' language) and closes."""
    with socket.create_connection(server.address, timeout=10) as sock:
        sock.sendall(_head(SCORE, headers, len(SCORE_BODY)))
        sock.sendall(SCORE_BODY[: len(SCORE_BODY) // 2])
        return _response(_read_to_close(sock))


def _unavailable(server: ServeProcess, headers: dict[str, str], path: str = "/v1/rulesets") -> Any:
    """As many connections open as the server takes (idle), then a request on one more:
    503 at once, as a problem."""
    with ExitStack() as held:
        for _ in range(CONCURRENCY):
            held.enter_context(socket.create_connection(server.address, timeout=10))
        time.sleep(0.2)  # the server has taken them
        with socket.create_connection(server.address, timeout=10) as sock:
            sock.sendall(_head(path, headers))
            return _response(_read_to_close(sock))


SERVER_CASES: dict[str, Case] = {
    "request-timeout": _request_timeout,
    "unavailable": _unavailable,
}

#: Every code tested here.
CASES: dict[str, Case] = {**APP_CASES, **SERVER_CASES}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    folder = tmp_path_factory.mktemp("languages")
    process = ServeProcess(
        f"sqlite+aiosqlite:///{folder / 'numrules.db'}",
        folder / "serve.log",
        NUMRULES_CHECK_DB_ON_START="false",
        NUMRULES_BODY_TIMEOUT_SECONDS=str(BODY_SECONDS),
        NUMRULES_MAX_CONCURRENCY=str(CONCURRENCY),
    ).start()
    try:
        yield process
    finally:
        process.terminate()


@pytest.mark.parametrize("code", sorted(APP_CASES))
def test_a_limit_or_a_failure_in_english_and_in_french(code: str) -> None:
    en, fr = check_both(None, code, APP_CASES[code])
    if code == "internal-error":  # the exception's words stay in the log, never in the answer
        assert fr["detail"] == "une erreur inattendue s’est produite"
        assert "test-only" not in json.dumps(en) + json.dumps(fr)
    if code == "too-many-requests":  # Litestar's bare status phrase: the title, in French too
        assert (en["detail"], fr["detail"]) == ("Too many requests", "Trop de requêtes")


@pytest.mark.parametrize("code", sorted(SERVER_CASES))
def test_a_refusal_of_the_server_in_english_and_in_french(server: ServeProcess, code: str) -> None:
    en, fr = check_both(server, code, SERVER_CASES[code])
    if code == "request-timeout":
        assert en["detail"] == f"the request body took over {BODY_SECONDS:g} s to arrive"
        assert fr["detail"] == f"le corps de la requête a mis plus de {BODY_SECONDS:g} s à arriver"


def test_a_busy_server_says_when_to_try_again(server: ServeProcess) -> None:
    answer = _unavailable(server, {"accept-language": "fr"})
    assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
    assert answer.headers["connection"] == "close"
    assert answer.json()["title"] == "Service indisponible"
    # the connections given back, the server serves again
    assert httpx.get(f"{server.url}/v1/rulesets", timeout=10).status_code == 200


@pytest.mark.parametrize(
    "path",
    ["/v1/rulesets", "/v1/rulesets/numwars/deck?players=4", "/v1/games/" + "0" * 32, "/healthz"],
)
def test_a_busy_servers_answer_is_in_the_spec(server: ServeProcess, path: str) -> None:
    """A busy server's 503 `unavailable` is the server's, whatever the operation: the spec
    listed it for none (a 503 for the operations using the database, `database-unavailable`
    only; none for the others), and the raw socket's answer escaped tests/problem_check.py's
    hold on the test clients' answers."""
    from api.app import app, spec_dict

    answer = _unavailable(server, {}, path)
    assert answer.status_code == 503 and answer.json()["code"] == "unavailable"
    index = SpecIndex(spec_dict(app))
    assert index.operation("GET", path.split("?")[0]) is not None
    assert index.check("GET", path.split("?")[0], 503, answer.json()) is None
