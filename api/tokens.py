"""Secrets shared by every area: bearer tokens (seat, session and sheet tokens), their hashes,
ids, and the 401 that asks for one; player names as every area checks them.

A token is 256 random bits (`secrets.token_urlsafe(32)`), handed out once and stored only as
its sha256: a leaked table gives no usable token, and a lookup is one indexed equality.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
import uuid
from typing import Any

from litestar import Request

from api.problems import FieldProblem, ProblemError

_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,200}")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_id() -> str:
    return uuid.uuid4().hex


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def unauthorized(detail: str) -> ProblemError:
    """401 `unauthorized`, asking for a Bearer token."""
    return ProblemError(401, "unauthorized", detail, headers={"WWW-Authenticate": "Bearer"})


def bearer(request: Request[Any, Any, Any], kind: str = "token") -> str | None:
    """The token of `Authorization: Bearer <token>` (None without the header); anything else
    in the header is 401, never read as an anonymous caller."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not _TOKEN.fullmatch(token):
        raise unauthorized(f"Authorization must be 'Bearer <{kind}>'")
    return token


def check_name(name: str, field: str) -> None:
    """A player's name: not blank, no control or formatting character (Unicode categories Cc
    and Cf: a NUL, which PostgreSQL cannot store, bidi overrides, zero-width spaces)."""
    odd = sorted({f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in ("Cc", "Cf")})
    if odd:
        message = "a name holds no control or formatting character, not " + ", ".join(odd[:5])
    elif not name.strip():
        message = "a name is not blank"
    else:
        return
    raise ProblemError(422, "bad-name", f"{field}: {message}", [FieldProblem(field, message)])
