"""A whole Num King game (rules/numking.md "Rounds"): rounds 1 … max_cards, streaks carried."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from engine.core.actions import Action
from engine.core.base import (
    MatchResult,
    RoundScore,
)
from engine.core.events import EventBase, GameOverEvent, RoundStartEvent
from engine.core.rng import Rng
from engine.numking.round import NumKingRound

if TYPE_CHECKING:
    from engine.numking.rules import NumKing


class NumKingGame:
    """A whole game: rounds 1 … max_cards, streaks carried and first bidders by the Ruling.

    Drives the current :class:`NumKingRound` (same `phase`, `current_player`, `actors`,
    `legal_actions`, `apply`, `view`, `snapshot` shape) and starts the next round as soon as
    one ends. Round r's seed is the r-th output of ``Rng(seed)``.
    """

    def __init__(self, rules: NumKing, players: int, seed: int) -> None:
        self.rules = rules
        self.players = players
        self.seed = seed
        self.last_round = rules.max_cards(players)
        self._seeds = Rng(seed)
        self.history: list[tuple[int, Action]] = []
        self.rounds: list[NumKingRound] = []
        self.round_scores: list[RoundScore] = []
        first = rules.first_setup(players, self._seeds.next_u64())
        self.round = rules.new_round(first)

    @property
    def phase(self) -> str:
        return self.round.phase

    @property
    def current_player(self) -> int | None:
        return self.round.current_player

    @property
    def is_over(self) -> bool:
        return self.round.is_over and self.round.k == self.last_round

    def actors(self) -> list[int]:
        return self.round.actors()

    def legal_actions(self, seat: int) -> list[Action]:
        return self.round.legal_actions(seat)

    def apply(self, seat: int, action: Action) -> list[EventBase]:
        state = self.round
        events = state.apply(seat, action)
        self.history.append((seat, action))
        if state.is_over:
            scores = state.scores()
            assert scores is not None
            self.rounds.append(state)
            self.round_scores.append(scores)
            nxt = self.rules.next_setup(state.setup, state, self._seeds.next_u64())
            if nxt is not None:
                self.round = self.rules.new_round(nxt)
                events.append(
                    RoundStartEvent(data={"round": nxt.round, "first_bidder": nxt.leader})
                )
            else:
                result = self.result()
                assert result is not None
                events.append(
                    GameOverEvent(data={"totals": result.totals, "winners": result.winners})
                )
        return events

    def result(self) -> MatchResult | None:
        """Totals and winners once the last round is over."""
        if not self.is_over:
            return None
        return self.rules.score_match(self.round_scores)

    def view(self, seat: int | None) -> dict[str, Any]:
        totals = [0] * self.players
        for rs in self.round_scores:
            for p in rs.players:
                totals[p.seat] += p.score
        return {
            "round_no": self.round.k,
            "last_round": self.last_round,
            "totals": totals,
            "over": self.is_over,
            "current": self.round.view(seat),
        }

    def snapshot(self) -> dict[str, Any]:
        return {
            "rounds": [r.snapshot() for r in self.rounds],
            "current": None if self.round.is_over else self.round.snapshot(),
            "history": [[s, msgspec.to_builtins(a)] for s, a in self.history],
        }
