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
Answers are kept 24 hours (then deleted by :func:`purge`). The digests, the
seal and the rows' life are the shared ones of `api.http.idempotency` (stored games'
creation keeps its keys the same way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.db.models import SheetIdempotencyKey, table
from api.http import idempotency as shared
from api.http.conditions import IfMatch
from api.http.domain import Invalid
from api.http.idempotency import KeyedAnswers
from api.sheets.formats import answer_document, decode_answer
from api.sheets.texts import KEY_REUSED
from engine.core.texts import say

KEYS = table(SheetIdempotencyKey)
#: The digests' and the seals' purposes (the rows of earlier versions keep theirs).
PURPOSE = b"numrules sheet idempotency"
SEAL_PURPOSE = b"numrules sheet-token seal"


class KeyReused(Invalid):
    """An `Idempotency-Key` sent again with another request (422)."""

    default_code = "idempotency-key-reused"


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


def _derive(purpose: bytes, sender: str, key: str) -> bytes:
    return shared.derive(purpose, sender, key)


class Answers:
    """The stored first answers of one sender's keyed writes."""

    def __init__(self, conn: AsyncConnection, sender: str, key: str, request: str) -> None:
        self.keyed = KeyedAnswers(conn, KEYS, PURPOSE, SEAL_PURPOSE, sender, key, request)

    @property
    def reused(self) -> bool:
        return self.keyed.reused

    async def replay(self) -> Written | None:
        """The first answer of this request, or None if this key is new (or expired); a key
        used for another request is remembered, for :meth:`refuse_reuse`."""
        row = await self.keyed.find()
        if row is None:
            return None
        body = decode_answer(row.response)
        if body is not None and row.sealed_token is not None:
            body = {**body, "token": self.keyed.unseal(row.sealed_token)}
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
        await self.keyed.add(
            status=written.status,
            version=written.version,
            response=answer_document(response),
            sealed_token=None if token is None else self.keyed.seal(token),
        )


async def purge(engine: AsyncEngine) -> None:
    """Delete the sheets' answers past their 24 hours (`api.http.idempotency.purge`)."""
    await shared.purge(engine, KEYS)
