"""The public Num Wars round: plain Python over the compiled :mod:`engine.numwars.kernel`,
checking a seat and an action once (see :mod:`engine.core.boundary`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.base import Deal, RoundSetup
from engine.core.boundary import KernelRound
from engine.core.tricks import check_seat
from engine.numwars.kernel import NumWarsKernel
from engine.numwars.view import View, view

if TYPE_CHECKING:
    from engine.numwars.rules import NumWars


class NumWarsRound(KernelRound[NumWarsKernel]):
    """One round of Num Wars in progress (the state machine: :class:`NumWarsKernel`)."""

    __slots__ = ()

    def __init__(self, rules: NumWars, setup: RoundSetup, *, deal: Deal | None = None) -> None:
        super().__init__(NumWarsKernel(rules, setup, deal=deal))

    def view(self, seat: object) -> View:
        """What `seat` may see (None: a spectator); never another seat's hidden card."""
        return view(self.kernel, None if seat is None else check_seat(seat, self._players))
