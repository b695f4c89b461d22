"""Shared pieces of the tests of a round's stored state (engine/<game>/state.py): a progress
whose state is spoilt, and the refusal it must get."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from engine.core.errors import InvalidInput
from engine.core.match import Match, MatchCheckpoint, MatchRules


def spoilt(cp: MatchCheckpoint, change: Callable[[list[Any]], None]) -> MatchCheckpoint:
    """`cp` with its stored state (a JSON array) changed in place by `change`."""
    data = msgspec.json.decode(cp.state)
    change(data)
    return msgspec.structs.replace(cp, state=msgspec.Raw(msgspec.json.encode(data)))


def check_state_refused(rules: MatchRules, players: int, seed: int, cp: MatchCheckpoint) -> None:
    """Resuming `cp` is refused for its state: `bad-checkpoint` on `checkpoint.state`, in
    English and in French."""
    with pytest.raises(InvalidInput) as exc:
        Match.resume(rules, players, seed, cp)
    error = exc.value
    assert error.code == "bad-checkpoint", bytes(cp.state)
    assert error.errors[0].field == "checkpoint.state"
    assert "state is not the stored state of this round" in error.render("en")
    assert "state n’est pas l’état enregistré de cette manche" in error.render("fr")
