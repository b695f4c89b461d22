"""Prometheus metrics at `GET /metrics` (issue 13), in the text exposition format.

Each app has its own registry (:class:`Metrics`, `app.state.metrics`), so that two apps in
one process (the tests) count apart:

* `numrules_http_requests_total{method, route, status}` and
  `numrules_http_request_duration_seconds{method, route, status}` (a histogram), counted by
  `api.ops.observe` for every request; `route` is the route template (`/v1/games/{game_id}`), never
  the raw path (one series per game id would be unbounded), `unmatched` for a path no route
  has. An event stream's duration is how long it stayed open.
* `numrules_games_created_total`, `numrules_game_actions_total`: bumped by the stored-games
  routes (an idempotent replay is not an action applied).
* `numrules_sse_streams` (open event streams) and `numrules_db_pool_checked_out` (connections
  of the SQLAlchemy pool in use): read at scrape time, from the stored games' fan-out and from
  the engine's pool (a pool without a count, as SQLite's may be, reports nothing).
* the process' own (`process_*`: CPU, memory, open files) and Python's (`python_gc_*`).

Several worker processes (`numrules serve --workers N`): each process counts on its own and a
scrape reaches one of them at random, so counters seem to jump. Either scrape each process
(one port each, as replicas are) or use prometheus-client's multiprocess mode
(`PROMETHEUS_MULTIPROC_DIR`, a shared directory of memory-mapped files, with a registry
built from `MultiProcessCollector` at scrape time); the latter is not wired here: the
deployment runs one worker per container and scales by replicas.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from litestar import Request, Response, get
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

#: The text exposition's media type, without its charset (Litestar adds it to text/*).
MEDIA_TYPE = CONTENT_TYPE_LATEST.replace("; charset=utf-8", "")
#: Latency buckets (seconds): the rules endpoints answer in about a millisecond, stored
#: games in a few; the upper ones catch slow database calls (and event streams).
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _AppState(Collector):
    """Gauges read from the running app at scrape time."""

    def __init__(self) -> None:
        self.state: Any = None  # the app's State, once the app is built

    def collect(self) -> Iterator[GaugeMetricFamily]:
        state = self.state
        games = getattr(state, "games", None)
        if games is not None:
            streams = GaugeMetricFamily(
                "numrules_sse_streams", "Open event streams (Server-Sent Events)"
            )
            streams.add_metric([], games.fanout.streams)
            yield streams
        engine = getattr(state, "db", None)
        checked_out = getattr(getattr(engine, "pool", None), "checkedout", None)
        if callable(checked_out):
            in_use = GaugeMetricFamily(
                "numrules_db_pool_checked_out", "Database connections of the pool in use"
            )
            in_use.add_metric([], checked_out())
            yield in_use


class Metrics:
    """One app's metrics (see the module docstring)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        labels = ("method", "route", "status")
        self.requests = Counter(
            "numrules_http_requests",
            "HTTP requests answered, by route template, method and status",
            labels,
            registry=self.registry,
        )
        self.duration = Histogram(
            "numrules_http_request_duration_seconds",
            "HTTP request duration (seconds), by route template, method and status",
            labels,
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.games_created = Counter(
            "numrules_games_created", "Stored games created", registry=self.registry
        )
        self.actions_applied = Counter(
            "numrules_game_actions", "Stored-game actions applied", registry=self.registry
        )
        self.bot_think = Histogram(
            "numrules_bot_think_seconds",
            "Bot and hint think time (seconds, wall time off the event loop), by level "
            "(`hint` for hints)",
            ("level",),
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.timeouts = Counter(
            "numrules_clock_timeouts",
            "Turn-clock timeouts applied (issue 26), by `on_timeout` (auto, abandon)",
            ("on_timeout",),
            registry=self.registry,
        )
        self._app_state = _AppState()
        self.registry.register(self._app_state)
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)

    def bind(self, state: Any) -> None:
        """Read the scrape-time gauges from this app state."""
        self._app_state.state = state

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one request; the labelled children are looked up once per (method, route,
        status), not on every request (prometheus-client's `labels()` checks and locks)."""
        key = (method, route, status)
        children = self._children.get(key)
        if children is None:
            labels = (method, route, str(status))
            children = self._children[key] = (
                self.requests.labels(*labels),
                self.duration.labels(*labels),
            )
        children[0].inc()
        children[1].observe(seconds)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def metrics_of(request: Request[Any, Any, Any]) -> Metrics:
    """The app's metrics (`api.ops.operations.observe` makes them; an app built without it gets
    its own here, so that a route's counter never fails)."""
    return metrics_of_state(request.app.state)


def metrics_of_state(state: Any) -> Metrics:
    """The metrics of an app's state (made on first use, as `metrics_of`)."""
    metrics: Metrics | None = getattr(state, "metrics", None)
    if metrics is None:
        metrics = Metrics()
        metrics.bind(state)
        state.metrics = metrics
    return metrics


@get("/metrics", include_in_schema=False, sync_to_thread=False, cache=False)
def metrics_endpoint(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The Prometheus text exposition (not in the spec: it is for the monitoring system)."""
    return Response(
        metrics_of(request).exposition(),
        media_type=MEDIA_TYPE,
        headers={"Cache-Control": "no-store"},
    )
