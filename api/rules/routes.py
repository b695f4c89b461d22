"""Catalogue and stateless rules endpoints (api-contract.md, "Stateless rules endpoints").

Built in one loop over the registry (`engine.registry.SPECS`) when the app is built: each
ruleset's spec (engine/core/spec.py) declares its deck query and its operations (request and
answer structs, the engine call, texts, refusals, examples), and each gets its own literal
paths (`/v1/rulesets/numwars/score-round` …) so that every operation documents its exact
request schema; an unknown ruleset id falls through to the 404 handler, which answers
`unknown-ruleset`. Handlers only decode, call the engine, encode.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, post
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Body, Parameter, ParameterKwarg

from api.http.body import StrictBody
from api.http.languages import (
    LANGUAGE_HEADERS,
    language_headers,
    language_of,
    localized,
    negotiated_operation,
)
from api.http.problems import problem_spec
from api.http.responses import INTEGERS
from api.rules.fast import FastOperation
from api.rules.schemas import Catalogue, GameOptions, PlayerRange, RulesetInfo
from engine import summaries
from engine.bots import LEVELS
from engine.core.base import DeckInfo, ScoreLine
from engine.core.errors import EngineError
from engine.core.spec import MISSING, DeckOperation, Operation, Refusal, RulesetSpec
from engine.registry import RULESETS, SPECS, AnyRuleset, ruleset_class

TAG = "Rules"


_problem = problem_spec


#: `4.0` is an integer to JSON Schema, but the API never coerces: every operation says so.

Refusals = Sequence[Refusal]


def _refused(refusals: Refusals) -> ResponseSpec:
    """An operation's 422: its schema's refusals (`api.problem_codes`) and the limits across
    fields its description lists, each with its code (the ruleset's spec declares them)."""
    return _problem(
        "The request breaks the contract: a field or parameter its schema refuses, or a limit "
        "across fields the description lists",
        *dict.fromkeys(code for _, code in refusals),
    )


def _describe(ruleset_id: str, answer: str, section: str, text: str, refused: Refusals) -> str:
    """An operation's description: what it does, the rules it applies (read from the engine's
    summary and notes, never restated here), and the refusals its schema cannot state.

    "Also refused" lists the limits across fields that JSON Schema cannot express, each with
    its problem `code` in parentheses (tests/api/test_schemathesis.py holds every refusal of a
    schema-valid request to this list).
    """
    rules = summaries.summary(ruleset_id, "en").sections[section]
    parts = [text, f"Rules ({section}): {rules}"]
    note = summaries.notes(ruleset_id).get(answer.replace("-", "_"))
    if note:
        parts.append(f"Rulings: {note}")
    limits = [f"{what} (`{code}`)" for what, code in refused] + [INTEGERS]
    parts.append(
        "Also refused (422, limits across fields that JSON Schema cannot state): "
        + "; ".join(limits)
        + "."
    )
    return "\n\n".join(parts)


def _options_dict(options: msgspec.Struct) -> dict[str, object]:
    return msgspec.to_builtins(options)  # type: ignore[no-any-return]


def _name(cls: type[AnyRuleset], language: str) -> str:
    """The ruleset's name in `language` (its spec's `names`)."""
    spec = SPECS.get(cls.id)
    return spec.names.get(language, cls.name) if spec is not None else cls.name


def _ruleset_info(
    cls: type[AnyRuleset], language: str = "en", *, summary: bool = False
) -> RulesetInfo:
    spec = SPECS[cls.id]
    info = RulesetInfo(
        id=cls.id,
        name=_name(cls, language),
        players=PlayerRange(cls.min_players, cls.max_players),
        options=_options_dict(cls.Options()),
        rules_version=cls.rules_version,
        community=spec.community,
        lowest_wins=spec.lowest_wins,
        bots=list(LEVELS) if spec.bots is not MISSING else [],
        game_options={**_options_dict(cls.Options()), **_options_dict(GameOptions())},
    )
    if not summary:
        return info
    found = summaries.summary(cls.id, language)
    return msgspec.structs.replace(
        info, description=found.description, summary=found.sections, language=found.language
    )


@get(
    "/v1/rulesets",
    operation_id="ListRulesets",
    summary="List the rulesets",
    description=(
        "Every ruleset the service knows, with its player range and default options, whether "
        "it is a community game (`community`: its games and sheets need an account's session) "
        "and whether the lowest total wins (`lowest_wins`), its bot levels (`bots`) and the "
        "options a stored game takes with their defaults (`game_options`: `options` plus the "
        "service's own, `hints`, true by default; `hints: false` turns `POST "
        "/v1/games/{id}/hint` off); `name` in English or French "
        "according to `Accept-Language` (default English), named in `Content-Language`."
    ),
    tags=[TAG],
    response_headers=LANGUAGE_HEADERS,
    sync_to_thread=False,
)
def list_rulesets(request: Request[Any, Any, Any]) -> Response[Catalogue]:
    language = language_of(request)
    catalogue = Catalogue([_ruleset_info(cls, language) for cls in RULESETS.values()])
    return Response(catalogue, headers=language_headers(language))


def _get_ruleset_route() -> HTTPRouteHandler:
    """`GET /v1/rulesets/{ruleset}`, built with the app: its enum lists the rulesets
    registered by then."""

    def get_ruleset(ruleset: str, request: Request[Any, Any, Any]) -> Response[RulesetInfo]:
        language = language_of(request)
        info = _ruleset_info(ruleset_class(ruleset), language, summary=True)
        return Response(info, headers=language_headers(language))  # + Vary: api.http.hygiene

    get_ruleset.__annotations__ = {
        "ruleset": Annotated[
            str,
            Parameter(
                description="ruleset id",
                examples=[Example(value=next(iter(RULESETS)))],
                schema_extra={"enum": list(RULESETS)},
            ),
        ],
        "request": Request[Any, Any, Any],
        "return": Response[RulesetInfo],
    }
    return get(
        "/v1/rulesets/{ruleset:str}",
        operation_id="GetRuleset",
        summary="Describe a ruleset",
        description=(
            "The ruleset's catalogue entry plus a description and the rules summary (the app's "
            '"Règles de Calcul" card: set-up, turn, hierarchy, scoring), in English or French '
            "according to `Accept-Language` (default English); `name` too. The answer names its "
            "language in `Content-Language` and varies by `Accept-Language`."
        ),
        tags=[TAG],
        response_headers=LANGUAGE_HEADERS,
        responses={404: _problem("Unknown ruleset", "unknown-ruleset")},
        sync_to_thread=False,
    )(get_ruleset)


# --- deck (GET, options as query parameters) --------------------------------------------------


def _query_parameter(info: Any) -> tuple[Any, ParameterKwarg]:
    """A deck query field as a query parameter: its type, and its `msgspec.Meta` bounds and
    description; an optional one is absent, never null, in the spec."""
    annotation = info.type
    optional = isinstance(annotation, msgspec.inspect.UnionType)
    if optional:
        (annotation,) = [t for t in annotation.types if not isinstance(t, msgspec.inspect.NoneType)]
    description = None
    if isinstance(annotation, msgspec.inspect.Metadata):
        description = (annotation.extra_json_schema or {}).get("description")
        annotation = annotation.type
    kind = _PYTHON_TYPES[type(annotation)]
    bounds = {b: getattr(annotation, b) for b in ("ge", "le") if getattr(annotation, b, None)}
    extra = {"type": _OPENAPI_TYPES[kind], "oneOf": None} if optional else None
    parameter = Parameter(**bounds, description=description, schema_extra=extra)
    return (kind | None if optional else kind), parameter


_PYTHON_TYPES: dict[type[Any], type[Any]] = {
    msgspec.inspect.IntType: int,
    msgspec.inspect.BoolType: bool,
    msgspec.inspect.StrType: str,
}
_OPENAPI_TYPES = {int: OpenAPIType.INTEGER, bool: OpenAPIType.BOOLEAN, str: OpenAPIType.STRING}


def _deck_route(spec: RulesetSpec, deck: DeckOperation) -> HTTPRouteHandler:
    """The deck operation: each field of the spec's query struct is a query parameter."""
    fields = msgspec.inspect.type_info(deck.query).fields  # type: ignore[attr-defined]
    parameters: list[inspect.Parameter] = []
    annotations: dict[str, Any] = {}
    for info in fields:
        kind, parameter = _query_parameter(info)
        annotations[info.name] = Annotated[kind, parameter]
        parameters.append(
            inspect.Parameter(
                info.name,
                inspect.Parameter.KEYWORD_ONLY,
                **({} if info.required else {"default": info.default}),
            )
        )

    def handler(**query: Any) -> DeckInfo:
        return deck.call(deck.query(**query))

    handler.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    handler.__annotations__ = {**annotations, "return": DeckInfo}
    handler.__name__ = f"{spec.id}_deck".replace("-", "_")
    return get(
        f"/v1/rulesets/{spec.id}/deck",
        operation_id=f"{_camel(spec.id)}Deck",
        summary=f"{spec.name}: the deck for a player count",
        description=_describe(spec.id, "deck", "setup", deck.description, deck.refusals),
        tags=[TAG],
        responses={422: _refused(deck.refusals)},
        sync_to_thread=False,
    )(handler)


# --- POST endpoints ------------------------------------------------------------------------


def _camel(ruleset_id: str) -> str:
    return "".join(part.capitalize() for part in ruleset_id.split("-"))


def _examples(
    op: Operation,
) -> tuple[list[Example], list[Example]]:
    """Request examples from the rule books and the engine's answers to them."""
    requests: list[Example] = []
    responses: list[Example] = []
    for name, source, payload in op.examples:
        requests.append(Example(summary=name, description=f"Seed {source}", value=payload))
        try:
            answer = op.call(msgspec.convert(payload, op.request, strict=True))
        except (NotImplementedError, EngineError):
            continue
        responses.append(Example(summary=name, value=msgspec.to_builtins(answer)))
    return requests, responses


def _has_words(answer: type[msgspec.Struct]) -> bool:
    """Whether an answer of type `answer` says something in words: breakdown lines."""
    seen: set[type[Any]] = set()
    todo: list[Any] = [msgspec.inspect.type_info(answer)]
    while todo:
        t = todo.pop()
        if isinstance(t, msgspec.inspect.StructType):
            if t.cls is ScoreLine:
                return True
            if t.cls not in seen:
                seen.add(t.cls)
                todo.extend(f.type for f in t.fields)
        elif isinstance(t, msgspec.inspect.ListType):
            todo.append(t.item_type)
        elif isinstance(t, msgspec.inspect.Metadata):
            todo.append(t.type)
        elif isinstance(t, msgspec.inspect.UnionType):
            todo.extend(t.types)
    return False


def _post_route(spec: RulesetSpec, op: Operation) -> HTTPRouteHandler:
    request_examples, response_examples = _examples(op)
    call = op.call
    call_in = op.call_in
    negotiated = call_in is not None or _has_words(op.answer)

    def handler(data: Any) -> Any:  # sync: the engine never waits (run in the event loop)
        return call(data)

    def worded(data: Any, request: Request[Any, Any, Any]) -> Any:
        """An answer in words: in the request's language, named in `Content-Language`."""
        language = language_of(request)
        answer = call(data) if call_in is None else call_in(data, language)
        return Response(localized(answer, language), headers=language_headers(language))

    if negotiated:
        handler = worded  # type: ignore[assignment]
    handler.__annotations__ = {
        "data": Annotated[op.request, Body(examples=request_examples or None)],
        **({"request": Request[Any, Any, Any]} if negotiated else {}),
        "return": op.answer,
    }
    handler.__name__ = f"{spec.id}_{op.path}".replace("-", "_")
    responses: dict[int, ResponseSpec] = {
        200: ResponseSpec(
            data_container=op.answer,
            description="OK",
            examples=response_examples or None,
            generate_examples=False,
        ),
        422: _refused(op.refusals),
    }
    operation_id = f"{_camel(spec.id)}{_camel(op.path)}"
    if negotiated:
        negotiated_operation(operation_id)
    return post(
        f"/v1/rulesets/{spec.id}/{op.path}",
        operation_id=operation_id,
        summary=f"{spec.name}: {op.summary}",
        description=_describe(spec.id, op.path, op.section, op.description, op.refusals),
        status_code=200,
        dto=StrictBody[op.request],  # type: ignore[name-defined]
        return_dto=None,
        sync_to_thread=False,
        responses=responses,
        response_headers=LANGUAGE_HEADERS if negotiated else None,
        tags=[TAG],
    )(handler)


def fast_operations() -> dict[str, FastOperation]:
    """Every registered ruleset's POST operations by path, for the fast path (api.rules.fast):
    the same request struct, engine call and wording as the route :func:`_post_route` builds."""
    return {
        f"/v1/rulesets/{spec.id}/{op.path}": FastOperation(
            op.request, op.call, op.call_in, op.call_in is not None or _has_words(op.answer)
        )
        for spec in SPECS.values()
        for op in spec.operations
    }


def route_handlers() -> list[HTTPRouteHandler]:
    """The catalogue and every registered ruleset's operations, in one loop over the registry
    (built with the app, so a ruleset registered before `create_app()` is served)."""
    handlers: list[HTTPRouteHandler] = [list_rulesets, _get_ruleset_route()]
    for spec in SPECS.values():
        handlers.append(_deck_route(spec, spec.deck))
        handlers.extend(_post_route(spec, op) for op in spec.operations)
    return handlers
