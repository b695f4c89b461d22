"""The public Num Win round: plain Python over the compiled :mod:`engine.numwin.kernel`,
checking a seat and an action once (see :mod:`engine.core.boundary`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.base import RoundSetup
from engine.core.boundary import KernelRound
from engine.core.tricks import check_seat
from engine.numwin.kernel import NumWinKernel
from engine.numwin.view import View, view

if TYPE_CHECKING:
    from engine.numwin.rules import NumWin


class NumWinRound(KernelRound[NumWinKernel]):
    """One round of Num Win in progress (the state machine: :class:`NumWinKernel`)."""

    __slots__ = ()

    def __init__(self, rules: NumWin, setup: RoundSetup) -> None:
        super().__init__(NumWinKernel(rules, setup))

    def view(self, seat: object) -> View:
        """What `seat` may see (None: a spectator); never another seat's hidden card."""
        return view(self.kernel, None if seat is None else check_seat(seat, self._players))
