"""The public Num Win round: plain Python over the compiled :mod:`engine.numwin.kernel`,
checking a seat and an action once (see :mod:`engine.core.boundary`).

The round is built from values (as OpenSpiel's ``HeartsGame::NewInitialState`` hands its
parameters to the state): the options and the rules version of the rules object it belongs
to, and the checked seeded deal of :mod:`engine.numwin.cards` with the round's generator. It
keeps that rules object as `rules` for its callers, and never calls it.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from engine.core.actions import Action
from engine.core.base import RoundSetup
from engine.core.boundary import KernelRound
from engine.core.tricks import check_seat
from engine.numwin import state
from engine.numwin.cards import DECK, check_setup, shuffled
from engine.numwin.kernel import NumWinKernel
from engine.numwin.options import NumWinOptions
from engine.numwin.view import View, view


class NumWinOwner(Protocol):
    """The rules object a round belongs to, as the round reads it: its options' values and
    the rules version it plays (engine.core.match "Rules versions")."""

    @property
    def options(self) -> NumWinOptions: ...

    @property
    def version(self) -> int: ...


class NumWinRound(KernelRound[NumWinKernel]):
    """One round of Num Win in progress (the state machine: :class:`NumWinKernel`)."""

    __slots__ = ("rules",)

    def __init__(self, rules: NumWinOwner, setup: RoundSetup) -> None:
        """The round of `setup` under `rules`' options and version (checked, then dealt)."""
        options = rules.options
        check_setup(setup, teams=options.teams)
        pile, hands, starter, rng = shuffled(setup)
        kernel = NumWinKernel(
            setup,
            pile,
            hands,
            starter,
            rng,
            teams=options.teams,
            rulings=rules.version >= 2,
            max_turns=options.max_turns,
        )
        self.rules = rules
        super().__init__(kernel)

    def dealt(self, seat: int) -> list[str]:
        """`seat`'s combination, position by position: what its `deal` event shows it at a
        round's start ("Knowledge": a player sees the cards dealt to them)."""
        return [DECK[card] for card in self.kernel.comb[seat]]

    def view(self, seat: object) -> View:
        """What `seat` may see (None: a spectator); never another seat's hidden card."""
        return view(self.kernel, None if seat is None else check_seat(seat, self._players))

    def save_state(self) -> msgspec.Raw:
        """The round's state as a stored game's progress keeps it (`engine.numwin.state`)."""
        return state.save(self.kernel)

    def load_state(self, saved: msgspec.Raw, played: list[tuple[int, Action]]) -> bool:
        """This round, freshly dealt, made the one `saved` describes after `played`: see
        :func:`engine.numwin.state.load`."""
        return state.load(self.kernel, saved, played)
