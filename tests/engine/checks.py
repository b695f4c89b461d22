"""Shared pieces of the property tests that compare a fast path's input checks with the shared
checks (numwars/test_checks.py, numwars_classic/test_checks.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from engine.core.base import TrickCard
from engine.core.errors import EngineError


def outcome(call: Callable[[], Any]) -> tuple[str, ...]:
    """What a call did: its error's type, code, message and field errors, or 'ok'."""
    try:
        call()
    except EngineError as err:
        fields = tuple((e.field, e.message) for e in getattr(err, "errors", []))
        return (type(err).__name__, err.code, err.message, repr(fields))
    return ("ok",)


def seated_trick(draw: st.DrawFn, played: list[Any], leader: int, n: int) -> list[TrickCard]:
    """The played cards as a trick led by `leader`, sometimes with one seat out of order or
    out of range, sometimes with a declaration on one card."""
    seats: list[Any] = [(leader + i) % n for i in range(len(played))]
    if draw(st.integers(0, 5)) == 0 and seats:
        seats[draw(st.integers(0, len(seats) - 1))] = draw(st.integers(-1, n + 1))
    declared: list[int | None] = [None] * len(played)
    if draw(st.integers(0, 7)) == 0 and declared:
        declared[draw(st.integers(0, len(declared) - 1))] = 17
    return [
        TrickCard(seat=s, card=c, declared=d)
        for s, c, d in zip(seats, played, declared, strict=True)
    ]
