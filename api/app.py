"""The ASGI application: `api.app:app`, built by `create_app(settings)`."""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec
from litestar import Litestar, MediaType, Response, get
from litestar.config.cors import CORSConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, ScalarRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import Tag

from api.problems import handle_exception
from api.rules import route_handlers
from api.schemas import Health
from api.settings import Settings

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


@get("/openapi.json", include_in_schema=False, sync_to_thread=False, media_type=MediaType.JSON)
def openapi_document() -> Response[bytes]:
    return Response(_spec_bytes(), media_type=MediaType.JSON)


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings()
    cors = CORSConfig(allow_origins=settings.cors_origins) if settings.cors_origins else None
    return Litestar(
        route_handlers=[healthz, openapi_document, *route_handlers()],
        exception_handlers={Exception: handle_exception},
        cors_config=cors,
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="numrules",
            version=API_VERSION,
            description=DESCRIPTION,
            path="/docs",
            render_plugins=[
                SwaggerRenderPlugin(path="/"),
                ScalarRenderPlugin(path="/scalar"),
                JsonRenderPlugin(path="/openapi.json"),
            ],
            tags=[
                Tag(name="Rules", description="Catalogue and stateless rules endpoints"),
                Tag(name="Operations", description="Health and metrics"),
            ],
        ),
        debug=settings.debug,
    )


def spec_dict(application: Litestar | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = (application or app).openapi_schema.to_schema()
    return schema


@cache
def _spec_bytes() -> bytes:
    return msgspec.json.encode(spec_dict(), order="sorted")


def openapi_json() -> str:
    """The spec as committed in `openapi/openapi.json`: sorted keys, two-space indent."""
    return msgspec.json.format(_spec_bytes(), indent=2).decode() + "\n"


app = create_app()
