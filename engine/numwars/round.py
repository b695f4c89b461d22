"""The public Num Wars round: plain Python over the compiled :mod:`engine.numwars.kernel`,
checking a seat and an action once (see :mod:`engine.core.boundary`).

The round is built from values (as OpenSpiel's ``HeartsGame::NewInitialState`` hands its
parameters to the state): the options of the rules object it belongs to, and the deal of
:func:`engine.numwars.cards.deal_round`. It keeps that rules object as `rules` for its
callers, and never calls it.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from engine.core.actions import Action
from engine.core.base import Deal, RoundSetup
from engine.core.boundary import KernelRound
from engine.core.tricks import check_seat
from engine.numwars import state
from engine.numwars.cards import deal_round
from engine.numwars.kernel import NumWarsKernel
from engine.numwars.options import NumWarsOptions
from engine.numwars.view import View, view


class NumWarsOwner(Protocol):
    """The rules object a round belongs to, as the round reads it: its options' values."""

    @property
    def options(self) -> NumWarsOptions: ...


class NumWarsRound(KernelRound[NumWarsKernel]):
    """One round of Num Wars in progress (the state machine: :class:`NumWarsKernel`)."""

    __slots__ = ("rules",)

    def __init__(self, rules: NumWarsOwner, setup: RoundSetup, *, deal: Deal | None = None) -> None:
        """The round of `setup` under `rules`' options; `deal` replaces the seeded deal
        (scripted rounds, puzzles)."""
        options = rules.options
        kernel = NumWarsKernel(
            setup,
            deal_round(setup) if deal is None else deal,
            exchange=options.exchange,
            options=options,
            scripted=deal is not None,
        )
        self.rules = rules
        super().__init__(kernel)

    def view(self, seat: object) -> View:
        """What `seat` may see (None: a spectator); never another seat's hidden card."""
        return view(self.kernel, None if seat is None else check_seat(seat, self._players))

    def save_state(self) -> msgspec.Raw:
        """The round's state as a stored game's progress keeps it (`engine.numwars.state`)."""
        return state.save(self.kernel)

    def load_state(self, saved: msgspec.Raw, played: list[tuple[int, Action]]) -> bool:
        """This round, freshly dealt, made the one `saved` describes after `played`: see
        :func:`engine.numwars.state.load`."""
        return state.load(self.kernel, saved, played)
