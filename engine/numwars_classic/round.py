"""The public Num Wars classic round: plain Python over the compiled :mod:`engine.numwars_classic.kernel`,
checking a seat and an action once (see :mod:`engine.core.boundary`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.base import RoundSetup
from engine.core.boundary import KernelRound
from engine.core.tricks import check_seat
from engine.numwars_classic.kernel import ClassicKernel
from engine.numwars_classic.view import View, view

if TYPE_CHECKING:
    from engine.numwars_classic.rules import NumWarsClassic


class ClassicRound(KernelRound[ClassicKernel]):
    """One round of Num Wars classic in progress (the state machine: :class:`ClassicKernel`)."""

    __slots__ = ()

    def __init__(self, rules: NumWarsClassic, setup: RoundSetup) -> None:
        super().__init__(ClassicKernel(rules, setup))

    def view(self, seat: object) -> View:
        """What `seat` may see (None: a spectator); never another seat's hidden card."""
        return view(self.kernel, None if seat is None else check_seat(seat, self._players))
