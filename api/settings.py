"""Service settings, read from the environment (pydantic-settings), all `NUMRULES_*`.

The server's own limits (keep-alive, concurrency, shutdown) reach uvicorn through
`api.server.server_options`; README "Configuration" lists every variable.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NUMRULES_", extra="ignore")

    cors_origins: list[str] = Field(
        default_factory=lambda: ["*"],
        description="origins allowed by CORS (JSON list); [] turns CORS off",
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
    graceful_shutdown_seconds: int = Field(
        default=10, ge=0, description="on shutdown, how long open requests may still finish"
    )
    debug: bool = False
    database_url: str = Field(
        default="sqlite+aiosqlite:///numrules.db",
        validation_alias=AliasChoices("DATABASE_URL", "database_url"),
        description="stored games' database (the conventional DATABASE_URL, no prefix);"
        " unset: the embedded SQLite file numrules.db in the working directory",
    )
    db_pool_size: int = Field(default=10, ge=1, description="PostgreSQL connection pool size")
    check_db_on_start: bool = Field(
        default=True,
        description="refuse to start unless the database is at the migrations' head",
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
