"""Slow clients against `numrules serve` (issue 21, item 7): real sockets that trickle.

A connection whose request headers, or body, do not arrive whole within the server's
deadlines (NUMRULES_HEADER_TIMEOUT_SECONDS, NUMRULES_BODY_TIMEOUT_SECONDS; small here so the
tests take seconds) is closed by the process itself, proxy or not; meanwhile other clients
are served, and a slow request that makes it in time is served whole.
"""

from __future__ import annotations

import contextlib
import json
import pickle
import select
import selectors
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.api.process import ServeProcess

HEADER_SECONDS = 2.0
BODY_SECONDS = 2.0
#: How late after its deadline a connection may be closed (a loaded machine).
SLACK = 2.0
TRICKLERS = 100
SCORE = "/v1/rulesets/numking/score-round"
SCORE_BODY = json.dumps({"cards": 3, "players": [{"bid": 1, "tricks": 1}]}).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    folder = tmp_path_factory.mktemp("slow")
    process = ServeProcess(
        f"sqlite+aiosqlite:///{folder / 'numrules.db'}",
        folder / "serve.log",
        NUMRULES_CHECK_DB_ON_START="false",
        NUMRULES_HEADER_TIMEOUT_SECONDS=str(HEADER_SECONDS),
        NUMRULES_BODY_TIMEOUT_SECONDS=str(BODY_SECONDS),
    ).start()
    try:
        yield process
    finally:
        process.terminate()


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def _trickle(sock: socket.socket, data: bytes, every: float) -> bytes:
    """Send `data` a byte every `every` seconds until the server answers; its answer, to the
    close (no byte is sent once it answered: a write to a closed socket could reset it)."""
    for byte in data:
        sock.sendall(bytes([byte]))
        readable, _, _ = select.select([sock], [], [], every)
        if readable:
            break
    return _answer(sock)


def _status(data: bytes) -> int:
    return int(data.split(b" ", 2)[1])


def _problem(data: bytes) -> dict[str, object]:
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"content-type: application/problem+json" in head.lower(), head
    assert b"connection: close" in head.lower(), head
    problem: dict[str, object] = json.loads(body)
    return problem


def test_trickling_headers_are_cut_off_while_others_are_served(server: ServeProcess) -> None:
    """(a) 100 sockets send part of a request, then a byte a second: each is closed once the
    header deadline passes; (b) meanwhile a normal request gets its 200 at once."""
    selector = selectors.DefaultSelector()
    opened = time.monotonic()
    sockets = []
    for i in range(TRICKLERS):  # half in the request line (its path), half in a header
        sock = socket.create_connection(server.address, timeout=10)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Slow: " if i % 2 else b"GET /")
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
        sockets.append(sock)
    received = dict.fromkeys(sockets, b"")
    closed_at: dict[socket.socket, float] = {}
    served_in = None
    next_byte = opened + 1
    try:
        while len(closed_at) < TRICKLERS and time.monotonic() < opened + HEADER_SECONDS + 3 * SLACK:
            if served_in is None and time.monotonic() > opened + HEADER_SECONDS / 2:
                started = time.monotonic()
                answer = httpx.get(f"{server.url}/healthz", timeout=10)
                served_in = time.monotonic() - started
                assert answer.status_code == 200
            for key, _ in selector.select(timeout=0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(65536)
                except ConnectionResetError:
                    data = b""
                received[sock] += data
                if not data:
                    closed_at[sock] = time.monotonic() - opened
                    selector.unregister(sock)
            if time.monotonic() >= next_byte:  # a byte a second on each open connection
                next_byte += 1
                for sock in sockets:
                    if sock not in closed_at:
                        with contextlib.suppress(OSError):  # closed meanwhile
                            sock.send(b"a")
        assert len(closed_at) == TRICKLERS, f"{TRICKLERS - len(closed_at)} connections open"
        times = sorted(closed_at.values())
        assert times[0] >= HEADER_SECONDS - 0.5, times[:5]
        assert times[-1] <= HEADER_SECONDS + SLACK, times[-5:]
        for data in received.values():  # a 408 problem (some of the request came)
            assert _status(data) == 408 and _problem(data)["code"] == "request-timeout", data
        assert served_in is not None and served_in < 1.0, served_in
    finally:
        for sock in sockets:
            sock.close()
        selector.close()


def test_a_connection_that_sends_nothing_is_closed(server: ServeProcess) -> None:
    with socket.create_connection(server.address, timeout=10) as sock:
        started = time.monotonic()
        assert _answer(sock) == b""
        assert HEADER_SECONDS - 0.5 <= time.monotonic() - started <= HEADER_SECONDS + SLACK


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Odd: a\x7fb\r\n\r\n",
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
    ],
    ids=["control-character", "negative-length", "two-lengths"],
)
def test_a_request_the_parser_refuses_is_a_400_problem(
    server: ServeProcess, request_bytes: bytes
) -> None:
    """uvicorn's own refusal was plain text (an attacker's finding): it is a problem too."""
    with socket.create_connection(server.address, timeout=10) as sock:
        sock.sendall(request_bytes)
        data = _answer(sock)
    assert _status(data) == 400, data
    problem = _problem(data)
    assert problem["code"] == "bad-request" and problem["status"] == 400


def test_a_trickling_body_is_cut_off_with_a_408(server: ServeProcess) -> None:
    """(c) The headers at once, then the body a byte every half second: 408 and close once
    the body deadline passes."""
    head = (
        f"POST {SCORE} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(SCORE_BODY)}\r\n\r\n"
    ).encode()
    with socket.create_connection(server.address, timeout=10) as sock:
        sock.sendall(head)
        started = time.monotonic()
        data = _trickle(sock, SCORE_BODY[:-1], 0.5)
        elapsed = time.monotonic() - started
    assert _status(data) == 408, data
    problem = _problem(data)
    assert problem["code"] == "request-timeout" and problem["status"] == 408
    assert "body" in str(problem["detail"])
    assert BODY_SECONDS - 0.5 <= elapsed <= BODY_SECONDS + SLACK
    # the app saw a client gone, not a fault of its own: its access line says 408, not 500
    time.sleep(0.2)
    lines = [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]
    access = [r for r in lines if r.get("route") == SCORE]
    assert access and access[-1]["status"] == 408, access
    assert not [r for r in lines if r["level"] in ("ERROR", "CRITICAL")]


def test_a_slow_request_within_the_deadlines_is_served(server: ServeProcess) -> None:
    """(d) Headers in three pieces, the body in three, each within its deadline; then a
    second request on the same connection after a pause (keep-alive)."""
    head = (
        f"POST {SCORE} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(SCORE_BODY)}\r\n\r\n"
    ).encode()
    third = len(head) // 3
    with socket.create_connection(server.address, timeout=10) as sock:
        for piece in (head[:third], head[third : 2 * third], head[2 * third :]):
            sock.sendall(piece)
            time.sleep(HEADER_SECONDS / 4)
        third = len(SCORE_BODY) // 3
        for piece in (SCORE_BODY[:third], SCORE_BODY[third : 2 * third], SCORE_BODY[2 * third :]):
            sock.sendall(piece)
            time.sleep(BODY_SECONDS / 4)
        reader = sock.makefile("rb")
        status = reader.readline()
        assert status.startswith(b"HTTP/1.1 200"), status
        length = 0
        while (line := reader.readline()) != b"\r\n":
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert json.loads(reader.read(length))["players"]
        time.sleep(HEADER_SECONDS * 0.75)  # idle between requests: keep-alive's, not a deadline
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        assert reader.read().startswith(b"HTTP/1.1 200")


def test_a_second_request_trickled_on_a_kept_alive_connection_is_cut_off(
    server: ServeProcess,
) -> None:
    """The header deadline starts again at the next request's first byte: keep-alive's
    timeout alone stopped at that byte, and the rest could trickle for ever."""
    with socket.create_connection(server.address, timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        reader = sock.makefile("rb")
        assert reader.readline().startswith(b"HTTP/1.1 200")
        while reader.readline() != b"\r\n":
            pass
        assert reader.read(len(b'{"status":"ok"}')) == b'{"status":"ok"}'
        started = time.monotonic()
        data = _trickle(sock, b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Slow: " + b"a" * 40, 0.25)
        elapsed = time.monotonic() - started
    assert _status(data) == 408 and _problem(data)["code"] == "request-timeout", data
    assert HEADER_SECONDS - 0.5 <= elapsed <= HEADER_SECONDS + SLACK


def test_the_deadlines_are_settings() -> None:
    """`http` binds the settings' deadlines; it pickles, as `--workers` needs (uvicorn hands
    its config to each worker process by pickling it)."""
    from api.ops.server import Deadlines, server_options
    from api.ops.settings import Settings

    options = server_options(Settings(header_timeout_seconds=1.5, body_timeout_seconds=3))
    assert pickle.loads(pickle.dumps(options["http"])) == Deadlines(1.5, 3.0)
    defaults = server_options(Settings())["http"]
    assert 0 < defaults.header_seconds <= 10 and 0 < defaults.body_seconds <= 30


def _send_whole(server: ServeProcess, request: bytes) -> bytes:
    with socket.create_connection(server.address, timeout=10) as sock:
        with contextlib.suppress(OSError):  # the server may close before it has read it all
            sock.sendall(request)
        return _answer(sock)


def test_headers_past_the_bound_are_a_431_and_close(server: ServeProcess) -> None:
    """NUMRULES_MAX_HEADER_BYTES (32 KiB): a 4 MB header (an attacker's Accept-Language) is
    refused once the bound is passed, not parsed; headers within it are served, and a large
    body sent in the same write as small headers is not counted as headers."""
    huge = b"en, " * 1_000_000
    answer = _send_whole(
        server, b"GET /v1/rulesets HTTP/1.1\r\nHost: t\r\nAccept-Language: " + huge + b"\r\n\r\n"
    )
    assert _status(answer) == 431, answer[:200]
    problem = _problem(answer)
    assert problem["code"] == "headers-too-large"
    assert "32768 bytes" in str(problem["detail"])
    within = b"fr, " * 5_000  # 20 KB
    answer = _send_whole(
        server,
        b"GET /v1/rulesets HTTP/1.1\r\nHost: t\r\nConnection: close\r\nAccept-Language: "
        + within
        + b"\r\n\r\n",
    )
    assert _status(answer) == 200, answer[:200]
    assert b"content-language: fr" in answer.lower()
    body = json.dumps({"cards": 3, "players": [{"bid": 1, "tricks": 1}], "x": "y" * 60_000})
    answer = _send_whole(
        server,
        b"POST " + SCORE.encode() + b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body.encode(),
    )
    assert _status(answer) == 422, answer[:200]  # the unknown field, not the headers
