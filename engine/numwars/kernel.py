"""The `numwars` round as a state machine (rules/numwars.md; STYLE 2-3).

Phases: ``exchange`` (only with option ``exchange`` > 0: simultaneous one-card passes to the
right neighbour), ``play`` (tricks, the dealer leading the first), ``neutralize`` (the
complice's choice once a trick holding Bomb + Joker + a threat is complete), ``over``.
The state is a fold of the applied actions over the deal of ``Rng(setup.seed)``.

Speed (the play-out benchmark): ``phase``, ``current_player`` and ``is_over`` are plain
attributes kept up to date, and the class has ``__slots__``; each hand is kept as its shared
``Play`` values in five suit lists (the four colours, then every trump), whose concatenation
is the hand in canonical order, so legal actions are mostly one slice of one suit; facts about
a card come from one table row; the current trick's top trump strength, the complements a
steal would take, the colour asked and the seat winning a plain contest are kept as cards are
played; the legal actions are cached until the next card and reused by ``apply`` as its
legality check; play events are shared values; a plain trick (no Bomb, no pair) writes its
result's plain data directly (``results`` builds its :class:`TrickResult` on demand); the
round is totalled once, at its end, without re-checking the piles, and ``scores`` builds the
breakdown when first asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from itertools import groupby
from typing import Any, TypeVar

import msgspec

from engine.core.actions import (
    Action,
    Exchange,
    Neutralize,
    Pass,
    Play,
    check_fields,
    shared_pass,
    shared_play,
)
from engine.core.base import (
    BombResult,
    Capture,
    Deal,
    RoundScore,
    RoundSetup,
    TrickCard,
    TrickResult,
)
from engine.core.cards import CARDS, COMPLEMENT, ORDER_KEY
from engine.core.errors import IllegalMove, InvalidInput
from engine.core.events import (
    BombData,
    BombEvent,
    DecisionData,
    DecisionEvent,
    EventBase,
    ExchangeData,
    ExchangeEvent,
    NeutralizeData,
    NeutralizeEvent,
    PassData,
    PassEvent,
    PlayEvent,
    RoleRevealedData,
    RoleRevealedEvent,
    RoundOverData,
    RoundOverEvent,
    TrickData,
    TrickEvent,
)
from engine.core.scoring import best_seats
from engine.core.texts import say
from engine.core.tricks import check_seat
from engine.numwars import texts as T
from engine.numwars.cards import ROLE_CARDS, ROLE_OF_CARD, STRENGTH, SUIT, TRUMP, canon
from engine.numwars.scoring import NumWarsPile, pile_points, score_piles
from engine.numwars.tricks import (
    QUOTED_NOT_IN_HAND,
    FinishedTrick,
    illegal_reason,
    neutralization_possible,
    resolve,
)

#: The type of a view the kernel builds (its game's `view` module's `View`).
V = TypeVar("V")


class Phase(StrEnum):
    EXCHANGE = "exchange"
    PLAY = "play"
    NEUTRALIZE = "neutralize"
    OVER = "over"


_EXCHANGE, _PLAYING, _NEUTRALIZE, _OVER = Phase.EXCHANGE, Phase.PLAY, Phase.NEUTRALIZE, Phase.OVER
_MAX_PLAYERS = 8

_YES_NO: list[Action] = [Neutralize(neutralize=True), Neutralize(neutralize=False)]
#: One frozen action per card code, shared by every legal-action list (the core's shared
#: values: a stored action decodes to them).
_PLAY: dict[str, Play] = {code: shared_play(code) for code in CARDS}
_PASS: dict[str, Pass] = {code: shared_pass(code) for code in CARDS}
#: The public "play" event of each seat and card (immutable values, shared).
_PLAY_EVENTS: list[dict[str, EventBase]] = [
    {code: PlayEvent(seat=s, cards=[code]) for code in CARDS} for s in range(_MAX_PLAYERS)
]

#: Cards in canonical order (rules/cards.md) through a local table.
_ORDER_KEY = ORDER_KEY

#: Suit lists of a hand: the four colours by index, then every trump (Following 1-2). In
#: canonical order the colours come first, in this order, and the role cards last.
_SUIT_INDEX = {"red": 0, "blue": 1, "green": 2, "yellow": 3, TRUMP: 4}
_TRUMPS = 4


def _card_info(code: str) -> tuple[int, int, str | None, bool, int]:
    """A card's suit index, trump strength (classics -1), complement (real trumps, else
    None), whether it is a role card, and its key in a plain contest (Winning the contest
    1-3): 1000 + strength for ``numx`` and the real trumps, -1 for the zero-level trumps, and
    for a classic card its value, which counts only in the colour of reference."""
    suit = _SUIT_INDEX[SUIT[code]]
    strength = STRENGTH[code]
    if strength > 1:
        key = 1000 + strength
    elif suit == _TRUMPS:
        key = -1
    else:
        key = CARDS[code].value or 0
    return suit, strength, COMPLEMENT.get(code), code in ROLE_CARDS, key


#: Every fact the play needs about a card, in one look-up (the cards of the numwars decks).
_INFO = {code: _card_info(code) for code in STRENGTH}
_SUIT_OF = {code: info[0] for code, info in _INFO.items()}.__getitem__
_PLAY_OF = _PLAY.__getitem__


def _by_suit(hand: list[str]) -> list[list[Play]]:
    """A canonical hand's ``Play`` values in its five suit lists (their concatenation is the
    hand): following looks at one suit only (Following 1-2)."""
    suits: list[list[Play]] = [[], [], [], [], []]
    for suit, cards in groupby(hand, _SUIT_OF):
        suits[suit] += map(_PLAY_OF, cards)
    return suits


def _result_of(data: dict[str, Any], result: TrickResult | None) -> TrickResult:
    """A finished trick's result: the one kept, or a plain trick's built from its data."""
    if result is not None:
        return result
    winner = data["winner"]
    return TrickResult(
        winner=winner,
        annulled=False,
        captures=[Capture(seat=winner, cards=list(data["captures"][0]["cards"]))],
        pairs=[],
        next_leader=winner,
        bomb=None,
    )


class NumWarsKernel:
    """One round of `numwars` in progress; `apply` validates fully, then mutates."""

    __slots__ = (
        "_asked",
        "_canon_piles",
        "_cards",
        "_finished",
        "_legal",
        "_nspec",
        "_paired",
        "_records",
        "_ref",
        "_scores",
        "_special",
        "_suits",
        "_top",
        "_wanted",
        "_win",
        "_winner",
        "bomb",
        "complice",
        "current_player",
        "dealer",
        "history",
        "is_over",
        "k",
        "leader",
        "n",
        "options",
        "pairs",
        "passed",
        "phase",
        "piles",
        "revealed",
        "roles",
        "set_aside",
        "setup",
    )

    _asked: int
    _ref: int
    _win: int
    _top: int
    _winner: int

    def __init__(
        self, setup: RoundSetup, deal: Deal, *, exchange: int, options: object, scripted: bool
    ) -> None:
        """The round of `setup` from `deal` (its seeded deal, or a `scripted` one whose
        hands are put in canonical order: tests, puzzles), with `exchange` cards passed by
        each seat (option `exchange`); `options` is the options value, for `snapshot`."""
        hands = [canon(h) for h in deal.hands] if scripted else deal.hands
        assert isinstance(deal.roles, list)
        self.options = options
        self.setup = setup
        self.history: list[tuple[int, Action]] = []
        self.n = setup.players
        self.k = exchange
        #: Each hand as shared ``Play`` values in its five suit lists, canonical.
        self._suits = [_by_suit(h) for h in hands]
        #: How many role cards each hand holds (they never change hands: Set-up 3).
        self._nspec = [len(ROLE_CARDS.intersection(h)) for h in hands]
        self.roles: list[str] = list(deal.roles)
        self.set_aside: list[str] = list(deal.set_aside)
        self.dealer = deal.dealer
        self.leader = deal.leader
        self.passed: list[list[str]] = [[] for _ in range(self.n)]
        self.piles: list[list[str]] = [[] for _ in range(self.n)]
        #: Each pile in canonical order as views show it, sorted once after it grew
        #: (:meth:`canon_pile`; None: to sort).
        self._canon_piles: list[list[str] | None] = [None] * self.n
        self.pairs: list[list[list[str]]] = [[] for _ in range(self.n)]
        self.revealed: list[bool] = [False] * self.n
        self.bomb: BombResult | None = None
        self.complice = self.roles.index("complice") if "complice" in self.roles else -1
        self._wanted: set[str] = set()
        self._paired: list[str] = []
        self._special = False
        self._next_trick(self.leader)
        #: Plain attributes rather than properties: the play-out loop reads them at every step.
        self.phase: Phase = _EXCHANGE if self.k > 0 else _PLAYING
        self.current_player: int | None = None if self.k > 0 else self.leader
        self.is_over = False
        #: Finished tricks: (leader, cards in play order, result as plain data, the
        #: complice's choice or None, the result or None for a plain trick).
        self._records: list[
            tuple[int, list[str], dict[str, Any], bool | None, TrickResult | None]
        ] = []
        #: The finished tricks as views show them, each built once (:meth:`finished_tricks`).
        self._finished: list[FinishedTrick] = []
        self._scores: RoundScore | None = None
        self._legal: list[Play] | None = None

    # --- protocol ------------------------------------------------------------------------

    @property
    def hands(self) -> list[list[str]]:
        """Each hand's codes in canonical order."""
        return [self._hand(s) for s in range(self.n)]

    def _hand(self, seat: int) -> list[str]:
        return [p.card for suit in self._suits[seat] for p in suit]

    def view(self, seat: int | None, view: Callable[..., V], captured: Callable[..., Any]) -> V:
        """What `seat` may see (None: a spectator), as :func:`engine.numwars.view.view`
        shows it with its types (`view`: its `View`, `captured`: its `Captured`), built here,
        compiled with the state it reads (issue 27); `seat` is already checked."""
        n = self.n
        own = seat is not None
        roles = self.roles
        revealed = self.revealed
        return view(
            ruleset="numwars",
            phase=self.phase.value,
            round=self.setup.round,
            dealer=self.dealer,
            players=n,
            seat=seat,
            current_player=self.current_player,
            actors=list(self.actors()),
            hand=self.hand(seat) if seat is not None else None,
            legal_actions=list(self.legal_actions(seat)) if seat is not None else None,
            scores=[0] * n,
            leader=self.leader,
            hand_counts=self.hand_counts(),
            roles=[roles[s] if revealed[s] or (own and s == seat) else None for s in range(n)],
            role=roles[seat] if seat is not None else None,
            trick=[TrickCard(seat=s, card=c) for s, c in self.trick],
            tricks=self.finished_tricks(),
            captured=[
                captured(seat=s, cards=self.canon_pile(s), pairs=[list(p) for p in self.pairs[s]])
                for s in range(n)
            ],
            bomb=self.bomb,
            exchange_size=self.k,
            passed_counts=[len(p) for p in self.passed],
            passed=(
                canon(self.passed[seat]) if seat is not None and self.phase is _EXCHANGE else None
            ),
            round_score=self.scores(),
        )

    def hand(self, seat: int) -> list[str]:
        """The seat's hand in canonical order (:attr:`hands`' for one seat)."""
        return self._hand(seat)

    def hand_counts(self) -> list[int]:
        """How many cards each hand holds (no hand built). Loops, not `sum`: compiled, a call
        of the builtin `sum` looks it up and boxes each length (7 K instructions a view)."""
        counts = []
        for suits in self._suits:
            held = 0
            for suit in suits:
                held += len(suit)
            counts.append(held)
        return counts

    def canon_pile(self, seat: int) -> list[str]:
        """The seat's pile in canonical order (a copy: the sorted pile is kept until the
        pile grows, so that views, two an action, do not sort every pile again)."""
        kept = self._canon_piles[seat]
        if kept is None:
            kept = self._canon_piles[seat] = canon(self.piles[seat])
        return list(kept)

    @property
    def trick(self) -> list[tuple[int, str]]:
        """The current trick as (seat, card) in play order."""
        return self._seated(self.leader, self._cards)

    def _seated(self, leader: int, cards: list[str]) -> list[tuple[int, str]]:
        n = self.n
        return [((leader + i) % n, c) for i, c in enumerate(cards)]

    @property
    def tricks(self) -> list[dict[str, Any]]:
        """Finished tricks as plain data: leader, cards, result, the complice's choice."""
        return [
            {
                "leader": leader,
                "cards": [{"seat": s, "card": c} for s, c in self._seated(leader, cards)],
                "result": data,
                "neutralize": choice,
            }
            for leader, cards, data, choice, _ in self._records
        ]

    @property
    def choices(self) -> list[bool | None]:
        """The complice's choice in each finished trick (None: not asked)."""
        return [choice for _, _, _, choice, _ in self._records]

    @property
    def results(self) -> list[TrickResult]:
        """Finished tricks' results; a plain trick's is built on demand from its data."""
        return [_result_of(data, result) for _, _, data, _, result in self._records]

    def finished_tricks(self) -> list[FinishedTrick]:
        """Finished tricks as the views show them (a copy of the list): each is built once,
        when the first view after it asks, so a view costs the new tricks only."""
        done = self._finished
        for leader, cards, data, choice, result in self._records[len(done) :]:
            done.append(
                FinishedTrick(
                    leader=leader,
                    cards=[TrickCard(seat=s, card=c) for s, c in self._seated(leader, cards)],
                    result=_result_of(data, result),
                    neutralize=choice,
                )
            )
        return list(done)

    def actors(self) -> list[int]:
        if self.phase is _EXCHANGE:
            return [s for s in range(self.n) if len(self.passed[s]) < self.k]
        turn = self.current_player
        return [] if turn is None else [turn]

    # -- the checked entry points (the round object's methods: engine.core.boundary) -------

    def checked_legal_actions(self, seat: object) -> list[Action]:
        """`legal_actions` of any `seat` argument: a bad one is `check_seat`'s error."""
        return self.legal_actions(_seat(seat, self.n))

    def checked_apply(self, seat: object, action: Action) -> list[EventBase]:
        """`apply` once the seat (`check_seat`) and the action's field types (`check_fields`)
        are checked, inline for the hot `Play` and `Pass`: a bad one is their error."""
        checked = _seat(seat, self.n)
        fields: Any = action  # untyped reads: a wrongly typed field is check_fields' error
        kind = type(action)
        if kind is Play:
            if type(fields.card) is not str or fields.declared is not None:
                check_fields(action)
        elif kind is not Pass or type(fields.card) is not str:
            check_fields(action)
        return self.apply(checked, action)

    def legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions. In play: the legal cards as shared ``Play`` values in
        canonical order, the same as :func:`engine.numwars.tricks.legal_cards`, from the hand's suit
        lists and the contest's top strength and wanted complements kept as cards are played;
        the list is cached until the next card (callers read it, never change it)."""
        if self.phase is not _PLAYING:
            return self._other_actions(seat)
        if seat != self.current_player:
            return []
        legal = self._legal
        if legal is not None:
            return legal  # type: ignore[return-value]  # a list[Play] the caller only reads
        suits = self._suits[seat]
        trumps = suits[_TRUMPS]
        wanted = self._wanted
        asked = self._asked
        if not self._cards:  # Leading: a special only from a hand holding nothing else
            red, blue, green, yellow, _ = suits
            specials = self._nspec[seat]
            if specials:
                legal = [*red, *blue, *green, *yellow, *trumps[: len(trumps) - specials]]
                if not legal:
                    legal = trumps[:]
            else:
                legal = [*red, *blue, *green, *yellow, *trumps]
        elif asked >= 0 and suits[asked]:  # Following 1, and the steal rule (0)
            legal = suits[asked][:]
            if wanted and trumps:
                legal += [p for p in trumps if p.card in wanted]
        elif not trumps:  # neither the colour asked nor a trump: any card
            red, blue, green, yellow, _ = suits
            legal = [*red, *blue, *green, *yellow]
        else:  # a trump, raising when one can (Following 1-3); the steal rule still holds
            top = self._top
            strength = STRENGTH
            legal = [p for p in trumps if strength[p.card] > top] if top >= 0 else []
            if not legal:
                legal = trumps[:]
            elif wanted:
                legal = [p for p in trumps if strength[p.card] > top or p.card in wanted]
        self._legal = legal
        return legal  # type: ignore[return-value]  # a list[Play] the caller only reads

    def _other_actions(self, seat: int) -> list[Action]:
        """Legal actions outside the play phase: passes, or the complice's choice."""
        phase = self.phase
        if phase is _EXCHANGE:
            if not 0 <= seat < self.n or len(self.passed[seat]) >= self.k:
                return []
            return [_PASS[c] for c in self._hand(seat) if c not in ROLE_CARDS]
        if phase is _NEUTRALIZE and seat == self.complice:
            return list(_YES_NO)
        return []

    def apply(self, seat: int, action: Action) -> list[EventBase]:
        """A legal card of the seat to play (the common case) is recognised by membership in
        the cached legal actions and played here; anything else goes through the full checks
        first. The card joins the trick (Trump pairs: a completed pair leaves the contest);
        a completed trick is resolved, or waits for the complice."""
        if self.phase is not _PLAYING or type(action) is not Play or seat != self.current_player:
            return self._apply_checked(seat, action)
        legal: Sequence[Action] | None = self._legal
        if legal is None:
            legal = self.legal_actions(seat)
        if action not in legal:
            return self._apply_checked(seat, action)
        self.history.append((seat, action))
        card = action.card
        suit, strength, comp, role, win = _INFO[card]
        self._suits[seat][suit].remove(action)
        cards = self._cards
        cards.append(card)
        wanted = self._wanted
        if card in wanted:  # it completes a pair with a contesting real trump
            wanted.discard(card)
            paired = self._paired
            paired += (card, COMPLEMENT[card])
            self._special = True
            self._top = max([STRENGTH[c] for c in cards if c not in paired], default=-1)
        else:
            if strength > self._top:
                self._top = strength
            if comp is not None:
                wanted.add(comp)
            if suit != _TRUMPS:  # a classic counts in the colour of reference only
                ref = self._ref
                if ref < 0:
                    self._ref = ref = suit
                if suit != ref:
                    win = -1
            if win > self._win:
                self._win = win
                self._winner = seat
        self._legal = None
        events = [_PLAY_EVENTS[seat][card]]
        if role:
            self._nspec[seat] -= 1
            if card == "bomb":
                self._special = True
            if not self.revealed[seat]:
                self.revealed[seat] = True
                events.append(
                    RoleRevealedEvent(
                        seat=seat,
                        cards=[card],
                        data=RoleRevealedData(role=ROLE_OF_CARD[card]),
                    )
                )
        n = len(cards)
        if n == 1:
            self._asked = suit if suit != _TRUMPS else -1
        if n < self.n:
            self.current_player = (seat + 1) % self.n
        elif self._special and neutralization_possible(self._contest()):
            self.phase = _NEUTRALIZE
            self.current_player = self.complice
            events.append(
                DecisionEvent(
                    seat=self.complice,
                    data=DecisionData(decision="neutralize", threat=self._threat()),
                )
            )
        else:
            self._finish_trick(None, events)
        return events

    def scores(self) -> RoundScore | None:
        """The round's scores with their breakdown, built on first request once it is over
        (the round-over event carries the totals)."""
        if self._scores is None and self.bomb is not None and self.is_over:
            self._scores = score_piles(self.final_piles(), self.bomb.outcome)
        return self._scores

    # --- phases --------------------------------------------------------------------------

    def _apply_checked(self, seat: int, action: Action) -> list[EventBase]:
        phase = self.phase
        if isinstance(action, Play) and phase is _PLAYING:
            self._check_play(seat, action)
            return self.apply(seat, _PLAY[action.card])  # legal: played by the fast path
        if isinstance(action, Pass) and phase is _EXCHANGE:
            events = self._pass(seat, [action.card])
        elif isinstance(action, Exchange) and phase is _EXCHANGE:
            events = self._pass(seat, list(action.cards))
        elif isinstance(action, Neutralize) and phase is _NEUTRALIZE:
            events = self._neutralize(seat, action.neutralize)
        else:
            kind = type(action).__name__.lower()
            raise IllegalMove(
                "wrong-phase",
                say(T.WRONG_PHASE, kind=kind, phase=phase.value),
                [],
            )
        self.history.append((seat, action))
        return events

    def _pass(self, seat: int, cards: list[str]) -> list[EventBase]:
        """Set-up 3: k cards face down to the right neighbour; role cards stay."""
        remaining = self.k - len(self.passed[seat])
        if remaining <= 0:
            raise IllegalMove(
                "not-your-turn",
                say(T.PASSED_ALL, seat=seat, k=self.k),
            )
        if not cards or len(cards) > remaining or len(set(cards)) != len(cards):
            raise InvalidInput(
                say(T.PASS_COUNT, seat=seat, remaining=remaining, cards=cards),
                code="bad-request",
                field="cards",
            )
        hand = self._hand(seat)
        passable = [c for c in hand if c not in ROLE_CARDS]
        for card in cards:
            if card not in hand:
                raise IllegalMove("card-not-in-hand", say(QUOTED_NOT_IN_HAND, card=card), passable)
            if card in ROLE_CARDS:
                raise IllegalMove("role-card-locked", say(T.ROLE_CARD_LOCKED, card=card), passable)
        for card in cards:
            self._suits[seat][_INFO[card][0]].remove(_PLAY[card])
        self.passed[seat].extend(cards)
        events: list[EventBase] = [
            PassEvent(seat=seat, cards=canon(cards), to=[seat]),
            PassEvent(seat=seat, data=PassData(count=len(cards))),
        ]
        if all(len(p) == self.k for p in self.passed):
            events.extend(self._finish_exchange())
        return events

    def _finish_exchange(self) -> list[EventBase]:
        """Set-up 3: everyone receives, at once, the cards of the left neighbour."""
        events: list[EventBase] = []
        for seat in range(self.n):
            left = (seat + 1) % self.n
            got = self.passed[left]
            self._suits[seat] = _by_suit(canon(self._hand(seat) + got))
            events.append(
                ExchangeEvent(
                    seat=seat,
                    cards=canon(got),
                    data=ExchangeData(
                        from_=left, to=(seat - 1) % self.n, passed=canon(self.passed[seat])
                    ),
                    to=[seat],
                )
            )
        self.phase = _PLAYING
        self.current_player = self.leader
        self._legal = None
        return events

    def _check_play(self, seat: int, action: Play) -> None:
        """Leading and Following, with every check and the first broken rule's reason."""
        turn = self.current_player
        if seat != turn:
            raise IllegalMove("not-your-turn", say(T.NOT_YOUR_TURN, turn=turn, seat=seat))
        if action.declared is not None:
            raise InvalidInput(say(T.NO_DECLARATION), code="bad-request", field="declared")
        card = action.card
        legal = [a.card for a in self.legal_actions(seat) if isinstance(a, Play)]
        if card not in legal:
            hand = self._hand(seat)
            if card in hand:
                reason, message = illegal_reason(hand, list(self._cards), card)
            else:
                reason, message = "card-not-in-hand", say(QUOTED_NOT_IN_HAND, card=card)
            raise IllegalMove(reason, message, legal)

    def _contest(self) -> list[str]:
        """The current trick's cards still contesting (not taken in a pair), in play order."""
        paired = self._paired
        return [c for c in self._cards if c not in paired]

    def _threat(self) -> str:
        """The threat the Joker would neutralize: the highest Shadow, else the Quantum."""
        shadows = [c for c in self._contest() if c.startswith("shadow-")]
        return canon(shadows)[-1] if shadows else "quantum"

    def _neutralize(self, seat: int, choice: bool) -> list[EventBase]:
        """Joker neutralization: the complice's choice, asked after the trick's last card."""
        if seat != self.complice:
            raise IllegalMove(
                "not-your-decision", say(T.COMPLICE_DECIDES, complice=self.complice, seat=seat)
            )
        events: list[EventBase] = [
            NeutralizeEvent(seat=seat, data=NeutralizeData(neutralize=bool(choice)))
        ]
        self._finish_trick(bool(choice), events)
        return events

    def _collect(self, result: TrickResult) -> None:
        """A resolved trick's captures into the piles, its pairs kept apart (`_finish_trick`,
        and `restore_values` rebuilding the piles from the finished tricks)."""
        piles = self.piles
        if result.pairs:
            paired = {c for p in result.pairs for c in p.cards}
            for cap in result.captures:
                piles[cap.seat].extend([c for c in cap.cards if c not in paired])
                self._canon_piles[cap.seat] = None
            for p in result.pairs:
                self.pairs[p.seat].append(p.cards)
        else:
            for cap in result.captures:
                piles[cap.seat].extend(cap.cards)
                self._canon_piles[cap.seat] = None

    def _finish_trick(self, choice: bool | None, events: list[EventBase]) -> None:
        """Resolve the complete trick, adding its events. A plain one (no Bomb, no pair:
        every card contests) goes whole to the contest's winner, its data written directly as
        the plain form of the :class:`TrickResult` that :func:`engine.numwars.tricks.resolve` would
        return."""
        piles = self.piles
        if not self._special:
            winner = self._winner  # kept as the cards were played
            cards = sorted(self._cards, key=_ORDER_KEY)
            piles[winner] += cards
            self._canon_piles[winner] = None
            data: dict[str, Any] = {
                "winner": winner,
                "annulled": False,
                "captures": [{"seat": winner, "cards": cards}],
                "pairs": [],
                "next_leader": winner,
                "bomb": None,
            }
            self._records.append((self.leader, self._cards, data, choice, None))
            plain = TrickData(
                winner=winner,
                annulled=False,
                captures=[Capture(seat=winner, cards=cards)],
                pairs=[],
                next_leader=winner,
                bomb=None,
            )
            events.append(TrickEvent(seat=winner, cards=list(cards), data=plain))
            self._next_trick(winner)
            if not any(self._suits[0]):
                events.append(self._finish_round())
            return
        trick = self.trick
        result = resolve(trick, self.roles, True if choice is None else choice)
        self._collect(result)
        data = msgspec.to_builtins(result)
        self._records.append((self.leader, self._cards, data, choice, result))
        captures = result.captures
        # Cards are conserved: a lone capture without pairs holds the whole trick, canonical.
        cards = (
            list(captures[0].cards)
            if len(captures) == 1 and not result.pairs
            else canon(self._cards)
        )
        trick_data = TrickData(
            winner=result.winner,
            annulled=result.annulled,
            captures=result.captures,
            pairs=result.pairs,
            next_leader=result.next_leader,
            bomb=result.bomb,
        )
        events.append(TrickEvent(seat=result.winner, cards=cards, data=trick_data))
        bomb = result.bomb
        if isinstance(bomb, BombResult):
            assert self.bomb is None, "the Bomb is resolved once"
            self.bomb = bomb
            events.append(
                BombEvent(
                    seat=bomb.captured_by,
                    cards=["bomb"],
                    data=BombData(
                        outcome=bomb.outcome,
                        captured_by=bomb.captured_by,
                        neutralized=bomb.neutralized,
                    ),
                )
            )
        self._next_trick(result.next_leader)
        if not any(self._suits[0]):
            events.append(self._finish_round())

    def _next_trick(self, leader: int) -> None:
        """The winner of a trick leads the next (Winning the contest); the trick's running
        facts start again (only those a trick changed are reset)."""
        self._cards: list[str] = []  # the current trick's cards in play order, from the leader
        #: The colour asked and the colour a classic card must have to win (Winning the
        #: contest 3-4), as suit indexes (-1: trump, none yet); the best contest key so far
        #: and its seat (no key: the leader wins); the highest strength among the contesting
        #: trumps (-1: none).
        self._asked = self._ref = self._win = self._top = -1
        self._winner = self.leader = self.current_player = leader
        if self._wanted:  # the complements of the contesting real trumps
            self._wanted = set()
        if self._special:  # the trick held the Bomb or a pair: resolved in full
            self._special = False
            self._paired = []  # cards taken in pairs: they left the contest
        self._legal = None
        self.phase = _PLAYING

    def _finish_round(self) -> EventBase:
        """Every role is revealed at the end of the round; the piles, built by the engine
        itself, are totalled without the checks of score_round (``scores`` adds the
        breakdown when asked)."""
        bomb = self.bomb
        assert bomb is not None, "the Bomb is always played"
        self.phase = _OVER
        self.current_player = None
        self.is_over = True
        self.revealed = [True] * self.n
        outcome = bomb.outcome
        totals = [
            pile_points(pile, pairs, role, outcome)
            for pile, pairs, role in zip(self.piles, self.pairs, self.roles, strict=True)
        ]
        return RoundOverEvent(
            data=RoundOverData(roles=list(self.roles), scores=totals, winners=best_seats(totals)),
        )

    def final_piles(self) -> list[NumWarsPile]:
        return [
            NumWarsPile(
                captured=canon(self.piles[s]), pairs=list(self.pairs[s]), role=self.roles[s]
            )
            for s in range(self.n)
        ]

    # -- the round's state within it (a stored game's progress: issue 27) -------------------

    def state_values(self) -> tuple[Any, ...]:
        """What the round's actions changed, as plain values (`engine.numwars.state` names
        them), in a round not over: :meth:`restore_values` on the round freshly dealt from the
        same setup makes it this round without applying its actions. Each finished trick is
        its leader, its cards in play order, its result as plain data (read back as a
        :class:`TrickResult`) and the complice's choice; what follows from the finished tricks
        (the piles, the pairs, the Bomb's fate) and from the hands (the role cards each holds)
        is left out, as are the caches (the legal plays, the finished tricks and the sorted
        piles as views show them); the lists are the round's own, to be encoded at once."""
        return (
            self.phase.value,
            self.hands,
            self.passed,
            self.revealed,
            [(leader, cards, data, choice) for leader, cards, data, choice, _ in self._records],
            self.leader,
            self.current_player,
            self._cards,
            self._asked,
            self._ref,
            self._win,
            self._winner,
            self._top,
            sorted(self._wanted),
            self._paired,
            self._special,
        )

    def restore_values(
        self,
        phase: str,
        hands: list[list[str]],
        passed: list[list[str]],
        revealed: list[bool],
        records: list[tuple[int, list[str], TrickResult, bool | None]],
        leader: int,
        current_player: int | None,
        trick_cards: list[str],
        asked: int,
        ref: int,
        win: int,
        winner: int,
        top: int,
        wanted: list[str],
        paired: list[str],
        special: bool,
        history: list[tuple[int, Action]],
    ) -> None:
        """Take the state :meth:`state_values` gave (checked by the caller) on a round freshly
        dealt from its setup, with the actions that led there (`history`). The hands' suit
        lists and role-card counts are built again; the piles, the pairs and the Bomb's fate
        are rebuilt from the finished tricks as :meth:`_finish_trick` built them (a trick
        holding the Bomb or a pair keeps its result, which the pairs and the Bomb share)."""
        self.phase = Phase(phase)
        self._suits = [_by_suit(hand) for hand in hands]
        self._nspec = [len(ROLE_CARDS.intersection(hand)) for hand in hands]
        self.passed = passed
        self.revealed = revealed
        kept: list[tuple[int, list[str], dict[str, Any], bool | None, TrickResult | None]] = []
        for trick_leader, taken, result, choice in records:
            bomb = result.bomb
            if isinstance(bomb, BombResult):
                self.bomb = bomb
            self._collect(result)
            found = isinstance(bomb, BombResult) or bool(result.pairs)  # `_special`'s trick
            data: dict[str, Any] = msgspec.to_builtins(result)
            kept.append((trick_leader, taken, data, choice, result if found else None))
        self._records = kept
        self._finished = []
        self._canon_piles = [None] * self.n
        self.leader = leader
        self.current_player = current_player
        self._cards = trick_cards
        self._asked, self._ref, self._win, self._winner, self._top = asked, ref, win, winner, top
        self._wanted = set(wanted)
        self._paired = paired
        self._special = special
        self._legal = None
        self.history = history

    # --- projections ---------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain data, hidden cards included (replay equality)."""
        return {
            "setup": msgspec.to_builtins(self.setup),
            "options": msgspec.to_builtins(self.options),
            "phase": self.phase.value,
            "hands": [list(h) for h in self.hands],
            "roles": list(self.roles),
            "set_aside": list(self.set_aside),
            "dealer": self.dealer,
            "leader": self.leader,
            "passed": [list(p) for p in self.passed],
            "trick": [[s, c] for s, c in self.trick],
            "tricks": self.tricks,
            "piles": [list(p) for p in self.piles],
            "pairs": [[list(p) for p in ps] for ps in self.pairs],
            "revealed": list(self.revealed),
            "bomb": None if self.bomb is None else msgspec.to_builtins(self.bomb),
            "scores": msgspec.to_builtins(self.scores()),
            "history": [[s, msgspec.to_builtins(a)] for s, a in self.history],
        }


def _seat(seat: object, players: int) -> int:
    """`check_seat(seat, players)`, inline for a valid seat (compiled: no Python call)."""
    if type(seat) is int and 0 <= seat < players:
        return seat
    return check_seat(seat, players)
