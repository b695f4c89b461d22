"""`numwin` — Num Win (rules/numwin.md). STUB."""

from __future__ import annotations

from typing import ClassVar

import msgspec

from engine.base import Deal, DeckInfo, MatchResult, RoundScore, RoundSetup


class NumWinOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    teams: bool = False  # 4 players, partners opposite, team totals
    max_turns: int = 0  # end the round unscored-caller after this many turns (0: no limit)


class NumWinHand(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's final combination for score-round; locked pairs listed apart."""

    combination: list[str]
    locked: list[list[str]] = []


class NumWin:
    id: ClassVar[str] = "numwin"
    name: ClassVar[str] = "Num Win"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    Options: ClassVar[type[NumWinOptions]] = NumWinOptions

    def __init__(self, options: NumWinOptions | None = None) -> None:
        self.options = options or NumWinOptions()

    def deck(self, players: int) -> DeckInfo:
        raise NotImplementedError

    def deal(self, setup: RoundSetup) -> Deal:
        raise NotImplementedError

    def score_round(self, hands: list[NumWinHand], caller: int | None) -> RoundScore:
        raise NotImplementedError

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        raise NotImplementedError
