"""The public round object over a game's compiled kernel (issue 9, "The compiled engine,
contained"; STYLE 4: legality is checked once, at the boundary).

A game's state machine lives in its `kernel.py`, which the mypyc build compiles (setup.py
finds every game's). Compiled code enforces declared types at run time: it
would take `True` for seat 1, or raise a bare TypeError for a seat `"0"` or an action built
by hand with a wrongly typed field. So a kernel's state machine takes plain typed arguments
(`seat: int`, an `Action` whose fields have their declared types), and the round object the
engine hands out, :class:`KernelRound`, is plain Python. Every seat and action it receives is
checked once, by :func:`check_seat` and :func:`check_fields`, before the state machine sees
it, so both builds refuse a bad seat or field with the same :class:`InvalidInput`.

The calls a play-out makes at every step (`legal_actions`, `apply`, `actors`) are the
kernel's own *checked entry points* (`checked_legal_actions`, `checked_apply`), bound on the
round object when it is made: they run those same checks, compiled, then the typed state
machine. A Python method in between cost a frame per call, 15 % of a numwars-classic
play-out (docs/bench-history.md, "Results (session 5 …)"). The other calls (`view`,
`scores`, `snapshot`) are Python methods here and in the game's round, and everything else
a kernel offers (`hands`, `trick`, `roles` …, read by tests and tools) is read and written
through to it by properties (see :func:`_forward`).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from engine.core.actions import Action
from engine.core.base import RoundScore, RoundSetup
from engine.core.events import EventBase

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

    def checked_legal_actions(self, seat: object) -> list[Any]:
        """`legal_actions` of any `seat` argument: a bad one is `check_seat`'s error."""
        ...

    def checked_apply(self, seat: object, action: Action) -> list[EventBase]:
        """`apply` once the seat (`check_seat`) and the action's field types
        (`check_fields`) are checked: a bad one is their error, and nothing changes."""
        ...

    def scores(self) -> RoundScore | None: ...

    def snapshot(self) -> dict[str, Any]: ...


K = TypeVar("K", bound=Kernel)


class KernelRound(Generic[K]):
    """A round in progress, over its `kernel` (see the module docstring)."""

    __slots__ = ("_players", "actors", "apply", "kernel", "legal_actions")

    #: The kernel's checked entry points, bound when the round is made (module docstring).
    actors: Callable[[], list[int]]
    legal_actions: Callable[[object], list[Action]]
    #: Check the seat and the action's field types, then apply it (the kernel checks its
    #: legality; nothing changes when it is refused).
    apply: Callable[[object, Action], list[EventBase]]

    def __init__(self, kernel: K) -> None:
        self.kernel = kernel
        self._players = kernel.setup.players
        self.actors = kernel.actors
        self.legal_actions = kernel.checked_legal_actions
        self.apply = kernel.checked_apply
        if not type(self).__dict__.get("_forwarded"):
            _forward(type(self), kernel)

    if TYPE_CHECKING:

        @property
        def setup(self) -> RoundSetup: ...

        @property
        def history(self) -> list[tuple[int, Action]]: ...

        @property
        def phase(self) -> Any: ...

        @property
        def current_player(self) -> int | None: ...

        @property
        def is_over(self) -> bool: ...

    else:  # read through to the kernel by C-level getters: play-outs read these every step
        setup = property(attrgetter("kernel.setup"))
        history = property(attrgetter("kernel.history"))
        phase = property(attrgetter("kernel.phase"))
        current_player = property(attrgetter("kernel.current_player"))
        is_over = property(attrgetter("kernel.is_over"))

    def scores(self) -> RoundScore | None:
        return self.kernel.scores()

    def snapshot(self) -> dict[str, Any]:
        return self.kernel.snapshot()

    if TYPE_CHECKING:  # the kernel's other attributes, forwarded by `_forward`

        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...


def _forward(cls: type[KernelRound[Any]], kernel: Kernel) -> None:
    """Give `cls` a property for each attribute and method of `kernel` it does not define
    itself (`hands`, `trick`, `roles` …), read and written through to the kernel.

    Properties rather than a `__getattr__` hook: a class with that hook pays for it on every
    attribute look-up, the play-out loop's included (about 50 ns each). Built from the first
    kernel, so every attribute a kernel sets in its constructor is found, in the compiled
    build (descriptors on the class) and the pure one (`__slots__` or the instance dict).
    """
    for name in dir(kernel):
        if name.startswith("__") or hasattr(cls, name):
            continue
        setattr(cls, name, _through(name))
    cls._forwarded = True  # type: ignore[attr-defined]


def _through(name: str) -> property:
    """A property reading and writing the kernel's attribute `name`."""

    def set_(self: KernelRound[Any], value: Any) -> None:
        setattr(self.kernel, name, value)

    return property(attrgetter(f"kernel.{name}"), set_)
