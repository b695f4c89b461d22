"""Service settings, read from the environment (pydantic-settings), all `NUMRULES_*`."""

from __future__ import annotations

from pydantic import Field
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
    debug: bool = False
