"""The `numwars-classic` round as a state machine (rules/numwars-classic.md).

Phases (STYLE 3): ``exchange`` — every seat passes `exchange` cards, one `Pass` at a time and
simultaneously, to its right neighbour (seat s-1) and, once all have passed, receives as many
from its left neighbour (s+1); ``show`` — under `alliance` only, every seat shows one card of
its hand to its partner or skips (`Show(None)`), simultaneously, seen by the partner only;
``play`` — the dealer leads the first trick, the taker of the rest of each trick leads the
next; ``over`` — scores are the stateless `score_round` of the final piles.

Speed (random play-outs call `actors`, `legal_actions` and `apply` once per action): the
class has `__slots__`; the actions and the play and pass events are shared frozen values, one
per card (and seat); in the play phase each hand is kept only as six runs of `Play` actions in
canonical order (the four colours, the trumps, the Jokers; `hands` is read from them), so that
the legal plays are a few concatenations, computed inside `legal_actions` and played inside
`apply`; the trick keeps its cards, what it asks, its top trump and the bits of its trumps as
it grows (its seats follow from its leader), and a trick without a trump pair is resolved from
those without the general `duel`. The legal actions are cached for the turn, and `apply`
accepts an action found among them (the shared value itself: `_identical`) without further
checks; any other action goes through the full checks, which name the broken rule. Finished tricks are
stored compactly (`tricks` adds their number, leader and cards when read); the final piles are
totalled from their `PILE_BIT` sums (`held_points`) for the round-over event, and `scores`
builds the breakdown when first asked. The deal draws only the cards it deals. The module
names the hot paths read are `Final` (C variables once compiled, not dictionary look-ups).
The round object calls `checked_legal_actions` and `checked_apply` (engine.core.boundary).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, Final, TypeVar

import msgspec
from msgspec import UnsetType

from engine.core.actions import (
    Action,
    Exchange,
    Pass,
    Play,
    Show,
    check_fields,
    shared_pass,
    shared_play,
)
from engine.core.base import Capture, RoundScore, RoundSetup, TrickCard
from engine.core.cards import canonical
from engine.core.errors import IllegalMove, InvalidInput
from engine.core.events import (
    EventBase,
    ExchangeData,
    ExchangeEvent,
    PlayEvent,
    RoundOverData,
    RoundOverEvent,
    ShowData,
    ShowEvent,
    TrickData,
    TrickEvent,
)
from engine.core.texts import say
from engine.core.tricks import check_seat
from engine.numwars_classic import texts as T
from engine.numwars_classic.cards import (
    BLUE,
    GREEN,
    JOKER,
    KIND,
    MAX_PLAYERS,
    ORDER_KEY,
    PARTNER_CARD,
    PILE_BIT,
    RAINBOW,
    RED,
    RULESET_ID,
    SHADOW,
    TRUMP_ASKED,
    VALUE,
    YELLOW,
)
from engine.numwars_classic.scoring import held_points, score_helds
from engine.numwars_classic.tricks import (
    ClassicFinishedTrick,
    broken_obligation,
    check_card,
    duel,
    reason_message,
    sort_cards,
    undealt_cards,
)


class Phase(StrEnum):
    EXCHANGE = "exchange"
    SHOW = "show"
    PLAY = "play"
    OVER = "over"


#: Module constants: an Enum member look-up (`Phase.PLAY`) costs ~100 ns on the hot path.
#: `Final` ones, here and below, are C variables of the compiled module (a plain module name
#: is a dictionary look-up at each use); the imported ones the hot paths read are aliased.
_EXCHANGE: Final = Phase.EXCHANGE
_SHOW: Final = Phase.SHOW
_PLAYING: Final = Phase.PLAY
_OVER: Final = Phase.OVER
_RAINBOW: Final = RAINBOW
_JOKER: Final = JOKER
_TRUMP_ASKED: Final = TRUMP_ASKED
_VALUE: Final = VALUE
_ORDER_KEY: Final = ORDER_KEY
_PILE_BIT: Final = PILE_BIT

_PHASE_ACTIONS = {
    Phase.EXCHANGE: ["pass", "exchange"],
    Phase.SHOW: ["show"],
    Phase.PLAY: ["play"],
    Phase.OVER: [],
}

#: One shared action per card: `legal_actions` lists these, `apply` finds them by identity
#: (the core's shared values: a stored action decodes to them).
_PLAY: Final[dict[str, Play]] = {card: shared_play(card) for card in KIND}
_PASS: Final[dict[str, Pass]] = {card: shared_pass(card) for card in KIND}
#: The public "play" event of each seat and card, built once (identical values).
_PLAY_EVENTS: Final[list[dict[str, EventBase]]] = [
    {card: PlayEvent(seat=s, cards=[card]) for card in KIND} for s in range(MAX_PLAYERS)
]
#: The private "pass" event of each seat and card, per player count (built on first use).
_PASS_EVENTS: dict[int, list[dict[str, EventBase]]] = {}


def _trump_bit(card: str) -> int:
    """A trump's bit in a trick's trump mask: Rainbow X bit X, Shadow X bit 17 + X, so that
    `mask & mask >> 17` holds the values of the trump pairs; 0 for any other card."""
    if KIND[card] == RAINBOW:
        return 1 << VALUE[card]
    if KIND[card] == SHADOW:
        return 1 << 17 + VALUE[card]
    return 0


#: The seats of a trick of n players led by `leader`, in play order: `_SEATS_FROM[n][leader]`.
_SEATS_FROM: Final = [
    [tuple((lead + i) % n for i in range(n)) for lead in range(n)] for n in range(9)
]
#: Per trump, the trump bit of the card it would complete a pair with (Raise obligation).
_PAIR_BIT: Final[dict[str, int]] = {c: _trump_bit(PARTNER_CARD[c]) for c in PARTNER_CARD}
#: A hand in play is six runs of `Play` actions in canonical order: the four colours, the
#: trumps (Rainbows then Shadows: one suit), the Jokers. The run of each card kind:
_TRUMPS: Final = 4
_JOKERS: Final = 5
_RUN = (RED, BLUE, GREEN, YELLOW, _TRUMPS, _TRUMPS, _JOKERS)
#: Per card: its kind, its value, its trump bit and its run, in one look-up.
_INFO: Final[dict[str, tuple[int, int, int, int]]] = {
    c: (KIND[c], VALUE[c], _trump_bit(c), _RUN[KIND[c]]) for c in KIND
}

A = TypeVar("A")
#: The type of a view the kernel builds (its game's `view` module's `View`).
V = TypeVar("V")


def _pass_events(players: int) -> list[dict[str, EventBase]]:
    """Set-up: the event of a seat passing a card to its right neighbour, seen by it alone."""
    events = _PASS_EVENTS.get(players)
    if events is None:
        events = _PASS_EVENTS[players] = [
            {
                card: ExchangeEvent(
                    seat=s,
                    cards=[card],
                    data=ExchangeData(action="pass", right=(s - 1) % players),
                    to=[s],
                )
                for card in KIND
            }
            for s in range(players)
        ]
    return events


class ClassicKernel:
    """One round of Num Wars (classic edition), rebuilt exactly from `setup` + `history`.

    `hands` are canonical lists of card codes; assign the whole list to replace them (test
    fixtures do), never one seat's list, so that the play phase's runs of actions follow.
    `current_player` and `is_over` are plain attributes: the play-outs read them every step.
    """

    __slots__ = (
        "_asked",
        "_best",
        "_best_seat",
        "_finished",
        "_hands",
        "_helds",
        "_legal",
        "_pass_events",
        "_passes",
        "_phase",
        "_records",
        "_score",
        "_suits",
        "_tbits",
        "_top",
        "_top_seat",
        "_undealt",
        "_waiting",
        "alliance",
        "current_player",
        "exchange_size",
        "has_shown",
        "history",
        "is_over",
        "leader",
        "options",
        "passed",
        "piles",
        "players",
        "received",
        "setup",
        "shown",
        "trick_cards",
    )

    def __init__(
        self,
        setup: RoundSetup,
        hands: list[list[str]],
        undealt: list[int],
        *,
        alliance: bool,
        exchange_size: int,
        options: object,
    ) -> None:
        """The round of `setup` from its deal (canonical `hands`, the `undealt` ranks in
        DECK), with option `alliance` and `exchange_size` cards passed by each seat; `options`
        is the options value, for `snapshot`."""
        n = setup.players
        self.options = options
        self.setup = setup
        self.history: list[tuple[int, Action]] = []
        self.players = n
        self.alliance = alliance
        self.exchange_size = exchange_size
        self._hands: list[list[str]] = hands  # until play starts; then `_suits` hold them
        #: The exchange's legal actions: per seat, the `Pass` of each distinct card held.
        self._passes = [_distinct_actions(hand, _PASS) for hand in hands]
        #: The play phase's hands: per seat, per kind, the `Play` of each card (canonical).
        self._suits: list[list[list[Play]]] = []
        self._undealt = undealt
        self.passed: list[list[str]] = [[] for _ in range(n)]
        self.received: list[list[str]] = [[] for _ in range(n)]
        self.shown: list[str | None] = [None] * n
        self.has_shown: list[bool] = [False] * n
        #: Finished tricks: leader, cards in play order, result as plain data.
        self._records: list[tuple[int, list[str], TrickData]] = []
        #: The finished tricks as views show them, each built once (:meth:`finished_tricks`).
        self._finished: list[ClassicFinishedTrick] = []
        self.piles: list[list[str]] = [[] for _ in range(n)]
        self.leader = setup.dealer
        self.current_player: int | None = None
        self.is_over = False
        self._phase = _EXCHANGE
        self._score: RoundScore | None = None
        self._helds: list[int] = []  # the final piles, each summed (`PILE_BIT`), once over
        self._legal: list[Play] | None = None  # the current player's legal plays, this turn
        self._waiting = list(range(n))  # seats still owing a pass (exchange) or a show (show)
        self._pass_events = _pass_events(n)
        self._new_trick()

    def view(self, seat: int | None, view: Callable[..., V]) -> V:
        """What `seat` may see (None: a spectator), as :func:`engine.numwars_classic.view.view`
        shows it with its type (`view`: its `View`), built here, compiled with the state it
        reads (issue 27); `seat` is already checked."""
        n = self.players
        alliance = self.alliance
        partner = self.partner(seat) if alliance and seat is not None else None
        return view(
            ruleset=RULESET_ID,
            phase=str(self.phase),
            round=self.setup.round,
            dealer=self.setup.dealer,
            players=n,
            seat=seat,
            current_player=self.current_player,
            actors=list(self.actors()),
            hand=canonical(self.hands[seat]) if seat is not None else None,
            legal_actions=list(self.legal_actions(seat)) if seat is not None else None,
            scores=[0] * n,
            leader=self.leader,
            hand_counts=[len(h) for h in self.hands],
            exchange_size=self.exchange_size,
            passed_counts=[len(p) for p in self.passed],
            trick=[TrickCard(seat=s, card=c) for s, c in self.trick],
            tricks=self.finished_tricks(),
            captured=[canonical(p) for p in self.piles],
            set_aside_count=len(self.set_aside),
            teams=[[s, s + n // 2] for s in range(n // 2)] if alliance else None,
            has_shown=list(self.has_shown) if alliance else None,
            passed=canonical(self.passed[seat]) if seat is not None else None,
            received=list(self.received[seat]) if seat is not None else None,
            shown=self.shown[seat] if alliance and seat is not None else None,
            partner_shown=(
                self.shown[partner] if partner is not None and self.has_shown[partner] else None
            ),
            round_score=self.scores(),
        )

    def _new_trick(self) -> None:
        self.trick_cards: list[str] = []  # in play order, from `leader`
        self._asked: int | None = None  # what the trick asks (see `asked_of`)
        self._best = self._best_seat = -1  # highest card of the colour asked, and its seat
        self._top = self._top_seat = -1  # highest trump, and its seat
        self._tbits = 0  # the trumps played (see `_INFO`)

    # -- the protocol --------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def hands(self) -> list[list[str]]:
        """Each seat's hand in canonical order (from the runs of plays once play starts)."""
        if self._suits:
            return [[p.card for run in suits for p in run] for suits in self._suits]
        return self._hands

    @hands.setter
    def hands(self, hands: list[list[str]]) -> None:
        self._hands = [sort_cards(hand) for hand in hands]
        self._passes = [_distinct_actions(hand, _PASS) for hand in self._hands]
        if self._suits:
            self._suits = [_suits_of(hand) for hand in self._hands]
        self._legal = None

    @property
    def trick(self) -> list[tuple[int, str]]:
        """The current trick as (seat, card) in play order, from its leader."""
        return list(zip(_SEATS_FROM[self.players][self.leader], self.trick_cards, strict=False))

    @property
    def set_aside(self) -> list[str]:
        """The undealt cards, canonical (sorted when read: the play-outs never read them)."""
        return undealt_cards(self._undealt)

    def scores(self) -> RoundScore | None:
        """The round's scores with their breakdown once it is over (built when first asked:
        the round-over event carries the totals)."""
        if self._score is None and self._helds:
            self._score = score_helds(self._helds, alliance=self.alliance)
        return self._score

    def partner(self, seat: int) -> int:
        return (seat + self.players // 2) % self.players

    def actors(self) -> list[int]:
        turn = self.current_player
        if turn is not None:
            return [turn]
        return self._waiting  # never changed in place (replaced): callers only read it

    # -- the checked entry points (the round object's methods: engine.core.boundary) -------

    def checked_legal_actions(self, seat: object) -> list[Action]:
        """`legal_actions` of any `seat` argument: a bad one is `check_seat`'s error."""
        return self.legal_actions(_seat(seat, self.players))

    def checked_apply(self, seat: object, action: Action) -> list[EventBase]:
        """`apply` once the seat (`check_seat`) and the action's field types (`check_fields`)
        are checked: a bad one is their error. The fields of the shared actions that
        `legal_actions` lists need no check: `apply` checks any other action's (`_apply_checked`)
        before it reads them."""
        return self.apply(_seat(seat, self.players), action)

    def legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions; in the play phase the turn's cached list (do not mutate).

        Plays ("Playing a card"), in canonical order, as `legal_in_order`: on the lead or
        after Jokers only, any card. Colour asked: that colour or a trump, holding neither any
        card; trump asked: a trump, holding none any card; Joker always; Raise obligation on
        the trumps: higher than every trump in the trick or completing a pair, if held.
        """
        turn = self.current_player
        if turn is None:
            if self._phase is _EXCHANGE and len(self.passed[seat]) < self.exchange_size:
                return list(self._passes[seat])
            return self._other_actions(seat)
        if seat != turn:
            return []
        legal = self._legal
        if legal is not None:
            return legal  # type: ignore[return-value]  # a list[Play] the caller only reads
        suits = self._suits[seat]
        asked = self._asked
        if asked is not None:
            follow = [] if asked == _TRUMP_ASKED else suits[asked]
            trumps = suits[_TRUMPS]
            if follow or trumps:
                top = self._top
                if top >= 0 and trumps:
                    tbits = self._tbits
                    raised = [
                        p for p in trumps if _VALUE[p.card] > top or _PAIR_BIT[p.card] & tbits
                    ]
                    if raised:
                        trumps = raised
                legal = self._legal = [*follow, *trumps, *suits[_JOKERS][:1]]
                return legal  # type: ignore[return-value]
        red, blue, green, yellow, trumps, jokers = suits
        legal = self._legal = [*red, *blue, *green, *yellow, *trumps, *jokers[:1]]
        return legal  # type: ignore[return-value]

    def _other_actions(self, seat: int) -> list[Action]:
        """Legal actions outside the play phase but a pass: shows."""
        phase = self._phase
        if phase is _SHOW:
            if self.has_shown[seat]:
                return []
            return [Show(None), *(Show(c) for c in _distinct(self._hands[seat]))]
        return []

    def apply(self, seat: int, action: Action) -> list[EventBase]:
        """Validate `action` fully, then apply it (nothing changes when it is refused).

        A play found in the turn's legal plays is played here: the trick keeps what it asks,
        its top trump and trump bits. A pass of a held card by a seat that still owes one is
        valid as it is; anything else goes through `_apply_checked`.
        """
        if seat != self.current_player:
            if (
                type(action) is Pass
                and self._phase is _EXCHANGE
                and len(self.passed[seat]) < self.exchange_size
            ):
                # the seat's passes list each distinct card held, in the hand's order
                i = _identical(self._passes[seat], action)
                if i < 0:
                    return self._apply_checked(seat, action)
                self.history.append((seat, action))
                return self._pass(seat, action.card, i)
            return self._apply_checked(seat, action)
        legal: list[Any] | None = self._legal
        if legal is None:
            legal = self.legal_actions(seat)
        if type(action) is not Play:
            return self._apply_checked(seat, action)
        if _identical(legal, action) < 0:
            return self._apply_checked(seat, action)
        self.history.append((seat, action))
        card = action.card
        kind, value, bit, run = _INFO[card]
        self._legal = None
        held = self._suits[seat][run]
        del held[_identical(held, action)]
        played = self.trick_cards
        played.append(card)
        if kind < _RAINBOW:
            asked = self._asked
            if asked is None:
                asked = self._asked = kind
            if kind == asked and value > self._best:
                self._best, self._best_seat = value, seat
        elif kind != _JOKER:
            if self._asked is None:
                self._asked = _TRUMP_ASKED
            if value > self._top:
                self._top, self._top_seat = value, seat
            self._tbits |= bit
        events = [_PLAY_EVENTS[seat][card]]
        if len(played) < self.players:
            self.current_player = (seat + 1) % self.players
        else:
            self._end_trick(seat, events)
        return events

    def _apply_checked(self, seat: int, action: Action) -> list[EventBase]:
        """`apply` for any action: the checks in contract order (the field types first, as
        the boundary's), then the change; a legal play is made by `apply` with the shared
        action (equal to `action`)."""
        check_fields(action)
        phase = self._phase
        if phase is _PLAYING and isinstance(action, Play):
            self._check_play(seat, action)
            return self.apply(seat, _PLAY[action.card])  # legal: played by the fast path
        elif phase is _EXCHANGE and isinstance(action, Pass):
            self._check_exchange(seat, [action.card])
            events = self._pass(seat, action.card)
        elif phase is _EXCHANGE and isinstance(action, Exchange):
            self._check_exchange(seat, action.cards)
            events = [e for card in action.cards for e in self._pass(seat, card)]
        elif phase is _SHOW and isinstance(action, Show):
            events = self._show(seat, action.card)
        else:
            allowed = _PHASE_ACTIONS[phase]
            kind = type(action).__name__.lower()
            raise IllegalMove(
                "wrong-phase",
                say(T.WRONG_PHASE, kind=kind, phase=phase.value, allowed=tuple(allowed))
                if allowed
                else say(T.WRONG_PHASE_OVER, kind=kind),
                allowed,
            )
        self.history.append((seat, action))
        return events

    # -- exchange ("Set-up") -------------------------------------------------------------------

    def _check_exchange(self, seat: int, cards: list[str]) -> None:
        left = self.exchange_size - len(self.passed[seat])
        if left <= 0:
            raise IllegalMove(
                "not-your-turn",
                say(T.PASSED_ALL, seat=seat, k=self.exchange_size),
                [],
            )
        if not cards or len(cards) > left:
            raise InvalidInput(
                say(T.PASS_LEFT, seat=seat, left=left, count=len(cards)),
                code="bad-request",
                field="cards",
            )
        for i, card in enumerate(cards):
            check_card(card, f"cards[{i}]" if len(cards) > 1 else "card")
        hand = self._hands[seat]
        need = Counter(cards) if len(cards) > 1 else {cards[0]: 1}
        for card, count in need.items():
            held = hand.count(card) if count > 1 else int(card in hand)
            if held < count:
                raise IllegalMove(
                    "card-not-in-hand",
                    say(
                        T.NOT_IN_SEAT_HAND_OFTEN if held else T.NOT_IN_SEAT_HAND,
                        card=card,
                        seat=seat,
                    ),
                    _distinct(hand),
                )

    def _pass(self, seat: int, card: str, i: int = -1) -> list[EventBase]:
        """Pass a held card (at `i` in the hand, if known) to the right neighbour."""
        hand = self._hands[seat]
        if i < 0:
            i = hand.index(card)
        del hand[i]
        if i == len(hand) or hand[i] != card:  # else the other Joker is still held
            del self._passes[seat][i]  # the passes follow the hand, one per distinct card
        passed = self.passed[seat]
        passed.append(card)
        events = [self._pass_events[seat][card]]
        if len(passed) < self.exchange_size:
            return events
        waiting = self._waiting = [s for s in self._waiting if s != seat]  # a new list
        if waiting:
            return events
        n = self.players
        for s in range(n):
            got = sorted(self.passed[(s + 1) % n], key=_ORDER_KEY)
            self.received[s] = got
            held = self._hands[s]
            held.extend(got)
            held.sort(key=_ORDER_KEY)
            events.append(
                ExchangeEvent(
                    seat=s,
                    cards=got,
                    data=ExchangeData(action="receive", left=(s + 1) % n),
                    to=[s],
                )
            )
        if self.alliance:
            self._phase = _SHOW
            self._waiting = list(range(n))
        else:
            self._start_play()
        return events

    # -- alliance show step ("Match and variants", Ruling) ------------------------------------

    def _show(self, seat: int, card: str | None) -> list[EventBase]:
        if self.has_shown[seat]:
            raise IllegalMove("not-your-turn", say(T.SHOWN, seat=seat), [])
        if card is not None:
            check_card(card, "card")
            if card not in self._hands[seat]:
                raise IllegalMove(
                    "card-not-in-hand",
                    say(T.NOT_IN_SEAT_HAND, card=card, seat=seat),
                    _distinct(self._hands[seat]),
                )
        self.has_shown[seat] = True
        self.shown[seat] = card
        events: list[EventBase] = [
            ShowEvent(
                seat=seat,
                cards=[] if card is None else [card],
                data=ShowData(shown=card is not None),
                to=[self.partner(seat)],
            )
        ]
        self._waiting = [s for s in self._waiting if s != seat]  # a new list: see `actors`
        if not self._waiting:
            self._start_play()
        return events

    def _start_play(self) -> None:
        """The dealer leads the first trick ("Set-up")."""
        self._phase = _PLAYING
        self.current_player = self.leader
        self._legal = None
        self._suits = [_suits_of(hand) for hand in self._hands]

    # -- play ("Playing a card", "Resolving the trick") ---------------------------------------

    def _check_play(self, seat: int, action: Play) -> None:
        """Raise the first rule `action` breaks: turn, declaration, card code, hand, legality."""
        if seat != self.current_player:
            raise IllegalMove(
                "not-your-turn", say(T.NOT_YOUR_TURN, turn=self.current_player, seat=seat), []
            )
        if action.declared is not None:
            raise InvalidInput(say(T.NO_DECLARATION), code="bad-request", field="declared")
        card = action.card
        check_card(card, "card")
        hand = [p.card for run in self._suits[seat] for p in run]
        legal = [a.card for a in self.legal_actions(seat) if isinstance(a, Play)]
        if card not in hand:
            raise IllegalMove("card-not-in-hand", reason_message("card-not-in-hand", card), legal)
        if card not in legal:
            reason = broken_obligation(hand, self.trick_cards, card)
            raise IllegalMove(reason, reason_message(reason, card), legal)

    def _end_trick(self, seat: int, events: list[EventBase]) -> None:
        """Resolve the full trick ("Resolving the trick"), adding its events; the last card
        was `seat`'s.

        Without a trump pair the whole trick goes to the highest trump, else to the highest
        card of the colour asked (rules 1 and 2); with a pair, the trump duel decides. The
        event carries the result; `tricks` adds the number, leader and cards when read.
        """
        played = self.trick_cards
        leader = self.leader
        cards = sorted(played, key=_ORDER_KEY)
        tbits = self._tbits
        if tbits & tbits >> 17:
            seats = _SEATS_FROM[self.players][leader]
            split = duel(list(zip(seats, played, strict=True)))  # as `trick_result` shows it
            winner = split.winner
            captures: list[Capture] = []
            for s in sorted(split.takes):
                taken = sort_cards(split.takes[s])
                self.piles[s] += taken
                captures.append(Capture(seat=s, cards=taken))
            pairs = [Capture(seat=s, cards=sort_cards(pair)) for s, pair in split.pairs]
        else:
            winner = self._top_seat if self._top >= 0 else self._best_seat
            self.piles[winner] += cards
            captures = [Capture(seat=winner, cards=list(cards))]
            pairs = []
        result = TrickData(
            winner=winner, annulled=False, captures=captures, pairs=pairs, next_leader=winner
        )
        self._records.append((leader, played, result))
        self.leader = self.current_player = winner
        self._new_trick()
        events.append(TrickEvent(seat=winner, cards=cards, data=result))
        if any(self._suits[seat]):
            return
        self._phase = _OVER
        self.current_player = None
        self.is_over = True
        helds = self._helds = [_held(pile) for pile in self.piles]
        if self.alliance:  # the teams decide the winners
            score = self._score = score_helds(helds, alliance=self.alliance)
            over = RoundOverData(
                scores=[p.score for p in score.players], winners=score.winners, teams=score.teams
            )
        else:  # the totals only: `scores` builds the breakdown when asked
            totals = [held_points(held) for held in helds]
            best = max(totals)
            over = RoundOverData(
                scores=totals, winners=[s for s, total in enumerate(totals) if total == best]
            )
        events.append(RoundOverEvent(data=over))

    @property
    def tricks(self) -> list[dict[str, Any]]:
        """Finished tricks: number, leader, cards (seat and card, in play order) and result."""
        return [self._trick_data(i) for i in range(len(self._records))]

    def _trick_data(self, index: int) -> dict[str, Any]:
        leader, played, data = self._records[index]
        return {
            "number": index + 1,
            "leader": leader,
            "cards": [
                {"seat": s, "card": c}
                for s, c in zip(_SEATS_FROM[self.players][leader], played, strict=True)
            ],
            **msgspec.to_builtins(data),
        }

    def finished_tricks(self) -> list[ClassicFinishedTrick]:
        """Finished tricks as the views show them (a copy of the list): each is built once,
        when the first view after it asks, so a view costs the new tricks only."""
        done = self._finished
        records = self._records
        for index in range(len(done), len(records)):
            leader, played, data = records[index]
            seats = _SEATS_FROM[self.players][leader]
            winner, captures, pairs = data.winner, data.captures, data.pairs
            # a classic trick always has a winner, its captures and its pairs (`_end_trick`)
            assert winner is not None
            assert not isinstance(captures, UnsetType) and not isinstance(pairs, UnsetType)
            done.append(
                ClassicFinishedTrick(
                    number=index + 1,
                    leader=leader,
                    cards=[TrickCard(seat=seats[i], card=c) for i, c in enumerate(played)],
                    winner=winner,
                    annulled=data.annulled,
                    captures=list(captures),
                    pairs=list(pairs),
                    next_leader=data.next_leader,
                )
            )
        return list(done)

    # -- the round's state within it (a stored game's progress: issue 27) -------------------

    def state_values(self) -> tuple[Any, ...]:
        """What the round's actions changed, as plain values (`engine.numwars_classic.state`
        names them), in a round not over: :meth:`restore_values` on the round freshly dealt from the
        same setup makes it this round without applying its actions. Caches (the legal plays,
        the finished tricks as views show them) are left out; the lists are the round's own,
        to be encoded at once."""
        return (
            str(self._phase),
            self.hands,
            self.passed,
            self.received,
            self.shown,
            self.has_shown,
            self._waiting,
            self._records,
            self.piles,
            self.leader,
            self.current_player,
            self.trick_cards,
            self._asked,
            self._best,
            self._best_seat,
            self._top,
            self._top_seat,
            self._tbits,
        )

    def restore_values(
        self,
        phase: str,
        hands: list[list[str]],
        passed: list[list[str]],
        received: list[list[str]],
        shown: list[str | None],
        has_shown: list[bool],
        waiting: list[int],
        records: list[tuple[int, list[str], TrickData]],
        piles: list[list[str]],
        leader: int,
        current_player: int | None,
        trick_cards: list[str],
        asked: int | None,
        best: int,
        best_seat: int,
        top: int,
        top_seat: int,
        tbits: int,
        history: list[tuple[int, Action]],
    ) -> None:
        """Take the state :meth:`state_values` gave (checked by the caller) on a round freshly dealt
        from its setup, with the actions that led there (`history`); the hands' derived forms
        (the exchange's passes, the play phase's runs of plays) are built again."""
        self._phase = Phase(phase)
        self._hands = hands
        self._passes = [_distinct_actions(hand, _PASS) for hand in hands]
        self._suits = [_suits_of(hand) for hand in hands] if self._phase is _PLAYING else []
        self.passed = passed
        self.received = received
        self.shown = shown
        self.has_shown = has_shown
        self._waiting = waiting
        self._records = records
        self._finished = []
        self.piles = piles
        self.leader = leader
        self.current_player = current_player
        self.trick_cards = trick_cards
        self._asked = asked
        self._best, self._best_seat = best, best_seat
        self._top, self._top_seat = top, top_seat
        self._tbits = tbits
        self._legal = None
        self.history = history

    # -- projections ---------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            "setup": msgspec.to_builtins(self.setup),
            "options": msgspec.to_builtins(self.options),
            "phase": str(self._phase),
            "hands": [canonical(h) for h in self.hands],
            "set_aside": list(self.set_aside),
            "passed": [list(p) for p in self.passed],
            "received": [list(r) for r in self.received],
            "shown": list(self.shown),
            "has_shown": list(self.has_shown),
            "trick": [[s, c] for s, c in self.trick],
            "tricks": self.tricks,
            "piles": [list(p) for p in self.piles],
            "leader": self.leader,
            "turn": self.current_player,
            "scores": msgspec.to_builtins(self.scores()),
            "history": [[s, msgspec.to_builtins(a)] for s, a in self.history],
        }


def _seat(seat: object, players: int) -> int:
    """`check_seat(seat, players)`, inline for a valid seat (compiled: no Python call)."""
    if type(seat) is int and 0 <= seat < players:
        return seat
    return check_seat(seat, players)


def _suits_of(hand: list[str]) -> list[list[Play]]:
    """A canonical hand as its six runs of `Play` actions (colours, trumps, Jokers)."""
    suits: list[list[Play]] = [[], [], [], [], [], []]
    for card in hand:
        suits[_INFO[card][3]].append(_PLAY[card])
    return suits


def _held(pile: list[str]) -> int:
    """A pile summed into one integer (`PILE_BIT`), as `score_held` takes it."""
    held = 0
    for card in pile:
        held += _PILE_BIT[card]
    return held


def _identical(items: list[Any], item: object) -> int:
    """The position of `item` itself in `items` (-1: absent). The lists hold the shared
    actions, one per card (the two Jokers' one), so an action that `legal_actions` listed is
    found by identity; an equal one built elsewhere takes `_apply_checked`."""
    for i in range(len(items)):
        if items[i] is item:
            return i
    return -1


def _distinct_actions(hand: list[str], actions: Mapping[str, A]) -> list[A]:
    """The action of each distinct card of a canonical hand (its two Jokers are one choice)."""
    out = list(map(actions.__getitem__, hand))
    if len(hand) > 1 and hand[-2] == "joker":
        out.pop()
    return out


def _distinct(hand: list[str]) -> list[str]:
    """A canonical hand without its repeated copies (the two Jokers are one choice)."""
    return list(dict.fromkeys(hand))
