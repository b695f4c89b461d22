"""The history's and stats' answers (`GET /v1/me/history`, `GET /v1/me/stats`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from api.http.structs import Page

#: History pages: default and largest `limit`.
HISTORY_PAGE = 20
HISTORY_MAX = 100


class HistoryItem(msgspec.Struct, frozen=True, kw_only=True):
    """A sheet or a stored game of the account: `won` once finished with the account among
    the winners (a shared win counts), `at` when it last changed; and what a list screen
    shows of it, without reading each one: the ruleset's name, the players' names, the
    totals, the account's own players and score, the winners."""

    kind: Literal["scoresheet", "game"]
    id: str
    ruleset: str
    finished: bool
    won: bool
    at: datetime
    ruleset_name: Annotated[str, msgspec.Meta(description="the ruleset's name (`Num Wars` …)")]
    players: Annotated[
        list[str],
        msgspec.Meta(description="the players' names: a sheet's in its order, a game's by seat"),
    ]
    seats: Annotated[
        list[int],
        msgspec.Meta(
            description="the account's own players, as indices into `players` (a game's seats); "
            "empty on a sheet the account owns without playing on it"
        ),
    ]
    totals: Annotated[
        list[int] | None,
        msgspec.Meta(
            description="totals by player, in the order of `players`: a sheet's over its regular "
            "rounds so far (zeros before the first), a game's once over (null before, and for an "
            "abandoned game)"
        ),
    ]
    score: Annotated[
        int | None,
        msgspec.Meta(
            description="the account's own total (its first player's, from `totals`); null when "
            "it plays no player or the totals are not known yet"
        ),
    ]
    winners: Annotated[
        list[int],
        msgspec.Meta(
            description="the winners as indices into `players` (shared wins list each), as the "
            "sheet's and the game's own `winners`; empty until finished"
        ),
    ]


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
    #: the finished sheets and the finished games without a bot seat
    rulesets: dict[str, RulesetStats]
    #: the finished games that seated a bot (issue 25), the same figures apart
    vs_bots: dict[str, RulesetStats] = {}
