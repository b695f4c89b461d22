"""Conditional and retried writes, as every area takes them: `Idempotency-Key` and `If-Match`
(RFC 9110 §13.1.1; api-contract.md, "Stored games" and "Score sheets: versions")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from litestar import Litestar
from litestar.openapi.spec import Reference, Schema
from litestar.openapi.spec.enums import OpenAPIType

from api.http.fields import human_pattern
from api.http.idempotency import ANONYMOUS_KEY_MIN
from api.http.problems import field_problem, shorten
from engine.core.texts import say, text

#: `Idempotency-Key`: as the stored games take it.
KEY = re.compile(r"[\x21-\x7e]{1,255}")
#: RFC 9110 entity-tag: an optional `W/` and a quoted string of etagc characters, with the
#: optional white space (OWS: spaces and tabs only) around a list's commas.
_ANY = re.compile(r"[ \t]*\*[ \t]*")
#: a whole list of entity tags (the header's grammar), and each tag in it
_LIST = re.compile(r'[ \t]*(W/)?"[\x21\x23-\x7e]*"([ \t]*,[ \t]*(W/)?"[\x21\x23-\x7e]*")*[ \t]*')
_TAGS = re.compile(r'(W/)?"([\x21\x23-\x7e]*)"')
#: The If-Match header as the spec states it (JSON Schema's ECMA-262 reading, same meaning).
IF_MATCH_PATTERN = human_pattern(
    r'^[ \t]*(\*|(W/)?"[\x21\x23-\x7e]*"([ \t]*,[ \t]*(W/)?"[\x21\x23-\x7e]*")*)[ \t]*$',
    "field-pattern-if-match",
    'a version in double quotes, as the ETag gives it: "3" (or a list of them, or *)',
    'une version entre guillemets droits, comme l’ETag la donne\u00a0: "3" (ou une liste, ou *)',
)
KEY_PATTERN = human_pattern(
    r"^[\x21-\x7e]+$",
    "field-pattern-idempotency-key",
    "visible ASCII characters, without spaces (a UUID, for example)",
    "des caractères ASCII visibles, sans espace (un UUID, par exemple)",
)
QUOTED = 'an ETag is quoted, as GET answers it: If-Match: "3" (or a list of them, or *)'


@dataclass(frozen=True)
class IfMatch:
    """A parsed `If-Match`: `any` for `*`, else the versions its strong tags name."""

    any: bool
    versions: frozenset[str]

    def matches(self, version: int) -> bool:
        return self.any or str(version) in self.versions


def parse_if_match(header: str | None) -> IfMatch | None:
    """The `If-Match` header, or None without one; 422 `validation-error` on `If-Match` for
    a header that is no list of entity tags."""
    if header is None:
        return None
    if _ANY.fullmatch(header):
        return IfMatch(True, frozenset())
    if not _LIST.fullmatch(header):  # a tag may hold a comma: never split on commas
        bare = header.strip()
        example = bare if re.fullmatch(r"[0-9]{1,12}", bare) else "3"
        message = say(NO_ENTITY_TAG, header=shorten(header), example=example)
        raise field_problem(422, "validation-error", "If-Match", message)
    versions = {tag for weak, tag in _TAGS.findall(header) if not weak}
    return IfMatch(False, frozenset(versions))


NO_ENTITY_TAG = text(
    "if-match-form",
    "{header!r} is no entity tag: an ETag is quoted, as GET answers it: "
    'If-Match: "{example}" (or a list of them, or *)',
    "{header!r} n’est pas une étiquette d’entité\u00a0: un ETag est entre guillemets, comme GET le "
    'donne\u00a0: If-Match: "{example}" (ou une liste d’entre eux, ou *)',
)
KEY_FORM = text(
    "idempotency-key-form",
    "must be 1 … 255 visible ASCII characters",
    "doit faire 1 … 255 caractères ASCII visibles",
)


def check_key(key: str | None) -> str | None:
    """The `Idempotency-Key` header (None without one); 422 unless 1 … 255 visible ASCII
    characters, as on stored games."""
    if key is not None and not KEY.fullmatch(key):
        message = say(KEY_FORM)
        raise field_problem(422, "validation-error", "Idempotency-Key", message)
    return key


def check_anonymous_key(key: str | None) -> None:
    """An anonymous creation's `Idempotency-Key`: the key is all that guards the secret a
    retry gets back (a sheet token, a game's seat tokens), so no guessable key: 422 under
    :data:`ANONYMOUS_KEY_MIN` characters."""
    if key is not None and len(key) < ANONYMOUS_KEY_MIN:
        message = say(ANONYMOUS_KEY, least=ANONYMOUS_KEY_MIN)
        raise field_problem(422, "validation-error", "Idempotency-Key", message)


def document_conditions(application: Litestar) -> None:
    """The exact forms of `If-Match` and `Idempotency-Key` on every operation that takes them
    (the handlers check both themselves, their problems naming the header; a header is a
    string or absent, never null)."""
    for item in (application.openapi_schema.paths or {}).values():
        for operation in (item.get, item.post, item.put, item.patch, item.delete):
            for parameter in (operation.parameters or ()) if operation else ():
                if isinstance(parameter, Reference):
                    continue
                if parameter.name == "If-Match":
                    parameter.schema = Schema(
                        type=OpenAPIType.STRING, pattern=IF_MATCH_PATTERN, examples=['"3"']
                    )
                    if QUOTED not in (parameter.description or ""):
                        parameter.description = f"{parameter.description}; {QUOTED}"
                elif parameter.name == "Idempotency-Key":
                    parameter.schema = Schema(
                        type=OpenAPIType.STRING,
                        min_length=1,
                        max_length=255,
                        pattern=KEY_PATTERN,
                        examples=["5f0c3a4e-8d1b-4c57-9e2a-7b6d1f0e9c33"],
                    )


ANONYMOUS_KEY = text(
    "idempotency-key-anonymous",
    "without a session, at least {least} characters (a random UUID)",
    "sans session, au moins {least} caractères (un UUID aléatoire)",
)
