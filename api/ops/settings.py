"""Service settings, read from the environment (pydantic-settings), all `NUMRULES_*`.

The server's own limits (keep-alive, concurrency, shutdown) reach uvicorn through
`api.ops.server.server_options`; README "Configuration" lists every variable.
"""

from __future__ import annotations

import re
from ipaddress import ip_network
from typing import Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: What browsers' tracing and HTTP libraries add to cross-origin requests, granted by CORS
#: unless configured otherwise: W3C Trace Context (`traceparent`, `tracestate`) and Baggage
#: (OpenTelemetry's browser instrumentation), Sentry's `sentry-trace`, and the
#: `X-Requested-With` that jQuery and other libraries send. A preflight refused for one of
#: them fails the whole request, so a front-end with tracing on could not call the API.
TRACING_HEADERS = ("traceparent", "tracestate", "baggage", "sentry-trace", "x-requested-with")
#: An HTTP field name (RFC 9110 §5.1: a token).
_FIELD_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NUMRULES_", extra="ignore")

    cors_origins: list[str] = Field(
        default_factory=lambda: ["*"],
        description="origins allowed by CORS (JSON list); [] turns CORS off",
    )
    cors_extra_headers: list[str] = Field(
        default_factory=lambda: list(TRACING_HEADERS),
        description="request headers a CORS preflight may ask for besides the API's own "
        "(JSON list): by default those a browser's tracing or HTTP library adds; [] grants "
        "only the API's",
    )
    bot_samples: int = Field(
        default=24,
        ge=1,
        description="bots and hints (issue 25): the worlds an expert move or a hint searches "
        "at most",
    )
    bot_seconds: float = Field(
        default=1.0,
        gt=0,
        allow_inf_nan=False,  # inf: no time cap, and a dead process's hint claim never lapses
        description="bots and hints: the wall time an expert move or a hint thinks at most",
    )
    bot_workers: int = Field(
        default=1,
        ge=0,
        description="bots and hints: the processes that think (a ProcessPoolExecutor, off the "
        "event loop); 0: one thread instead (tests)",
    )
    bot_sweep_seconds: float = Field(
        default=2.0,
        gt=0,
        description="bots: how often each replica looks for games owing a bot move that no "
        "process is playing (a replica died in between), `FOR UPDATE SKIP LOCKED`",
    )
    waiting_hours: float = Field(
        default=24,
        gt=0,
        description="a game with open seats that has not started after this many hours is "
        "abandoned (issue 26): the open tables' list hides it, its first access abandons it",
    )
    clock_sweep_seconds: float = Field(
        default=1.0,
        gt=0,
        le=2.0,
        description="turn clocks (issue 26): how often each replica applies the timeouts of "
        "clocked games whose deadline has passed (`FOR UPDATE SKIP LOCKED`); a timeout then "
        "applies at most this late even when nobody reads the game (a read or an action "
        "applies it at once)",
    )
    hints_per_minute: int = Field(
        default=10,
        ge=0,
        description="hints: the hints a seat may ask a minute (past it: 429 `hint-rate-limited` "
        "with `Retry-After`); 0: no limit. One hint in flight per seat in any case",
    )
    bot_cpu_seconds: float = Field(
        default=600.0,
        ge=0,
        description="bots: the think time (CPU seconds) the bots of the games one account "
        "created (or one network, for games created without a session) may spend per "
        "`NUMRULES_BOT_CPU_WINDOW_SECONDS`; past it their moves are `basic` and new games with "
        "an `expert` seat are refused (429 `bot-quota`); 0: no quota",
    )
    bot_cpu_window_seconds: int = Field(
        default=3600,
        ge=60,
        description="bots: the rolling window of the bot-CPU quota, in seconds (counted by the "
        "minute)",
    )
    bot_hold: bool = Field(
        default=False,
        description="tests only: this process never plays a bot move itself (the two-process "
        "test's process A, killed with a bot move owed)",
    )
    max_body_bytes: int = Field(
        default=64 * 1024, description="request body cap (contract: 64 KiB)"
    )
    cors_max_age: int = Field(
        default=600, ge=0, description="seconds a browser may cache a CORS preflight's answer"
    )
    keep_alive_seconds: int = Field(
        default=5,
        gt=0,
        description="an idle keep-alive connection is closed after this many seconds",
    )
    max_concurrency: int = Field(
        default=1000,
        ge=1,
        description="open connections and tasks the server accepts before answering 503",
    )
    max_streams: int = Field(
        default=500,
        ge=0,
        description="event streams one process holds at most (then 503 too-many-streams); "
        "keep it under max_concurrency so the rest of the API still answers",
    )
    max_streams_per_network: int = Field(
        default=50,
        ge=0,
        description="event streams one client network (an IPv4 address, an IPv6 /64: the rate "
        "limit's networks) holds at most in one process (then 503 too-many-streams), so that "
        "one client cannot take every stream of the process; 0: no such cap",
    )
    graceful_shutdown_seconds: int = Field(
        default=10, ge=0, description="on shutdown, how long open requests may still finish"
    )
    header_timeout_seconds: float = Field(
        default=5,
        gt=0,
        description="a request's line and headers must arrive whole within this many seconds "
        "of its first byte (of the connection, for its first request); then 408 and close",
    )
    body_timeout_seconds: float = Field(
        default=10,
        gt=0,
        description="a request's body must arrive whole within this many seconds of its "
        "headers; then 408 and close",
    )
    max_header_bytes: int = Field(
        default=32_768,
        ge=1024,
        description="a request's line and headers hold at most this many bytes; then 431 and "
        "close (nginx's default buffers hold 32 KiB)",
    )
    debug: bool = False
    # -- operations (issue 13): logs, rate limiting (api/ops/logs.py, api/ops/ratelimit.py) ---------
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", description="the service's log level (numrules.* and uvicorn.*)"
    )
    log_format: Literal["json", "text"] = Field(
        default="json", description="json: one JSON object a line; text: for a terminal"
    )
    rate_limit_per_minute: int = Field(
        default=600, ge=0, description="requests per client address a minute; 0 turns it off"
    )
    rate_limit_store: Literal["memory", "database"] = Field(
        default="memory", description="memory: per process; database: shared by replicas"
    )
    rate_limit_ipv4_prefix: int = Field(
        default=32,
        ge=8,
        le=32,
        description="IPv4 clients are counted per network of this prefix length (32: per address)",
    )
    rate_limit_ipv6_prefix: int = Field(
        default=64,
        ge=16,
        le=128,
        description="IPv6 clients are counted per network of this prefix length (a host owns a /64)",
    )
    rate_limit_credential_per_minute: int = Field(
        default=3000,
        ge=1,
        description="requests a minute per session, seat token or sheet token (issue 21: a "
        "game host's back end drives many games from one address)",
    )
    api_key_rate_limit_per_minute: int = Field(
        default=12000,
        ge=1,
        description="requests a minute per API key (integrators' back ends)",
    )
    rate_limit_credential_cache_seconds: float = Field(
        default=30.0,
        ge=0,
        le=60,
        description="how long a process trusts a credential lookup of the limiter (an API "
        "key's revocation takes effect within it; at most 60 s, the contract's bound)",
    )
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="proxies (IPs or CIDRs, JSON list) whose X-Forwarded-For is believed",
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, level: object) -> object:
        return level.upper() if isinstance(level, str) else level

    @field_validator("cors_extra_headers")
    @classmethod
    def _header_names(cls, names: list[str]) -> list[str]:
        for name in names:
            if name == "*" or not _FIELD_NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not a header name")
        return names

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, proxies: list[str]) -> list[str]:
        for proxy in proxies:
            try:
                ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"{proxy!r} is not an IP address or CIDR") from None
        return proxies

    database_url: str = Field(
        default="sqlite+aiosqlite:///numrules.db",
        validation_alias=AliasChoices("DATABASE_URL", "database_url"),
        description="stored games' database (the conventional DATABASE_URL, no prefix);"
        " unset: the embedded SQLite file numrules.db in the working directory",
    )
    host: str = Field(
        default="127.0.0.1",
        validation_alias=AliasChoices("HOST", "host"),
        description="the address `numrules serve` listens on (the conventional HOST)",
    )
    port: int = Field(
        default=8000,
        ge=1,
        le=65535,
        validation_alias=AliasChoices("PORT", "port"),
        description="the port `numrules serve` listens on (the conventional PORT)",
    )
    workers: int = Field(
        default=1, ge=1, description="uvicorn worker processes of `numrules serve`"
    )
    db_pool_size: int = Field(default=10, ge=1, description="PostgreSQL connection pool size")
    db_connect_timeout_seconds: float = Field(
        default=5.0,
        gt=0,
        description="opening a database connection gives up after this (then 503 "
        "database-unavailable; at start-up, one line and a non-zero exit)",
    )
    db_statement_timeout_seconds: float = Field(
        default=5.0,
        gt=0,
        description="each database statement may run this long (PostgreSQL's "
        "statement_timeout; a server that does not answer at all is given up half a second "
        "later; SQLite's lock wait), then 503 database-unavailable",
    )
    db_pool_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="a request waits this long for a free pooled connection under a burst, "
        "then 503 database-unavailable",
    )
    group_commit_ms: float = Field(
        default=1.0,
        ge=0,
        le=100,
        allow_inf_nan=False,
        description="PostgreSQL: stored games' actions share commits (issue 27): the actions "
        "that arrive while another action's transaction is under way are applied in one "
        "transaction, in the order of their games' ids, and each is answered after its one "
        "COMMIT; this is the most milliseconds an action waits for the transaction under way "
        "before its batch starts (an action that finds none under way runs alone at once); "
        "0: each action commits alone",
    )
    match_cache_size: int = Field(
        default=2048,
        ge=1,
        le=1_000_000,
        description="stored games: how many games' matches a process keeps (the least recently "
        "used go first; a game not kept is loaded again from its checkpoint and the round's "
        "actions when it is next read or played); also the most games whose seats' names "
        "and tokens it keeps",
    )
    hot_actions: bool = Field(
        default=True,
        description="PostgreSQL: an action on a game this process holds at its last version "
        "(an active game without bots; no If-Match or Idempotency-Key) is written by one "
        "statement in autocommit, guarded by that version, the game's clocks and the seat's "
        "token, the locked path taking over when the guard fails; false: every action takes "
        "the locked path (BEGIN, the locked read, the write, COMMIT), where shared commits apply",
    )
    sole_reads: bool = Field(
        default=True,
        description="PostgreSQL: while no other client is connected to the database (another "
        "worker, a replica, psql), a seat's read of a game in play is answered from what this "
        "process wrote last, without a statement (api/db/sole.py: the lease, looked at every "
        "0.1 s; others' writes wait for it to end); false: every read asks the database",
    )
    fast_games: bool = Field(
        default=True,
        description="a game in play's two requests (GET /v1/games/{id} and POST "
        "/v1/games/{id}/actions with a seat token, no If-Match or Idempotency-Key, no Origin) "
        "are answered without Litestar's pipeline, with the same bytes (api/games/fast.py); "
        "false: every request takes the pipeline",
    )
    check_db_on_start: bool = Field(
        default=True,
        description="refuse to start unless the database is at the migrations' head",
    )

    # -- accounts (issue 12) ----------------------------------------------------------------
    session_days: int = Field(default=30, ge=1, description="a session token expires after")
    # The log-in throttle (issue 21; README "Sessions"): strict per (login, client network),
    # a much higher per-login ceiling that only slows the networks failing on that login.
    login_max_failures: int = Field(
        default=5,
        ge=1,
        description="log-in attempts of one login from one client network within "
        "login_window_seconds before 429 (a success clears them)",
    )
    login_max_failures_per_address: int = Field(
        default=50,
        ge=1,
        description="log-in attempts from one client network, whatever the login, within the "
        "window before 429 (a success is not counted)",
    )
    login_ceiling: int = Field(
        default=100,
        ge=1,
        description="log-in attempts of one login from every network within the window past "
        "which the networks that have failed on it wait a growing delay (never a clean one)",
    )
    login_window_seconds: int = Field(
        default=900, ge=1, description="the log-in throttle's window (seconds)"
    )
    password_hash_time_cost: int = Field(
        default=3, ge=1, description="Argon2id passes (argon2-cffi's RFC 9106 low-memory profile)"
    )
    password_hash_memory_kib: int = Field(
        default=65536, ge=8192, description="Argon2id memory per hash (KiB)"
    )
    smtp_host: str | None = Field(
        default=None, description="SMTP server for verification and reset emails; unset: no email"
    )
    smtp_port: int = Field(default=25, ge=1, le=65535)
    smtp_from: str = Field(default="numrules <no-reply@localhost>", description="From: header")
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_starttls: bool = Field(default=False, description="upgrade the SMTP connection (STARTTLS)")
    smtp_timeout_seconds: float = Field(default=10.0, gt=0)
    app_url: str | None = Field(
        default=None,
        description="the front-end's base URL: emails then add a link ending ?token=<token>",
    )

    @field_validator("database_url")
    @classmethod
    def _async_driver(cls, url: str) -> str:
        """Plain `postgres://` / `postgresql://` URLs (as hosts hand them out) use asyncpg."""
        for scheme in ("postgres://", "postgresql://"):
            if url.startswith(scheme):
                return "postgresql+asyncpg://" + url[len(scheme) :]
        if not url.startswith(("postgresql+asyncpg://", "sqlite+aiosqlite://")):
            scheme = url.split("://", 1)[0] if "://" in url else url[:20]
            raise ValueError(
                f"{scheme!r} is not supported: use postgresql+asyncpg://… (or postgresql://…) "
                "or sqlite+aiosqlite:///file.db"
            )
        return url
