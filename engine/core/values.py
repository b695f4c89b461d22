"""The small result values that both a round's results (:mod:`engine.core.base`) and its
events' details (:mod:`engine.core.events`) are made of, below both (no import cycle);
:mod:`engine.core.base` exports them with the other values (STYLE 5)."""

from __future__ import annotations

import msgspec

__all__ = ["BombResult", "Capture", "TeamScore", "Value"]


class Value(msgspec.Struct, frozen=True, kw_only=True):
    """Base of the engine's result values."""


class Capture(Value, frozen=True):
    seat: int
    cards: list[str]


class BombResult(Value, frozen=True):
    outcome: str
    captured_by: int | None
    neutralized: str | None


class TeamScore(Value, frozen=True):
    seats: list[int]
    score: int
