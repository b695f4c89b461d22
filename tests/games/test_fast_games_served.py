"""The games' fast path served by uvicorn (issue 27): its answers are written straight to the
connection (`api.http.fastpath._written`) with the bytes uvicorn's own `send` writes for the
pipeline's answer to the same request; keep-alive, pipelined requests, `Connection: close`
and HTTP/1.0 behave as they do for any answer."""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest

from api.app import create_app
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
