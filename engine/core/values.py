"""The small result values that both a round's results (:mod:`engine.core.base`) and its
events' details (:mod:`engine.core.events`) are made of, below both (no import cycle);
:mod:`engine.core.base` exports them with the other values (STYLE 5)."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = [
    "BOMB_OUTCOMES",
    "ROLES",
    "BombOutcome",
    "BombResult",
    "Capture",
    "Role",
    "TeamScore",
    "Value",
]

#: Num Wars' roles and the Bomb's fates (rules/numwars.md "Set-up", "The Bomb"): here because
#: the answers every game shares carry them (`Deal.roles`, `BombResult.outcome`, events).
ROLES = ("poseur", "complice", "demineur", "agent", "civil")
BOMB_OUTCOMES = (
    "numx-capture",
    "stolen",
    "civil-capture",
    "complice-capture",
    "protected",
    "protected-quantum",
    "kept",
)
Role = Annotated[str, msgspec.Meta(extra_json_schema={"enum": list(ROLES)})]
BombOutcome = Annotated[str, msgspec.Meta(extra_json_schema={"enum": list(BOMB_OUTCOMES)})]


class Value(msgspec.Struct, frozen=True, kw_only=True):
    """Base of the engine's result values."""


class Capture(Value, frozen=True):
    seat: int
    cards: list[str]


class BombResult(Value, frozen=True):
    outcome: BombOutcome
    captured_by: int | None
    neutralized: str | None


class TeamScore(Value, frozen=True):
    seats: list[int]
    score: int
