"""A signed-up account that hosts the suites' stored games: `numking` and `numwin` games need a
session (the community lock, rules/app.md); Num Wars games are created with it too, which
changes nothing for them."""

from __future__ import annotations

import secrets
import weakref
from typing import Any

import httpx

from tests.accounts.conftest import account_body, auth, sign_up

# keyed by the client itself, weakly: an id() is reused once a client is freed, and a later
# client (of another app, on another database) then got a session its app never issued (401)
_SESSIONS: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()
_PSEUDOS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def host(client: Any) -> dict[str, str]:
    """`Authorization` of an account on this client's app (one per client)."""
    if client not in _SESSIONS:
        created = sign_up(client, pseudo="host_" + secrets.token_hex(6))
        _SESSIONS[client] = auth(created["token"])
        _PSEUDOS[client] = created["pseudo"]
    return _SESSIONS[client]


def host_pseudo(client: Any) -> str:
    host(client)
    return _PSEUDOS[client]


async def async_host(client: httpx.AsyncClient) -> dict[str, str]:
    if client not in _SESSIONS:
        created = await client.post("/v1/accounts", json=account_body())
        assert created.status_code == 201, created.text
        _SESSIONS[client] = auth(created.json()["token"])
    return _SESSIONS[client]
