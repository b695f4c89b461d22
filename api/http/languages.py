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

from collections.abc import Sequence
from typing import Any

import msgspec
from litestar import Request
from litestar.datastructures import ResponseHeader

from api.http.problems import language_of
from engine.core.texts import DEFAULT_LANGUAGE, KINDS

__all__ = [
    "LANGUAGE_HEADERS",
    "language_headers",
    "language_of",
    "localized",
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


def request_language(request: Request[Any, Any, Any]) -> str:
    """The language of the answer to `request`."""
    return language_of(request)
