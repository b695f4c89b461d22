"""The live check of the problem codes (issue 23, "enums for every closed set"): every problem
answer a test receives through an HTTP client (Litestar's `TestClient` and
`AsyncTestClient`, any `httpx` client, which they are) is held to the served spec: its
status is documented for the operation it hit, and its `code` (and an illegal move's
`reason`) is in that answer's enum.

One hook, installed by tests/conftest.py for the whole run: `httpx.Client.send` and
`httpx.AsyncClient.send` are wrapped, each problem answer is checked, and what breaks the
spec is kept; the test that received it fails after its body ran, naming the operation, the
status and the code. The spec is the served one: a Litestar test client's app's own
(`api.app.spec_dict(app)`), else (a server on a socket) the module app's, which is the same
for every deployment. A request no operation of the spec answers (a path or a method the
spec does not have, `OPTIONS`) is not checked: there is no operation to hold it to; nor is an
app whose spec states no enum at all (a bare Litestar app a test builds to exercise a
handler: it documents no problem). A HEAD answer, and a streamed one, are held by their status
only (no body is read).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any

PROBLEM = "application/problem+json"
_PARAMETER = re.compile(r"\{[^/{}]+\}")


@dataclass(frozen=True)
class Violation:
    method: str
    path: str
    operation: str
    status: int
    code: str | None
    what: str

    def __str__(self) -> str:
        return (
            f"{self.operation} ({self.method} {self.path}) answered {self.status} "
            f"`{self.code}`: {self.what}"
        )


@dataclass(frozen=True)
class Allowed:
    """What one documented problem answer may carry (None: not stated)."""

    codes: frozenset[str] | None
    reasons: frozenset[str] | None


class SpecIndex:
    """A spec's operations by method and concrete path, and their problem answers' enums."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        entries = []
        for path, item in spec.get("paths", {}).items():
            segments = [
                "[^/]+" if _PARAMETER.fullmatch(part) else re.escape(part)
                for part in path.split("/")
            ]
            pattern = re.compile("/".join(segments))
            entries.append((path.count("{"), path, pattern, item))
        entries.sort(key=lambda entry: entry[0])  # a literal path before a template
        self.entries = [(path, pattern, item) for _, path, pattern, item in entries]
        #: whether the spec states problem enums (an app built by `api.app.create_app`, or
        #: one `api.problem_codes` documented): a bare app a test builds to exercise a
        #: handler documents no problem, and is not held to anything
        self.stated = any(
            allowed is not None and allowed.codes is not None
            for item in spec.get("paths", {}).values()
            for operation in item.values()
            if isinstance(operation, dict)
            for status in operation.get("responses", {})
            if status.isdigit() and int(status) >= 400
            for allowed in [self.allowed(operation, int(status))]
        )

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        """The operation answering `method` on `path` (HEAD is GET's), with its spec path."""
        method = "get" if method.upper() == "HEAD" else method.lower()
        if path != "/" and path.endswith("/"):
            path = path.rstrip("/")
        for template, pattern, item in self.entries:
            if pattern.fullmatch(path):
                found = item.get(method)
                return (template, found) if isinstance(found, dict) else None
        return None

    def _resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            parts = node["$ref"].removeprefix("#/").split("/")
            target: Any = self.spec
            for part in parts:
                target = target[part]
            node = target
        return node

    def allowed(self, operation: dict[str, Any], status: int) -> Allowed | None:
        """The enums of the operation's problem answer of `status` (None: not documented)."""
        response = operation.get("responses", {}).get(str(status))
        if response is None:
            return None
        response = self._resolve(response)
        schema = response.get("content", {}).get(PROBLEM, {}).get("schema")
        if schema is None:
            return None
        codes: set[str] | None = None
        reasons: set[str] | None = None
        for part in [schema, *schema.get("allOf", [])]:
            properties = self._resolve(part).get("properties", {})
            if "enum" in properties.get("code", {}):
                codes = set(properties["code"]["enum"])
            if "enum" in properties.get("reason", {}):
                reasons = set(properties["reason"]["enum"])
        return Allowed(
            None if codes is None else frozenset(codes),
            None if reasons is None else frozenset(reasons),
        )

    def check(
        self, method: str, path: str, status: int, problem: dict[str, Any] | None
    ) -> Violation | None:
        """What is wrong with a problem answer of `status` to `method path` (None: nothing,
        or no operation of the spec answers that request)."""
        if not self.stated:  # an app no enum was made for (a test's own bare Litestar app)
            return None
        found = self.operation(method, path)
        if found is None:
            return None
        template, operation = found
        name = operation.get("operationId", f"{method} {template}")
        code = problem.get("code") if isinstance(problem, dict) else None

        def broken(what: str) -> Violation:
            return Violation(method.upper(), path, name, status, code, what)

        allowed = self.allowed(operation, status)
        if allowed is None:
            documented = sorted(operation.get("responses", {}))
            return broken(f"the status is not documented (documented: {', '.join(documented)})")
        if problem is None:  # a streamed answer, not read here: its status only
            return None
        if allowed.codes is None:
            return broken("the answer states no enum of codes")
        if code not in allowed.codes:
            return broken(f"not in the answer's enum {sorted(allowed.codes)}")
        reason = problem.get("reason")
        if reason is not None and allowed.reasons is not None and reason not in allowed.reasons:
            return broken(f"reason `{reason}` is not in {sorted(allowed.reasons)}")
        return None


# --- the hook ------------------------------------------------------------------------------

_lock = threading.Lock()
_found: list[Violation] = []
#: The specs seen, by their title and paths: every app `create_app` builds in this process with
#: the same rulesets registered serves the same spec (it is the same whatever the settings),
#: and rendering one costs 0.4 s.
_specs: dict[tuple[str, tuple[str, ...]], SpecIndex] = {}


def _index_of(client: Any) -> SpecIndex:
    from litestar import Litestar

    from api.app import app as module_app, spec_dict

    app = getattr(client, "app", None)
    if not isinstance(app, Litestar):  # a server on a socket: the module app's spec
        app = module_app
    schema = app.openapi_schema
    key = (schema.info.title, tuple(sorted(schema.paths or {})))
    with _lock:
        index = _specs.get(key)
    if index is None:
        index = SpecIndex(spec_dict(app))
        with _lock:
            _specs[key] = index
    return index


def _is_problem(response: Any) -> bool:
    content_type = response.headers.get("content-type", "")
    return response.status_code >= 400 and content_type.split(";")[0].strip() == PROBLEM


def inspect(client: Any, response: Any) -> None:
    """Check `response` (an httpx response) if it is a problem; keep what breaks the spec."""
    if not _is_problem(response):
        return
    request = response.request
    problem: dict[str, Any] | None = None
    # a HEAD answer has no body, a streamed one is left to its reader: their status only
    if request.method != "HEAD" and hasattr(response, "_content"):
        try:
            problem = json.loads(response.content)
        except ValueError:  # a body that is no JSON: its code is None
            problem = {}
    found = _index_of(client).check(request.method, request.url.path, response.status_code, problem)
    if found is not None:
        with _lock:
            _found.append(found)


def take() -> list[Violation]:
    """The violations found since the last call."""
    with _lock:
        found = list(_found)
        _found.clear()
    return found


def install() -> None:
    """Wrap `httpx.Client.send` and `httpx.AsyncClient.send` (once)."""
    import httpx

    if getattr(httpx.Client.send, "_problem_check", False):
        return
    sync_send = httpx.Client.send
    async_send = httpx.AsyncClient.send

    def send(self: httpx.Client, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        response = sync_send(self, request, **kwargs)
        inspect(self, response)
        return response

    async def asend(
        self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any
    ) -> httpx.Response:
        response = await async_send(self, request, **kwargs)
        inspect(self, response)
        return response

    send._problem_check = True  # type: ignore[attr-defined]
    httpx.Client.send = send  # type: ignore[method-assign]
    httpx.AsyncClient.send = asend  # type: ignore[method-assign]


def report(found: list[Violation]) -> str:
    lines = sorted({str(v) for v in found})
    return (
        f"{len(lines)} problem answer(s) the served spec does not document "
        "(declare the code: problem_spec(description, *codes), or a layer of "
        "api/problem_codes.py):\n  " + "\n  ".join(lines)
    )
