"""The `numwars` round as a state machine (rules/numwars.md; STYLE 2-3).

Phases: ``exchange`` (only with option ``exchange`` > 0: simultaneous one-card passes to the
right neighbour), ``play`` (tricks, the dealer leading the first), ``neutralize`` (the
complice's choice once a trick holding Bomb + Joker + a threat is complete), ``over``.
The state is a fold of the applied actions over the deal of ``Rng(setup.seed)``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

import msgspec

from engine.actions import Action, Exchange, Neutralize, Pass, Play
from engine.base import BombResult, Deal, Event, RoundScore, RoundSetup, TrickResult
from engine.errors import IllegalMove, InvalidInput
from engine.numwars import (
    ROLE_CARDS,
    ROLE_OF_CARD,
    NumWarsPile,
    canon,
    contesting,
    illegal_reason,
    legal_cards,
    neutralization_possible,
    resolve,
)

if TYPE_CHECKING:
    from engine.numwars import NumWars


class Phase(StrEnum):
    EXCHANGE = "exchange"
    PLAY = "play"
    NEUTRALIZE = "neutralize"
    OVER = "over"


_YES_NO: list[Action] = [Neutralize(neutralize=True), Neutralize(neutralize=False)]


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
        self.roles: list[str] = list(deal.roles)
        self.set_aside: list[str] = list(deal.set_aside)
        self.dealer = deal.dealer
        self.leader = deal.leader
        self.passed: list[list[str]] = [[] for _ in range(self.n)]
        self.trick: list[tuple[int, str]] = []
        self.tricks: list[dict[str, Any]] = []
        self.results: list[TrickResult] = []
        self.choices: list[bool | None] = []
        self.piles: list[list[str]] = [[] for _ in range(self.n)]
        self.pairs: list[list[list[str]]] = [[] for _ in range(self.n)]
        self.revealed: list[bool] = [False] * self.n
        self.bomb: BombResult | None = None
        self.complice = self.roles.index("complice") if "complice" in self.roles else -1
        self._phase = Phase.EXCHANGE if self.k > 0 else Phase.PLAY
        self._scores: RoundScore | None = None
        self._legal_cache: list[str] | None = None

    # --- protocol ------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self._phase.value

    @property
    def current_player(self) -> int | None:
        if self._phase is Phase.PLAY:
            return (self.leader + len(self.trick)) % self.n
        if self._phase is Phase.NEUTRALIZE:
            return self.complice
        return None

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    def actors(self) -> list[int]:
        if self._phase is Phase.EXCHANGE:
            return [s for s in range(self.n) if len(self.passed[s]) < self.k]
        turn = self.current_player
        return [] if turn is None else [turn]

    def legal_actions(self, seat: int) -> list[Action]:
        phase = self._phase
        if phase is Phase.PLAY:
            if seat != (self.leader + len(self.trick)) % self.n:
                return []
            return [Play(card=c) for c in self._legal()]
        if phase is Phase.EXCHANGE:
            if not 0 <= seat < self.n or len(self.passed[seat]) >= self.k:
                return []
            return [Pass(card=c) for c in self.hands[seat] if c not in ROLE_CARDS]
        if phase is Phase.NEUTRALIZE and seat == self.complice:
            return list(_YES_NO)
        return []

    def apply(self, seat: int, action: Action) -> list[Event]:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise InvalidInput(
                f"seat {seat!r} is not a seat of {self.n} players", code="bad-request", field="seat"
            )
        phase = self._phase
        if isinstance(action, Play) and phase is Phase.PLAY:
            events = self._play(seat, action)
        elif isinstance(action, Pass) and phase is Phase.EXCHANGE:
            events = self._pass(seat, [action.card])
        elif isinstance(action, Exchange) and phase is Phase.EXCHANGE:
            events = self._pass(seat, list(action.cards))
        elif isinstance(action, Neutralize) and phase is Phase.NEUTRALIZE:
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

    def scores(self) -> RoundScore | None:
        return self._scores

    # --- phases --------------------------------------------------------------------------

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
        self._phase = Phase.PLAY
        self._legal_cache = None
        return events

    def _play(self, seat: int, action: Play) -> list[Event]:
        """Leading and Following; a completed trick is resolved, or waits for the complice."""
        turn = (self.leader + len(self.trick)) % self.n
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
        cards = [c for _, c in self.trick]
        legal = self._legal()
        if card not in legal:
            if card in hand:
                reason, message = illegal_reason(hand, cards, card)
            else:
                reason, message = "card-not-in-hand", f"{card!r} is not in the hand"
            raise IllegalMove(reason, message, legal)
        hand.remove(card)
        self.trick.append((seat, card))
        self._legal_cache = None
        events = [Event(kind="play", seat=seat, cards=[card])]
        if card in ROLE_CARDS and not self.revealed[seat]:
            self.revealed[seat] = True
            events.append(
                Event(
                    kind="role-revealed",
                    seat=seat,
                    cards=[card],
                    data={"role": ROLE_OF_CARD[card]},
                )
            )
        if len(self.trick) == self.n:
            if neutralization_possible(self.trick):
                self._phase = Phase.NEUTRALIZE
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

    def _legal(self) -> list[str]:
        """Legal cards of the seat to play, cached until the next card is played."""
        if self._legal_cache is None:
            seat = (self.leader + len(self.trick)) % self.n
            self._legal_cache = legal_cards(self.hands[seat], [c for _, c in self.trick])
        return self._legal_cache

    def _threat(self) -> str:
        """The threat the Joker would neutralize: the highest Shadow, else the Quantum."""
        shadows = [c for c in contesting([c for _, c in self.trick]) if c.startswith("shadow-")]
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
        result = resolve(self.trick, self.roles, True if choice is None else choice)
        paired = {c for p in result.pairs for c in p.cards}
        for cap in result.captures:
            self.piles[cap.seat].extend(c for c in cap.cards if c not in paired)
        for p in result.pairs:
            self.pairs[p.seat].append(p.cards)
        data = msgspec.to_builtins(result)
        self.tricks.append(
            {
                "leader": self.trick[0][0],
                "cards": [{"seat": s, "card": c} for s, c in self.trick],
                "result": data,
                "neutralize": choice,
            }
        )
        self.results.append(result)
        self.choices.append(choice)
        events = [
            Event(
                kind="trick", seat=result.winner, cards=canon([c for _, c in self.trick]), data=data
            )
        ]
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
        self.trick = []
        self._legal_cache = None
        self.leader = result.next_leader
        self._phase = Phase.PLAY
        if not self.hands[0]:
            events.append(self._finish_round())
        return events

    def _finish_round(self) -> Event:
        """Every role is revealed at the end of the round; scores via score_round."""
        assert self.bomb is not None, "the Bomb is always played"
        self._phase = Phase.OVER
        self.revealed = [True] * self.n
        self._scores = self.rules.score_round(self.final_piles(), self.bomb.outcome)
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
            "phase": self._phase.value,
            "dealer": self.dealer,
            "leader": self.leader,
            "current_player": self.current_player,
            "seat": seat if own else None,
            "hand_counts": [len(h) for h in self.hands],
            "roles": [
                self.roles[s] if self.revealed[s] or (own and s == seat) else None for s in range(n)
            ],
            "trick": [{"seat": s, "card": c} for s, c in self.trick],
            "tricks": [dict(t) for t in self.tricks],
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
            if self._phase is Phase.EXCHANGE:
                out["exchange"]["passed"] = canon(self.passed[seat])
            out["legal_actions"] = msgspec.to_builtins(self.legal_actions(seat))
        return out

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain data, hidden cards included (replay equality)."""
        return {
            "setup": msgspec.to_builtins(self.setup),
            "options": msgspec.to_builtins(self.rules.options),
            "phase": self._phase.value,
            "hands": [list(h) for h in self.hands],
            "roles": list(self.roles),
            "set_aside": list(self.set_aside),
            "dealer": self.dealer,
            "leader": self.leader,
            "passed": [list(p) for p in self.passed],
            "trick": [[s, c] for s, c in self.trick],
            "tricks": [dict(t) for t in self.tricks],
            "piles": [list(p) for p in self.piles],
            "pairs": [[list(p) for p in ps] for ps in self.pairs],
            "revealed": list(self.revealed),
            "bomb": None if self.bomb is None else msgspec.to_builtins(self.bomb),
            "scores": None if self._scores is None else msgspec.to_builtins(self._scores),
            "history": [[s, msgspec.to_builtins(a)] for s, a in self.history],
        }
