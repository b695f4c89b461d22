"""Accounts tests: a real SMTP server (aiosmtpd on 127.0.0.1) that keeps every message it
receives, and the app on the run's PostgreSQL database sending its emails there."""

from __future__ import annotations

import email
import email.policy
import re
import secrets
import socket
import time
from collections.abc import Iterator
from email.message import Message
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from litestar.testing import TestClient

from tests.pg import FAST_HASHES


class Inbox:
    """aiosmtpd's handler: every message received, parsed."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)
        )
        return "250 OK"

    def to(self, address: str, subject: str, timeout: float = 10.0) -> list[Message]:
        """The messages sent to `address` whose subject holds `subject` (waits for one)."""
        deadline = time.monotonic() + timeout
        while True:
            found = [
                m for m in self.messages if m["To"] == address and subject in str(m["Subject"])
            ]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def token(self, address: str, subject: str) -> str:
        """The token on the `token: <token>` line of the last such message."""
        found = self.to(address, subject)
        assert found, f"no message {subject!r} to {address}"
        body = found[-1].get_payload(decode=True)
        assert isinstance(body, bytes)
        match = re.search(r"^token: ([A-Za-z0-9_-]+)\r?$", body.decode(), re.M)
        assert match, body
        return match.group(1)


@pytest.fixture(scope="session")
def inbox() -> Iterator[tuple[Inbox, int]]:
    handler = Inbox()
    with socket.socket() as probe:  # a free port (aiosmtpd checks its own with a connection)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


@pytest.fixture(scope="session")
def mail_client(pg_head: str, inbox: tuple[Inbox, int]) -> Iterator[TestClient[Any]]:
    """The app sending its emails to `inbox` (login throttling at its defaults)."""
    from api.app import create_app
    from api.ops.settings import Settings

    settings = Settings(
        database_url=pg_head,
        smtp_host="127.0.0.1",
        smtp_port=inbox[1],
        smtp_from="numrules <no-reply@numrules.test>",
        **FAST_HASHES,
    )
    with TestClient(create_app(settings)) as client:
        yield client


def new_pseudo() -> str:
    return "p_" + secrets.token_hex(5)


def account_body(**fields: Any) -> dict[str, Any]:
    """A sign-up body: a fresh pseudo, a valid password and age range, the terms accepted."""
    return {
        "pseudo": new_pseudo(),
        "password": "a long enough password",
        "age_range": "25-34",
        "accept_terms": True,
        **fields,
    }


def sign_up(client: Any, **fields: Any) -> dict[str, Any]:
    """Sign up on `client`'s app (any synchronous HTTP client); the 201 answer."""
    r = client.post("/v1/accounts", json=account_body(**fields))
    assert r.status_code == 201, r.text
    answer: dict[str, Any] = r.json()
    return answer


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
