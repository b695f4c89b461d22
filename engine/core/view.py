"""The fields every game's view has, named and typed alike in all four (issue 9, STYLE 7).

A game's `View` (in its `view.py`) extends :class:`BaseView` with its own fields and is built
by one projection, `view(state, seat)`: what `seat` may see (None: a spectator), never a card
hidden from it. `round` and `scores` are plain fields, so a match sets them on a round's view
with ``msgspec.structs.replace(view, round=…, scores=…)``.

A view may name in `GROWS` fields that only grow within a round, element by element, each
element the very object from one view to the next (built once, frozen): an encoder may keep
such a list's JSON and encode only what it gained (:class:`api.games.answers.AnswerEncoder`).
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from engine.core.actions import Action

__all__ = ["BaseView"]


class BaseView(msgspec.Struct, frozen=True, kw_only=True):
    ruleset: str  # the ruleset id
    phase: str  # the round's phase ("over" once it is over)
    round: int  # 1-based round of the match (a lone round: its setup's, 1 by default)
    dealer: int
    players: int  # the number of seats
    seat: int | None  # whose view this is (None: a spectator)
    current_player: int | None  # whose turn it is; None in a simultaneous phase or when over
    actors: list[int]  # every seat that may act now
    hand: list[str] | None = None  # the seat's own hand (None for a spectator)
    legal_actions: list[Action] | None = None  # the seat's own, each sendable back as it is
    scores: list[int]  # match totals so far, by seat (a lone round: zeros)
    #: The fields that only grow within a round, their elements kept (module docstring).
    GROWS: ClassVar[tuple[str, ...]] = ()
