"""The games' fast path served by uvicorn (issue 27): its answers are written straight to the
connection (`api.http.fastpath._written`) with the bytes uvicorn's own `send` writes for the
pipeline's answer to the same request; keep-alive, pipelined requests, `Connection: close`
and HTTP/1.0 behave as they do for any answer."""

from __future__ import annotations

import logging
import socket
import time
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.games import fast
from api.http import fastpath
from api.ops.server import server_options
from api.ops.settings import Settings
from tests.api.serving import serve

PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Dee"}]
#: Headers whose values differ between two answers to the same request.
VARYING = {b"date", b"x-request-id"}


def _answers(sock: socket.socket, count: int) -> list[tuple[bytes, list[bytes], bytes]]:
    """`count` answers read off `sock`: (status line, header lines, body) each, by their
    Content-Length; then, when the server closes, nothing more."""
    data, answers = b"", []
    while len(answers) < count:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, (answers, data)
            data += chunk
        head, _, data = data.partition(b"\r\n\r\n")
        status, *lines = head.split(b"\r\n")
        length = next(
            int(v) for n, _, v in (x.partition(b": ") for x in lines) if n == b"content-length"
        )
        while len(data) < length:
            chunk = sock.recv(65536)
            assert chunk, (status, lines, data)
            data += chunk
        answers.append((status, lines, data[:length]))
        data = data[length:]
    return answers


def _steady(lines: list[bytes]) -> list[bytes]:
    return [x if x.partition(b": ")[0] not in VARYING else x.partition(b":")[0] for x in lines]


def _request(method: str, path: str, token: str, body: bytes = b"", extra: str = "") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {token}\r\n{extra}"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


def test_the_fast_path_writes_the_pipeline_s_bytes_and_keeps_the_connection(
    pg_head: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[bool] = []

    def counted(*args: Any) -> bool:
        written.append(fastpath_written(*args))
        return written[-1]

    fastpath_written = fastpath._written
    monkeypatch.setattr(fastpath, "_written", counted)
    fast = create_app(Settings(database_url=pg_head, rate_limit_per_minute=0))
    slow = create_app(Settings(database_url=pg_head, rate_limit_per_minute=0, fast_games=False))
    options = server_options(Settings())
    with serve(fast, **options) as (host, port), serve(slow, **options) as (_, slow_port):
        created = httpx.post(
            f"http://{host}:{port}/v1/games", json={"ruleset": "numwars", "players": PLAYERS}
        )
        assert created.status_code == 201, created.text
        game: dict[str, Any] = created.json()
        path = f"/v1/games/{game['id']}"
        actor = game["view"]["actors"][0]
        token = game["seats"][actor]["token"]
        read = _request("GET", path, token, extra="Accept-Language: fr\r\n")
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(read)
            ((status, lines, body),) = _answers(sock, 1)
        with socket.create_connection((host, slow_port), timeout=10) as sock:
            sock.sendall(read)
            ((slow_status, slow_lines, slow_body),) = _answers(sock, 1)
        assert (status, _steady(lines), body) == (slow_status, _steady(slow_lines), slow_body)
        assert b"content-language: fr" in lines and b"connection: close" not in lines
        action = httpx.Response(200, content=body).json()["view"]["legal_actions"][0]
        # pipelined on one connection: a view, an action, a view, the last asking to close
        act = _request(
            "POST", f"{path}/actions", token, httpx.Request("POST", "/", json=action).content
        )
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(read + act + _request("GET", path, token, extra="Connection: close\r\n"))
            answers = _answers(sock, 3)
            assert sock.recv(65536) == b""  # closed after the third, as asked
        assert [a[0] for a in answers] == [b"HTTP/1.1 200 OK"] * 3
        versions = [next(x for x in a[1] if x.startswith(b"etag: ")) for a in answers]
        assert versions == [b'etag: "0"', b'etag: "1"', b'etag: "1"'], versions
        assert b"connection: close" in answers[2][1]  # uvicorn's own send wrote that one
        assert not [a for a in answers[:2] if b"connection: close" in a[1]]
        # HTTP/1.0: uvicorn's cycle for it, which closes
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(read.replace(b"HTTP/1.1", b"HTTP/1.0"))
            ((status, lines, _),) = _answers(sock, 1)
            assert sock.recv(65536) == b""
        assert status == b"HTTP/1.1 200 OK" and b"connection: close" in lines
    # written straight: the first view, then the pipelined view and action; not the one
    # asking to close, nor HTTP/1.0's
    assert written == [True, True, True, False, False], written


def test_an_action_whose_client_closed_a_pipelined_connection_is_counted_as_applied(
    pg_head: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A client pipelines a view, an action and a view, then half-closes: uvicorn closes the
    connection but marks only the last request it read disconnected. The running action's
    answer is written nothing (the transport is closing), and the applied action is counted
    200 under its route, as without the fast path, not `unmatched` 500 (an attacker's
    finding: the write on the closed transport raised)."""
    app = create_app(Settings(database_url=pg_head, rate_limit_per_minute=0))
    with serve(app, **server_options(Settings())) as (host, port):
        base = f"http://{host}:{port}"
        game: dict[str, Any] = httpx.post(
            f"{base}/v1/games", json={"ruleset": "numwars", "players": PLAYERS}
        ).json()
        path = f"/v1/games/{game['id']}"
        token = game["seats"][game["view"]["actors"][0]]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        view = httpx.get(f"{base}{path}", headers=auth).json()
        action = httpx.Request("POST", "/", json=view["view"]["legal_actions"][0]).content
        before = httpx.get(f"{base}/metrics").text
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(
                _request("GET", path, token)
                + _request("POST", f"{path}/actions", token, action)
                + _request("GET", path, token)
            )
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(65536):
                pass
        for _ in range(50):  # the action's task ends after the connection's
            after = httpx.get(f"{base}/metrics").text
            if _posts(after, "200") > _posts(before, "200"):
                break
            time.sleep(0.1)
        assert httpx.get(f"{base}{path}", headers=auth).json()["version"] == 1
    assert _posts(after, "200") == _posts(before, "200") + 1
    assert "500" not in {line.split('status="')[1][:3] for line in _post_lines(after)}
    failed = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not failed, [r.getMessage() for r in failed]  # nothing written, nothing raised


def _post_lines(metrics: str) -> list[str]:
    return [
        line
        for line in metrics.splitlines()
        if line.startswith("numrules_http_requests_total{") and 'method="POST"' in line
    ]


def _posts(metrics: str, status: str) -> float:
    route = 'route="/v1/games/{game_id}/actions"'
    return sum(
        float(line.rpartition(" ")[2])
        for line in _post_lines(metrics)
        if route in line and f'status="{status}"' in line
    )


def test_only_seat_headers_are_kept() -> None:
    """A seat's `Authorization` is checked and hashed once, then kept; junk (up to the
    header cap) is checked every time and never kept (an attacker's finding: 4,096 headers of
    30 KB each were kept, about 120 MB a worker)."""
    fast._SEATS.clear()
    for i in range(50):
        assert fast._seat_token(b"Bearer " + str(i).encode() + b"x" * 30_000) is None
        assert fast._seat_token(b"Basic nrg_" + str(i).encode()) is None
    assert fast._SEATS == {}
    header = b"Bearer nrg_" + b"A" * 43
    caller = fast._seat_token(header)
    assert caller is not None and {header: caller} == fast._SEATS
    assert fast._seat_token(header) is caller
    for i in range(fast._SEATS_KEPT + 1):  # bounded: let go together when full
        fast._seat_token(b"Bearer nrg_%d" % i)
    assert 0 < len(fast._SEATS) <= fast._SEATS_KEPT
