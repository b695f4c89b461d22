"""The baseline of bench/http.py: a bare Litestar + msgspec app that echoes its JSON body."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, post


@post("/echo", status_code=200, sync_to_thread=False)
def echo(data: dict[str, Any]) -> dict[str, Any]:
    return data


app = Litestar(route_handlers=[echo], openapi_config=None)
