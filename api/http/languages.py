"""Answers in the caller's language (issue 23, "French and English from the same codes").

Whatever the API says in words is chosen by the request's `Accept-Language` (English by
default, :func:`engine.core.texts.pick_language`): problems (api.http.problems), ruleset names
and summaries, the terms, a move's message, and the labels of score breakdowns. Such an answer
names its language in `Content-Language`; api.http.hygiene then adds `Accept-Language` to its
`Vary`, so a cache keeps one answer per language.

A breakdown line carries its `kind` and `params` (engine.core.base.ScoreLine); its label is
the English rendering the engine made, rendered again here from the kind's text for another
language, wherever the line comes from: a fresh score, a stored sheet round, a stored game's
result or a replayed answer. A line stored before kinds existed has none: its label is served
as it was stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from litestar import Litestar
from litestar.datastructures import ResponseHeader
from litestar.openapi.spec import (
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Reference,
    Schema,
)

from api.http.problems import MEDIA_TYPE, language_of
from engine.core.texts import DEFAULT_LANGUAGE, KINDS, LANGUAGES

__all__ = [
    "LANGUAGE_HEADERS",
    "document_languages",
    "language_headers",
    "language_of",
    "localized",
    "localized_json",
]

#: The response headers every answer chosen by `Accept-Language` documents.
LANGUAGE_HEADERS: Sequence[ResponseHeader] = (
    ResponseHeader(
        name="Content-Language",
        description="The language of the answer's words, chosen by `Accept-Language`: `en` "
        "(the default) or `fr`.",
        documentation_only=True,
    ),
    ResponseHeader(
        name="Vary",
        description="Names `Accept-Language` (and `Origin` when CORS names its origins): the "
        "answer depends on the request's language.",
        documentation_only=True,
    ),
)


def language_headers(language: str) -> dict[str, str]:
    """The headers of an answer in `language` (`Vary` is added by api.http.hygiene)."""
    return {"Content-Language": language}


#: How every breakdown line's label starts in JSON (a key: the quotes are not escaped).
_LABEL_KEY = b'"label":'
_ENCODE = msgspec.json.Encoder().encode
_DECODE = msgspec.json.Decoder().decode


def localized_json(answer: Any, language: str, encode: Callable[[Any], bytes] = _ENCODE) -> bytes:
    """`answer` as JSON in `language`: the bytes `localized(answer, language)` encodes to.
    Only a breakdown line is relabelled, and only a key is followed by `":` in JSON (a string's
    own quotes are escaped): an answer whose JSON holds no `"label":` is the same in every
    language and is sent as encoded, not walked (a game in play: its view holds no score
    until its round is over). Any other `label` key only sends the answer the long way.
    `encode`: the answer's encoder (`msgspec.json.encode`'s bytes)."""
    content = encode(answer)
    if language == DEFAULT_LANGUAGE or _LABEL_KEY not in content:
        return content
    return _ENCODE(_relabel(_DECODE(content), language))


def _relabel(node: Any, language: str) -> Any:
    if isinstance(node, list):
        return [_relabel(item, language) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("kind")
    if "label" in node and isinstance(kind, str) and kind in KINDS:
        params = node.get("params")
        try:
            label = KINDS[kind].render(language, **(params if isinstance(params, dict) else {}))
        except (KeyError, IndexError, ValueError):  # a stored line whose parameters differ
            label = node["label"]
        return {**node, "label": label}
    return {key: _relabel(value, language) for key, value in node.items()}


def localized(answer: Any, language: str) -> Any:
    """`answer` (a struct, or builtins) with every breakdown line's label in `language`; as
    it is in English, the engine's own language."""
    if language == DEFAULT_LANGUAGE or answer is None:
        return answer
    return _relabel(msgspec.to_builtins(answer), language)


#: The operations whose answers hold words chosen by `Accept-Language`: breakdown labels,
#: the terms (the rules endpoints add theirs with :func:`negotiated_operation`).
NEGOTIATED_OPERATIONS = set(
    {
        "GetTerms",
        "CreateScoresheet",
        "GetScoresheet",
        "UpdateScoresheet",
        "AddScoresheetRound",
        "ReplaceScoresheetRound",
        "ClaimScoresheet",
        "ConfirmScoresheet",
        "GetGame",
        "StreamGameEvents",
        "ExportGame",
    }
)


#: The two headers' names under `components/headers`, each answer referring to them.
_CONTENT_LANGUAGE = "ContentLanguage"
_VARY_LANGUAGE = "VaryAcceptLanguage"


def negotiated_operation(operation_id: str) -> str:
    """Note that `operation_id`'s answers are in the caller's language (for the spec)."""
    NEGOTIATED_OPERATIONS.add(operation_id)
    return operation_id


def document_languages(application: Litestar) -> None:
    """Every problem answer (those shared under `components/responses` too), and the 2xx answers of the negotiated operations, document
    `Content-Language` (`en` | `fr`) and `Vary`, each with a schema (one definition each under
    `components/headers`, referred to by every answer)."""
    components = application.openapi_schema.components
    headers_of = components.headers = dict(components.headers or {})
    headers_of[_CONTENT_LANGUAGE] = OpenAPIHeader(
        description=LANGUAGE_HEADERS[0].description,
        schema=Schema(type=OpenAPIType.STRING, enum=list(LANGUAGES)),
    )
    headers_of[_VARY_LANGUAGE] = OpenAPIHeader(
        description=LANGUAGE_HEADERS[1].description, schema=Schema(type=OpenAPIType.STRING)
    )
    language = Reference(ref=f"#/components/headers/{_CONTENT_LANGUAGE}")
    vary = Reference(ref=f"#/components/headers/{_VARY_LANGUAGE}")
    for path_item in (application.openapi_schema.paths or {}).values():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(path_item, method)
            if operation is None:
                continue
            worded = operation.operation_id in NEGOTIATED_OPERATIONS
            for status, response in (operation.responses or {}).items():
                if not isinstance(response, OpenAPIResponse):
                    continue
                problem = MEDIA_TYPE in (response.content or {})
                headers = response.headers or {}
                if not (
                    problem
                    or (worded and status.startswith("2"))
                    or ("Content-Language" in headers)
                ):
                    continue
                headers["Content-Language"] = language
                headers["Vary"] = vary
                response.headers = headers
    for shared in (components.responses or {}).values():  # problems shared by operations
        if isinstance(shared, OpenAPIResponse) and MEDIA_TYPE in (shared.content or {}):
            shared.headers = {**(shared.headers or {}), "Content-Language": language, "Vary": vary}
