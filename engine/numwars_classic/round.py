"""The public Num Wars classic round: plain Python over the compiled
:mod:`engine.numwars_classic.kernel`, checking a seat and an action once (see
:mod:`engine.core.boundary`).

The round is built from values (as OpenSpiel's ``HeartsGame::NewInitialState`` hands its
parameters to the state): the options of the rules object it belongs to, the sizes and the
checked seeded deal of :mod:`engine.numwars_classic.cards`. It keeps that rules object as
`rules` for its callers, and never calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from engine.core.actions import Action
from engine.core.base import RoundSetup
from engine.core.boundary import KernelRound
from engine.core.tricks import check_seat
from engine.numwars_classic import state
from engine.numwars_classic.cards import DECK, check_setup, deal_hands, exchange_size, hand_size
from engine.numwars_classic.kernel import ClassicKernel
from engine.numwars_classic.options import ClassicOptions
from engine.numwars_classic.tricks import sort_cards
from engine.numwars_classic.view import View, view


class ClassicOwner(Protocol):
    """The rules object a round belongs to, as the round reads it: its options' values."""

    @property
    def options(self) -> ClassicOptions: ...


class ClassicRound(KernelRound[ClassicKernel]):
    """One round of Num Wars classic in progress (the state machine: :class:`ClassicKernel`)."""

    __slots__ = ("rules",)

    def __init__(self, rules: ClassicOwner, setup: RoundSetup) -> None:
        """The round of `setup` under `rules`' options (the setup checked, then dealt)."""
        options = rules.options
        check_setup(setup, alliance=options.alliance)
        n = setup.players
        hands, undealt = deal_hands(setup, hand_size(n, speed=options.speed))
        kernel = ClassicKernel(
            setup,
            hands,
            undealt,
            alliance=options.alliance,
            exchange_size=exchange_size(n, speed=options.speed),
            options=options,
        )
        self.rules = rules
        super().__init__(kernel)

    def view(self, seat: object) -> View:
        """What `seat` may see (None: a spectator); never another seat's hidden card."""
        return view(self.kernel, None if seat is None else check_seat(seat, self._players))

    def save_state(self) -> msgspec.Raw:
        """The round's state as a stored game's progress keeps it (`engine.numwars_classic.state`)."""
        return state.save(self.kernel)

    def load_state(self, saved: msgspec.Raw, played: list[tuple[int, Action]]) -> bool:
        """This round, freshly dealt, made the one `saved` describes after `played`: see
        :func:`engine.numwars_classic.state.load`."""
        return state.load(self.kernel, saved, played)


def scripted_round(
    rules: ClassicOwner, setup: RoundSetup, hands: Sequence[Sequence[str]], set_aside: list[str]
) -> ClassicRound:
    """The round of `setup` dealt as `hands`, `set_aside` undealt (a sampled world; tests)."""
    free: dict[str, list[int]] = {}
    for i, c in enumerate(DECK):
        free.setdefault(c, []).append(i)
    options = rules.options
    kernel = ClassicKernel(
        setup,
        [sort_cards(h) for h in hands],
        sorted(free[c].pop(0) for c in set_aside),
        alliance=options.alliance,
        exchange_size=exchange_size(setup.players, speed=options.speed),
        options=options,
    )
    state = ClassicRound.__new__(ClassicRound)
    state.rules = rules
    super(ClassicRound, state).__init__(kernel)
    return state
