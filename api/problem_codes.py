"""Enums for every closed set of a problem (issue 23): each documented problem answer of each
operation states, in the spec, exactly the `code`s that operation answers with that status
(and, for a stored game's illegal move, its `reason`s), so that generated clients
(openapi-typescript) get a union of string literals per answer.

Two sources, each declared once:

* the route's own refusals: `api.http.problems.problem_spec(description, *codes)` on its
  `responses=` (the description lists the codes it is given);
* the refusals of the layers around every route, by status, added here where an operation
  can meet them (:data:`LAYERS`): the server's (`bad-request`, `request-timeout`,
  `headers-too-large`), the HTTP hygiene's (`bad-host`), a body's (`malformed-json`,
  `body-too-large`, `unsupported-media-type`, the 422 of a field or a parameter that breaks
  its schema, and of a card code that is no card or of another deck: the decoder leaves the
  spec's card patterns to the engine; an operation that takes no body meets them too, since
  it refuses any body but `{}`: api.http.body.unwanted_body), the rate limit's (`rate-limited`), the database's
  (`database-unavailable`), the server's past its concurrency limit (`unavailable`,
  api.ops.server) and the unexpected (`internal-error`). A layer's code that a
  response's description does not name yet is said in it, so words and enum never disagree.

Each answer's schema is `allOf: [Problem, {code: enum}]` (openapi-typescript renders the
intersection: `code` is the union of the literals); the answers made of layer codes only,
the same for every operation, are shared under `components/responses`. The `Problem`
component says that new codes may be added: a client keeps a default branch.

Not stated: 405 `method-not-allowed` (an answer of a path to a method it has no operation
for, so of no operation), and the codes the fallbacks of `api.http.problems.STATUS_CODES`
would give a status no layer answers (`too-many-requests`): nothing answers it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from litestar import Litestar
from litestar.openapi.spec import (
    OpenAPIHeader,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Reference,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIType
from litestar.routes import HTTPRoute

from api.http.problems import MEDIA_TYPE, ProblemSpec, named_codes
from api.ops.operations import database_operations
from api.ops.ratelimit import exempt
from api.ops.server import BUSY_RETRY_AFTER
from engine.core.cards import CARD_PATTERN

_REF = "#/components/schemas/"
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Facts:
    """What an operation takes, which decides the layers' refusals it can meet."""

    path: str
    body: bool  # it reads a JSON body
    unread: bool  # a POST, PUT, PATCH or DELETE that takes none: a body sent must be `{}`
    body_requires: bool  # its body (or a part of it) has required fields
    body_closed: bool  # its body (or a part of it) refuses unknown fields
    cards: bool  # its body holds a card code
    parameters: bool  # a query or header parameter, or a path one with bounds or a type
    required_parameters: bool  # a required query or header parameter
    database: bool  # it uses the database


@dataclass(frozen=True)
class Layer:
    """A refusal of the layers around the routes: its status, its code, what it means (said
    in a description that does not name the code yet) and which operations meet it."""

    status: int
    code: str
    words: str
    meets: Callable[[Facts], bool]


def _every(facts: Facts) -> bool:
    return True


def _any_body(facts: Facts) -> bool:
    """A body read, or refused unless it is `{}` (api.http.body.unwanted_body)."""
    return facts.body or facts.unread


def _schema_refusal(facts: Facts) -> bool:
    return facts.body or facts.unread or facts.parameters


def _missing(facts: Facts) -> bool:
    return facts.body_requires or facts.required_parameters


def _unknown(facts: Facts) -> bool:
    return facts.body_closed or facts.unread


def _cards(facts: Facts) -> bool:
    return facts.cards


def _counted(facts: Facts) -> bool:
    return not exempt(facts.path)


def _database(facts: Facts) -> bool:
    return facts.database


#: The layers' refusals, by status (api.ops.server, api.http.hygiene, api.http.body,
#: api.http.fields, api.ops.ratelimit, api.http.problems.handle_exception).
LAYERS = (
    Layer(
        400,
        "bad-request",
        "the server cannot read the request as HTTP (or it is of a version other than 1.0 "
        "and 1.1, or its `Transfer-Encoding` is not `chunked`), or a header that takes one "
        "value (`Authorization`, `X-API-Key`, `Idempotency-Key`, `If-Match`) came in two lines",
        _every,
    ),
    Layer(
        400,
        "bad-host",
        "the request has no `Host` header or two, or one that holds what no host name holds, or no valid port",
        _every,
    ),
    Layer(400, "malformed-json", "the body is empty or not JSON", _any_body),
    Layer(408, "request-timeout", "the request did not arrive whole in time", _every),
    Layer(413, "body-too-large", "the body is larger than 64 KiB", _any_body),
    Layer(
        415,
        "unsupported-media-type",
        "the body is not declared as JSON (send `Content-Type: application/json`), or it "
        "comes with a `Content-Encoding` (send it as it is)",
        _any_body,
    ),
    Layer(
        422,
        "validation-error",
        "a field or a parameter breaks its schema, each one named in `errors[]`",
        _schema_refusal,
    ),
    Layer(422, "missing-field", "a required field or parameter is missing", _missing),
    Layer(422, "unknown-field", "the body holds a field the operation does not take", _unknown),
    Layer(422, "unknown-card", "a card code that is no card", _cards),
    Layer(422, "card-not-in-deck", "a card of no deck this request may hold", _cards),
    Layer(
        429,
        "rate-limited",
        "too many requests in this request's bucket: retry after `Retry-After` seconds",
        _counted,
    ),
    Layer(
        431,
        "headers-too-large",
        "the request line and headers are larger than the server takes",
        _every,
    ),
    Layer(500, "internal-error", "an unexpected error (logged, never a bad input)", _every),
    Layer(
        503,
        "database-unavailable",
        "the database cannot serve now: retry after `Retry-After` seconds",
        _database,
    ),
    Layer(
        503,
        "unavailable",
        "the server holds as many connections and requests as it takes "
        "(`NUMRULES_MAX_CONCURRENCY`): retry after `Retry-After` seconds",
        _every,
    ),
)
#: The answers made of the layers' codes only that every operation has alike: shared under
#: `components/responses` (status → name).
SHARED = {
    400: "BadRequest",
    408: "RequestTimeout",
    431: "HeadersTooLarge",
    500: "InternalError",
    503: "Unavailable",
}

PROBLEM_DESCRIPTION = (
    "An RFC 9457 problem. `code` is stable and kebab-case; each operation's answers list, per "
    "status, the codes it answers with (an enum). New codes may be added, as any enum value "
    "of this API: a client keeps a default branch."
)
CODE_DESCRIPTION = (
    "what went wrong, stable: one of the codes the answer's status lists for the operation "
    "(new ones may be added: keep a default branch)"
)
REASON_DESCRIPTION = (
    "an illegal move in a stored game: the first broken obligation (new ones may be added)"
)


def _declared(application: Litestar) -> dict[tuple[str, str], ProblemSpec]:
    """The routes' own problem answers: (operation id, status) → its declaration."""
    found: dict[tuple[str, str], ProblemSpec] = {}
    for route in application.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            if not isinstance(handler.operation_id, str):
                continue
            for status, spec in (handler.responses or {}).items():
                if isinstance(spec, ProblemSpec):
                    found[(handler.operation_id, str(status))] = spec
    return found


def _reach(node: Any, components: dict[str, Any], seen: set[str]) -> Iterator[dict[str, Any]]:
    """Every schema object of `node` (a rendered schema), references followed once."""
    if isinstance(node, list):
        for item in node:
            yield from _reach(item, components, seen)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF):
            name = ref.removeprefix(_REF)
            if name not in seen:
                seen.add(name)
                yield from _reach(components[name], components, seen)
        yield node
        for value in node.values():
            if isinstance(value, dict | list):
                yield from _reach(value, components, seen)


def _facts(
    path: str, method: str, operation: dict[str, Any], components: dict[str, Any], db: bool
) -> Facts:
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    schemas = list(_reach(body.get("schema"), components, set())) if body else []
    parameters = operation.get("parameters", [])

    def checked(parameter: dict[str, Any]) -> bool:
        if parameter.get("in") in ("query", "header"):
            return True
        schema = parameter.get("schema", {})
        plain = {key: value for key, value in schema.items() if key not in ("description",)}
        return plain != {"type": "string"} and "enum" not in schema

    return Facts(
        path=path,
        body=body is not None,
        unread=body is None and method in ("post", "put", "patch", "delete"),
        body_requires=any(s.get("required") for s in schemas),
        body_closed=any(s.get("additionalProperties") is False for s in schemas),
        cards=any(s.get("pattern") == CARD_PATTERN for s in schemas),
        parameters=any(checked(p) for p in parameters),
        required_parameters=any(
            p.get("required") and p.get("in") in ("query", "header") for p in parameters
        ),
        database=db,
    )


def _schema(codes: list[str], reasons: tuple[str, ...]) -> Schema:
    properties: dict[str, Schema | Reference] = {
        "code": Schema(type=OpenAPIType.STRING, enum=sorted(codes))
    }
    if reasons:
        properties["reason"] = Schema(type=OpenAPIType.STRING, enum=list(reasons))
    return Schema(
        all_of=[
            Reference(ref=_REF + "Problem"),
            Schema(type=OpenAPIType.OBJECT, required=["code"], properties=properties),
        ]
    )


def says(description: str, code: str) -> bool:
    """Whether `description` names `code` (in backticks)."""
    return f"`{code}`" in description


def agree(description: str, codes: list[str]) -> bool:
    """Whether `description` names each of `codes`, and no other kebab-case code."""
    return all(says(description, code) for code in codes) and set(named_codes(description)) <= set(
        codes
    )


def _said(layers: list[Layer]) -> str:
    """The layers' refusals in words: "what it means (`code`); … ."."""
    return "; ".join(f"{layer.words} (`{layer.code}`)" for layer in layers) + "."


def _capitalized(words: str) -> str:
    return words[:1].upper() + words[1:]


def _operations(application: Litestar) -> Iterator[tuple[str, str, Operation]]:
    for path, item in (application.openapi_schema.paths or {}).items():
        for method in _METHODS:
            operation = getattr(item, method, None)
            if isinstance(operation, Operation):
                yield path, method, operation


def document_problem_codes(application: Litestar) -> None:
    """Every problem answer of every operation with the enum of its codes (module docstring);
    an answer left with no code at all is a route that forgot to declare them: refused."""
    spec = application.openapi_schema
    rendered = spec.to_schema()
    schemas = rendered.get("components", {}).get("schemas", {})
    declared = _declared(application)
    database = database_operations(application)
    components = spec.components
    shared: dict[str, OpenAPIResponse | Reference] = dict(components.responses or {})
    for path, method, operation in _operations(application):
        operation_id = operation.operation_id or f"{method} {path}"
        facts = _facts(
            path, method, rendered["paths"][path][method], schemas, operation_id in database
        )
        responses = operation.responses = dict(operation.responses or {})
        met: dict[str, list[Layer]] = {}
        for layer in LAYERS:
            if layer.meets(facts):
                met.setdefault(str(layer.status), []).append(layer)
        for status in sorted(set(met) | set(responses)):
            layers = met.get(status, [])
            own = declared.get((operation_id, status))
            response = responses.get(status)
            media = None
            if isinstance(response, OpenAPIResponse):
                media = (response.content or {}).get(MEDIA_TYPE)
                if media is None:
                    continue  # not a problem answer (a success, a 204)
            elif response is not None:
                continue  # a shared answer already
            if response is None or (own is None and not named_codes(response.description)):
                # no answer yet, or a generic one (Litestar's 400, made a problem): the layers'
                name = SHARED.get(int(status))
                if name is not None and layers and all(layer.meets is _every for layer in layers):
                    if name not in shared:
                        shared[name] = _response(layers)
                    responses[status] = Reference(ref=f"#/components/responses/{name}")
                elif layers:
                    made = _response(layers)
                    if isinstance(response, OpenAPIResponse):  # its headers kept
                        response.description, response.content = made.description, made.content
                    else:
                        responses[status] = made
                else:
                    raise ValueError(f"{operation_id}: its {status} answer declares no code")
                continue
            assert media is not None
            codes = own.codes if own is not None else ()
            unsaid = [
                layer
                for layer in layers
                if layer.code not in codes and not says(response.description, layer.code)
            ]
            if unsaid:
                said = response.description.rstrip().rstrip(".")
                response.description = f"{said}. Also: {_said(unsaid)}"
            everything = list(dict.fromkeys([*codes, *(layer.code for layer in layers)]))
            if not everything:
                raise ValueError(f"{operation_id}: its {status} answer declares no code")
            if not agree(response.description, everything):
                raise ValueError(
                    f"{operation_id} {status}: the words and the codes {sorted(everything)} "
                    f"disagree: {response.description!r} (problem_spec(description, *codes))"
                )
            media.schema = _schema(everything, own.reasons if own is not None else ())
    components.responses = shared
    problem = (components.schemas or {}).get("Problem")
    if isinstance(problem, Schema):
        problem.description = PROBLEM_DESCRIPTION
        for name, words in (("code", CODE_DESCRIPTION), ("reason", REASON_DESCRIPTION)):
            found = (problem.properties or {}).get(name)
            if isinstance(found, Schema):
                found.description = words


#: A busy server's `Retry-After`.
BUSY_HEADER = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.INTEGER, minimum=1),
    description=f"seconds before trying again ({BUSY_RETRY_AFTER})",
)


def _response(layers: list[Layer]) -> OpenAPIResponse:
    """An answer made of the layers' refusals only (a 503 with its `Retry-After`)."""
    busy = any(layer.code == "unavailable" for layer in layers)
    return OpenAPIResponse(
        description=_capitalized(_said(layers)),
        headers={"Retry-After": BUSY_HEADER} if busy else None,
        content={
            MEDIA_TYPE: OpenAPIMediaType(schema=_schema([layer.code for layer in layers], ()))
        },
    )
