"""The ASGI application: `api.app:app`, built by `create_app(settings)`."""

from __future__ import annotations

from litestar import Litestar, get


@get("/healthz", summary="Process is up", include_in_schema=True, operation_id="Healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


def create_app() -> Litestar:
    return Litestar(route_handlers=[healthz])


def openapi_json() -> str:
    import msgspec

    return msgspec.json.format(msgspec.json.encode(app.openapi_schema.to_schema()), indent=2).decode() + "\n"


app = create_app()
