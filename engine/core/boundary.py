"""The public round object over a game's compiled kernel (issue 9, "The compiled engine,
contained"; STYLE 4: legality is checked once, at the boundary).

A game's state machine lives in its `kernel.py`, which the mypyc build compiles (setup.py
finds every `engine/*/kernel.py`). Compiled code enforces declared types at run time: it
would take `True` for seat 1, or raise a bare TypeError for a seat `"0"` or an action built
by hand with a wrongly typed field. So a kernel takes plain typed arguments (`seat: int`, an
`Action` whose fields have their declared types), and the round object the engine hands out,
:class:`KernelRound`, is plain Python: it checks the seat (:func:`check_seat`) and the action's
fields (:func:`check_fields`) once, then calls the kernel. Both builds therefore refuse a bad
seat or field with the same :class:`InvalidInput`.

Everything else a kernel offers (`hands`, `trick`, `roles` …, read by tests and tools) is
read and written through to it; the protocol's own attributes are properties.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar

from engine.core.actions import Action, check_fields
from engine.core.base import RoundScore, RoundSetup
from engine.core.events import EventBase
from engine.core.tricks import check_seat

__all__ = ["Kernel", "KernelRound"]


class Kernel(Protocol):
    """What a compiled kernel offers its round object: the round protocol, typed args."""

    setup: RoundSetup
    history: list[tuple[int, Action]]

    @property
    def phase(self) -> Any: ...

    @property
    def current_player(self) -> int | None: ...

    @property
    def is_over(self) -> bool: ...

    def actors(self) -> list[int]: ...

    def legal_actions(self, seat: int) -> list[Any]: ...

    def apply(self, seat: int, action: Action) -> list[EventBase]: ...

    def scores(self) -> RoundScore | None: ...

    def snapshot(self) -> dict[str, Any]: ...


K = TypeVar("K", bound=Kernel)


class KernelRound(Generic[K]):
    """A round in progress, over its kernel `k` (see the module docstring)."""

    __slots__ = ("k", "players")

    def __init__(self, kernel: K) -> None:
        self.k = kernel
        self.players = kernel.setup.players

    @property
    def setup(self) -> RoundSetup:
        return self.k.setup

    @property
    def history(self) -> list[tuple[int, Action]]:
        return self.k.history

    @property
    def phase(self) -> Any:
        return self.k.phase

    @property
    def current_player(self) -> int | None:
        return self.k.current_player

    @property
    def is_over(self) -> bool:
        return self.k.is_over

    def actors(self) -> list[int]:
        return self.k.actors()

    def legal_actions(self, seat: object) -> list[Action]:
        return self.k.legal_actions(check_seat(seat, self.players))

    def apply(self, seat: object, action: Action) -> list[EventBase]:
        """Check the seat and the action's field types, then apply it (the kernel checks its
        legality; nothing changes when it is refused)."""
        seat = check_seat(seat, self.players)
        check_fields(action)
        return self.k.apply(seat, action)

    def scores(self) -> RoundScore | None:
        return self.k.scores()

    def snapshot(self) -> dict[str, Any]:
        return self.k.snapshot()

    def __getattr__(self, name: str) -> Any:
        """Any other attribute is the kernel's (`hands`, `trick`, `roles` …)."""
        if name == "k":  # not set yet: no kernel to read through to
            raise AttributeError(name)
        return getattr(self.k, name)

    def __setattr__(self, name: str, value: Any) -> None:
        """Setting one is setting the kernel's (scripted tests set up positions so)."""
        if name in KernelRound.__slots__:
            object.__setattr__(self, name, value)
        else:
            setattr(self.k, name, value)
