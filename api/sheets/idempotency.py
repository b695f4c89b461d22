"""A score sheet's versions and retries (issue 21; api-contract.md, "Score sheets: versions"):
the `If-Match` precondition and the stored first answers of `Idempotency-Key` writes.

`If-Match` names the sheet's version as its `ETag` does (`"<version>"`), compared strongly
(RFC 9110 §13.1.1: `*` matches any sheet, a weak `W/"…"` tag never matches); a header that
is no list of entity tags (the version sent unquoted, `If-Match: 3`) is refused, naming the
quoted form, rather than read as a version that can never match.

An `Idempotency-Key` belongs to whoever sent it: the account of a session, the sheet token
(its sha256), or nobody (an anonymous sheet's creation, where the key itself is all a retry
has). A write sent with one stores its answer in the request's transaction; a retry of the
same request (method, sheet, round and body) gets that answer again and changes nothing, and
another request with the same key is 422 `idempotency-key-reused`. Only applied writes are
stored: a refused one may be retried. The table holds sha256 digests of (sender, key), never
the key or the credential; a sheet token in an answer (creation) is sealed with a one-time
pad derived from the key (HMAC-SHA256, a random salt per row), so a copy of the database
alone gives no usable token, while the phone that lost the 201 gets it again by its retry.
Answers are kept :data:`KEEP_HOURS` hours (then deleted by :func:`purge`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.db.models import SheetIdempotencyKey, table
from api.http.conditions import IfMatch
from api.http.domain import Invalid
from api.sheets.formats import answer_document, decode_answer
from api.sheets.texts import KEY_REUSED
from engine.core.texts import say

KEYS = table(SheetIdempotencyKey)


class KeyReused(Invalid):
    """An `Idempotency-Key` sent again with another request (422)."""

    default_code = "idempotency-key-reused"


#: How long a write's first answer is kept for its retries.
KEEP_HOURS = 24
#: The expired answers are deleted at most this often (seconds, per process).
PURGE_SECONDS = 60.0
#: An anonymous creation's key is all that guards the sheet token its retry gets back, so it
#: must not be guessable: at least this many characters (a random UUID has 36).
ANONYMOUS_KEY_MIN = 16


@dataclass(frozen=True)
class Conditions:
    """What a write's request sent besides its body: `If-Match` and `Idempotency-Key`."""

    if_match: IfMatch | None = None
    key: str | None = None


@dataclass(frozen=True)
class Written:
    """A write's answer: its status, its body (a struct, or the stored JSON of a replay; None
    for 204), the sheet's version for `ETag` (None once the sheet is deleted), and whether
    it is the replay of an earlier request's answer."""

    status: int
    body: Any
    version: int | None
    replayed: bool = False


def request_hash(operation: str, *parts: object) -> str:
    """What identifies a request for its retries: the operation, its path's values and its
    body (JSON with sorted keys, so the same document always hashes the same)."""
    return hashlib.sha256(msgspec.json.encode([operation, *parts], order="sorted")).hexdigest()


def _derive(purpose: bytes, sender: str, key: str) -> bytes:
    return hashlib.sha256(purpose + b"\n" + sender.encode() + b"\n" + key.encode()).digest()


def _pad(secret: bytes, salt: bytes, size: int) -> bytes:
    blocks = (size + 31) // 32
    stream = b"".join(
        hmac.new(secret, salt + i.to_bytes(4, "big"), hashlib.sha256).digest()
        for i in range(blocks)
    )
    return stream[:size]


def seal(token: str, sender: str, key: str) -> str:
    """`token` XOR a pad that only the key derives: `<salt>.<sealed>`, base64url."""
    salt = secrets.token_bytes(16)
    raw = token.encode()
    pad = _pad(_derive(b"numrules sheet-token seal", sender, key), salt, len(raw))
    sealed = bytes(a ^ b for a, b in zip(raw, pad, strict=True))
    return f"{base64.urlsafe_b64encode(salt).decode()}.{base64.urlsafe_b64encode(sealed).decode()}"


def unseal(stored: str, sender: str, key: str) -> str:
    salt_text, _, sealed_text = stored.partition(".")
    salt = base64.urlsafe_b64decode(salt_text)
    sealed = base64.urlsafe_b64decode(sealed_text)
    pad = _pad(_derive(b"numrules sheet-token seal", sender, key), salt, len(sealed))
    return bytes(a ^ b for a, b in zip(sealed, pad, strict=True)).decode()


class Answers:
    """The stored first answers of one sender's keyed writes."""

    def __init__(self, conn: AsyncConnection, sender: str, key: str, request: str) -> None:
        self.conn = conn
        self.sender = sender
        self.key = key
        self.request = request
        self.digest = _derive(b"numrules sheet idempotency", sender, key).hex()
        self.reused = False

    async def replay(self) -> Written | None:
        """The first answer of this request, or None if this key is new (or expired). A key
        used for another request is remembered (:attr:`reused`): the caller refuses it once
        it has checked who may write, as a body is checked after the caller."""
        cutoff = datetime.now(UTC) - timedelta(hours=KEEP_HOURS)
        # past its time a key is a new key: its expired answer, if not yet purged, goes now
        # (else :meth:`remember`'s insert would clash with it on every write with that key)
        await self.conn.execute(
            delete(KEYS).where(KEYS.c.digest == self.digest, KEYS.c.created_at < cutoff)
        )
        row = (
            await self.conn.execute(
                select(KEYS).where(KEYS.c.digest == self.digest, KEYS.c.created_at >= cutoff)
            )
        ).first()
        if row is None:
            return None
        if not hmac.compare_digest(row.request_hash, self.request):
            self.reused = True
            return None
        body = decode_answer(row.response)
        if body is not None and row.sealed_token is not None:
            body = {**body, "token": unseal(row.sealed_token, self.sender, self.key)}
        return Written(row.status, body, row.version, replayed=True)

    def refuse_reuse(self) -> None:
        """422 `idempotency-key-reused` when :meth:`replay` found the key used for another
        request."""
        if self.reused:
            raise KeyReused(say(KEY_REUSED))

    async def remember(self, written: Written, token: str | None = None) -> None:
        """Store `written` for the retries (`token`: the sheet token the answer holds, kept
        only sealed)."""
        response = None if written.body is None else msgspec.to_builtins(written.body)
        if isinstance(response, dict):
            response.pop("token", None)
        await self.conn.execute(
            insert(KEYS).values(
                digest=self.digest,
                request_hash=self.request,
                status=written.status,
                version=written.version,
                response=answer_document(response),
                sealed_token=None if token is None else seal(token, self.sender, self.key),
                created_at=datetime.now(UTC),
            )
        )


#: When this process last deleted the expired answers (monotonic seconds).
_purged = [-PURGE_SECONDS]


async def purge(engine: AsyncEngine) -> None:
    """Delete the answers past :data:`KEEP_HOURS`, at most once a minute per process and in
    a transaction of its own (after the write's commit), so concurrent writers never wait on
    each other's deletions."""
    now = time.monotonic()
    if now - _purged[0] < PURGE_SECONDS:
        return
    _purged[0] = now
    cutoff = datetime.now(UTC) - timedelta(hours=KEEP_HOURS)
    async with engine.begin() as conn:
        await conn.execute(delete(KEYS).where(KEYS.c.created_at < cutoff))
