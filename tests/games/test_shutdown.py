"""A graceful shutdown (issue 13): on SIGTERM `numrules serve` finishes the request under way,
ends every open event stream with its `end` message, and exits 0, well within
NUMRULES_GRACEFUL_SHUTDOWN_SECONDS (a stream does not hold the server until the timeout)."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx

from tests.api.process import ServeProcess

GRACE = 20  # seconds: the test passes only if the server is done long before
PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


def _read_until(sock: socket.socket, marker: bytes, data: bytes = b"") -> bytes:
    while marker not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before {marker!r}: {data[-500:]!r}"
        data += chunk
    return data


def _read_to_end(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_sigterm_finishes_requests_ends_streams_and_exits_0(pg_head: str, tmp_path: Path) -> None:
    server = ServeProcess(
        pg_head, tmp_path / "serve.log", NUMRULES_GRACEFUL_SHUTDOWN_SECONDS=str(GRACE)
    ).start()
    try:
        game = httpx.post(
            f"{server.url}/v1/games", json={"ruleset": "numwars", "players": PLAYERS}, timeout=30
        ).json()
        token = game["seats"][0]["token"]
        with (
            socket.create_connection(server.address, timeout=GRACE) as stream,
            socket.create_connection(server.address, timeout=GRACE) as upload,
        ):
            stream.sendall(
                f"GET /v1/games/{game['id']}/stream HTTP/1.1\r\nHost: test\r\n"
                f"Authorization: Bearer {token}\r\n\r\n".encode()
            )
            opened = _read_until(stream, b"\r\n\r\n")  # the stream is open
            assert opened.startswith(b"HTTP/1.1 200"), opened[:200]
            body = json.dumps({"ruleset": "numwars-classic", "players": PLAYERS}).encode()
            upload.sendall(
                b"POST /v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body[:10]
            )
            time.sleep(0.3)  # the request is under way: headers read, the body still coming
            assert server.process is not None
            started = time.monotonic()
            server.process.terminate()
            time.sleep(0.5)
            upload.sendall(body[10:])
            answer = _read_to_end(upload)
            assert answer.startswith(b"HTTP/1.1 201"), answer[:300]
            rest = _read_to_end(stream)  # the stream ends: its `end` message, then the close
            assert b"event: end" in opened + rest
            status = server.process.wait(GRACE)
            elapsed = time.monotonic() - started
        assert status == 0, server.output()[-2000:]
        assert elapsed < GRACE / 2, f"{elapsed:.1f} s: the stream held the server"
    finally:
        server.terminate()
    assert "timeout graceful shutdown exceeded" not in server.output()
