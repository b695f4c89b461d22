"""The history's and stats' answers (`GET /v1/me/history`, `GET /v1/me/stats`)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from api.http.structs import Page

#: History pages: default and largest `limit`.
HISTORY_PAGE = 20
HISTORY_MAX = 100


class HistoryItem(msgspec.Struct, frozen=True, kw_only=True):
    """A sheet or a stored game of the account: `won` once finished with the account among
    the winners (a shared win counts), `at` when it last changed."""

    kind: Literal["scoresheet", "game"]
    id: str
    ruleset: str
    finished: bool
    won: bool
    at: datetime


class HistoryOut(Page[HistoryItem], frozen=True, kw_only=True):
    """A page of the history (`next_cursor`: the next page's, null on the last). The fields
    are restated: the spec names the items' type, and `next_cursor` is always sent."""

    items: list[HistoryItem]
    next_cursor: str | None


class RoleStats(msgspec.Struct, frozen=True, kw_only=True):
    rounds: int
    average_score: float


class RulesetStats(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    played: int
    won: int
    win_rate: float
    average_round_score: float | None
    best_round_score: int | None
    by_role: dict[str, RoleStats] | None = None  # numwars only


class StatsOut(msgspec.Struct, frozen=True, kw_only=True):
    rulesets: dict[str, RulesetStats]
