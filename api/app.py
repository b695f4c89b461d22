"""The ASGI application: `api.app:app`, built by `create_app(settings)`."""

from __future__ import annotations

import asyncio
import gc
import logging
import pickle
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import fields, is_dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import msgspec
from litestar import Litestar, MediaType, Request, Response, get
from litestar._openapi.plugin import OpenAPIPlugin
from litestar.config.cors import CORSConfig
from litestar.datastructures import CacheControlHeader
from litestar.exceptions import MethodNotAllowedException, NotFoundException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import (
    Components,
    Example,
    OpenAPI,
    OpenAPIHeader,
    OpenAPIMediaType,
    OpenAPIResponse,
    Reference,
    RequestBody,
    Schema,
    SecurityScheme,
    Tag,
)
from litestar.openapi.spec.enums import OpenAPIType
from litestar.routes import HTTPRoute
from litestar.static_files import create_static_files_router
from litestar.types import (
    LifeSpanReceive,
    LifeSpanScope,
    LifeSpanSend,
    Method,
    Receive,
    Scope,
    Send,
)
from sqlalchemy.exc import SQLAlchemyError
from swagger_ui_bundle import swagger_ui_path

from api.accounts.routes import route_handlers as account_handlers
from api.db.engine import unavailable
from api.exact_types import exact_types
from api.games.fast import FastGames
from api.games.routes import route_handlers as game_handlers
from api.games.spec import document_games
from api.history.routes import route_handlers as history_handlers
from api.http.conditions import document_conditions
from api.http.fields import document_field_problems
from api.http.hygiene import NOTHING_HERE, HttpHygiene, before_request
from api.http.languages import document_languages
from api.http.problems import MEDIA_TYPE, ProblemError, database_unavailable, handle_exception
from api.ops.metrics import metrics_endpoint
from api.ops.operations import (
    document_database_unavailable,
    document_rate_limit,
    note_route,
    observe,
    operations_lifespan,
)
from api.ops.ratelimit import (
    RateLimitMiddleware,
    rate_limit_middleware,
    scope_network,
    trusted_networks,
)
from api.ops.settings import Settings
from api.problem_codes import document_problem_codes
from api.rules.fast import FastRules
from api.rules.routes import fast_operations, route_handlers
from api.rules.schemas import Health
from api.sheets.routes import route_handlers as sheet_handlers
from api.sheets.spec import document_sheets
from api.web.routes import DIST, web_handlers
from engine import registry
from engine.core.cards import CARD_PATTERN
from engine.core.spec import RulesetSpec
from engine.core.texts import say

API_VERSION = "1.0.0"
DESCRIPTION = """\
Rules-as-a-service for the Num Project card games: **Num Wars** (`numwars`, secret roles;
`numwars-classic`), **Num King** (`numking`) and **Num Win** (`numwin`).

* Cards are lower-case string codes (`red-7`, `shadow-12`, `joker`, `numx` …); every card
  list in a response is in canonical order. Seats are `0 … n-1`, clockwise.
* Errors are RFC 9457 `application/problem+json` with a stable `code` and, for bad fields,
  `errors: [{"field", "message"}]`. Unparsable JSON → 400; a body that parses but breaks the
  contract → 422; unknown ruleset → 404. An illegal move is not an HTTP error on the stateless
  endpoints: `validate-move` answers 200 with `legal: false` and a `reason`.
* Request bodies are capped at 64 KiB.
* Rate limits: each request counts against one bucket, the first that checks out of an API
  key (`X-API-Key`, see `POST /v1/me/api-keys`), an account's session, a seat or sheet
  token, else the client's network. Counted answers carry `RateLimit-Limit`,
  `RateLimit-Remaining` and `RateLimit-Reset`; past the limit, 429 `rate-limited` with
  `Retry-After`.
"""


@get(
    "/healthz",
    operation_id="Healthz",
    summary="Liveness",
    description="Answers 200 while the process is up.",
    tags=["Operations"],
    sync_to_thread=False,
)
def healthz() -> Health:
    return Health(status="ok")


log = logging.getLogger("numrules.api")

#: How long a shutdown waits for the sweep's current pass (each statement is bounded by
#: `NUMRULES_DB_STATEMENT_TIMEOUT_SECONDS`, a pass applies at most a batch of moves).
SWEEP_STOP_SECONDS = 15.0

#: How long /readyz waits for the database before answering 503.
READY_TIMEOUT_SECONDS = 2.0

#: The collector's first threshold in a serving process (see `_games_lifespan`).
GC_YOUNG_THRESHOLD = 10_000


@get(
    "/readyz",
    operation_id="Readyz",
    summary="Readiness",
    description=(
        "Answers 200 when the database answers (`SELECT 1` within 2 s), else 503 "
        "`database-unavailable` with `Retry-After`: a load balancer sends no traffic to a "
        "process that cannot serve stored games."
    ),
    tags=["Operations"],
    opt={"database": True},
)
async def readyz(request: Request[Any, Any, Any]) -> Health:
    from sqlalchemy import text

    engine = request.app.state.games.engine
    try:
        async with asyncio.timeout(READY_TIMEOUT_SECONDS), engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except (TimeoutError, OSError, SQLAlchemyError) as exc:
        # the same answer and warning line as any operation's (api.http.problems)
        reason = unavailable(exc) or f"no answer within {READY_TIMEOUT_SECONDS:g} s"
        log.warning("database unavailable on GET '/readyz': %s", reason)
        raise database_unavailable() from None
    return Health(status="ok")


@get("/openapi.json", include_in_schema=False, sync_to_thread=False, media_type=MediaType.JSON)
def openapi_document(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The spec of the app serving it (built with it: the rulesets registered by then)."""
    return Response(_spec_bytes(request.app), media_type=MediaType.JSON)


#: Properties that hold a card code, a list of them, or a list of lists (pairs, hands).
_CARD = {"card"}
_CARD_LIST = {
    "hand",
    "captured",
    "combination",
    "legal",
    "legal_moves",
    "cards",
    "set_aside",
    "out_of_play",
    "discard",
    "cancelled",
}
_CARD_LIST_LIST = {"pairs", "locked", "hands"}


def _string_schema(node: object) -> Schema | None:
    if isinstance(node, Schema):
        if node.type == OpenAPIType.STRING:
            return node
        for option in node.one_of or ():  # nullable fields: oneOf [string, null]
            if isinstance(option, Schema) and option.type == OpenAPIType.STRING:
                return option
    return None


def _items(node: object) -> object:
    """The item schema of an array, also when the array is an optional field (oneOf)."""
    if not isinstance(node, Schema):
        return None
    if node.items is not None:
        return node.items
    arrays = [o for o in node.one_of or () if isinstance(o, Schema) and o.items is not None]
    return arrays[0].items if arrays else None


def add_card_patterns(application: Litestar) -> None:
    """Show the card-code pattern on every card field of the spec.

    Decoding does not check the pattern (the engine names a bad card more precisely, and a
    regular expression per card would cost more than the rules themselves); the spec still
    tells integrators the exact shape of a card code, list items included, which Litestar's
    schema generation leaves out.
    """
    components = application.openapi_schema.components
    for title, component in (components.schemas or {}).items():
        if title == "Problem":  # its `legal` may list action tags, not only cards
            continue
        for name, prop in (component.properties or {}).items():
            if name in _CARD:
                target = _string_schema(prop)
            elif name in _CARD_LIST:
                target = _string_schema(_items(prop))
            elif name in _CARD_LIST_LIST:
                target = _string_schema(_items(_items(prop)))
            else:
                continue
            if target is not None:
                target.pattern = CARD_PATTERN


#: Swagger UI's files, from the pinned `swagger-ui-bundle-v2` package (pyproject.toml): the
#: docs page loads nothing from outside the service, so it works offline and behind a firewall.
SWAGGER_UI_DIR = Path(str(swagger_ui_path))
DOCS = "/docs"
DOCS_ASSETS = f"{DOCS}/assets"
#: The served spec's path under /docs (`DocsSpec`), beside the page itself at /docs.
DOCS_SPEC = "/openapi.json"

#: CORS (Fetch standard, "CORS protocol"): the methods and request headers the API uses, the
#: stored-games and accounts endpoints' included (`Authorization` for tokens, `X-API-Key` for
#: API keys, `If-Match` and `Idempotency-Key` on actions, `Last-Event-ID` on event streams); a
#: preflight asking for anything else (beyond `NUMRULES_CORS_EXTRA_HEADERS`: by default the
#: tracing headers browsers add) is refused, whatever the path. Answers expose the headers a
#: client must read (the rate limit's among them).
CORS_METHODS: list[Literal["*"] | Method] = [
    "GET",
    "HEAD",
    "POST",
    "PUT",
    "PATCH",
    "DELETE",
    "OPTIONS",
]
CORS_HEADERS = [
    "Authorization",
    "Content-Type",
    "If-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "X-API-Key",
]
CORS_EXPOSED = [
    "ETag",
    "Location",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
]


def _cors(settings: Settings) -> CORSConfig | None:
    if not settings.cors_origins:
        return None
    return CORSConfig(
        allow_origins=settings.cors_origins,
        allow_methods=CORS_METHODS,
        allow_headers=[*CORS_HEADERS, *settings.cors_extra_headers],
        expose_headers=CORS_EXPOSED,
        max_age=settings.cors_max_age,
    )


class _ServedSpec:
    """A render plugin that writes the spec exactly as `/openapi.json` serves it: Litestar's
    own rendering drops every null, examples' values included (35 of them, so the docs'
    examples missed required fields such as `"winner": null`)."""

    @staticmethod
    def render_json(request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return _spec_bytes(request.app)


class DocsPage(_ServedSpec, SwaggerRenderPlugin):
    """Swagger UI at /docs, showing the served spec (it is written into the page)."""


class DocsSpec(_ServedSpec, JsonRenderPlugin):
    """`/docs/openapi.json`: the served spec, byte for byte."""


def _no_docs_resource(path: str) -> Exception | None:
    """The 404 a GET of `path` gets, when it is under /docs/ and names nothing there (not the
    spec's JSON, not a file of the page's assets), else None: another method's 405 would name
    the methods of a resource that does not exist ("use GET, HEAD", and GET finds nothing).
    The path is read as the router reads it: empty segments dropped (`/docs/` is `/docs`,
    `/docs/assets//x.css` is `/docs/assets/x.css`)."""
    path = "/" + "/".join(segment for segment in path.split("/") if segment)
    if not path.startswith(f"{DOCS}/") or path == DOCS + DOCS_SPEC:
        return None
    if path.startswith(DOCS_ASSETS + "/"):
        name = path[len(DOCS_ASSETS) + 1 :]  # one file name: the folder is flat, no "../"
        if name not in ("", ".", "..") and "/" not in name and (SWAGGER_UI_DIR / name).is_file():
            return None
        return NotFoundException()  # as the static files' GET: "no resource at {path}"
    return ProblemError(404, "not-found", say(NOTHING_HERE))  # as the docs' own GET


def handle_problem(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """:func:`api.http.problems.handle_exception`, with a method other than GET refused as a
    GET would be where /docs/ holds nothing (404, not 405)."""
    if isinstance(exc, MethodNotAllowedException):
        exc = _no_docs_resource(str(request.scope.get("path", ""))) or exc
    return handle_exception(request, exc)


def _swagger_ui() -> SwaggerRenderPlugin:
    """Swagger UI at /docs, its scripts, stylesheet and icon served by the app itself."""
    return DocsPage(
        path="/",
        js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
        css_url=f"{DOCS_ASSETS}/swagger-ui.css",
        standalone_preset_js_url=f"{DOCS_ASSETS}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{DOCS_ASSETS}/favicon-32x32.png'>",
    )


def _games_lifespan(settings: Settings) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """The stored games' database engine, store and event fan-out, for the app's lifetime.

    First the database is checked (`NUMRULES_CHECK_DB_ON_START`, off for the stateless tests,
    which need none): a database behind the migrations (issue 11) or one that cannot serve
    (issue 21: refused, unknown, silent past the connect timeout) stops the start-up with one
    line naming the cause (`App`)."""

    @asynccontextmanager
    async def lifespan(application: Litestar) -> AsyncIterator[None]:
        from api.accounts.mail import Mailer
        from api.accounts.service import AccountService
        from api.db.engine import create_engine, engine_from_settings, is_sqlite, timeouts
        from api.db.migrations import require_head
        from api.games.fanout import Fanout
        from api.games.service import GameService

        if settings.check_db_on_start:
            await require_head(settings.database_url, settings)
        from api.db.sole import SoleLease, application_name

        # every connection of this app's engines carries its name (api.db.sole)
        name = application_name()
        engine = engine_from_settings(settings, name)
        fanout = Fanout(settings.db_connect_timeout_seconds)
        fanout.application_name = name
        application.state.db = engine
        from api.games.bots import Limits, Thinker
        from api.ops.metrics import metrics_of_state

        def think_time(level: str, seconds: float) -> None:
            metrics_of_state(application.state).bot_think.labels(level).observe(seconds)

        thinker = Thinker(
            settings.bot_workers, settings.bot_samples, settings.bot_seconds, think_time
        )
        limits = Limits(
            settings.hints_per_minute, settings.bot_cpu_seconds, settings.bot_cpu_window_seconds
        )
        games = GameService(
            engine,
            fanout,
            thinker=thinker,
            hold=settings.bot_hold,
            waiting_hours=settings.waiting_hours,
            limits=limits,
            group_commit_ms=settings.group_commit_ms,
            hot_actions=settings.hot_actions,
            cache_size=settings.match_cache_size,
        )
        games.on_timeout = lambda how: (
            metrics_of_state(application.state).timeouts.labels(how).inc()
        )
        application.state.games = games
        mailer = Mailer(settings)
        application.state.accounts = AccountService(engine, settings, mailer)
        application.state.max_streams = settings.max_streams
        application.state.max_streams_per_network = settings.max_streams_per_network
        trusted = trusted_networks(settings.trusted_proxies)
        application.state.stream_network = lambda scope: scope_network(
            scope, trusted, settings.rate_limit_ipv4_prefix, settings.rate_limit_ipv6_prefix
        )
        # Everything built so far (modules, the spec, the rules tables: 130,000 objects) lives
        # as long as the process: out of the collector's sight, a full collection scans only
        # what requests allocate (35 ms per full collection before, the HTTP benchmark's p99).
        gc.collect()
        gc.freeze()
        # A young collection every 10,000 allocations net (700 by default), so a full one at
        # most every 1,000,000: each full collection scans every cached match (16 games in
        # play and those that ended: 20,000 to 90,000 objects, 5 to 25 ms), and at 2,000
        # actions a second the default ran one every 0.9 s, a pause that all the requests
        # under way waited out (the stored games' p99, issue 27). The young ones scan what
        # requests allocate, as many in all. Process-wide, for the process's life.
        gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
        # the sweep's own connection (PostgreSQL): a silent database holds none of the requests'
        sweeper = (
            engine
            if is_sqlite(settings.database_url)
            else create_engine(
                settings.database_url, 1, application_name=name, **timeouts(settings)
            )
        )
        if settings.sole_reads:
            # (the sweeper's transactions are not watched: it writes clocked games' timeouts
            # only once a deadline passed, and a row `get` answers from has its next deadline
            # a second ahead at least; and other games' `sweep_at` bounds, which no read shows;
            # bot moves go through `engine`)
            games.lease = SoleLease(name, settings.db_connect_timeout_seconds)
            await games.lease.start(settings.database_url)
        sweeping = asyncio.get_running_loop().create_task(
            games.sweep(
                settings.bot_sweep_seconds,
                engine=sweeper,
                clock_interval=settings.clock_sweep_seconds,
            )
        )
        try:
            await fanout.listen(settings.database_url)
            yield
        finally:
            games.stop_sweeping()  # its pass ends within the statement timeouts; then it stops
            await asyncio.wait({sweeping}, timeout=SWEEP_STOP_SECONDS)
            sweeping.cancel()  # a no-op once it stopped
            if sweeper is not engine:
                await sweeper.dispose()
            if games.lease is not None:
                await games.lease.close()
            await games.close()  # its bot moves and shared commits end before the engine
            await thinker.close()
            await fanout.close()
            await mailer.drain()
            await engine.dispose()

    return lifespan


class App(Litestar):
    """Litestar, with a start-up refused on purpose (`api.db.migrations.StartupRefused`: the
    database behind the migrations, or unavailable) handed to the ASGI server as its one-line
    reason rather than the traceback Litestar formats for any failure: uvicorn logs that line,
    says "Application startup failed" and exits non-zero. Any other failure keeps its
    traceback."""

    async def __call__(
        self,
        scope: Scope | LifeSpanScope,
        receive: Receive | LifeSpanReceive,
        send: Send | LifeSpanSend,
    ) -> None:
        if scope["type"] == "lifespan":
            send = _one_line_refusals(send)
        await super().__call__(scope, receive, send)


def _one_line_refusals(send: Any) -> Any:
    from api.db.migrations import StartupRefused

    async def send_short(message: Any) -> None:
        if message["type"] == "lifespan.startup.failed":  # sent while Litestar handles it
            refusal = _refusal(sys.exc_info()[1], StartupRefused)
            if refusal is not None:
                message = {**message, "message": f"numrules: {refusal}"}
        await send(message)

    return send_short


def _refusal(exc: BaseException | None, kind: type[Exception]) -> BaseException | None:
    """`exc` if it is a `kind`, or the `kind` inside it (Litestar's lifespan may group it)."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := _refusal(inner, kind)) is not None:
                return found
    return None


def allow_every_method(application: Litestar) -> None:
    """`OPTIONS` lists every method of its path. Litestar builds a path's OPTIONS handler with
    its first route and keeps it when more handlers join the path (`/v1/me`: GET, then PATCH
    and DELETE), so its `Allow` named only the first ones (found by fuzzing): point each
    OPTIONS handler at its path's final route."""
    for route in application.routes:
        if not isinstance(route, HTTPRoute) or "OPTIONS" not in route.route_handler_map:
            continue
        handler = route.route_handler_map["OPTIONS"][0]
        for cell in getattr(handler.fn, "__closure__", None) or ():
            if isinstance(cell.cell_contents, HTTPRoute):
                cell.cell_contents = route


def problem_400s(application: Litestar) -> None:
    """Litestar documents a 400 of its own shape (`Validation Exception`) on operations with
    parameters; this API answers every error as a problem: say so."""
    problem = Reference(ref="#/components/schemas/Problem")
    for path_item in (application.openapi_schema.paths or {}).values():
        for operation in (
            path_item.get,
            path_item.post,
            path_item.put,
            path_item.patch,
            path_item.delete,
        ):
            responses = operation.responses if operation is not None else None
            found = (responses or {}).get("400")
            if not isinstance(found, OpenAPIResponse) or "application/json" not in (
                found.content or {}
            ):
                continue
            assert responses is not None
            responses["400"] = OpenAPIResponse(
                description="The request is malformed (a problem).",
                content={MEDIA_TYPE: OpenAPIMediaType(schema=problem)},
            )


def header_schemas(application: Litestar) -> None:
    """Every header of an answer has a `schema` (OpenAPI 3.1 requires a schema or a content):
    Litestar's documentation-only `ResponseHeader`s (`ETag`, `Location` …) come without one;
    they are strings."""
    for path_item in (application.openapi_schema.paths or {}).values():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(path_item, method)
            responses = (operation.responses if operation is not None else None) or {}
            for response in responses.values():
                if not isinstance(response, OpenAPIResponse):
                    continue
                for header in (response.headers or {}).values():
                    if isinstance(header, OpenAPIHeader) and header.schema is None:
                        header.schema = Schema(type=OpenAPIType.STRING)


def _merge_single(node: Schema) -> Schema | Reference:
    """`node` without a `oneOf`/`anyOf` of one alternative: that alternative, with `node`'s own
    keywords (its description …) kept where the alternative has none."""
    for keyword in ("one_of", "any_of"):
        alternatives = getattr(node, keyword)
        if alternatives is None or len(alternatives) != 1:
            continue
        (only,) = alternatives
        setattr(node, keyword, None)
        if isinstance(only, Reference):
            if all(getattr(node, f.name) is None for f in fields(Schema)):
                return only
            node.all_of = [only]  # (a `$ref` beside keywords of its own)
            continue
        for field in fields(Schema):
            if getattr(node, field.name) is None:
                setattr(node, field.name, getattr(only, field.name))
    return node


def _simplified(node: Any) -> Any:
    if isinstance(node, list):
        return [_simplified(item) for item in node]
    if isinstance(node, dict):
        return {key: _simplified(value) for key, value in node.items()}
    if is_dataclass(node) and not isinstance(node, type):
        for field in fields(node):
            value = getattr(node, field.name)
            if value is not None:
                setattr(node, field.name, _simplified(value))
        if isinstance(node, Schema):
            return _merge_single(node)
    return node


def single_alternatives(application: Litestar) -> None:
    """A `oneOf` of one schema is that schema (Litestar writes one for a field that may be left
    out, `int | UnsetType`; linters flag it as an illogical composition)."""
    _simplified(application.openapi_schema)


def public_operations(application: Litestar) -> None:
    """An operation that takes no credential says so (`security: []`): a linter, and a reader,
    cannot tell a forgotten `security` from an open door."""
    for path_item in (application.openapi_schema.paths or {}).values():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(path_item, method)
            if operation is not None and operation.security is None:
                operation.security = []


#: The finished specs this process made, pickled, by the registered rulesets they were made
#: with: the spec is the same whatever the settings (each `document_*` says so), so a later app
#: takes a copy (40 ms) instead of building it again (about 2 s of CPU: the test suite makes
#: hundreds of apps, and registers a ruleset of its own for some).
_FINISHED_SPECS: dict[tuple[tuple[str, int], ...], tuple[list[RulesetSpec], bytes]] = {}


def document(application: Litestar) -> None:
    """The app's spec, finished: Litestar's, then every correction and addition below (each
    changes only the spec); or a copy of the one this process finished for the same
    rulesets."""
    plugin = application.plugins.get(OpenAPIPlugin)
    specs = list(registry.SPECS.values())
    key = tuple((rid, id(spec)) for rid, spec in registry.SPECS.items())
    finished = _FINISHED_SPECS.get(key)
    if finished is not None and all(a is b for a, b in zip(finished[0], specs, strict=True)):
        plugin._openapi = pickle.loads(finished[1])
        return
    add_card_patterns(application)
    document_games(application)
    document_sheets(application)
    document_conditions(application)
    problem_400s(application)
    document_rate_limit(application)
    document_database_unavailable(application)
    document_problem_codes(application)
    document_languages(application)
    header_schemas(application)
    public_operations(application)
    document_field_problems(application)
    single_alternatives(application)
    exact_types(application)
    _FINISHED_SPECS[key] = (specs, pickle.dumps(application.openapi_schema))  # (specs: kept)


def create_app(settings: Settings | None = None, web_dist: Path = DIST) -> Litestar:
    """The app on `settings`, serving the web app built in `web_dist` (api/web/routes.py)."""
    settings = settings or Settings()
    docs_assets = create_static_files_router(
        path=DOCS_ASSETS,
        directories=[SWAGGER_UI_DIR],
        name="docs-assets",
        cache_control=CacheControlHeader(max_age=86400, public=True),
        include_in_schema=False,
    )
    application = App(
        route_handlers=[
            healthz,
            readyz,
            metrics_endpoint,
            openapi_document,
            docs_assets,
            *route_handlers(),
            *game_handlers,
            *sheet_handlers,
            *history_handlers,
            *account_handlers,
            *web_handlers(web_dist),
        ],
        lifespan=[_games_lifespan(settings), operations_lifespan(settings)],
        middleware=rate_limit_middleware(settings),
        exception_handlers={Exception: handle_problem},
        before_request=before_request,
        cors_config=_cors(settings),
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="numrules",
            version=API_VERSION,
            description=DESCRIPTION,
            path=DOCS,
            render_plugins=[_swagger_ui(), DocsSpec(path=DOCS_SPEC)],
            components=Components(
                security_schemes={
                    "sessionToken": SecurityScheme(
                        type="http",
                        scheme="bearer",
                        description="An account's session token, from `POST /v1/accounts` "
                        "or `POST /v1/sessions` (256 random bits, expiring).",
                    ),
                    "apiKey": SecurityScheme(
                        type="apiKey",
                        name="X-API-Key",
                        security_scheme_in="header",
                        description="An API key (`nrk_…`, from `POST /v1/me/api-keys`), for "
                        "metering only: the request is counted against the key's own quota "
                        "instead of its network's; it may be sent beside any other token "
                        "(or as `Authorization: Bearer <key>`), and never acts as a session "
                        "or a seat.",
                    ),
                    "sheetToken": SecurityScheme(
                        type="http",
                        scheme="bearer",
                        description="The secret token of a score sheet made without an account "
                        "(Num Wars editions), returned once by `POST /v1/scoresheets`.",
                    ),
                }
            ),
            tags=[
                Tag(name="Rules", description="Catalogue and stateless rules endpoints"),
                Tag(
                    name="Stored games",
                    description="Whole matches run by the server: it deals, hides every "
                    "hand, enforces turns, scores and keeps the log",
                ),
                Tag(
                    name="Accounts",
                    description="Sign-up, sessions, password changes and resets "
                    "(`Authorization: Bearer <session token>`)",
                ),
                Tag(
                    name="Score sheets",
                    description="Matches played with physical cards, scored by the engine; "
                    "an account's history and stats",
                ),
                Tag(name="Operations", description="Health"),
            ],
        ),
        debug=settings.debug,
    )
    allow_every_method(application)
    document(application)
    # Around Litestar's CORS middleware: HEAD, nosniff, Vary, problems for all.
    vary_origin = bool(settings.cors_origins) and settings.cors_origins != ["*"]
    application.asgi_handler = HttpHygiene(
        note_route(application.asgi_handler), vary_origin=vary_origin
    )
    # The stateless rules operations' common case, the same bytes without the pipeline.
    limiters = [m for m in application.middleware if isinstance(m, RateLimitMiddleware)]
    application.asgi_handler = FastRules(
        application.asgi_handler,
        fast_operations(),
        max_body=settings.max_body_bytes,
        vary_origin=vary_origin,
        limiter=limiters[0] if limiters else None,
        litestar_app=application,
    )
    observer = observe(application, settings)  # request id, access log, metrics (issue 13)
    # A game in play's two requests (its view, an action), the same bytes without the pipeline;
    # outermost, observing its own answers as Observe would (api.games.fast).
    if settings.fast_games:
        application.asgi_handler = FastGames(
            observer,
            observer=observer,
            max_body=settings.max_body_bytes,
            vary_origin=vary_origin,
            limiter=limiters[0] if limiters else None,
            litestar_app=application,
        )
    return application


def spec_dict(application: Litestar | None = None) -> dict[str, Any]:
    spec = (application or app).openapi_schema
    schema: dict[str, Any] = spec.to_schema()
    _restore_example_nulls(spec, schema)
    return schema


def _restore_example_nulls(spec: OpenAPI, schema: dict[str, Any]) -> None:
    """Litestar's rendering drops every None from the spec, examples' values included, so an
    example answer lost its `"winner": null` (a required field): put the values back whole."""
    for path, item in (spec.paths or {}).items():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(item, method)
            if operation is None:
                continue
            rendered = schema["paths"][path][method]
            places: list[tuple[Any, dict[str, Any]]] = []
            body = operation.request_body
            if isinstance(body, RequestBody):
                places.append((body, rendered.get("requestBody", {})))
            for status, response in (operation.responses or {}).items():
                if isinstance(response, OpenAPIResponse):
                    places.append((response, rendered["responses"][status]))
            for source, target in places:
                for media_type, media in (source.content or {}).items():
                    out = target.get("content", {}).get(media_type, {})
                    if media.example is not None and "example" in out:
                        out["example"] = media.example
                    for name, example in (media.examples or {}).items():
                        if isinstance(example, Example) and name in out.get("examples", {}):
                            out["examples"][name]["value"] = example.value


@cache
def _spec_bytes(application: Litestar | None = None) -> bytes:
    """The rendered spec of `application` (default: the module's app), once per app."""
    return msgspec.json.encode(spec_dict(application), order="sorted")


def openapi_json() -> str:
    """The spec as committed in `openapi/openapi.json`: sorted keys, two-space indent."""
    return msgspec.json.format(_spec_bytes(), indent=2).decode() + "\n"


app = create_app()
