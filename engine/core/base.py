"""The one protocol every ruleset implements (STYLE 2), and the values it returns (STYLE 5).

A ruleset is an immutable rules object built from typed, defaulted options. It answers the
stateless questions of the public API (deck, deal, legal moves, trick resolution, round
scoring) and builds round states. A round state is a state machine driven by actions:
`phase`, `current_player`, `actors()`, `legal_actions(seat)`, `apply(seat, action)`,
`is_over`, `scores()` and the per-seat `view(seat)`; it is rebuilt exactly from its
`RoundSetup` and the ordered list of applied actions.

Every struct here is a frozen msgspec struct, so the HTTP layer can return it as it is.
Fields some rulesets add (`bomb`, `cancelled`, `roles` …) default to ``UNSET`` and are then
left out of the JSON.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

import msgspec
from msgspec import UNSET, UnsetType

from engine.core.actions import Action
from engine.core.cards import CardCode
from engine.core.events import EventBase
from engine.core.values import (
    BOMB_OUTCOMES,
    ROLES,
    BombOutcome,
    BombResult,
    Capture,
    Role,
    TeamScore,
    Value,
)
from engine.core.view import BaseView

__all__ = [
    "BOMB_OUTCOMES",
    "ROLES",
    "UNSET",
    "BombOutcome",
    "BombResult",
    "Capture",
    "Deal",
    "DeckInfo",
    "LegalMoves",
    "MatchResult",
    "MoveCheck",
    "PlayerScore",
    "Role",
    "RoundScore",
    "RoundSetup",
    "RoundState",
    "Ruleset",
    "ScoreLine",
    "TeamScore",
    "TrickCard",
    "TrickResult",
    "UnsetType",
]


class TrickCard(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One card of a trick, in play order. `declared` only for numking's `infinity`."""

    seat: int
    card: CardCode
    declared: int | None = None


class DeckInfo(Value, frozen=True):
    players: int
    cards: list[str]
    hand_size: int
    set_aside: int
    #: Cards of `cards` that never take part in a round of that table (3-player numwars: the
    #: Joker, the set-aside card), so a score sheet never offers them; [] everywhere else
    #: (the default: a ruleset's folder that has none need not say it).
    out_of_play: list[str] = msgspec.field(default_factory=list)


class Deal(Value, frozen=True):
    hands: list[list[str]]
    set_aside: list[str]
    dealer: int
    leader: int
    roles: list[Role] | UnsetType = UNSET  # numwars
    discard: list[str] | UnsetType = UNSET  # numwin
    draw_pile_count: int | UnsetType = UNSET  # numwin


class LegalMoves(Value, frozen=True):
    legal: list[str]
    infinity: list[int] | UnsetType = UNSET  # numking: allowed declarations


class MoveCheck(Value, frozen=True):
    legal: bool
    reason: str | None
    message: str
    legal_moves: list[str]


class TrickResult(Value, frozen=True):
    winner: int | None
    annulled: bool
    captures: list[Capture]
    pairs: list[Capture]
    next_leader: int
    bomb: BombResult | UnsetType | None = UNSET  # numwars
    cancelled: list[str] | UnsetType = UNSET  # numking


class ScoreLine(Value, frozen=True):
    """One line of a breakdown: `label` in words, `kind` (a stable kebab-case key, the key
    of its text in :data:`engine.core.texts.KINDS`) and `params` (that text's parameters),
    so a client renders or translates the line without reading the label. `kind` and
    `params` are unset only on a line stored before they existed."""

    label: str
    cards: list[str]
    points: int
    kind: str | UnsetType = UNSET
    params: dict[str, int | str] | UnsetType = UNSET


class PlayerScore(Value, frozen=True):
    seat: int
    score: int
    breakdown: list[ScoreLine]
    streak: int | UnsetType = UNSET  # numking: the streak after this round
    bonus: int | UnsetType = UNSET  # numking: the precision bonus of this round


class RoundScore(Value, frozen=True):
    players: list[PlayerScore]
    winners: list[int]
    teams: list[TeamScore] | UnsetType = UNSET  # alliance / teams


class MatchResult(Value, frozen=True):
    """Totals of a match (sum of round scores), its winners, and whether a tie-break is due."""

    totals: list[int]
    winners: list[int]
    teams: list[TeamScore] | UnsetType = UNSET
    tiebreak_needed: bool = False  # a tie on the total that the ruleset breaks by more rounds


class RoundSetup(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a round state is built from, besides the rules object.

    `round` is 1-based (numking deals `round` cards); `leader` overrides who starts (numking's
    first bidder); `carry` holds what a match carries into the round (numking streaks).
    """

    players: int
    seed: int
    dealer: int = 0
    round: int = 1
    leader: int | None = None
    carry: list[int] | None = None


class RoundState(Protocol):
    """A round in progress. Mutable; `apply` validates then changes it."""

    @property
    def setup(self) -> RoundSetup: ...

    @property
    def history(self) -> list[tuple[int, Action]]:
        """The applied actions, in order: with `setup`, all a replay needs."""
        ...

    @property
    def phase(self) -> str: ...

    @property
    def current_player(self) -> int | None:
        """Whose turn it is, or None in a simultaneous phase or when over."""
        ...

    def actors(self) -> list[int]:
        """Every seat that has at least one legal action now (empty only when over)."""
        ...

    def legal_actions(self, seat: int) -> list[Action]: ...

    def apply(self, seat: int, action: Action) -> list[EventBase]:
        """Apply one action; raises IllegalMove / InvalidInput and then changes nothing."""
        ...

    @property
    def is_over(self) -> bool: ...

    def scores(self) -> RoundScore | None:
        """The round's scores once it is over, else None."""
        ...

    def view(self, seat: int | None) -> BaseView:
        """What `seat` may see (None: a spectator). Never another seat's hidden card."""
        ...

    def snapshot(self) -> dict[str, Any]:
        """The whole state, hidden cards included, as plain data (for replay equality)."""
        ...


class Ruleset(Protocol):
    """An immutable rules object: ruleset id, options, and the stateless answers."""

    id: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: Every card code the ruleset can ever use (any player count, any option), canonical.
    card_codes: ClassVar[tuple[str, ...]]

    @property
    def options(self) -> msgspec.Struct: ...

    def deck(self, players: int) -> DeckInfo: ...

    def deal(self, setup: RoundSetup) -> Deal: ...

    def new_round(self, setup: RoundSetup) -> RoundState: ...
