"""The public Num King round over its state machine, :mod:`engine.numking.kernel` (compiled
by the mypyc build like every game's kernel, see setup.py).

The round is built from values (as OpenSpiel's ``HeartsGame::NewInitialState`` hands its
parameters to the state): the options of the rules object it belongs to, the deck's tables,
and the checked setup's deal as strength ranks (:mod:`engine.numking.cards`). It keeps that
rules object as `rules` for its callers, and never calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.core.base import RoundSetup
from engine.core.boundary import KernelRound
from engine.core.tricks import check_seat
from engine.numking.cards import check_setup, dealt_ranks, deck_tables, scripted_ranks
from engine.numking.kernel import NumKingKernel
from engine.numking.options import NumKingOptions
from engine.numking.view import View, view


class NumKingOwner(Protocol):
    """The rules object a round belongs to, as the round reads it: its options' values."""

    @property
    def options(self) -> NumKingOptions: ...


class NumKingRound(KernelRound[NumKingKernel]):
    """One round: bids from the first bidder clockwise, then k tricks (rules "Rounds"; the
    state machine: :class:`NumKingKernel`).

    `hands` (optional) replaces the seeded deal, for tests and puzzles: such a round is not
    rebuilt by its setup alone.
    """

    __slots__ = ("rules",)

    def __init__(
        self,
        rules: NumKingOwner,
        setup: RoundSetup,
        hands: Sequence[Sequence[str]] | None = None,
    ) -> None:
        options = rules.options
        tables = deck_tables(options.zeros)
        first = check_setup(setup, options, len(tables.cards))
        if hands is None:
            order = dealt_ranks(setup, tables)
        else:
            order = scripted_ranks(tables, options.zeros, setup.players, setup.round, hands)
        self.rules = rules
        super().__init__(NumKingKernel(setup, tables, order, first_bidder=first))

    def view(self, seat: object) -> View:
        """Public data plus `seat`'s own hand; never another hand nor the reserve."""
        return view(self.kernel, None if seat is None else check_seat(seat, self._players))
