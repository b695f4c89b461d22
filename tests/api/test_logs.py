"""Structured logs (issue 13): one JSON object a line, one access line per request with its
request id, method, route template, status, duration and client; never a secret."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient

from api.app import create_app
from api.ops.logs import _Handler, configure_logging, request_id
from api.ops.settings import Settings
from tests.api.process import ServeProcess

PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


def _lines(output: str) -> list[dict[str, Any]]:
    records = []
    for line in output.splitlines():
        if line.strip():
            records.append(json.loads(line))  # every line is JSON, uvicorn's own included
    return records


def test_a_served_process_logs_json_access_lines_and_no_secret(
    pg_head: str, tmp_path: Path
) -> None:
    server = ServeProcess(pg_head, tmp_path / "serve.log").start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            created = client.post("/v1/games", json={"ruleset": "numwars", "players": PLAYERS})
            assert created.status_code == 201, created.text
            game = created.json()
            tokens = [seat["token"] for seat in game["seats"]]
            auth = {"Authorization": f"Bearer {tokens[0]}"}
            read = client.get(
                f"/v1/games/{game['id']}", headers={**auth, "X-Request-ID": "req-42.a"}
            )
            assert read.status_code == 200
            assert read.headers["x-request-id"] == "req-42.a"
            insane = client.get("/healthz", headers={"X-Request-ID": "two words"})
            generated = insane.headers["x-request-id"]
            assert generated != "two words" and len(generated) == 32
            ticket = client.post(f"/v1/games/{game['id']}/stream-tickets", headers=auth)
            assert ticket.status_code == 201
            secret = ticket.json()["ticket"]
            with client.stream(
                "GET", f"/v1/games/{game['id']}/stream", params={"ticket": secret}
            ) as stream:
                assert stream.status_code == 200
            refused = client.get(f"/v1/games/{game['id']}", headers={"Authorization": "Bearer x"})
            assert refused.status_code == 401
    finally:
        assert server.terminate() == 0
    output = server.output()
    records = _lines(output)
    access = [r for r in records if r.get("logger") == "numrules.access"]
    (line,) = [r for r in access if r["request_id"] == "req-42.a"]
    assert line["method"] == "GET" and line["route"] == "/v1/games/{game_id}"
    assert line["status"] == 200 and line["client"] == "127.0.0.1"
    assert isinstance(line["duration_ms"], float | int) and line["level"] == "INFO"
    assert "timestamp" in line
    routes = {(r["method"], r["route"], r["status"]) for r in access}
    assert ("POST", "/v1/games", 201) in routes
    assert ("GET", "/v1/games/{game_id}/stream", 200) in routes
    assert ("GET", "/v1/games/{game_id}", 401) in routes
    assert [r for r in access if r["request_id"] == generated]
    # uvicorn's own lines are JSON too, and its plain access log is off
    assert any(r.get("logger", "").startswith("uvicorn") for r in records)
    assert '"GET /healthz HTTP/1.1"' not in output
    secrets = [*tokens, *(hashlib.sha256(t.encode()).hexdigest() for t in tokens), secret]
    assert not [s for s in secrets if s in output]
    assert "ticket=" not in output and "Bearer" not in output
    assert "authorization" not in output.lower()


def _unhook() -> None:
    """Drop the handler bound to this test's captured stderr (closed after the test)."""
    root = logging.getLogger()
    root.handlers = [h for h in root.handlers if not isinstance(h, _Handler)]


def test_the_text_format_and_the_level(capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings(
        check_db_on_start=False, log_format="text", log_level="warning", rate_limit_per_minute=0
    )
    try:
        app = create_app(settings)
        with TestClient(app) as client:
            assert client.get("/healthz").status_code == 200
            logging.getLogger("numrules.test").warning("a warning")
        err = capsys.readouterr().err
        assert "GET /healthz 200" not in err  # INFO is below the level
        assert "WARNING numrules.test a warning [request None]" in err
        assert not err.lstrip().startswith("{")
    finally:
        _unhook()


def test_every_line_written_for_a_request_carries_its_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    try:
        configure_logging(Settings(check_db_on_start=False))
        token = request_id.set("err-1")
        try:
            logging.getLogger("numrules.api").error("unhandled error on %s", "GET")
        finally:
            request_id.reset(token)
        logging.getLogger("numrules.api").warning("outside a request")
        first, second = _lines(capsys.readouterr().err)
        assert first["request_id"] == "err-1" and first["level"] == "ERROR"
        assert first["logger"] == "numrules.api" and first["message"] == "unhandled error on GET"
        assert second["request_id"] is None
    finally:
        _unhook()
