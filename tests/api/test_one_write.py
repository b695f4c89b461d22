"""The server writes an answer of known length in one piece (api/ops/server.py, `OneWrite`):
uvicorn wrote its head and its body in two system calls. The protocol runs here on a
transport that records each write, so the test sees the calls themselves, not what TCP
happened to merge."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.server import ServerState

from api.ops.server import Deadlines


class Recording(asyncio.Transport):
    """A connection's transport that keeps what is written, one entry a call."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.lost = (
            False  # the connection ended (the test's end): a close since is not the answer's
        )

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = self.closed or not self.lost

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _plain(scope: Any, receive: Any, send: Any) -> None:
    """An answer with Content-Length; a POST's is its body read back."""
    body = b"hello"
    if scope["method"] == "POST":
        body = (await receive())["body"]
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _stream(scope: Any, receive: Any, send: Any) -> None:
    """A stream: no Content-Length, its parts sent one by one."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await asyncio.sleep(0)
    await send({"type": "http.response.body", "body": b"one", "more_body": True})
    await send({"type": "http.response.body", "body": b"two", "more_body": False})


async def _served(app: Any, request: bytes, parts: int = 1) -> Recording:
    """`request` through the server's protocol (as `numrules serve` makes it) to `app`;
    returns the transport once `parts` writes were made or the answer's task ended."""
    protocols = Deadlines(header_seconds=5, body_seconds=5)
    config = Config(app=app, http=protocols, lifespan="off")
    protocol = protocols(config, ServerState(), {}, asyncio.get_running_loop())
    transport = Recording()
    protocol.connection_made(transport)
    protocol.data_received(request)
    for _ in range(100):
        await asyncio.sleep(0)
        if not protocol.tasks and len(transport.writes) >= parts:
            break
    transport.lost = True
    protocol.connection_lost(None)
    return transport


async def test_an_answer_of_known_length_is_one_write() -> None:
    sent = await _served(_plain, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert len(sent.writes) == 1, sent.writes
    assert sent.writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert sent.writes[0].endswith(b"\r\n\r\nhello")


async def test_a_post_is_answered_in_one_write_and_keeps_the_connection() -> None:
    sent = await _served(
        _plain,
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
        b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        parts=2,
    )
    assert len(sent.writes) == 2 and not sent.closed
    assert sent.writes[0].endswith(b"\r\n\r\nabc") and sent.writes[1].endswith(b"\r\n\r\nhello")


async def test_a_head_request_gets_its_head() -> None:
    sent = await _served(_plain, b"HEAD / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert len(sent.writes) == 1
    assert sent.writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert sent.writes[0].endswith(b"content-length: 5\r\n\r\n")


async def test_a_closing_answer_is_written_before_the_close() -> None:
    sent = await _served(_plain, b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    assert len(sent.writes) == 1 and sent.writes[0].endswith(b"hello")
    assert sent.closed


async def test_a_stream_s_head_goes_out_before_its_first_part() -> None:
    sent = await _served(_stream, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", parts=3)
    assert sent.writes[0].endswith(b"transfer-encoding: chunked\r\n\r\n")
    assert sent.writes[1:] == [b"3\r\none\r\n", b"3\r\ntwo\r\n0\r\n\r\n"]


async def test_an_http10_stream_s_head_goes_out_first_and_its_end_is_the_close() -> None:
    sent = await _served(_stream, b"GET / HTTP/1.0\r\nHost: a\r\n\r\n", parts=3)
    assert sent.writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert sent.writes[0].endswith(b"connection: close\r\n\r\n")
    assert b"transfer-encoding" not in sent.writes[0]
    assert sent.writes[1:] == [b"one", b"two"] and sent.closed
