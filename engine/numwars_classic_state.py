"""The `numwars-classic` round as a state machine (rules/numwars-classic.md).

Phases (STYLE 3): ``exchange`` — every seat passes `exchange` cards, one `Pass` at a time and
simultaneously, to its right neighbour (seat s-1) and, once all have passed, receives as many
from its left neighbour (s+1); ``show`` — under `alliance` only, every seat shows one card of
its hand to its partner or skips (`Show(None)`), simultaneously, seen by the partner only;
``play`` — the dealer leads the first trick, the taker of the rest of each trick leads the
next; ``over`` — scores are the stateless `score_round` of the final piles.
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import msgspec

from engine.actions import Action, Exchange, Pass, Play, Show
from engine.base import Event, RoundScore, RoundSetup
from engine.cards import canonical
from engine.errors import IllegalMove, InvalidInput
from engine.numwars_classic import (
    broken_obligation,
    check_card,
    duel,
    legal_in_order,
    reason_message,
    sort_cards,
    trick_result,
)

if TYPE_CHECKING:
    from engine.numwars_classic import NumWarsClassic


class Phase(StrEnum):
    EXCHANGE = "exchange"
    SHOW = "show"
    PLAY = "play"
    OVER = "over"


_PHASE_ACTIONS = {
    Phase.EXCHANGE: ["pass", "exchange"],
    Phase.SHOW: ["show"],
    Phase.PLAY: ["play"],
    Phase.OVER: [],
}


class ClassicRound:
    """One round of Num Wars (classic edition), rebuilt exactly from `setup` + `history`."""

    def __init__(self, rules: NumWarsClassic, setup: RoundSetup) -> None:
        deal = rules.deal(setup)
        n = setup.players
        self.rules = rules
        self.setup = setup
        self.history: list[tuple[int, Action]] = []
        self.players = n
        self.alliance = rules.options.alliance
        self.exchange_size = rules.exchange_size(n)
        self.hands: list[list[str]] = [list(h) for h in deal.hands]
        self.set_aside: list[str] = deal.set_aside
        self.passed: list[list[str]] = [[] for _ in range(n)]
        self.received: list[list[str]] = [[] for _ in range(n)]
        self.shown: list[str | None] = [None] * n
        self.has_shown: list[bool] = [False] * n
        self.trick: list[tuple[int, str]] = []
        self.trick_cards: list[str] = []
        self.tricks: list[dict[str, Any]] = []
        self.piles: list[list[str]] = [[] for _ in range(n)]
        self.leader = deal.leader
        self.turn: int | None = None
        self._phase = Phase.EXCHANGE
        self._score: RoundScore | None = None
        self._legal: list[str] | None = None  # cache of the current player's legal cards

    # -- the protocol --------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def current_player(self) -> int | None:
        return self.turn if self._phase is Phase.PLAY else None

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    def scores(self) -> RoundScore | None:
        return self._score

    def partner(self, seat: int) -> int:
        return (seat + self.players // 2) % self.players

    def actors(self) -> list[int]:
        phase = self._phase
        if phase is Phase.PLAY:
            assert self.turn is not None
            return [self.turn]
        if phase is Phase.EXCHANGE:
            k = self.exchange_size
            return [s for s in range(self.players) if len(self.passed[s]) < k]
        if phase is Phase.SHOW:
            return [s for s in range(self.players) if not self.has_shown[s]]
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        phase = self._phase
        if phase is Phase.PLAY:
            if seat != self.turn:
                return []
            return [Play(c) for c in self._current_legal()]
        if phase is Phase.EXCHANGE:
            if len(self.passed[seat]) >= self.exchange_size:
                return []
            return [Pass(c) for c in _distinct(self.hands[seat])]
        if phase is Phase.SHOW:
            if self.has_shown[seat]:
                return []
            return [Show(None), *(Show(c) for c in _distinct(self.hands[seat]))]
        return []

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Validate `action` fully, then apply it (nothing changes when it is refused)."""
        self._check_seat(seat)
        phase = self._phase
        if phase is Phase.PLAY and isinstance(action, Play):
            events = self._play(seat, action)
        elif phase is Phase.EXCHANGE and isinstance(action, Pass):
            self._check_exchange(seat, [action.card])
            events = self._pass(seat, action.card)
        elif phase is Phase.EXCHANGE and isinstance(action, Exchange):
            self._check_exchange(seat, action.cards)
            events = [e for card in action.cards for e in self._pass(seat, card)]
        elif phase is Phase.SHOW and isinstance(action, Show):
            events = self._show(seat, action.card)
        else:
            allowed = _PHASE_ACTIONS[phase]
            raise IllegalMove(
                "wrong-phase",
                f"a {type(action).__name__.lower()} action is not allowed in the {phase} phase"
                + (f" (allowed: {', '.join(allowed)})" if allowed else " (the round is over)"),
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
                f"seat {seat} has already passed its {self.exchange_size} cards",
                [],
            )
        if not cards or len(cards) > left:
            raise InvalidInput(
                f"seat {seat} has {left} card(s) left to pass, not {len(cards)}",
                code="bad-request",
                field="cards",
            )
        for i, card in enumerate(cards):
            check_card(card, f"cards[{i}]" if len(cards) > 1 else "card")
        hand = self.hands[seat]
        need = Counter(cards) if len(cards) > 1 else {cards[0]: 1}
        for card, count in need.items():
            held = hand.count(card) if count > 1 else int(card in hand)
            if held < count:
                raise IllegalMove(
                    "card-not-in-hand",
                    f"{card!r} is not in seat {seat}'s hand" + (" that often" if held else ""),
                    _distinct(hand),
                )

    def _pass(self, seat: int, card: str) -> list[Event]:
        n = self.players
        self.hands[seat].remove(card)
        self.passed[seat].append(card)
        events = [
            Event(
                kind="exchange",
                seat=seat,
                cards=[card],
                data={"action": "pass", "right": (seat - 1) % n},
                to=seat,
            )
        ]
        k = self.exchange_size
        if any(len(p) < k for p in self.passed):
            return events
        for s in range(n):
            got = canonical(self.passed[(s + 1) % n])
            self.received[s] = got
            self.hands[s].extend(got)
            self.hands[s] = sort_cards(self.hands[s])
            events.append(
                Event(
                    kind="exchange",
                    seat=s,
                    cards=got,
                    data={"action": "receive", "left": (s + 1) % n},
                    to=s,
                )
            )
        if self.alliance:
            self._phase = Phase.SHOW
        else:
            self._start_play()
        return events

    # -- alliance show step ("Match and variants", Ruling) ------------------------------------

    def _show(self, seat: int, card: str | None) -> list[Event]:
        if self.has_shown[seat]:
            raise IllegalMove("not-your-turn", f"seat {seat} has already shown or skipped", [])
        if card is not None:
            check_card(card, "card")
            if card not in self.hands[seat]:
                raise IllegalMove(
                    "card-not-in-hand",
                    f"{card!r} is not in seat {seat}'s hand",
                    _distinct(self.hands[seat]),
                )
        self.has_shown[seat] = True
        self.shown[seat] = card
        events = [
            Event(
                kind="show",
                seat=seat,
                cards=[] if card is None else [card],
                data={"shown": card is not None},
                to=self.partner(seat),
            )
        ]
        if all(self.has_shown):
            self._start_play()
        return events

    def _start_play(self) -> None:
        """The dealer leads the first trick ("Set-up")."""
        self._phase = Phase.PLAY
        self.turn = self.leader
        self._legal = None

    def _current_legal(self) -> list[str]:
        """The current player's legal cards, computed once per turn (legal_actions + apply)."""
        legal = self._legal
        if legal is None:
            assert self.turn is not None
            legal = self._legal = legal_in_order(_distinct(self.hands[self.turn]), self.trick_cards)
        return legal

    # -- play ("Playing a card", "Resolving the trick") ---------------------------------------

    def _play(self, seat: int, action: Play) -> list[Event]:
        card = action.card
        if seat != self.turn:
            raise IllegalMove(
                "not-your-turn", f"it is seat {self.turn}'s turn, not seat {seat}'s", []
            )
        if action.declared is not None:
            raise InvalidInput(
                "numwars-classic cards take no declaration", code="bad-request", field="declared"
            )
        check_card(card, "card")
        hand = self.hands[seat]
        legal = self._current_legal()
        if card not in hand:
            raise IllegalMove(
                "card-not-in-hand", reason_message("card-not-in-hand", card), list(legal)
            )
        if card not in legal:
            reason = broken_obligation(hand, self.trick_cards, card)
            raise IllegalMove(reason, reason_message(reason, card), list(legal))
        self._legal = None
        hand.remove(card)
        self.trick.append((seat, card))
        self.trick_cards.append(card)
        events = [Event(kind="play", seat=seat, cards=[card])]
        if len(self.trick) < self.players:
            self.turn = (seat + 1) % self.players
            return events
        result = trick_result(duel(self.trick))
        for cap in result.captures:
            self.piles[cap.seat].extend(cap.cards)
        record = {
            "number": len(self.tricks) + 1,
            "leader": self.trick[0][0],
            "cards": [{"seat": s, "card": c} for s, c in self.trick],
            **msgspec.to_builtins(result),
        }
        self.tricks.append(record)
        self.trick = []
        self.trick_cards = []
        self.leader = self.turn = result.next_leader
        events.append(
            Event(
                kind="trick",
                seat=result.winner,
                cards=canonical(c["card"] for c in record["cards"]),
                data=record,
            )
        )
        if self.hands[seat]:
            return events
        self._phase = Phase.OVER
        self.turn = None
        self._score = self.rules.score_piles(self.piles)
        events.append(Event(kind="round-over", data=msgspec.to_builtins(self._score)))
        return events

    # -- projections ---------------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator): others' hands only as counts, never the
        set-aside cards, another seat's passed cards, or a show not meant for `seat`."""
        if seat is not None:
            self._check_seat(seat)
        n = self.players
        out: dict[str, Any] = {
            "ruleset": self.rules.id,
            "phase": str(self._phase),
            "players": n,
            "dealer": self.setup.dealer,
            "leader": self.leader,
            "current_player": self.current_player,
            "hand_counts": [len(h) for h in self.hands],
            "exchange_size": self.exchange_size,
            "passed_counts": [len(p) for p in self.passed],
            "trick": [{"seat": s, "card": c} for s, c in self.trick],
            "tricks": self.tricks,
            "captured": [canonical(p) for p in self.piles],
            "set_aside_count": len(self.set_aside),
            "scores": None if self._score is None else msgspec.to_builtins(self._score),
        }
        if self.alliance:
            out["teams"] = [[s, s + n // 2] for s in range(n // 2)]
            out["has_shown"] = list(self.has_shown)
        if seat is None:
            return out
        out["seat"] = seat
        out["hand"] = canonical(self.hands[seat])
        out["passed"] = canonical(self.passed[seat])
        out["received"] = list(self.received[seat])
        if self.alliance:
            partner = self.partner(seat)
            out["shown"] = self.shown[seat]
            out["partner_shown"] = self.shown[partner] if self.has_shown[partner] else None
        out["legal_actions"] = msgspec.to_builtins(self.legal_actions(seat))
        return out

    def snapshot(self) -> dict[str, Any]:
        return {
            "setup": msgspec.to_builtins(self.setup),
            "options": msgspec.to_builtins(self.rules.options),
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
            "turn": self.turn,
            "scores": None if self._score is None else msgspec.to_builtins(self._score),
            "history": [[s, msgspec.to_builtins(a)] for s, a in self.history],
        }

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise InvalidInput(
                f"seat {seat!r} is not a seat of {self.players} players",
                code="bad-request",
                field="seat",
            )


def _distinct(hand: list[str]) -> list[str]:
    """A canonical hand without its repeated copies (the two Jokers are one choice)."""
    return list(dict.fromkeys(hand))
