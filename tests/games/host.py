"""A signed-up account that hosts the suites' stored games: `numking` and `numwin` games need a
session (the community lock, rules/app.md); Num Wars games are created with it too, which
changes nothing for them."""

from __future__ import annotations

import secrets
from typing import Any

import httpx

from tests.accounts.conftest import account_body, auth, sign_up

_SESSIONS: dict[int, dict[str, str]] = {}
_PSEUDOS: dict[int, str] = {}


def host(client: Any) -> dict[str, str]:
    """`Authorization` of an account on this client's app (one per client)."""
    if id(client) not in _SESSIONS:
        created = sign_up(client, pseudo="host_" + secrets.token_hex(6))
        _SESSIONS[id(client)] = auth(created["token"])
        _PSEUDOS[id(client)] = created["pseudo"]
    return _SESSIONS[id(client)]


def host_pseudo(client: Any) -> str:
    host(client)
    return _PSEUDOS[id(client)]


async def async_host(client: httpx.AsyncClient) -> dict[str, str]:
    if id(client) not in _SESSIONS:
        created = await client.post("/v1/accounts", json=account_body())
        assert created.status_code == 201, created.text
        _SESSIONS[id(client)] = auth(created.json()["token"])
    return _SESSIONS[id(client)]
