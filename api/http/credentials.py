"""Which credential a request is metered by (issue 21; contract "Edge cases settled":
Credentials, Rate limits): the rate limiter's lookup, not an authentication.

A request is counted against exactly one bucket, chosen in this order: a valid API key
(`X-API-Key: <key>`, or `Authorization: Bearer <key>`), a valid session, a valid seat or
sheet token (`Authorization: Bearer <token>`), else its network (api/ops/ratelimit.py). Only a
credential that checks out counts: an unknown, expired or revoked one is no error here (the
endpoint says what it thinks of it), the request is charged to its network.

The token's prefix (api/http/tokens.py) says which table to look in: one indexed lookup by the
token's sha256. A token from before the prefixes is looked for in each table in turn.

**Cost.** A request without a credential never reaches this module's database lookups.
Answers (a bucket, or "not a credential") are cached per process for
`NUMRULES_RATE_LIMIT_CREDENTIAL_CACHE_SECONDS` (30 s by default, at most 60), keyed by the
token's sha256 (the token itself is kept nowhere): a revoked API key, an ended session,
still count as such for that long in a process that saw them, and a key's `last_used_at` is
written once per lookup, so it is exact to within that time. Concurrent requests carrying a
token that is not in the cache wait for one lookup. A lookup that fails (the database down)
counts the request against its network and is not cached.

**Made-up tokens.** A lookup that finds nothing (a *miss*) is charged to the request's
network: once a network has had as many misses in a one-minute window as its rate limit
allows requests, a token this process has not cached is no longer looked up for it until the
window ends (the request is counted against its network, as a failed credential is). A
client sending a fresh made-up key or bearer with every request therefore costs the
database at most the network's limit in lookups a minute, also once it is refused with 429
(an attacker found it cost a write transaction and three selects per request, 429 or not).
A key or token that checked out and is cached still counts as itself.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from sqlalchemy import bindparam, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from api.db.models import AccountSession, ApiKey, GameSeat, Sheet, table
from api.http.tokens import (
    API_KEY_PREFIX,
    CREATOR_PREFIX,
    SEAT_PREFIX,
    SESSION_PREFIX,
    SHEET_PREFIX,
    token_hash,
    well_formed,
)

log = logging.getLogger("numrules.ratelimit")

Kind = Literal["key", "session", "seat", "sheet"]

#: Cached answers a process keeps at most (beyond, the oldest go first).
CACHE_ENTRIES = 10_000
#: The window of a network's lookups that found nothing (the rate limit's minute).
MISS_WINDOW_SECONDS = 60

API_KEYS = table(ApiKey)
SESSIONS = table(AccountSession)
SEATS = table(GameSeat)
SHEETS = table(Sheet)

_KEY = (
    update(API_KEYS)
    .where(API_KEYS.c.key_hash == bindparam("b_digest"))
    .values(last_used_at=bindparam("b_now"))
    .returning(API_KEYS.c.id)
)
_SESSION = select(SESSIONS.c.account_id).where(
    SESSIONS.c.token_hash == bindparam("b_digest"), SESSIONS.c.expires_at > bindparam("b_now")
)
_SEAT = select(SEATS.c.game_id, SEATS.c.seat).where(SEATS.c.token_hash == bindparam("b_digest"))
_SHEET = select(SHEETS.c.id).where(SHEETS.c.token_hash == bindparam("b_digest"))


class Credential(NamedTuple):
    """What a request was found to carry: its kind and the bucket's key (`key:<id>`,
    `account:<id>` for any session of one account, `seat:<game>:<seat>`, `sheet:<id>`)."""

    kind: Kind
    bucket: str

    def covers(self, path: str) -> bool:
        """Whether the credential meters a request to `path`: a key or a session anywhere, a
        seat token on its own game's paths, a sheet token on its own sheet's (anyone makes
        those by creating a game or a sheet: elsewhere they would be a free bucket)."""
        if self.kind == "seat":
            game = self.bucket.split(":")[1]
            return path == f"/v1/games/{game}" or path.startswith(f"/v1/games/{game}/")
        if self.kind == "sheet":
            sheet = self.bucket.split(":")[1]
            return path == f"/v1/scoresheets/{sheet}" or path.startswith(
                f"/v1/scoresheets/{sheet}/"
            )
        return True


def presented(headers: Iterable[tuple[bytes, bytes]]) -> tuple[str | None, str | None]:
    """The `X-API-Key` and the `Authorization: Bearer` token of raw ASGI headers, each None
    when absent or not shaped as a token."""
    api_key = bearer = None
    for name, value in headers:
        name = name.lower()
        if name == b"x-api-key":
            api_key = value.decode("latin-1").strip()
        elif name == b"authorization":
            scheme, _, token = value.decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer":
                bearer = token.strip()
    return (
        api_key if api_key and well_formed(api_key) else None,
        bearer if bearer and well_formed(bearer) else None,
    )


class Credentials:
    """The credential lookups of the limiter, cached (see the module docstring)."""

    def __init__(
        self,
        engine: Callable[[], AsyncEngine],
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.ttl = ttl
        self.clock = clock
        self.cache: dict[str, tuple[float, Credential | None]] = {}
        self.pending: dict[str, asyncio.Future[Credential | None]] = {}
        #: lookups that found nothing, per network, in the window `misses_window`
        self.misses: dict[str, int] = {}
        self.misses_window = -1

    async def of(
        self, scope: Any, network: str | None = None, budget: int = 0
    ) -> Credential | None:
        """The request's credential, in the contract's order, or None: its network pays.
        `network` (with `budget` > 0): the request's network, which may have at most
        `budget` lookups that find nothing a minute (see "Made-up tokens" above)."""
        api_key, bearer = presented(scope["headers"])
        if api_key is not None and api_key.startswith(API_KEY_PREFIX):
            found = await self.lookup(api_key, network, budget)
            if found is not None:
                return found
        if bearer is not None and bearer != api_key:
            return await self.lookup(bearer, network, budget)
        return None

    def _misses_of(self, network: str, now: float) -> int:
        window = int(now // MISS_WINDOW_SECONDS)
        if window != self.misses_window:
            self.misses_window = window
            self.misses = {}
        return self.misses.get(network, 0)

    async def lookup(
        self, token: str, network: str | None = None, budget: int = 0
    ) -> Credential | None:
        digest = token_hash(token)
        now = self.clock()
        cached = self.cache.get(digest)
        if cached is not None and cached[0] > now:
            return cached[1]
        pending = self.pending.get(digest)
        if pending is not None:  # a burst of one new token: one lookup, the others wait for it
            return await asyncio.shield(pending)
        metered = network if budget > 0 else None  # the network charged for a miss
        if metered is not None:
            misses = self._misses_of(metered, now)
            if misses >= budget:
                return None  # this network made up too many tokens this minute: it pays
            # charged before the lookup, so a burst of made-up tokens cannot all pass the
            # check before any is counted; given back if the token checks out
            self.misses[metered] = misses + 1
        future: asyncio.Future[Credential | None] = asyncio.get_running_loop().create_future()
        self.pending[digest] = future
        found = None
        try:
            found = await self._find(token, digest)
        except (TimeoutError, SQLAlchemyError, OSError) as exc:
            log.warning("credential lookup failed (%s): counted by network", type(exc).__name__)
            return None
        else:
            if found is not None and metered is not None:
                misses = self._misses_of(metered, now)
                if misses > 0:
                    self.misses[metered] = misses - 1
            if self.ttl > 0:
                if len(self.cache) >= CACHE_ENTRIES:
                    self._evict(now)
                self.cache[digest] = (now + self.ttl, found)
            return found
        finally:  # also when this request was cancelled: its waiters count by network then
            del self.pending[digest]
            future.set_result(found)

    def _evict(self, now: float) -> None:
        """Drop what expired; when nothing had, the oldest tenth (dicts keep insertion order)."""
        for digest in [d for d, (until, _) in self.cache.items() if until <= now]:
            del self.cache[digest]
        if len(self.cache) >= CACHE_ENTRIES:
            for digest in list(self.cache)[: CACHE_ENTRIES // 10]:
                del self.cache[digest]

    async def _find(self, token: str, digest: str) -> Credential | None:
        params = {"b_digest": digest, "b_now": datetime.now(UTC)}
        engine = self.engine()
        if token.startswith(API_KEY_PREFIX):
            async with engine.begin() as conn:
                key_id = (await conn.execute(_KEY, params)).scalar()
            return None if key_id is None else Credential("key", f"key:{key_id}")
        kinds: tuple[Kind, ...] = ("session", "seat", "sheet")  # a token without a prefix
        if token.startswith(SESSION_PREFIX):
            kinds = ("session",)
        elif token.startswith(SEAT_PREFIX):
            kinds = ("seat",)
        elif token.startswith(SHEET_PREFIX):
            kinds = ("sheet",)
        elif token.startswith(CREATOR_PREFIX):  # no bucket of its own: its network's
            kinds = ()
        async with engine.connect() as conn:
            for kind in kinds:
                if kind == "session":
                    account = (await conn.execute(_SESSION, params)).scalar()
                    if account is not None:
                        return Credential("session", f"account:{account}")
                elif kind == "seat":
                    seat = (await conn.execute(_SEAT, params)).first()
                    if seat is not None:
                        return Credential("seat", f"seat:{seat.game_id}:{seat.seat}")
                else:
                    sheet = (await conn.execute(_SHEET, params)).scalar()
                    if sheet is not None:
                        return Credential("sheet", f"sheet:{sheet}")
        return None
