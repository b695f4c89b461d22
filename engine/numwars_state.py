"""The `numwars` round as a state machine (rules/numwars.md; STYLE 2-3).

Phases: ``exchange`` (only with option ``exchange`` > 0: simultaneous one-card passes to the
right neighbour), ``play`` (tricks, the dealer leading the first), ``neutralize`` (the
complice's choice once a trick holding Bomb + Joker + a threat is complete), ``over``.
The state is a fold of the applied actions over the deal of ``Rng(setup.seed)``.

Speed (the play-out benchmark): ``phase``, ``current_player`` and ``is_over`` are plain
attributes kept up to date; each hand is kept three ways in step (its codes, its shared
``Play`` values, those values by suit) plus the role cards it holds, so legal actions are
mostly one slice of one suit; the current trick's contesting cards, their top strength, the
complements a steal would take and the colour asked are kept as cards are played; the legal
actions are cached until the next card and reused by ``apply`` as its legality check; play
events are shared values; a plain trick (no Bomb, no pair) writes its result's plain data
directly (``results`` builds its :class:`TrickResult` on demand); the round is scored once,
at its end, without re-checking the piles.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

import msgspec

from engine.actions import Action, Exchange, Neutralize, Pass, Play
from engine.base import BombResult, Capture, Deal, Event, RoundScore, RoundSetup, TrickResult
from engine.cards import CARDS
from engine.errors import IllegalMove, InvalidInput
from engine.numwars import (
    ASKED_COLOUR,
    COMPLEMENT,
    ROLE_CARDS,
    ROLE_OF_CARD,
    STRENGTH,
    SUIT,
    TRUMP,
    NumWarsPile,
    canon,
    contest_winner,
    illegal_reason,
    neutralization_possible,
    resolve,
    score_piles,
)

if TYPE_CHECKING:
    from engine.numwars import NumWars


class Phase(StrEnum):
    EXCHANGE = "exchange"
    PLAY = "play"
    NEUTRALIZE = "neutralize"
    OVER = "over"


_EXCHANGE, _PLAYING, _NEUTRALIZE, _OVER = Phase.EXCHANGE, Phase.PLAY, Phase.NEUTRALIZE, Phase.OVER
_MAX_PLAYERS = 8

_YES_NO: list[Action] = [Neutralize(neutralize=True), Neutralize(neutralize=False)]
#: One frozen action per card code, shared by every legal-action list.
_PLAY: dict[str, Play] = {code: Play(card=code) for code in CARDS}
_PASS: dict[str, Pass] = {code: Pass(card=code) for code in CARDS}
#: The public "play" event of each seat and card (immutable values, shared).
_PLAY_EVENTS: list[dict[str, Event]] = [
    {code: Event(kind="play", seat=s, cards=[code]) for code in CARDS} for s in range(_MAX_PLAYERS)
]

#: Cards in canonical order (rules/cards.md) through a local table.
_ORDER_KEY = {code: c.order for code, c in CARDS.items()}.__getitem__


def _by_suit(plays: list[Play]) -> dict[str, list[Play]]:
    """A hand's ``Play`` values by suit (each colour, and TRUMP for every trump), in the
    hand's order: following looks at one suit only (Following 1-2)."""
    suits: dict[str, list[Play]] = {"red": [], "blue": [], "green": [], "yellow": [], TRUMP: []}
    for p in plays:
        suits[SUIT[p.card]].append(p)
    return suits


class NumWarsRound:
    """One round of `numwars` in progress; `apply` validates fully, then mutates."""

    def __init__(self, rules: NumWars, setup: RoundSetup, *, deal: Deal | None = None) -> None:
        """The round of `setup`; `deal` replaces the seeded deal (scripted rounds, puzzles)."""
        if deal is None:
            deal = rules.deal(setup)
        assert isinstance(deal.roles, list)
        self.rules = rules
        self.setup = setup
        self.history: list[tuple[int, Action]] = []
        self.n = setup.players
        self.k = rules.options.exchange
        self.hands: list[list[str]] = [list(h) for h in deal.hands]
        #: Each hand as shared ``Play`` values, whole and by suit, in the hand's order.
        self._plays: list[list[Play]] = [list(map(_PLAY.__getitem__, h)) for h in self.hands]
        self._suits = [_by_suit(p) for p in self._plays]
        #: The role cards each hand holds (they never change hands: Set-up 3).
        self._specials = [[p for p in plays if p.card in ROLE_CARDS] for plays in self._plays]
        self.roles: list[str] = list(deal.roles)
        self.set_aside: list[str] = list(deal.set_aside)
        self.dealer = deal.dealer
        self.leader = deal.leader
        self.passed: list[list[str]] = [[] for _ in range(self.n)]
        self.trick: list[tuple[int, str]] = []
        self.choices: list[bool | None] = []
        self.piles: list[list[str]] = [[] for _ in range(self.n)]
        self.pairs: list[list[list[str]]] = [[] for _ in range(self.n)]
        self.revealed: list[bool] = [False] * self.n
        self.bomb: BombResult | None = None
        self.complice = self.roles.index("complice") if "complice" in self.roles else -1
        #: Plain attributes rather than properties: the play-out loop reads them at every step.
        self.phase: Phase = _EXCHANGE if self.k > 0 else _PLAYING
        self.current_player: int | None = None if self.k > 0 else self.leader
        self.is_over = False
        #: Finished tricks: (cards as (seat, card) in play order, result as plain data,
        #: the complice's choice or None, the result or None for a plain trick).
        self._records: list[
            tuple[list[tuple[int, str]], dict[str, Any], bool | None, TrickResult | None]
        ] = []
        self._asked: str | None = None  # colour asked by the current trick (None: trump)
        self._contest: list[str] = []  # its cards still contesting, in play order
        self._top = -1  # the highest strength among them (-1: no trump contesting)
        self._wanted: set[str] = set()  # the complements of the contesting real trumps
        self._special = False  # the trick holds the Bomb or a pair: resolved in full
        self._scores: RoundScore | None = None
        self._legal: list[Play] | None = None

    # --- protocol ------------------------------------------------------------------------

    @property
    def tricks(self) -> list[dict[str, Any]]:
        """Finished tricks as plain data: leader, cards, result, the complice's choice."""
        return [
            {
                "leader": cards[0][0],
                "cards": [{"seat": s, "card": c} for s, c in cards],
                "result": data,
                "neutralize": choice,
            }
            for cards, data, choice, _ in self._records
        ]

    @property
    def results(self) -> list[TrickResult]:
        """Finished tricks' results; a plain trick's is built on demand from its data."""
        out = []
        for _, data, _, result in self._records:
            if result is None:
                winner = data["winner"]
                cards = list(data["captures"][0]["cards"])
                result = TrickResult(
                    winner=winner,
                    annulled=False,
                    captures=[Capture(seat=winner, cards=cards)],
                    pairs=[],
                    next_leader=winner,
                    bomb=None,
                )
            out.append(result)
        return out

    def actors(self) -> list[int]:
        if self.phase is _EXCHANGE:
            return [s for s in range(self.n) if len(self.passed[s]) < self.k]
        turn = self.current_player
        return [] if turn is None else [turn]

    def legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions. In play: shared ``Play`` values in a list cached until the
        next card (callers read it, never change it)."""
        phase = self.phase
        if phase is _PLAYING:
            if seat != self.current_player:
                return []
            legal = self._legal
            if legal is None:
                legal = self._legal = self._legal_plays(seat)
            return cast("list[Action]", legal)
        if phase is _EXCHANGE:
            if not 0 <= seat < self.n or len(self.passed[seat]) >= self.k:
                return []
            return [_PASS[c] for c in self.hands[seat] if c not in ROLE_CARDS]
        if phase is _NEUTRALIZE and seat == self.complice:
            return list(_YES_NO)
        return []

    def apply(self, seat: int, action: Action) -> list[Event]:
        """A legal card of the seat to play (the common case) is recognised by membership in
        the cached legal actions; anything else goes through the full checks."""
        if self.phase is _PLAYING and type(action) is Play and seat == self.current_player:
            legal = self._legal
            if legal is None:
                legal = self._legal = self._legal_plays(seat)
            if action in legal and type(seat) is int:
                events = self._play_card(seat, action.card)
                self.history.append((seat, action))
                return events
        return self._apply_checked(seat, action)

    def scores(self) -> RoundScore | None:
        return self._scores

    # --- phases --------------------------------------------------------------------------

    def _apply_checked(self, seat: int, action: Action) -> list[Event]:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise InvalidInput(
                f"seat {seat!r} is not a seat of {self.n} players", code="bad-request", field="seat"
            )
        phase = self.phase
        if isinstance(action, Play) and phase is _PLAYING:
            events = self._play(seat, action)
        elif isinstance(action, Pass) and phase is _EXCHANGE:
            events = self._pass(seat, [action.card])
        elif isinstance(action, Exchange) and phase is _EXCHANGE:
            events = self._pass(seat, list(action.cards))
        elif isinstance(action, Neutralize) and phase is _NEUTRALIZE:
            events = self._neutralize(seat, action.neutralize)
        else:
            kind = type(action).__name__.lower()
            raise IllegalMove(
                "wrong-phase",
                f"a {kind} action is not possible in the {phase.value} phase",
                [],
            )
        self.history.append((seat, action))
        return events

    def _pass(self, seat: int, cards: list[str]) -> list[Event]:
        """Set-up 3: k cards face down to the right neighbour; role cards stay."""
        remaining = self.k - len(self.passed[seat])
        if remaining <= 0:
            raise IllegalMove(
                "not-your-turn",
                f"seat {seat} has passed its {self.k} cards; the others are still passing",
            )
        if not cards or len(cards) > remaining or len(set(cards)) != len(cards):
            raise InvalidInput(
                f"seat {seat} passes 1 to {remaining} distinct cards now, not {cards!r}",
                code="bad-request",
                field="cards",
            )
        hand = self.hands[seat]
        passable = [c for c in hand if c not in ROLE_CARDS]
        for card in cards:
            if card not in hand:
                raise IllegalMove("card-not-in-hand", f"{card!r} is not in the hand", passable)
            if card in ROLE_CARDS:
                raise IllegalMove(
                    "role-card-locked", f"{card} is a role card: it cannot be passed", passable
                )
        for card in cards:
            hand.remove(card)
            self._plays[seat].remove(_PLAY[card])
            self._suits[seat][SUIT[card]].remove(_PLAY[card])
        self.passed[seat].extend(cards)
        events = [
            Event(kind="pass", seat=seat, cards=canon(cards), to=seat),
            Event(kind="pass", seat=seat, data={"count": len(cards)}),
        ]
        if all(len(p) == self.k for p in self.passed):
            events.extend(self._finish_exchange())
        return events

    def _finish_exchange(self) -> list[Event]:
        """Set-up 3: everyone receives, at once, the cards of the left neighbour."""
        events = []
        for seat in range(self.n):
            left = (seat + 1) % self.n
            got = self.passed[left]
            self.hands[seat] = canon(self.hands[seat] + got)
            self._plays[seat] = list(map(_PLAY.__getitem__, self.hands[seat]))
            self._suits[seat] = _by_suit(self._plays[seat])
            events.append(
                Event(
                    kind="exchange",
                    seat=seat,
                    cards=canon(got),
                    data={
                        "from": left,
                        "to": (seat - 1) % self.n,
                        "passed": canon(self.passed[seat]),
                    },
                    to=seat,
                )
            )
        self.phase = _PLAYING
        self.current_player = self.leader
        self._legal = None
        return events

    def _play(self, seat: int, action: Play) -> list[Event]:
        """Leading and Following, with every check and the first broken rule's reason."""
        turn = self.current_player
        if seat != turn:
            raise IllegalMove(
                "not-your-turn", f"it is seat {turn}'s turn to play, not seat {seat}'s"
            )
        if action.declared is not None:
            raise InvalidInput(
                "numwars cards carry no declaration", code="bad-request", field="declared"
            )
        card = action.card
        hand = self.hands[seat]
        legal = [a.card for a in self.legal_actions(seat) if isinstance(a, Play)]
        if card not in legal:
            if card in hand:
                reason, message = illegal_reason(hand, [c for _, c in self.trick], card)
            else:
                reason, message = "card-not-in-hand", f"{card!r} is not in the hand"
            raise IllegalMove(reason, message, legal)
        return self._play_card(seat, card)

    def _play_card(self, seat: int, card: str) -> list[Event]:
        """A checked card goes to the trick (Trump pairs: a completed pair leaves the
        contest); a completed trick is resolved, or waits for the complice. The hand, its
        ``Play`` values and its suits are parallel lists: one search finds the card."""
        hand = self.hands[seat]
        i = hand.index(card)
        del hand[i]
        play = self._plays[seat].pop(i)
        self._suits[seat][SUIT[card]].remove(play)
        trick = self.trick
        trick.append((seat, card))
        contest = self._contest
        comp = COMPLEMENT.get(card)
        if comp is not None and comp in contest:
            contest.remove(comp)
            self._wanted.discard(card)
            self._special = True
            top = -1
            for c in contest:
                if STRENGTH[c] > top:
                    top = STRENGTH[c]
            self._top = top
        else:
            contest.append(card)
            strength = STRENGTH[card]
            if strength > self._top:
                self._top = strength
            if comp is not None:
                self._wanted.add(comp)
            elif card == "bomb":
                self._special = True
        self._legal = None
        events = [_PLAY_EVENTS[seat][card]]
        if card in ROLE_CARDS:
            self._specials[seat].remove(play)
            if not self.revealed[seat]:
                self.revealed[seat] = True
                events.append(
                    Event(
                        kind="role-revealed",
                        seat=seat,
                        cards=[card],
                        data={"role": ROLE_OF_CARD[card]},
                    )
                )
        n = len(trick)
        if n == 1:
            self._asked = ASKED_COLOUR[card]
        if n < self.n:
            self.current_player = (seat + 1) % self.n
        elif self._special and neutralization_possible(contest):
            self.phase = _NEUTRALIZE
            self.current_player = self.complice
            events.append(
                Event(
                    kind="decision",
                    seat=self.complice,
                    data={"decision": "neutralize", "threat": self._threat()},
                )
            )
        else:
            events.extend(self._finish_trick(None))
        return events

    def _legal_plays(self, seat: int) -> list[Play]:
        """Legal cards of the seat to play as shared ``Play`` values, in the hand's order:
        the same as :func:`engine.numwars.legal_cards`, from the hand by suit and the
        contest's top strength and wanted complements kept as cards are played."""
        plays = self._plays[seat]
        suits = self._suits[seat]
        trumps = suits[TRUMP]
        if not self.trick:  # Leading: a special only from a hand holding nothing else
            specials = self._specials[seat]
            normal = plays[:]
            if specials and len(specials) < len(plays):
                for p in specials:
                    normal.remove(p)
            return normal
        asked = self._asked
        base = suits[asked] if asked is not None else None
        if not base:  # Following 1-2: a trump if any, raising if possible (Following 3)
            if not trumps:
                return plays[:]
            base = trumps
            top = self._top
            if top >= 0:
                raising = [p for p in trumps if STRENGTH[p.card] > top]
                if raising:
                    base = raising
        wanted = self._wanted
        if wanted and trumps:  # the steal rule (Following 0)
            steal = [p for p in trumps if p.card in wanted]
            if steal:
                legal = set(base).union(steal)
                return [p for p in plays if p in legal]
        return base[:]

    def _threat(self) -> str:
        """The threat the Joker would neutralize: the highest Shadow, else the Quantum."""
        shadows = [c for c in self._contest if c.startswith("shadow-")]
        return canon(shadows)[-1] if shadows else "quantum"

    def _neutralize(self, seat: int, choice: bool) -> list[Event]:
        """Joker neutralization: the complice's choice, asked after the trick's last card."""
        if seat != self.complice:
            raise IllegalMove(
                "not-your-decision", f"the complice (seat {self.complice}) decides, not seat {seat}"
            )
        events = [Event(kind="neutralize", seat=seat, data={"neutralize": bool(choice)})]
        events.extend(self._finish_trick(bool(choice)))
        return events

    def _finish_trick(self, choice: bool | None) -> list[Event]:
        """Resolve the complete trick. A plain one (no Bomb, no pair: every card contests)
        goes whole to the contest's winner, its data written directly as the plain form of
        the :class:`TrickResult` that :func:`engine.numwars.resolve` would return."""
        trick = self.trick
        piles = self.piles
        if not self._special:
            winner = contest_winner(trick, self._asked, trick[0][0])
            cards = sorted([c for _, c in trick], key=_ORDER_KEY)
            piles[winner].extend(cards)
            data: dict[str, Any] = {
                "winner": winner,
                "annulled": False,
                "captures": [{"seat": winner, "cards": cards}],
                "pairs": [],
                "next_leader": winner,
                "bomb": None,
            }
            self._records.append((trick, data, choice, None))
            self.choices.append(choice)
            events = [Event(kind="trick", seat=winner, cards=list(cards), data=data)]
            self._next_trick(winner)
            if not self.hands[0]:
                events.append(self._finish_round())
            return events
        result = resolve(trick, self.roles, True if choice is None else choice)
        if result.pairs:
            paired = {c for p in result.pairs for c in p.cards}
            for cap in result.captures:
                piles[cap.seat].extend([c for c in cap.cards if c not in paired])
            for p in result.pairs:
                self.pairs[p.seat].append(p.cards)
        else:
            for cap in result.captures:
                piles[cap.seat].extend(cap.cards)
        data = msgspec.to_builtins(result)
        self._records.append((trick, data, choice, result))
        self.choices.append(choice)
        captures = result.captures
        # Cards are conserved: a lone capture without pairs holds the whole trick, canonical.
        cards = (
            list(captures[0].cards)
            if len(captures) == 1 and not result.pairs
            else canon([c for _, c in trick])
        )
        events = [Event(kind="trick", seat=result.winner, cards=cards, data=data)]
        bomb = result.bomb
        if isinstance(bomb, BombResult):
            assert self.bomb is None, "the Bomb is resolved once"
            self.bomb = bomb
            events.append(
                Event(
                    kind="bomb",
                    seat=bomb.captured_by,
                    cards=["bomb"],
                    data=msgspec.to_builtins(bomb),
                )
            )
        self._next_trick(result.next_leader)
        if not self.hands[0]:
            events.append(self._finish_round())
        return events

    def _next_trick(self, leader: int) -> None:
        """The winner of a trick leads the next (Winning the contest)."""
        self.trick = []
        self._contest = []
        self._top = -1
        self._wanted = set()
        self._special = False
        self._asked = None
        self._legal = None
        self.leader = leader
        self.phase = _PLAYING
        self.current_player = leader

    def _finish_round(self) -> Event:
        """Every role is revealed at the end of the round; the piles, built by the engine
        itself, are scored without the checks of score_round."""
        assert self.bomb is not None, "the Bomb is always played"
        self.phase = _OVER
        self.current_player = None
        self.is_over = True
        self.revealed = [True] * self.n
        piles = [
            NumWarsPile(captured=self.piles[s], pairs=self.pairs[s], role=self.roles[s])
            for s in range(self.n)
        ]
        self._scores = score_piles(piles, self.bomb.outcome)
        return Event(
            kind="round-over",
            data={"roles": list(self.roles), "scores": msgspec.to_builtins(self._scores)},
        )

    def final_piles(self) -> list[NumWarsPile]:
        return [
            NumWarsPile(
                captured=canon(self.piles[s]), pairs=list(self.pairs[s]), role=self.roles[s]
            )
            for s in range(self.n)
        ]

    # --- projections ---------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator): never another hand, unrevealed role or the
        set-aside."""
        n = self.n
        own = seat is not None and 0 <= seat < n
        out: dict[str, Any] = {
            "ruleset": "numwars",
            "players": n,
            "phase": self.phase.value,
            "dealer": self.dealer,
            "leader": self.leader,
            "current_player": self.current_player,
            "seat": seat if own else None,
            "hand_counts": [len(h) for h in self.hands],
            "roles": [
                self.roles[s] if self.revealed[s] or (own and s == seat) else None for s in range(n)
            ],
            "trick": [{"seat": s, "card": c} for s, c in self.trick],
            "tricks": self.tricks,
            "captured": [
                {
                    "seat": s,
                    "cards": canon(self.piles[s]),
                    "pairs": [list(p) for p in self.pairs[s]],
                }
                for s in range(n)
            ],
            "bomb": None if self.bomb is None else msgspec.to_builtins(self.bomb),
            "exchange": {"cards": self.k, "passed_counts": [len(p) for p in self.passed]},
            "scores": None if self._scores is None else msgspec.to_builtins(self._scores),
        }
        if own:
            assert seat is not None
            out["hand"] = list(self.hands[seat])
            out["role"] = self.roles[seat]
            if self.phase is _EXCHANGE:
                out["exchange"]["passed"] = canon(self.passed[seat])
            out["legal_actions"] = msgspec.to_builtins(self.legal_actions(seat))
        return out

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain data, hidden cards included (replay equality)."""
        return {
            "setup": msgspec.to_builtins(self.setup),
            "options": msgspec.to_builtins(self.rules.options),
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
            "scores": None if self._scores is None else msgspec.to_builtins(self._scores),
            "history": [[s, msgspec.to_builtins(a)] for s, a in self.history],
        }
