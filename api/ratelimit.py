"""Rate limiting per client address (issue 13): `NUMRULES_RATE_LIMIT_PER_MINUTE` requests a
minute (600 by default; 0 turns it off), then 429 `rate-limited` with `Retry-After`.

**Client address.** The direct peer, unless it is one of `NUMRULES_TRUSTED_PROXIES` (IPs or
CIDRs): then `X-Forwarded-For` is read from the right, skipping the trusted proxies, and the
right-most address that is not one of them is the client (the left part of the header is
whatever the client wrote, so it is never believed). Without trusted proxies the header is
ignored: anyone could write it.

**Window.** A fixed window of one minute (`window_start` = the minute's first second), counted
per address: simple and one counter per address, at the price of letting up to twice the limit
through across a window's edge. `Retry-After` is the seconds left in the window.

**Stores** (`NUMRULES_RATE_LIMIT_STORE`):

* `memory` (the default): a counter per address in the process. Free (no I/O per request);
  with N processes or replicas, a client gets up to N times the limit. Good enough to stop a
  runaway client, and it costs nothing on the rules endpoints' hot path (about a millisecond
  per request, where a database write would double that).
* `database`: the `rate_limits` table of the stored games' database, `(key, window_start,
  count)`, one upsert per request (`INSERT … ON CONFLICT (key, window_start) DO UPDATE SET
  count = count + 1 RETURNING count`, on PostgreSQL and SQLite alike): the limit holds across
  replicas, for a database write per request. Rows of past windows are deleted by the first
  request of each window a process sees. If the database fails, the request goes through
  (fail open: the limiter never takes the API down; /readyz reports the database).

Exempt: the probes and the monitoring (`/healthz`, `/readyz`, `/metrics`) and the docs
(`/docs…`). Paths no route has (404) are not counted: the limiter runs after the router, inside
the exception handling, so that a 429 is a problem like any other, with CORS headers.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from ipaddress import IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from typing import Any, Protocol

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send
from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from api.db.models import RateLimit, table
from api.problems import ProblemError
from api.settings import Settings

log = logging.getLogger("numrules.ratelimit")
WINDOW_SECONDS = 60
#: Paths never limited: probes, monitoring, docs.
EXEMPT = ("/healthz", "/readyz", "/metrics")
EXEMPT_PREFIX = "/docs"

Network = IPv4Network | IPv6Network


def trusted_networks(proxies: Sequence[str]) -> tuple[Network, ...]:
    return tuple(ip_network(p, strict=False) for p in proxies)


def _is_trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(scope: Any, trusted: Sequence[Network]) -> str | None:
    """The client's address (see the module docstring): the peer, or behind trusted proxies
    the right-most untrusted address of `X-Forwarded-For`."""
    client = scope.get("client")
    peer: str | None = client[0] if client else None
    if peer is None or not trusted or not _is_trusted(peer, trusted):
        return peer
    hops = [
        hop.strip()
        for name, value in scope["headers"]
        if name.lower() == b"x-forwarded-for"
        for hop in value.decode("latin-1").split(",")
    ]
    found = peer
    for hop in reversed(hops):
        try:
            address = str(ip_address(hop.removeprefix("[").removesuffix("]")))
        except ValueError:  # garbage (or a port): stop at the last address believed
            break
        found = address
        if not _is_trusted(address, trusted):
            break
    return found


def network_of(address: str, ipv4_prefix: int = 32, ipv6_prefix: int = 64) -> str:
    """The client's network, the unit that rate limits and log-in throttles count (issue 21):
    an IPv6 host owns a whole /64 (RFC 6177; one machine can pick any address in it), so
    IPv6 clients are keyed by `ipv6_prefix` bits, IPv4 ones by `ipv4_prefix` (32: the
    address). An IPv4-mapped IPv6 address counts as its IPv4 address; anything that is not an
    address (a Unix socket's name) is its own key."""
    try:
        ip = ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = ipv4_prefix if ip.version == 4 else ipv6_prefix
    if prefix == ip.max_prefixlen:
        return str(ip)
    return str(ip_network(f"{ip}/{prefix}", strict=False))


class Store(Protocol):
    async def hit(self, key: str, window_start: int) -> int:
        """Count one request of `key` in the window; returns the window's count so far."""
        ...


class MemoryStore:
    """Counters of the current window, in this process."""

    def __init__(self) -> None:
        self.window = 0
        self.counts: dict[str, int] = {}

    async def hit(self, key: str, window_start: int) -> int:
        if window_start != self.window:
            self.window = window_start
            self.counts = {}
        count = self.counts.get(key, 0) + 1
        self.counts[key] = count
        return count


class DatabaseStore:
    """Counters in the `rate_limits` table, shared by every process on the database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.table = table(RateLimit)
        self.dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        self.swept = 0

    async def hit(self, key: str, window_start: int) -> int:
        rows = self.table
        upsert = self.dialect.insert(rows).values(key=key, window_start=window_start, count=1)
        upsert = upsert.on_conflict_do_update(
            index_elements=[rows.c.key, rows.c.window_start],
            set_={"count": rows.c.count + 1},
        ).returning(rows.c.count)
        async with self.engine.begin() as conn:
            if window_start != self.swept:  # the first request of a window: drop past ones
                self.swept = window_start
                await conn.execute(delete(rows).where(rows.c.window_start < window_start))
            count: int = (await conn.execute(upsert)).scalar_one()
        return count


class RateLimiter:
    def __init__(
        self,
        limit: int,
        store: Store,
        trusted: Sequence[Network] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.limit = limit
        self.store = store
        self.trusted = tuple(trusted)
        self.clock = clock

    async def check(self, scope: Any) -> None:
        """Raise 429 once the client's address is over the limit in this window."""
        key = client_address(scope, self.trusted)
        if key is None:  # no peer address (a Unix socket behind a proxy): nothing to count
            return
        now = self.clock()
        window_start = int(now) // WINDOW_SECONDS * WINDOW_SECONDS
        try:
            count = await self.store.hit(key, window_start)
        except (TimeoutError, SQLAlchemyError, OSError) as exc:
            log.warning("rate limit store failed (%s): request let through", type(exc).__name__)
            return
        if count > self.limit:
            retry = max(1, math.ceil(window_start + WINDOW_SECONDS - now))
            raise ProblemError(
                429,
                "rate-limited",
                f"more than {self.limit} requests a minute from this address: retry in {retry} s",
                headers={"Retry-After": str(retry)},
            )


def exempt(path: str) -> bool:
    return path in EXEMPT or path == EXEMPT_PREFIX or path.startswith(EXEMPT_PREFIX + "/")


class RateLimitMiddleware(ASGIMiddleware):
    """The limiter, as Litestar middleware (after routing, inside the exception handling)."""

    scopes = (ScopeType.HTTP,)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.trusted = trusted_networks(settings.trusted_proxies)
        self.limiter: RateLimiter | None = None

    def _limiter(self, scope: Scope) -> RateLimiter:
        if self.limiter is None:
            store: Store = MemoryStore()
            if self.settings.rate_limit_store == "database":
                store = DatabaseStore(scope["litestar_app"].state.db)
            self.limiter = RateLimiter(self.settings.rate_limit_per_minute, store, self.trusted)
        return self.limiter

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        if not exempt(scope["path"]):
            await self._limiter(scope).check(scope)
        await next_app(scope, receive, send)


def rate_limit_middleware(settings: Settings) -> list[RateLimitMiddleware]:
    """The middleware for `Litestar(middleware=…)`: none when the limit is 0."""
    if settings.rate_limit_per_minute <= 0:
        return []
    return [RateLimitMiddleware(settings)]
