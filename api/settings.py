"""Service settings, read from the environment (pydantic-settings).

`DATABASE_URL` has no prefix (the usual twelve-factor name); everything else is `NUMRULES_*`.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NUMRULES_", extra="ignore")

    database_url: str = Field(
        default="sqlite+aiosqlite:///numrules.db",
        validation_alias="DATABASE_URL",
        description="SQLAlchemy async URL; an embedded SQLite file when unset",
    )
    cors_origins: list[str] = Field(
        default_factory=lambda: ["*"],
        description="origins allowed by CORS (JSON list); [] turns CORS off",
    )
    max_body_bytes: int = Field(
        default=64 * 1024, description="request body cap (contract: 64 KiB)"
    )
    log_level: str = "INFO"
    debug: bool = False
