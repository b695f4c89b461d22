"""What happened in a round, as a tagged union of msgspec structs (issue 9; STYLE 7, 8).

One struct per kind, the tag field `kind` naming it, with the same kind names in every game
(one `round-over` ends every round; a match adds `round-start` between rounds and
`match-over` after the last). Each event carries its visibility, decided where it is
made: `to` None means public, else the seats that may see it (a card passed, drawn or shown
to a partner). :func:`visible_to` is the one filter that gives a seat (or a spectator) its
events. Kind-specific details are in `data` (documented per kind).

Events are immutable values: the kernels return shared, precomputed instances on their hot
paths (a `play`, a `bid`), so treat every event as read-only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import msgspec


class EventBase(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """Base of every event: who acted (`seat`), the cards shown, details, visibility."""

    kind: ClassVar[str]
    seat: int | None = None
    cards: list[str] = []
    data: dict[str, Any] = {}
    to: list[int] | None = None  # None: public; else only these seats see it

    def visible(self, seat: int | None) -> bool:
        """Whether `seat` (None: a spectator) may see this event."""
        return self.to is None or (seat is not None and seat in self.to)


class PlayEvent(EventBase, frozen=True, tag="play"):
    """A card played to the trick (numking's `infinity`: `data.declared`)."""

    kind: ClassVar[str] = "play"


class BidEvent(EventBase, frozen=True, tag="bid"):
    """Numking: a bid (`data.tricks`)."""

    kind: ClassVar[str] = "bid"


class PassEvent(EventBase, frozen=True, tag="pass"):
    """Exchange: cards passed (private: the cards; public: `data.count`)."""

    kind: ClassVar[str] = "pass"


class ExchangeEvent(EventBase, frozen=True, tag="exchange"):
    """Exchange: the passes completed, or what a seat received."""

    kind: ClassVar[str] = "exchange"


class ShowEvent(EventBase, frozen=True, tag="show"):
    """Alliance / teams: a show step (private to the partner: the card)."""

    kind: ClassVar[str] = "show"


class NeutralizeEvent(EventBase, frozen=True, tag="neutralize"):
    """Numwars: the complice's choice (`data.neutralize`)."""

    kind: ClassVar[str] = "neutralize"


class DecisionEvent(EventBase, frozen=True, tag="decision"):
    """Numwars: a decision is due (`data.decision`, `data.threat`)."""

    kind: ClassVar[str] = "decision"


class RoleRevealedEvent(EventBase, frozen=True, tag="role-revealed"):
    """Numwars: a role card played reveals its role."""

    kind: ClassVar[str] = "role-revealed"


class BombEvent(EventBase, frozen=True, tag="bomb"):
    """Numwars: the Bomb's fate (`data`: the BombResult)."""

    kind: ClassVar[str] = "bomb"


class TrickEvent(EventBase, frozen=True, tag="trick"):
    """A trick is complete: its cards, winner (`seat`) and result (`data`)."""

    kind: ClassVar[str] = "trick"


class RoundOverEvent(EventBase, frozen=True, tag="round-over"):
    """The round is over: totals, winners and the game's details."""

    kind: ClassVar[str] = "round-over"


class RoundStartEvent(EventBase, frozen=True, tag="round-start"):
    """A match (engine.core.match): the next round starts, public (`data`: `round` 1-based,
    `dealer`, `tiebreak`, `current_player`; in a tie-break round `tied`, the seats still tied).
    """

    kind: ClassVar[str] = "round-start"


class MatchOverEvent(EventBase, frozen=True, tag="match-over"):
    """A match (engine.core.match) is over, public (`data`: `totals`, `winners`,
    `tiebreak_rounds`, and `teams` in team variants)."""

    kind: ClassVar[str] = "match-over"


class TurnEvent(EventBase, frozen=True, tag="turn"):
    """Numwin: a seat's turn starts."""

    kind: ClassVar[str] = "turn"


class DrawEvent(EventBase, frozen=True, tag="draw"):
    """Numwin: a card drawn (private to the drawer: the card)."""

    kind: ClassVar[str] = "draw"


class TakeEvent(EventBase, frozen=True, tag="take"):
    """Numwin: the discard taken."""

    kind: ClassVar[str] = "take"


class DiscardEvent(EventBase, frozen=True, tag="discard"):
    """Numwin: a card discarded."""

    kind: ClassVar[str] = "discard"


class SwapEvent(EventBase, frozen=True, tag="swap"):
    """Numwin: the card in hand swapped in (`data.position`)."""

    kind: ClassVar[str] = "swap"


class AddEvent(EventBase, frozen=True, tag="add"):
    """Numwin: the card taken added to the combination."""

    kind: ClassVar[str] = "add"


class ActionEvent(EventBase, frozen=True, tag="action"):
    """Numwin: an action card played (`data.effect` False: no effect)."""

    kind: ClassVar[str] = "action"


class TargetEvent(EventBase, frozen=True, tag="target"):
    """Numwin: an action card's target (`data.seat`, `data.position`)."""

    kind: ClassVar[str] = "target"


class FlipEvent(EventBase, frozen=True, tag="flip"):
    """Numwin: Flip shows a card to its player (private)."""

    kind: ClassVar[str] = "flip"


class QuantumEvent(EventBase, frozen=True, tag="quantum"):
    """Numwin: Quantum turns a card face up (`data.position`)."""

    kind: ClassVar[str] = "quantum"


class MalusEvent(EventBase, frozen=True, tag="malus"):
    """Numwin: a malus adds cards (`data.position`, `data.added`)."""

    kind: ClassVar[str] = "malus"


class SnapEvent(EventBase, frozen=True, tag="snap"):
    """Numwin: a right snap (`data.owner`, `data.position`)."""

    kind: ClassVar[str] = "snap"


class WrongClaimEvent(EventBase, frozen=True, tag="wrong-claim"):
    """Numwin: a wrong snap (`data.owner`, `data.position`)."""

    kind: ClassVar[str] = "wrong-claim"


class PenaltyEvent(EventBase, frozen=True, tag="penalty"):
    """Numwin: a penalty card (private to the seat: the card)."""

    kind: ClassVar[str] = "penalty"


class CallEvent(EventBase, frozen=True, tag="call"):
    """Numwin: "Num Win" called."""

    kind: ClassVar[str] = "call"


class FillUpEvent(EventBase, frozen=True, tag="fill-up"):
    """Numwin: a combination filled up after a call (private: the card)."""

    kind: ClassVar[str] = "fill-up"


class ReshuffleEvent(EventBase, frozen=True, tag="reshuffle"):
    """Numwin: the discard reshuffled into the draw pile."""

    kind: ClassVar[str] = "reshuffle"


Event = (
    PlayEvent
    | BidEvent
    | PassEvent
    | ExchangeEvent
    | ShowEvent
    | NeutralizeEvent
    | DecisionEvent
    | RoleRevealedEvent
    | BombEvent
    | TrickEvent
    | RoundOverEvent
    | RoundStartEvent
    | MatchOverEvent
    | TurnEvent
    | DrawEvent
    | TakeEvent
    | DiscardEvent
    | SwapEvent
    | AddEvent
    | ActionEvent
    | TargetEvent
    | FlipEvent
    | QuantumEvent
    | MalusEvent
    | SnapEvent
    | WrongClaimEvent
    | PenaltyEvent
    | CallEvent
    | FillUpEvent
    | ReshuffleEvent
)

#: Every event kind, by its tag.
EVENT_TYPES: dict[str, type[EventBase]] = {
    cls.kind: cls
    for cls in (
        PlayEvent,
        BidEvent,
        PassEvent,
        ExchangeEvent,
        ShowEvent,
        NeutralizeEvent,
        DecisionEvent,
        RoleRevealedEvent,
        BombEvent,
        TrickEvent,
        RoundOverEvent,
        RoundStartEvent,
        MatchOverEvent,
        TurnEvent,
        DrawEvent,
        TakeEvent,
        DiscardEvent,
        SwapEvent,
        AddEvent,
        ActionEvent,
        TargetEvent,
        FlipEvent,
        QuantumEvent,
        MalusEvent,
        SnapEvent,
        WrongClaimEvent,
        PenaltyEvent,
        CallEvent,
        FillUpEvent,
        ReshuffleEvent,
    )
}


def visible_to(events: Iterable[EventBase], seat: int | None) -> list[EventBase]:
    """The events `seat` may see (None: a spectator, who sees the public ones only)."""
    return [e for e in events if e.to is None or (seat is not None and seat in e.to)]
