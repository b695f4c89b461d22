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

import time
from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate
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
    metrics as prometheus_metrics,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString

#: The text exposition's media type, without its charset (Litestar adds it to text/*).
MEDIA_TYPE = CONTENT_TYPE_LATEST.replace("; charset=utf-8", "")
#: Latency buckets (seconds): the rules endpoints answer in about a millisecond, stored
#: games in a few; the upper ones catch slow database calls (and event streams).
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_LABELS = ("method", "route", "status")
_REQUESTS = "numrules_http_requests"
_REQUESTS_HELP = "HTTP requests answered, by route template, method and status"
_DURATION = "numrules_http_request_duration_seconds"
_DURATION_HELP = "HTTP request duration (seconds), by route template, method and status"
_LE = [*map(floatToGoString, BUCKETS), "+Inf"]


class _Requests(Collector):
    """The requests' counter and duration histogram (issue 27: every layer paid for). Counted
    as plain numbers, a list per (method, route, status): its bucket's count (the first
    bound at or above the duration, +Inf past the last) and the durations' sum, where
    prometheus-client's children took a lock for each of the three numbers they add to.
    Collected as prometheus-client's `Counter` and `Histogram` expose them, `_created`
    included (tests/api/test_metrics.py compares the two texts). Counted and collected on
    the event loop's thread only (api.ops.observe, the `/metrics` route, not run in a thread):
    its additions take no lock."""

    def __init__(self) -> None:
        #: (method, route, status) -> [count of each bucket, of +Inf, the sum of durations]
        self.series: dict[tuple[str, str, int], list[float]] = {}
        self.created: dict[tuple[str, str, int], float] = {}

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status)
        series = self.series.get(key)
        if series is None:
            series = self.series[key] = [0.0] * (len(BUCKETS) + 2)
            self.created[key] = time.time()
        series[bisect_left(BUCKETS, seconds)] += 1
        series[-1] += seconds

    def collect(self) -> Iterator[CounterMetricFamily | HistogramMetricFamily]:
        # prometheus-client's own switch (`PROMETHEUS_DISABLE_CREATED_SERIES`,
        # `disable_created_metrics()`), read at each collection as its metrics read it
        created_series = getattr(prometheus_metrics, "_use_created", True)
        requests = CounterMetricFamily(_REQUESTS, _REQUESTS_HELP, labels=_LABELS)
        duration = HistogramMetricFamily(_DURATION, _DURATION_HELP, labels=_LABELS)
        for key, series in list(self.series.items()):
            labels = [key[0], key[1], str(key[2])]
            created = self.created[key]
            counts = list(accumulate(series[:-1]))
            requests.add_metric(labels, counts[-1], created=created if created_series else None)
            duration.add_metric(labels, list(zip(_LE, counts, strict=True)), series[-1])
            if created_series:
                duration.samples.append(
                    Sample(f"{_DURATION}_created", dict(zip(_LABELS, labels, strict=True)), created)
                )
        yield requests
        yield duration


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
        self._requests = _Requests()
        self.registry.register(self._requests)
        #: Count one request: its method, route template, status and duration (seconds).
        self.observe = self._requests.observe
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
