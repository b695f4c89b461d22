"""The stored first answers of `Idempotency-Key` writes, as the score sheets (issue 21) and the
creation of stored games keep them (api-contract.md, "Edge cases settled", "Idempotent
creation"): one table per area, each row keyed by a digest, never the key itself.

A row's `digest` is the sha256 of a purpose (which table), who sent the key (an account, a
sheet token's hash, or nobody: `anonymous`) and the key, so the table holds neither keys nor
credentials. A retry of the same request (`request_hash`: the operation, its path's values
and its body) gets the stored answer again; another request with the same key is refused by
the area (422 `idempotency-key-reused`). A secret in an answer (a sheet token, a game's seat
tokens) is kept only sealed: XOR a one-time pad that only the key derives (HMAC-SHA256 of a
random salt per row), so a copy of the database alone gives no usable token, while the
client that lost the 201 gets it again by its retry. Rows are kept :data:`KEEP_HOURS` hours
(then deleted by :func:`purge`, and a late retry's expired row at once).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from sqlalchemy import Row, Table, delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

#: How long a write's first answer is kept for its retries.
KEEP_HOURS = 24
#: The expired answers of one table are deleted at most this often (seconds, per process).
PURGE_SECONDS = 60.0
#: An anonymous creation's key is all that guards the secret its retry gets back, so it must
#: not be guessable: at least this many characters (a random UUID has 36).
ANONYMOUS_KEY_MIN = 16
#: Whose key an anonymous creation's is (one sender for all: the key alone tells them apart).
ANONYMOUS = "anonymous"


def request_hash(operation: str, *parts: object) -> str:
    """What identifies a request for its retries: the operation, its path's values and its
    body (JSON with sorted keys, so the same document always hashes the same)."""
    return hashlib.sha256(msgspec.json.encode([operation, *parts], order="sorted")).hexdigest()


def derive(purpose: bytes, sender: str, key: str) -> bytes:
    """A secret of (`purpose`, `sender`, `key`): a row's digest, or a seal's pad key."""
    return hashlib.sha256(purpose + b"\n" + sender.encode() + b"\n" + key.encode()).digest()


def _pad(secret: bytes, salt: bytes, size: int) -> bytes:
    blocks = (size + 31) // 32
    stream = b"".join(
        hmac.new(secret, salt + i.to_bytes(4, "big"), hashlib.sha256).digest()
        for i in range(blocks)
    )
    return stream[:size]


def seal(text: str, purpose: bytes, sender: str, key: str) -> str:
    """`text` XOR a pad that only the key derives: `<salt>.<sealed>`, base64url."""
    salt = secrets.token_bytes(16)
    raw = text.encode()
    pad = _pad(derive(purpose, sender, key), salt, len(raw))
    sealed = bytes(a ^ b for a, b in zip(raw, pad, strict=True))
    return f"{base64.urlsafe_b64encode(salt).decode()}.{base64.urlsafe_b64encode(sealed).decode()}"


def unseal(stored: str, purpose: bytes, sender: str, key: str) -> str:
    salt_text, _, sealed_text = stored.partition(".")
    salt = base64.urlsafe_b64decode(salt_text)
    sealed = base64.urlsafe_b64decode(sealed_text)
    pad = _pad(derive(purpose, sender, key), salt, len(sealed))
    return bytes(a ^ b for a, b in zip(sealed, pad, strict=True)).decode()


class KeyedAnswers:
    """One keyed request's row in `keys` (a table with `digest`, `request_hash` and
    `created_at`, and the area's own columns), inside the request's transaction.

    `purpose` tells the areas' digests apart; `seal_purpose` their seals'."""

    def __init__(
        self,
        conn: AsyncConnection,
        keys: Table,
        purpose: bytes,
        seal_purpose: bytes,
        sender: str,
        key: str,
        request: str,
    ) -> None:
        self.conn = conn
        self.keys = keys
        self.seal_purpose = seal_purpose
        self.sender = sender
        self.key = key
        self.request = request
        self.digest = derive(purpose, sender, key).hex()
        self.reused = False

    async def find(self) -> Row[Any] | None:
        """The row of this request, or None if this key is new (or expired). A key used for
        another request is remembered (:attr:`reused`): the area refuses it once it has
        checked who may write, as a body is checked after the caller."""
        keys = self.keys
        cutoff = datetime.now(UTC) - timedelta(hours=KEEP_HOURS)
        # past its time a key is a new key: its expired answer, if not yet purged, goes now
        # (else :meth:`add`'s insert would clash with it on every write with that key)
        await self.conn.execute(
            delete(keys).where(keys.c.digest == self.digest, keys.c.created_at < cutoff)
        )
        row = (
            await self.conn.execute(
                select(keys).where(keys.c.digest == self.digest, keys.c.created_at >= cutoff)
            )
        ).first()
        if row is None:
            return None
        if not hmac.compare_digest(row.request_hash, self.request):
            self.reused = True
            return None
        return row

    def seal(self, text: str) -> str:
        return seal(text, self.seal_purpose, self.sender, self.key)

    def unseal(self, stored: str) -> str:
        return unseal(stored, self.seal_purpose, self.sender, self.key)

    async def add(self, **values: Any) -> None:
        """Store this request's answer (`values`: the area's columns). A concurrent retry's
        row already there is an `IntegrityError` (the unique digest): the caller's
        transaction rolls back and it replays that row instead."""
        await self.conn.execute(
            insert(self.keys).values(
                digest=self.digest,
                request_hash=self.request,
                created_at=datetime.now(UTC),
                **values,
            )
        )


#: When this process last deleted each table's expired answers (monotonic seconds).
_purged: dict[str, float] = {}


async def purge(engine: AsyncEngine, keys: Table) -> None:
    """Delete the answers past :data:`KEEP_HOURS`, at most once a minute per table and
    process and in a transaction of its own (after the write's commit), so concurrent
    writers never wait on each other's deletions."""
    now = time.monotonic()
    if now - _purged.get(keys.name, -PURGE_SECONDS) < PURGE_SECONDS:
        return
    _purged[keys.name] = now
    cutoff = datetime.now(UTC) - timedelta(hours=KEEP_HOURS)
    async with engine.begin() as conn:
        await conn.execute(delete(keys).where(keys.c.created_at < cutoff))
