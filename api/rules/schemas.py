"""The catalogue's answers (api-contract.md, "Stateless rules endpoints"). The stateless
operations' request bodies are each game's own (`engine/<game>/requests.py`, shared pieces in
engine/core/requests.py), declared by its spec (engine/core/spec.py).
"""

from __future__ import annotations

import msgspec

# --- catalogue --------------------------------------------------------------------------------


class PlayerRange(msgspec.Struct, frozen=True):
    min: int
    max: int


class RulesetInfo(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    id: str
    name: str
    players: PlayerRange
    options: dict[str, object]
    rules_version: int  # engine.core.match "Rules versions": what a stored game is replayed by
    # rules/app.md "Jeux de la communauté 🔒": its games and sheets need an account's session
    community: bool
    lowest_wins: bool  # the lowest total wins the match (numwin), else the highest
    #: the bot levels a stored game's seat may be (issue 25: `{"name", "bot": level}`)
    bots: list[str] = []
    description: str | None = None
    summary: dict[str, str] | None = None
    language: str | None = None


class Catalogue(msgspec.Struct, frozen=True):
    rulesets: list[RulesetInfo]


class Health(msgspec.Struct, frozen=True):
    status: str
