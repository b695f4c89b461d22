"""What happened in a round, as a tagged union of msgspec structs (issue 9; STYLE 7, 8; issue 23).

One struct per kind, the tag field `kind` naming it, with the same kind names in every game
(one `round-over` ends every round; a match adds a public `round-start` and each seat's
private `deal` before every round, round 1 included, and `match-over` after the last). Each
event carries its visibility, decided where it is made: `to` None means public, else the
seats that may see it (a card passed, drawn or shown to a partner, a seat's own hand).
:func:`visible_to` is the one filter that gives a seat (or a spectator) its events.

Each kind has its own typed details, `data` (issue 23): a frozen struct per kind, subclass of
:class:`EventData`, whose fields are those the kind's events have always carried in JSON. A
field that only some games or only some events of the kind have is ``UNSET`` elsewhere, and
then left out of the JSON (the public `pass` has `count`, the private one the cards); a field
every event of the kind has is required. So typing changed no event's JSON, and the OpenAPI
spec states one schema per kind (api.games.spec). New fields come with defaults, a field's
type never changes, and a new kind is a new struct: clients keep a default branch for kinds
they do not know.

Events are immutable values: the kernels return shared, precomputed instances on their hot
paths (a `play`, a `bid`), so treat every event as read-only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Literal

import msgspec
from msgspec import UNSET, UnsetType

from engine.core.values import BombOutcome, BombResult, Capture, Role, TeamScore


class EventData(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every kind's details (`data`); ``UNSET`` fields are left out of the JSON."""


class PlayData(EventData, frozen=True, kw_only=True):
    declared: int | UnsetType = UNSET  # numking: the value an `infinity` stands for (17 or 0)


class BidData(EventData, frozen=True, kw_only=True):
    tricks: int  # numking: the tricks bid


class PassData(EventData, frozen=True, kw_only=True):
    count: int | UnsetType = UNSET  # the public event: how many cards were passed


class ExchangeData(EventData, frozen=True, kw_only=True):
    """numwars-classic: `action` "pass" with `right` (the seat passed to), or "receive" with
    `left` (the seat received from); numwars: the cards received came `from` the left
    neighbour, the seat's own `passed` cards went `to` its right neighbour."""

    action: Literal["pass", "receive"] | UnsetType = UNSET
    right: int | UnsetType = UNSET
    left: int | UnsetType = UNSET
    from_: int | UnsetType = msgspec.field(default=UNSET, name="from")
    to: int | UnsetType = UNSET
    passed: list[str] | UnsetType = UNSET


class ShowData(EventData, frozen=True, kw_only=True):
    shown: bool | UnsetType = UNSET  # numwars-classic alliance: a card shown, or none


class NeutralizeData(EventData, frozen=True, kw_only=True):
    neutralize: bool  # the complice's choice


class DecisionData(EventData, frozen=True, kw_only=True):
    decision: str  # the decision due ("neutralize")
    threat: str  # the card that calls for it


class RoleRevealedData(EventData, frozen=True, kw_only=True):
    role: Role


class BombData(EventData, frozen=True, kw_only=True):
    """The Bomb's fate (the fields of :class:`engine.core.base.BombResult`)."""

    outcome: BombOutcome
    captured_by: int | None
    neutralized: str | None


class TrickData(EventData, frozen=True, kw_only=True):
    """A trick's result: `winner` (null when annulled) and who leads next, in every game;
    `captures` and `pairs` in the Num Wars editions, `bomb` in numwars (null when the Bomb
    was not in the trick), `cancelled` in numking."""

    winner: int | None
    annulled: bool
    next_leader: int
    captures: list[Capture] | UnsetType = UNSET
    pairs: list[Capture] | UnsetType = UNSET
    bomb: BombResult | UnsetType | None = UNSET
    cancelled: list[str] | UnsetType = UNSET


class RoundOverData(EventData, frozen=True, kw_only=True):
    """The round's totals where the game has them at once (`scores` in seat order, the
    `winners`, `teams` in team variants: the Num Wars editions; numking `scores` without
    winners) and the game's details: numwars `roles`, numking `bids`, `tricks` and `streaks`,
    numwin the `reason` it ended (its scores: the match's `round_scores`)."""

    scores: list[int] | UnsetType = UNSET
    winners: list[int] | UnsetType = UNSET
    teams: list[TeamScore] | UnsetType = UNSET
    roles: list[Role] | UnsetType = UNSET
    bids: list[int] | UnsetType = UNSET
    tricks: list[int] | UnsetType = UNSET
    streaks: list[int] | UnsetType = UNSET
    reason: str | UnsetType = UNSET


class RoundStartData(EventData, frozen=True, kw_only=True):
    round: int  # 1-based
    dealer: int
    tiebreak: bool
    current_player: int | None
    tied: list[int] | UnsetType = UNSET  # a tie-break round: the seats still tied


class DealData(EventData, frozen=True, kw_only=True):
    round: int  # 1-based: the round dealt


class MatchOverData(EventData, frozen=True, kw_only=True):
    totals: list[int]
    winners: list[int]
    tiebreak_rounds: int
    teams: list[TeamScore] | UnsetType = UNSET


class TurnData(EventData, frozen=True, kw_only=True):
    pass


class DrawData(EventData, frozen=True, kw_only=True):
    pass


class TakeData(EventData, frozen=True, kw_only=True):
    pass


class DiscardData(EventData, frozen=True, kw_only=True):
    pass


class SwapData(EventData, frozen=True, kw_only=True):
    position: int  # where the card in hand went


class AddData(EventData, frozen=True, kw_only=True):
    pass


class ActionData(EventData, frozen=True, kw_only=True):
    effect: bool | UnsetType = UNSET  # False: the card had no target, so no effect


class TargetData(EventData, frozen=True, kw_only=True):
    seat: int
    position: int


class FlipData(EventData, frozen=True, kw_only=True):
    pass


class QuantumData(EventData, frozen=True, kw_only=True):
    position: int


class MalusData(EventData, frozen=True, kw_only=True):
    position: int  # the card set aside
    added: int  # how many cards joined the combination


class SnapData(EventData, frozen=True, kw_only=True):
    owner: int
    position: int


class WrongClaimData(EventData, frozen=True, kw_only=True):
    owner: int
    position: int


class PenaltyData(EventData, frozen=True, kw_only=True):
    pass


class CallData(EventData, frozen=True, kw_only=True):
    pass


class FillUpData(EventData, frozen=True, kw_only=True):
    pass


class TimeoutData(EventData, frozen=True, kw_only=True):
    """A stored game's turn clock ran out for the event's `seat` (issue 26): `on_timeout` "auto"
    (the server completes the seat's turn with the `basic` bot's choice: the actions that
    follow, logged as the seat's own) or "abandon" (the game ended, abandoned); `version` the
    game's version when the turn ended."""

    on_timeout: Literal["auto", "abandon"]
    version: int


class ReshuffleData(EventData, frozen=True, kw_only=True):
    draw_pile_count: int


class EventBase(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """Base of every event: who acted (`seat`), the cards shown, details, visibility."""

    kind: ClassVar[str]
    seat: int | None = None
    cards: list[str] = []
    data: EventData = EventData()
    to: list[int] | None = None  # None: public; else only these seats see it

    def visible(self, seat: int | None) -> bool:
        """Whether `seat` (None: a spectator) may see this event."""
        return self.to is None or (seat is not None and seat in self.to)


class PlayEvent(EventBase, frozen=True, tag="play"):
    """A card played to the trick (numking's `infinity`: `data.declared`)."""

    kind: ClassVar[str] = "play"
    data: PlayData = PlayData()


class BidEvent(EventBase, frozen=True, tag="bid"):
    """Numking: a bid (`data.tricks`)."""

    kind: ClassVar[str] = "bid"
    data: BidData


class PassEvent(EventBase, frozen=True, tag="pass"):
    """Exchange: cards passed (private: the cards; public: `data.count`)."""

    kind: ClassVar[str] = "pass"
    data: PassData = PassData()


class ExchangeEvent(EventBase, frozen=True, tag="exchange"):
    """Exchange: a card passed, or what a seat received (private)."""

    kind: ClassVar[str] = "exchange"
    data: ExchangeData = ExchangeData()


class ShowEvent(EventBase, frozen=True, tag="show"):
    """Alliance / teams: a show step (private to the partner: the card)."""

    kind: ClassVar[str] = "show"
    data: ShowData = ShowData()


class NeutralizeEvent(EventBase, frozen=True, tag="neutralize"):
    """Numwars: the complice's choice (`data.neutralize`)."""

    kind: ClassVar[str] = "neutralize"
    data: NeutralizeData


class DecisionEvent(EventBase, frozen=True, tag="decision"):
    """Numwars: a decision is due (`data.decision`, `data.threat`)."""

    kind: ClassVar[str] = "decision"
    data: DecisionData


class RoleRevealedEvent(EventBase, frozen=True, tag="role-revealed"):
    """Numwars: a role card played reveals its role."""

    kind: ClassVar[str] = "role-revealed"
    data: RoleRevealedData


class BombEvent(EventBase, frozen=True, tag="bomb"):
    """Numwars: the Bomb's fate."""

    kind: ClassVar[str] = "bomb"
    data: BombData


class TrickEvent(EventBase, frozen=True, tag="trick"):
    """A trick is complete: its cards (canonical order), winner (`seat`) and result."""

    kind: ClassVar[str] = "trick"
    data: TrickData


class RoundOverEvent(EventBase, frozen=True, tag="round-over"):
    """The round is over: totals, winners and the game's details."""

    kind: ClassVar[str] = "round-over"
    data: RoundOverData = RoundOverData()


class RoundStartEvent(EventBase, frozen=True, tag="round-start"):
    """A match (engine.core.match): a round starts, round 1 included; public."""

    kind: ClassVar[str] = "round-start"
    data: RoundStartData


class DealEvent(EventBase, frozen=True, tag="deal"):
    """A match: a seat's hand as the round starts (`cards`), seen by that seat alone
    (numwin: its combination, position by position)."""

    kind: ClassVar[str] = "deal"
    data: DealData


class MatchOverEvent(EventBase, frozen=True, tag="match-over"):
    """A match (engine.core.match) is over, public."""

    kind: ClassVar[str] = "match-over"
    data: MatchOverData


class TurnEvent(EventBase, frozen=True, tag="turn"):
    """Numwin: a seat's turn starts."""

    kind: ClassVar[str] = "turn"
    data: TurnData = TurnData()


class DrawEvent(EventBase, frozen=True, tag="draw"):
    """Numwin: a card drawn (private to the drawer: the card)."""

    kind: ClassVar[str] = "draw"
    data: DrawData = DrawData()


class TakeEvent(EventBase, frozen=True, tag="take"):
    """Numwin: the discard taken."""

    kind: ClassVar[str] = "take"
    data: TakeData = TakeData()


class DiscardEvent(EventBase, frozen=True, tag="discard"):
    """Numwin: a card discarded."""

    kind: ClassVar[str] = "discard"
    data: DiscardData = DiscardData()


class SwapEvent(EventBase, frozen=True, tag="swap"):
    """Numwin: the card in hand swapped in (`data.position`)."""

    kind: ClassVar[str] = "swap"
    data: SwapData


class AddEvent(EventBase, frozen=True, tag="add"):
    """Numwin: the card taken added to the combination."""

    kind: ClassVar[str] = "add"
    data: AddData = AddData()


class ActionEvent(EventBase, frozen=True, tag="action"):
    """Numwin: an action card played (`data.effect` False: no effect)."""

    kind: ClassVar[str] = "action"
    data: ActionData = ActionData()


class TargetEvent(EventBase, frozen=True, tag="target"):
    """Numwin: an action card's target (`data.seat`, `data.position`)."""

    kind: ClassVar[str] = "target"
    data: TargetData


class FlipEvent(EventBase, frozen=True, tag="flip"):
    """Numwin: Flip shows a card to its player (private)."""

    kind: ClassVar[str] = "flip"
    data: FlipData = FlipData()


class QuantumEvent(EventBase, frozen=True, tag="quantum"):
    """Numwin: Quantum turns a card face up (`data.position`)."""

    kind: ClassVar[str] = "quantum"
    data: QuantumData


class MalusEvent(EventBase, frozen=True, tag="malus"):
    """Numwin: a malus adds cards (`data.position`, `data.added`)."""

    kind: ClassVar[str] = "malus"
    data: MalusData


class SnapEvent(EventBase, frozen=True, tag="snap"):
    """Numwin: a right snap (`data.owner`, `data.position`)."""

    kind: ClassVar[str] = "snap"
    data: SnapData


class WrongClaimEvent(EventBase, frozen=True, tag="wrong-claim"):
    """Numwin: a wrong snap (`data.owner`, `data.position`)."""

    kind: ClassVar[str] = "wrong-claim"
    data: WrongClaimData


class PenaltyEvent(EventBase, frozen=True, tag="penalty"):
    """Numwin: a penalty card (private to the seat: the card)."""

    kind: ClassVar[str] = "penalty"
    data: PenaltyData = PenaltyData()


class CallEvent(EventBase, frozen=True, tag="call"):
    """Numwin: "Num Win" called."""

    kind: ClassVar[str] = "call"
    data: CallData = CallData()


class FillUpEvent(EventBase, frozen=True, tag="fill-up"):
    """Numwin: a combination filled up after a call (private: the card)."""

    kind: ClassVar[str] = "fill-up"
    data: FillUpData = FillUpData()


class ReshuffleEvent(EventBase, frozen=True, tag="reshuffle"):
    """Numwin: the discard reshuffled into the draw pile."""

    kind: ClassVar[str] = "reshuffle"
    data: ReshuffleData


class TimeoutEvent(EventBase, frozen=True, tag="timeout"):
    """A stored game's turn clock ran out (made by the server, never by a round): public."""

    kind: ClassVar[str] = "timeout"
    data: TimeoutData


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
    | DealEvent
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
    | TimeoutEvent
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
        DealEvent,
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
        TimeoutEvent,
    )
}


def visible_to(events: Iterable[EventBase], seat: int | None) -> list[EventBase]:
    """The events `seat` may see (None: a spectator, who sees the public ones only)."""
    return [e for e in events if e.to is None or (seat is not None and seat in e.to)]
