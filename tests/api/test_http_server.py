"""The server's own limits (api/ops/server.py) and the reverse proxy's (deploy/nginx.conf)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from api.app import app, create_app
from api.ops.server import server_options
from api.ops.settings import Settings
from tests.api.serving import serve
from tests.conftest import ROOT

NGINX_CONF = ROOT / "deploy" / "nginx.conf"
REQUEST = b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"


def test_server_options_come_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMRULES_KEEP_ALIVE_SECONDS", "3")
    monkeypatch.setenv("NUMRULES_MAX_CONCURRENCY", "64")
    options = server_options(Settings())
    assert options["timeout_keep_alive"] == 3
    assert options["limit_concurrency"] == 64
    config = uvicorn.Config(app, **options)  # every option is one uvicorn knows
    assert (config.timeout_keep_alive, config.limit_concurrency) == (3, 64)
    assert config.server_header is False


def test_the_defaults_bound_keep_alive_and_concurrency() -> None:
    options = server_options(Settings())
    assert 0 < options["timeout_keep_alive"] <= 30
    assert 0 < options["limit_concurrency"] <= 10_000
    assert options["timeout_graceful_shutdown"] is not None


def _read_answer(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, f"closed before an answer: {data!r}"
        data += chunk
    return data


@pytest.mark.parametrize(
    ("request_line", "hosts", "status"),
    [
        (b"GET /healthz HTTP/1.1", b"", b"400"),  # none (RFC 9112 §3.2)
        (b"GET /healthz HTTP/1.1", b"Host: a\r\nHost: b\r\n", b"400"),  # two
        (b"GET /healthz HTTP/1.1", b"Host: test\r\nHost: test\r\n", b"400"),  # two alike
        (b"POST /v1/rulesets/numwin/score-round HTTP/1.1", b"", b"400"),  # the fast path too
        (b"GET /healthz HTTP/1.0", b"", b"200"),  # HTTP/1.0 needs none
        (b"GET /healthz HTTP/1.1", b"Host: \r\n", b"200"),  # empty: a URI without authority
    ],
)
def test_an_http11_request_has_one_host(request_line: bytes, hosts: bytes, status: bytes) -> None:
    """No `Host` in HTTP/1.1, or two: 400 `bad-host` in the caller's language, on the
    pipeline's routes and the fast paths alike (they took either)."""
    with (
        serve(app, **server_options(Settings())) as address,
        socket.create_connection(address, timeout=10) as sock,
    ):
        body = b'{"players": []}' if request_line.startswith(b"POST") else b""
        sent = request_line + b"\r\n" + hosts + b"Accept-Language: fr\r\nConnection: close\r\n"
        if body:
            sent += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
        sock.sendall(sent + b"\r\n" + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == status, answer
    if status == b"400":
        problem = json.loads(content)
        assert problem["code"] == "bad-host" and "en-tête Host" in problem["detail"], problem


def _exchange(sent: bytes, application: Any = app) -> tuple[bytes, bytes]:
    """Send `sent` on a connection of its own to `application` served with the service's
    server options; the answer's head and content once the server closes."""
    with (
        serve(application, **server_options(Settings())) as address,
        socket.create_connection(address, timeout=10) as sock,
    ):
        sock.sendall(sent)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    return head, content


def _bad_host(head: bytes, content: bytes, language: str = "fr") -> None:
    assert head.startswith(b"HTTP/1.1 400 "), head + content
    assert f"content-language: {language}".encode() in head.lower(), head
    assert b"content-type: application/problem+json" in head.lower(), head
    problem = json.loads(content)
    assert problem["code"] == "bad-host", problem
    words = "en-tête Host" if language == "fr" else "one Host header"
    assert words in problem["detail"], problem


@pytest.mark.parametrize("control", [b"\x00", b"\x01", b"\x1b", b"\x7f"])
@pytest.mark.parametrize("language_first", [False, True])
def test_a_control_character_in_host_is_bad_host_in_the_callers_language(
    control: bytes, language_first: bool
) -> None:
    """The server's parser stops at a control character in a header before the app sees the
    request: it answered `bad-request` in English, where any other bad Host is `bad-host` in
    the caller's language (a tab or a non-ASCII byte, which the parser lets through, were)."""
    host = b"Host: a" + control + b"b\r\n"
    language = b"Accept-Language: fr\r\n"
    lines = language + host if language_first else host + language
    _bad_host(*_exchange(b"GET /healthz HTTP/1.1\r\n" + lines + b"Connection: close\r\n\r\n"))


def test_a_control_character_in_host_without_accept_language_is_english() -> None:
    head, content = _exchange(b"GET /healthz HTTP/1.1\r\nHost: a\x01b\r\n\r\n")
    _bad_host(head, content, "en")


def test_a_control_character_elsewhere_stays_the_parsers_bad_request() -> None:
    head, content = _exchange(b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Note: a\x01b\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), head
    assert json.loads(content)["code"] == "bad-request"


@pytest.mark.parametrize(
    "host",
    [
        *(b"user@evil", b"user:pass@evil", b"evil@", b"a%zz", b"a%4", b"a%", b"%", b"a%41%g1b"),
        *(b"a[b", b"[...]", b"[:]", b"[1.2.3.4]", b"[::1::2]:80"),  # brackets: IPv6 only
    ],
)
@pytest.mark.parametrize(
    "request_line", [b"GET /healthz HTTP/1.1", b"POST /v1/rulesets/numwin/score-round HTTP/1.1"]
)
def test_a_host_with_userinfo_or_a_stray_percent_is_bad_host(
    host: bytes, request_line: bytes
) -> None:
    """`@` ends a URI's userinfo, which no Host holds, and `%` only starts a pct-encoded octet
    (RFC 3986 §3.2.2): both passed, on the routes (Litestar's router allows them) and on the
    fast paths."""
    body = b'{"players": []}' if request_line.startswith(b"POST") else b""
    sent = request_line + b"\r\nHost: " + host + b"\r\nAccept-Language: fr\r\n"
    if body:
        sent += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    _bad_host(*_exchange(sent + b"Connection: close\r\n\r\n" + body))


@pytest.mark.parametrize(
    "host",
    [b"a%41b", b"%C3%A9t%C3%A9.example:8080", b"127.0.0.1:80", b"[::1]", b"[2001:db8::7]:8080"],
)
def test_a_pct_encoded_host_is_a_host(host: bytes) -> None:
    """RFC 3986 allows pct-encoded octets in a reg-name: `%` and two hex digits pass."""
    head, _ = _exchange(
        b"GET /healthz HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"
    )
    assert head.startswith(b"HTTP/1.1 200 "), head


@pytest.mark.parametrize(
    ("header", "values"),
    [
        ("Authorization", (b"Bearer abcdefghijklmnopqrstuvwxyz0123", b"Bearer x")),
        ("authorization", (b"Bearer a", b"Bearer a")),
        ("X-API-Key", (b"nrk_abcdefghijklmnopqrstuvwxyz0123", b"nrk_other")),
        ("Idempotency-Key", (b"one", b"two")),
        ("If-Match", (b'"1"', b'"2"')),
    ],
)
@pytest.mark.parametrize(
    "request_line",
    [
        b"GET /v1/rulesets HTTP/1.1",
        b"GET /v1/games/0123456789abcdef0123456789abcdef HTTP/1.1",
        b"POST /v1/rulesets/numwin/score-round HTTP/1.1",
    ],
)
def test_a_header_that_takes_one_value_sent_twice_is_refused(
    header: str, values: tuple[bytes, bytes], request_line: bytes
) -> None:
    """Two `Authorization` lines: the app read the first, the rate limiter metered the last
    (and a proxy in front may read either). Every header that takes one value, in two lines,
    is now 400 `bad-request` naming it, in the caller's language, before any layer reads it:
    on the pipeline's routes and the fast paths alike."""
    body = b'{"players": []}' if request_line.startswith(b"POST") else b""
    sent = request_line + b"\r\nHost: test\r\nAccept-Language: fr\r\n"
    for value in values:
        sent += header.encode() + b": " + value + b"\r\n"
    if body:
        sent += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    head, content = _exchange(sent + b"Connection: close\r\n\r\n" + body)
    assert head.startswith(b"HTTP/1.1 400 "), head + content
    assert b"content-language: fr" in head.lower(), head
    problem = json.loads(content)
    assert problem["code"] == "bad-request", problem
    canonical = {"authorization": "Authorization"}.get(header, header)
    assert f"plusieurs en-têtes {canonical}" in problem["detail"], problem


def test_each_header_that_takes_one_value_once_passes() -> None:
    sent = (
        b"GET /healthz HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer x\r\nX-API-Key: nrk_x\r\n"
        b'Idempotency-Key: one\r\nIf-Match: "1", "2"\r\nConnection: close\r\n\r\n'
    )
    head, _ = _exchange(sent)
    assert head.startswith(b"HTTP/1.1 200 "), head


async def _streaming(scope: Any, receive: Any, send: Any) -> None:
    """An answer of unknown length, as an event stream's: no Content-Length, three parts."""
    assert scope["type"] == "http"
    headers = [(b"content-type", b"text/event-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for part in (b": one\r\n\r\n", b": two\r\n\r\n"):
        await send({"type": "http.response.body", "body": part, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def test_an_answer_of_unknown_length_to_http10_is_close_delimited() -> None:
    """HTTP/1.0 has no chunked coding: uvicorn chunked every answer without Content-Length,
    an event stream's included, whatever the version. An HTTP/1.0 request's is now delimited
    by the close (RFC 9112 §6.3), with `Connection: close` and no `Transfer-Encoding`;
    HTTP/1.1 keeps the chunks."""
    head, content = _exchange(b"GET /stream HTTP/1.0\r\n\r\n", _streaming)
    lines = head.lower().split(b"\r\n")
    assert b"transfer-encoding: chunked" not in lines, head
    assert b"connection: close" in lines, head
    assert content == b": one\r\n\r\n: two\r\n\r\n", content
    head, content = _exchange(
        b"GET /stream HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n", _streaming
    )
    assert b"transfer-encoding: chunked" in head.lower().split(b"\r\n"), head
    assert content == b"9\r\n: one\r\n\r\n\r\n9\r\n: two\r\n\r\n\r\n0\r\n\r\n", content


def test_an_event_stream_to_http10_is_close_delimited(pg_head: str) -> None:
    """A stored game's event stream, read by an HTTP/1.0 client: its messages as they are,
    no chunk sizes between them, and no `Transfer-Encoding` (it was chunked)."""
    application = create_app(Settings(database_url=pg_head))
    players = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]
    with serve(application, **server_options(Settings())) as (host, port):
        created = httpx.post(
            f"http://{host}:{port}/v1/games",
            json={"ruleset": "numwars-classic", "players": players},
            timeout=30,
        )
        assert created.status_code == 201, created.text
        path = f"/v1/games/{created.json()['id']}/stream".encode()
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(b"GET " + path + b" HTTP/1.0\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer.partition(b"\r\n\r\n")[2]:  # the head, a message
                chunk = sock.recv(65536)
                assert chunk, answer
                answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    lines = head.lower().split(b"\r\n")
    assert lines[0].startswith(b"http/1.1 200"), head
    assert b"content-type: text/event-stream; charset=utf-8" in lines, head
    assert b"connection: close" in lines, head
    assert not any(line.startswith(b"transfer-encoding") for line in lines), head
    assert content.startswith((b"id: ", b"event: ", b":")), content[:200]


def test_an_idle_keep_alive_connection_is_closed() -> None:
    with (
        serve(app, **server_options(Settings(keep_alive_seconds=1))) as address,
        socket.create_connection(address, timeout=10) as sock,
    ):
        sock.sendall(REQUEST)
        head = _read_answer(sock)
        assert head.startswith(b"HTTP/1.1 200")
        assert b"server: uvicorn" not in head.lower()
        started = time.monotonic()
        while sock.recv(4096):  # the rest of the answer, then the close
            pass
        assert time.monotonic() - started < 5


def test_keep_alive_counts_from_the_last_answer_on_a_busy_connection() -> None:
    """The protocol's one timer a connection (`DeadlineProtocol._arm`): set at the first
    answer and left running while requests come, it runs out during later requests' idle
    times and must wait again for the timeout counted from the last answer, not close."""
    with (
        serve(app, **server_options(Settings(keep_alive_seconds=1))) as address,
        socket.create_connection(address, timeout=10) as sock,
    ):
        buffered = b""
        started = time.monotonic()
        answers = 0
        while time.monotonic() - started < 2.5:  # past the timeout since the first answer
            sock.sendall(REQUEST)
            while b"\r\n\r\n" not in buffered:
                chunk = sock.recv(4096)
                assert chunk, f"closed after {answers} answers, {time.monotonic() - started:.2f} s"
                buffered += chunk
            head, _, buffered = buffered.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200"), head
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            while len(buffered) < length:
                buffered += sock.recv(4096)
            buffered = buffered[length:]
            answers += 1
            time.sleep(0.4)  # idle, under the timeout
        last = time.monotonic() - 0.4
        assert sock.recv(4096) == b""  # closed once idle for the timeout
        idle = time.monotonic() - last
        assert answers >= 5
        assert 0.9 <= idle < 3.0, idle


def test_past_the_concurrency_limit_the_server_answers_503() -> None:
    """uvicorn counts open connections: with a limit of 2, a second one open is refused."""
    with (
        serve(app, **server_options(Settings(max_concurrency=2))) as address,
        socket.create_connection(address, timeout=10) as first,
    ):
        first.sendall(REQUEST)
        assert _read_answer(first).startswith(b"HTTP/1.1 200")
        with socket.create_connection(address, timeout=10) as second:
            second.sendall(REQUEST)
            assert _read_answer(second).startswith(b"HTTP/1.1 503")


def test_a_websocket_upgrade_is_answered_as_plain_http() -> None:
    """The API has no WebSocket (event streams are Server-Sent Events): an upgrade request got
    uvicorn's own bare 403 (text/plain, no nosniff); with WebSockets off it is an ordinary
    request, answered by the app."""
    upgrade = (
        b"GET /nope HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    with (
        serve(app, **server_options(Settings())) as address,
        socket.create_connection(address, timeout=10) as sock,
    ):
        sock.sendall(upgrade)
        head = _read_answer(sock).lower()
        assert head.startswith(b"http/1.1 404"), head
        assert b"content-type: application/problem+json" in head
        assert b"x-content-type-options: nosniff" in head


# --- deploy/nginx.conf -------------------------------------------------------------------


@pytest.mark.parametrize(
    "directive",
    [
        "client_header_timeout 10s;",
        "client_body_timeout 10s;",
        "send_timeout 10s;",
        "keepalive_timeout 5s;",
        "client_max_body_size 64k;",
        "large_client_header_buffers",
        "limit_conn numrules_conn",
        "limit_req zone=numrules_req",
        "proxy_intercept_errors on;",
        "error_page 502 503 504 = @unavailable;",
        "default_type application/problem+json;",
    ],
)
def test_the_proxy_config_closes_slow_clients_and_caps_them(directive: str) -> None:
    lines = [line.split("#")[0].strip() for line in NGINX_CONF.read_text().splitlines()]
    assert any(line.startswith(directive) for line in lines), directive


def test_the_proxy_logs_no_query_string() -> None:
    """Emailed reset and verification links carry their token in the query (`?token=`), a
    browser's event stream its ticket (`?ticket=`): nginx's default access line logs the
    request line whole; this config's logs the path only."""
    text = NGINX_CONF.read_text()
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    assert "access_log /var/log/nginx/access.log numrules_no_query;" in lines
    start = text.index("log_format numrules_no_query")
    format_ = text[start : text.index(";", start)]
    assert "$uri" in format_
    for leaky in (
        "$request ",
        "$request'",
        "$request_uri",
        "$args",
        "$query_string",
        "$http_referer",
    ):
        assert leaky not in format_, leaky


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")
def test_nginx_accepts_the_proxy_config(tmp_path: Path) -> None:
    main = tmp_path / "nginx.conf"
    main.write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
        f"events {{}}\nhttp {{\n  access_log off;\n  include {NGINX_CONF};\n}}\n"
    )
    result = subprocess.run(
        ["nginx", "-t", "-p", str(tmp_path), "-c", str(main)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_numrules_serve_hands_the_server_options_to_uvicorn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`numrules serve` (what deploy/serve.sh runs) started uvicorn without them: no
    concurrency limit, and the `server: uvicorn` header on every answer."""
    from api import cli

    monkeypatch.setenv("NUMRULES_MAX_CONCURRENCY", "77")
    calls: list[dict[str, object]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: calls.append(kwargs))
    assert cli.main(["serve", "--port", "8123"]) == 0
    (kwargs,) = calls
    assert kwargs["port"] == 8123
    assert {k: kwargs[k] for k in server_options(Settings())} == server_options(Settings())
    assert kwargs["limit_concurrency"] == 77
    assert kwargs["server_header"] is False


@pytest.mark.parametrize("version", [b"0.9", b"2.0"])
@pytest.mark.parametrize("path", [b"/healthz", b"/v1/rulesets/numwin/score-round"])
def test_a_version_of_http_other_than_1_0_and_1_1_is_refused(version: bytes, path: bytes) -> None:
    """httptools takes `HTTP/0.9` and `HTTP/2.0` in a request line: the first was answered
    chunked (RFC 9112 §6.1: no Transfer-Encoding below HTTP/1.1), the second needed no Host.
    Both are 400 `bad-request` naming the version, in the caller's language."""
    with (
        serve(app, **server_options(Settings())) as address,
        socket.create_connection(address, timeout=10) as sock,
    ):
        sock.sendall(b"GET " + path + b" HTTP/" + version + b"\r\nAccept-Language: fr\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == b"400", answer
    assert b"transfer-encoding" not in head.lower(), answer
    problem = json.loads(content)
    assert problem["code"] == "bad-request", problem
    assert f"HTTP/{version.decode()} n’est pas une version" in problem["detail"], problem


@pytest.mark.parametrize("coding", [b"gzip, chunked", b"x-custom, chunked"])
def test_a_transfer_coding_other_than_chunked_is_refused(coding: bytes) -> None:
    """httptools reads the chunks of `gzip, chunked` and leaves the gzip: the body was taken
    as it came. A coding the server does not read is 400 `bad-request` naming it (RFC 9112
    §6.1), on a fast path's operation too."""
    body = b'{"players": []}'
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    with (
        serve(app, **server_options(Settings())) as address,
        socket.create_connection(address, timeout=10) as sock,
    ):
        sock.sendall(
            b"POST /v1/rulesets/numwin/score-round HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: "
            + coding
            + b"\r\n\r\n"
            + chunked
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == b"400", answer
    problem = json.loads(content)
    assert problem["code"] == "bad-request" and coding.decode() in problem["detail"], problem
