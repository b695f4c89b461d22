"""The history and stats endpoints (`GET /v1/me/history`, `GET /v1/me/stats`; api-contract.md,
"Accounts, score sheets, history"): one `Controller` whose dependencies give each handler
the app's one :class:`api.history.service.HistoryService` and the caller's live session."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Parameter

from api.accounts.sessions import Caller, require_session
from api.history.schemas import (
    HISTORY_MAX,
    HISTORY_PAGE,
    HistoryItem,
    HistoryOut,
    RoleStats,
    RulesetStats,
    StatsOut,
)
from api.history.service import HistoryService
from api.http.languages import language_headers, language_of, negotiated_operation
from api.http.problems import problem_spec
from api.http.responses import NO_STORE

#: The history and stats are documented with the score sheets (their tag since the start).
TAG = "Score sheets"
SESSION_ONLY: list[dict[str, list[str]]] = [{"sessionToken": []}]
SESSION_NEEDED = problem_spec("No live session", "unauthorized")
_problem = problem_spec
EXAMPLE_ID = "3f6c1d2e9a8b47c5b0e4d7a1c2f3e4d5"
EXAMPLE_TIME = datetime(2026, 12, 1, 20, 30, tzinfo=UTC)

EXAMPLE_HISTORY = HistoryOut(
    items=[
        HistoryItem(
            kind="scoresheet",
            id=EXAMPLE_ID,
            ruleset="numwars-classic",
            finished=True,
            won=True,
            at=EXAMPLE_TIME,
            ruleset_name="Num Wars (classic edition)",
            players=["Ada", "Bo", "Cy"],
            seats=[0],
            totals=[112, 87, 95],
            score=112,
            winners=[0],
        ),
        HistoryItem(
            kind="game",
            id="9d8c7b6a5f4e43d2c1b0a9f8e7d6c5b4",
            ruleset="numking",
            finished=False,
            won=False,
            at=datetime(2026, 11, 30, 18, 0, tzinfo=UTC),
            ruleset_name="Num King",
            players=["Ada", "Dee", "Eli"],
            seats=[0],
            totals=None,
            score=None,
            winners=[],
        ),
    ],
    next_cursor=None,
)
EXAMPLE_STATS = StatsOut(
    rulesets={
        "numwars": RulesetStats(
            played=2,
            won=1,
            win_rate=0.5,
            average_round_score=31.25,
            best_round_score=72,
            by_role={
                "agent": RoleStats(rounds=3, average_score=18.0),
                "poseur": RoleStats(rounds=5, average_score=39.0),
            },
        ),
        "numwin": RulesetStats(
            played=1, won=0, win_rate=0.0, average_round_score=14.5, best_round_score=3
        ),
    },
    vs_bots={
        "numking": RulesetStats(
            played=1, won=1, win_rate=1.0, average_round_score=12.0, best_round_score=30
        ),
    },
)


def _ok(container: type[Any], summary: str, value: msgspec.Struct) -> ResponseSpec:
    return ResponseSpec(
        data_container=container,
        description="OK",
        examples=[Example(summary=summary, value=msgspec.to_builtins(value))],
        generate_examples=False,
    )


def provide_history(state: State) -> HistoryService:
    """The app's one history service (built at its first request, on the app's database)."""
    service: HistoryService | None = state.get("history")
    if service is None or service.engine is not state.db:
        service = HistoryService(state.db)
        state.history = service
    return service


async def provide_session(request: Request[Any, Any, Any]) -> Caller:
    """A live session (401 without one), resolved once per request."""
    return await require_session(request)


class HistoryController(Controller):
    """`/v1/me/history` and `/v1/me/stats`: a session's own history and stats."""

    dependencies = {  # noqa: RUF012 (Litestar reads the class attribute)
        "history": Provide(provide_history, sync_to_thread=False),
        "caller": Provide(provide_session),
    }

    @get(
        "/v1/me/history",
        operation_id=negotiated_operation("GetHistory"),
        summary="Your score sheets and games, newest first",
        description=(
            "The score sheets the account owns or is named on, and the stored games where it holds "
            "a joined seat, newest first (`at`: when each last changed). `won`: finished with the "
            "account among the winners (a shared win counts). Each item also carries what a list "
            "screen shows, so that no item needs a `GET` of its own: `ruleset_name`, the "
            "`players`' names, `totals` by player (a sheet's so far; a game's once over), the "
            "account's own `seats` (indices into `players`) and `score`, and the `winners` "
            "(indices into `players`, as the sheet's and the game's own); `ruleset_name` in English "
            "or French by `Accept-Language`. Pages of `limit` items "
            "(default "
            f"{HISTORY_PAGE}, at most {HISTORY_MAX}); ask the next one with `cursor=next_cursor` "
            "(null on the last page). A cursor is opaque: any other is 422 `bad-cursor`."
        ),
        tags=[TAG],
        security=SESSION_ONLY,
        responses={
            200: _ok(HistoryOut, "A sheet won and a game in progress", EXAMPLE_HISTORY),
            401: SESSION_NEEDED,
            422: _problem(
                "`limit` out of range, or a bad `cursor`", "validation-error", "bad-cursor"
            ),
        },
    )
    async def get_history(
        self,
        request: Request[Any, Any, Any],
        history: NamedDependency[HistoryService],
        caller: NamedDependency[Caller],
        limit: Annotated[int, Parameter(ge=1, le=HISTORY_MAX, description="items per page")] = (
            HISTORY_PAGE
        ),
        cursor: Annotated[
            str | None, Parameter(max_length=400, description="`next_cursor` of the previous page")
        ] = None,
    ) -> Response[HistoryOut]:
        language = language_of(request)
        page = await history.history(caller, limit, cursor, language)
        return Response(page, headers={**NO_STORE, **language_headers(language)})

    @get(
        "/v1/me/stats",
        operation_id="GetStats",
        summary="Your stats per ruleset",
        description=(
            "Per ruleset played: `played`, `won` (a shared win counts), `win_rate`, the account's "
            "`average_round_score` and `best_round_score` (the lowest in numwin) over every round "
            "it played, tie-break rounds included. They cover the finished score sheets the account "
            "is a confirmed player of (its own player entries on its own sheets count at once; on "
            "another owner's sheet, once it confirms it) and the finished stored games where it "
            "holds a joined seat. `numwars` adds `by_role`: rounds and average score per role, "
            "from the score sheets' rounds. A finished game that seated a bot (issue 25) counts "
            "apart, under `vs_bots` (the same figures per ruleset), never in `rulesets`: beating "
            "the server's bots is not beating people. Computed from the stored sheets and games "
            "on each request."
        ),
        tags=[TAG],
        security=SESSION_ONLY,
        responses={
            200: _ok(StatsOut, "Num Wars and Num Win played", EXAMPLE_STATS),
            401: SESSION_NEEDED,
        },
    )
    async def get_stats(
        self, history: NamedDependency[HistoryService], caller: NamedDependency[Caller]
    ) -> Response[StatsOut]:
        return Response(await history.stats(caller), headers=NO_STORE)


route_handlers = [HistoryController]
