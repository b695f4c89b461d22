"""Rate limiting (issues 13 and 21): each request is counted against one bucket, a fixed
number of requests a minute, then 429 `rate-limited` with `Retry-After`.

**Buckets** (contract "Edge cases settled": Rate limits; api/http/credentials.py finds them). In
this order, the first that checks out: an API key (`X-API-Key` or `Authorization: Bearer`,
`NUMRULES_API_KEY_RATE_LIMIT_PER_MINUTE`, 12,000 by default), an account's session (all its
sessions share one bucket), a seat token or a sheet token (each its own bucket; these three
kinds `NUMRULES_RATE_LIMIT_CREDENTIAL_PER_MINUTE`, 3,000 by default; a seat token counts only
on its own game's paths and a sheet token on its own sheet's, since anyone can make one by
creating a game or a sheet: elsewhere they are no credential), else the client's network
(`NUMRULES_RATE_LIMIT_PER_MINUTE`, 600 by default; 0 turns every limit off). A game host's
back end driving many games from one address is then metered per seat, not as one anonymous
client (a 5-seat match is about 400 actions); a credential that does not check out is no
way around the network's limit, the request is charged to its network.

**Networks.** One IPv6 host owns a whole /64 (`NUMRULES_RATE_LIMIT_IPV6_PREFIX`); IPv4
clients are counted per address, or per network of `NUMRULES_RATE_LIMIT_IPV4_PREFIX` bits
(`network_of`).

**Client address.** The direct peer, unless it is one of `NUMRULES_TRUSTED_PROXIES` (IPs or
CIDRs): then `X-Forwarded-For` is read from the right, skipping the trusted proxies, and the
right-most address that is not one of them is the client (the left part of the header is
whatever the client wrote, so it is never believed). Without trusted proxies the header is
ignored: anyone could write it.

**Window.** A fixed window of one minute (`window_start` = the minute's first second), counted
per bucket: simple and one counter per bucket, at the price of letting up to twice the limit
through across a window's edge. `Retry-After` is the seconds left in the window. Every counted
answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds left;
IETF draft "RateLimit header fields for HTTP").

**Stores** (`NUMRULES_RATE_LIMIT_STORE`):

* `memory` (the default): a counter per bucket in the process. Free (no I/O per request, and
  a request without a credential touches no database at all); with N processes or replicas,
  a client gets up to N times the limit. Good enough to stop a runaway client, and it costs
  nothing on the rules endpoints' hot path (about a millisecond per request, where a
  database write would double that).
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
from typing import Any, NamedTuple, Protocol

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from api.db.models import RateLimit, table
from api.http.credentials import Credentials
from api.http.hygiene import COUNTED
from api.http.problems import ProblemError
from api.ops.settings import Settings
from engine.core.texts import Text, say, text

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


def scope_network(
    scope: Any, trusted: Sequence[Network], ipv4_prefix: int = 32, ipv6_prefix: int = 64
) -> str | None:
    """The network of a request's client as the rate limit counts it (None: no address)."""
    address = client_address(scope, trusted)
    return None if address is None else network_of(address, ipv4_prefix, ipv6_prefix)


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


class Limits(NamedTuple):
    """Requests a minute per bucket: a network's, a session's, seat's or sheet token's, a key's."""

    network: int
    credential: int
    api_key: int

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            settings.rate_limit_per_minute,
            settings.rate_limit_credential_per_minute,
            settings.api_key_rate_limit_per_minute,
        )


#: What a 429's detail says the bucket is.
_WHOSE = {
    "key": text("rate-limited-key", "with this API key", "avec cette clé d’API"),
    "session": text(
        "rate-limited-session", "with this account's sessions", "avec les sessions de ce compte"
    ),
    "seat": text("rate-limited-seat", "with this seat token", "avec ce jeton de place"),
    "sheet": text("rate-limited-sheet", "with this sheet token", "avec ce jeton de feuille"),
}
_FROM_NETWORK = text("rate-limited-network", "from this network", "depuis ce réseau")
RATE_LIMITED = text(
    "rate-limited",
    "more than {limit} requests a minute {whose}: retry in {reset} s",
    "plus de {limit} requêtes par minute {whose}\u00a0: réessayez dans {reset} s",
)


class RateLimiter:
    def __init__(
        self,
        limits: Limits,
        store: Store,
        trusted: Sequence[Network] = (),
        credentials: Credentials | None = None,
        clock: Callable[[], float] = time.time,
        ipv4_prefix: int = 32,
        ipv6_prefix: int = 64,
    ) -> None:
        self.limits = limits
        self.store = store
        self.trusted = tuple(trusted)
        self.credentials = credentials
        self.clock = clock
        self.ipv4_prefix = ipv4_prefix
        self.ipv6_prefix = ipv6_prefix

    async def bucket(self, scope: Any) -> tuple[str, int, Text] | None:
        """The request's bucket: its key, its limit and what the 429 calls it; None when
        there is nothing to count (no credential and no peer address: a Unix socket)."""
        address = client_address(scope, self.trusted)
        network = (
            None if address is None else network_of(address, self.ipv4_prefix, self.ipv6_prefix)
        )
        if self.credentials is not None:
            # lookups that find nothing are charged to the network, up to its limit a minute
            # (api/http/credentials.py, "Made-up tokens")
            found = await self.credentials.of(scope, network, self.limits.network)
            if found is not None and found.covers(scope["path"]):
                limit = self.limits.api_key if found.kind == "key" else self.limits.credential
                return found.bucket, limit, _WHOSE[found.kind]
        if network is None:
            return None
        return f"net:{network}", self.limits.network, _FROM_NETWORK

    async def check(self, scope: Any) -> list[tuple[bytes, bytes]]:
        """Count the request; its `RateLimit-*` headers (none when it was not counted), or
        429 once its bucket is over the limit in this window."""
        bucket = await self.bucket(scope)
        if bucket is None:
            return []
        key, limit, whose = bucket
        now = self.clock()
        window_start = int(now) // WINDOW_SECONDS * WINDOW_SECONDS
        try:
            count = await self.store.hit(key, window_start)
        except (TimeoutError, SQLAlchemyError, OSError) as exc:
            log.warning("rate limit store failed (%s): request let through", type(exc).__name__)
            return []
        reset = max(1, math.ceil(window_start + WINDOW_SECONDS - now))
        headers = [
            (b"ratelimit-limit", str(limit).encode()),
            (b"ratelimit-remaining", str(max(0, limit - count)).encode()),
            (b"ratelimit-reset", str(reset).encode()),
        ]
        if count > limit:
            raise ProblemError(
                429,
                "rate-limited",
                say(RATE_LIMITED, limit=limit, whose=say(whose), reset=reset),
                headers={
                    "Retry-After": str(reset),
                    **{name.decode(): value.decode() for name, value in headers},
                },
            )
        return headers


def exempt(path: str) -> bool:
    return path in EXEMPT or path == EXEMPT_PREFIX or path.startswith(EXEMPT_PREFIX + "/")


class RateLimitMiddleware(ASGIMiddleware):
    """The limiter, as Litestar middleware (after routing, inside the exception handling:
    a handler's error answer passes through it too and gets the `RateLimit-*` headers)."""

    scopes = (ScopeType.HTTP,)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.trusted = trusted_networks(settings.trusted_proxies)
        self.limiter: RateLimiter | None = None

    def _limiter(self, scope: Scope) -> RateLimiter:
        if self.limiter is None:
            state = scope["litestar_app"].state
            store: Store = MemoryStore()
            if self.settings.rate_limit_store == "database":
                store = DatabaseStore(state.db)
            credentials = Credentials(
                lambda: state.db, self.settings.rate_limit_credential_cache_seconds
            )
            self.limiter = RateLimiter(
                Limits.of(self.settings),
                store,
                self.trusted,
                credentials,
                ipv4_prefix=self.settings.rate_limit_ipv4_prefix,
                ipv6_prefix=self.settings.rate_limit_ipv6_prefix,
            )
        return self.limiter

    async def counted(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        """Count the request (not an exempt path): its `RateLimit-*` headers, or the 429."""
        return [] if exempt(scope["path"]) else await self._limiter(scope).check(scope)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        # counted already by the rules' fast path (api.rules.fast), which handed the request on
        verdict: Any = scope.pop(COUNTED, None)  # type: ignore[misc]
        if isinstance(verdict, ProblemError):
            raise verdict
        headers = verdict if verdict is not None else await self.counted(scope)
        if not headers:
            await next_app(scope, receive, send)
            return

        async def send_counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *headers]
            await send(message)

        await next_app(scope, receive, send_counted)


def rate_limit_middleware(settings: Settings) -> list[RateLimitMiddleware]:
    """The middleware for `Litestar(middleware=…)`: none when the limit is 0."""
    if settings.rate_limit_per_minute <= 0:
        return []
    return [RateLimitMiddleware(settings)]
