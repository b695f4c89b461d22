"""Strict request-body decoding, plain-English decode errors, and the exact request schemas.

Litestar decodes bodies leniently (`strict=False`: "3" would pass for 3). The contract wants
wrong types refused, unparsable JSON as 400 and contract breaks as 422, so every request body
goes through :func:`decode_body`, one `msgspec.json.decode(..., strict=True)` into the
operation's struct: through :class:`StrictBody`, the DTO of the operations Litestar hands a
body to, and called directly by those that read it themselves (a game action, after its
token; a sheet's round, decoded by the sheet's ruleset). :class:`StrictBody`'s OpenAPI schema
is msgspec's own JSON Schema of that struct (Litestar's generator drops
`additionalProperties: false` and the bounds of nullable fields), so the spec states exactly
what the decoder takes.

A body nested deeper than :data:`MAX_DEPTH` is refused before anything decodes it (issue 21):
decoders, and any code walking a decoded document, recurse once per level, and 30,000 levels
fit in 64 KiB; a `RecursionError` anywhere on the way was a 500.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any, Generic, TypeVar

import msgspec
from litestar import Request
from litestar.dto import MsgspecDTO
from litestar.exceptions import HTTPException
from litestar.openapi.spec import Reference, Schema
from litestar.params import BodyKwarg
from litestar.typing import FieldDefinition

from api.http.domain import DomainError, Flaw, InvalidFields
from api.http.fields import MAX_FLAWS, find_flaws, flaw_of, member, one_of, phrase
from api.http.hygiene import check_json_declared
from api.http.problems import (
    MESSAGE_LIMIT,
    ProblemError,
    shorten,
)
from engine.core.texts import Message, Text, say, text
from engine.registry import RULESETS

T = TypeVar("T", bound=msgspec.Struct)

#: The deepest a request body may nest (arrays and objects): the deepest request the API
#: takes (a numwin round's `locked` pairs) is 5 levels deep.
MAX_DEPTH = 32
TOO_DEEP = f"the body is nested more than {MAX_DEPTH} levels deep"
TOO_DEEP_TEXT = text(
    "field-too-deep",
    TOO_DEEP,
    f"le corps de la requête est imbriqué sur plus de {MAX_DEPTH} niveaux",
)
#: A backslash escape inside a string (`\"`, `\\`, `\u`): removed, every `"` left opens or
#: closes a string.
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
#: +1 for `[` and `{`, -1 for `]` and `}`, by byte.
_STEP = tuple({0x5B: 1, 0x7B: 1, 0x5D: -1, 0x7D: -1}.get(b, 0) for b in range(256))
_NOT_BRACKETS = bytes(b for b in range(256) if not _STEP[b])
#: msgspec's syntax errors: "JSON is malformed: <what> (byte <n>)", never quoting the input.
_MALFORMED_RE = re.compile(r"JSON is malformed: (.*) \(byte ([0-9]+)\)")
_TRUNCATED = "Input data was truncated"
#: A string's escape, whole: `\uXXXX` (its four hex digits kept), or a backslash and the one
#: character it escapes. Read from left to right, so that `\\` never starts another escape.
_STRING_ESCAPE = re.compile(rb"\\(?:u([0-9A-Fa-f]{4})|.)", re.DOTALL)
#: What may still follow a high surrogate's escape in a body cut short: a low one's start.
_ESCAPE_START = re.compile(rb"(?:\\(?:u[0-9A-Fa-f]{0,3})?)?")


def decode_error(
    exc: msgspec.DecodeError, document: object = None, model: Any = None, raw: bytes = b""
) -> ProblemError:
    """:func:`body_refusal` as the HTTP layer raises it (a body's decoding in a route), said
    in the caller's language when it answers."""
    return ProblemError.of_domain(body_refusal(exc, document, model, raw))


def body_refusal(
    exc: msgspec.DecodeError, document: object = None, model: Any = None, raw: bytes = b""
) -> DomainError:
    """400 for unparsable JSON, 422 naming the bad fields for a body that breaks the schema,
    as a domain error (a service decoding a document it holds raises this one).

    With `document` (the parsed body) and `model` (its type), *every* invalid field is named
    (:func:`api.http.fields.find_flaws`); else, or when the walk finds nothing (a number past
    64 bits, which only msgspec's parser sees), msgspec's one error in the same words. With
    `raw` (the body's text), what msgspec words vaguely is said exactly: a lone surrogate
    escape it calls the end of the input (:func:`_malformed`).
    """
    if not isinstance(exc, msgspec.ValidationError):
        return DomainError(say(NOT_JSON, why=_malformed(str(exc), raw)), code="malformed-json")
    repeated = repeated_keys(raw) if raw else list(getattr(document, "repeated", ()))
    flaws = find_flaws(document, model) if model is not None else []
    return InvalidFields([*repeated, *(flaws or [flaw_of(exc, document, model)])][:MAX_FLAWS])


NOT_JSON = text(
    "malformed-json",
    "the request body is not valid JSON: {why}",
    "le corps de la requête n’est pas du JSON valide\u00a0: {why}",
)
AT_BYTE = text("malformed-json-at", "{what} at byte {byte}", "{what} à l’octet {byte}")
CUT_SHORT = text(
    "malformed-json-truncated",
    "it ends before the JSON is complete",
    "il s’arrête avant la fin du JSON",
)
EMPTY = text(
    "empty-body-expected",
    "the request body is empty: {expected} is expected",
    "le corps de la requête est vide\u00a0: {expected} est attendu",
)


def _braces(words: str) -> str:
    """`words` as a text's template (its braces doubled)."""
    return words.replace("{", "{{").replace("}", "}}")


#: msgspec's syntax errors, in the caller's language (the rest kept in msgspec's words).
SYNTAX: dict[str, Text] = {
    what: text(f"json-syntax-{key}", _braces(what), _braces(fr))
    for key, what, fr in (
        ("quote", "expected '\"'", '«\u00a0"\u00a0» attendu'),
        ("comma-bracket", "expected ',' or ']'", "«\u00a0,\u00a0» ou «\u00a0]\u00a0» attendu"),
        ("comma-brace", "expected ',' or '}'", "«\u00a0,\u00a0» ou «\u00a0}\u00a0» attendu"),
        ("colon", "expected ':'", "«\u00a0:\u00a0» attendu"),
        ("character", "invalid character", "caractère invalide"),
        (
            "unicode-escape",
            "invalid character in unicode escape",
            "caractère invalide dans un échappement unicode",
        ),
        ("escape", "invalid escape character in string", "échappement invalide dans une chaîne"),
        ("escaped", "invalid escaped character", "caractère échappé invalide"),
        ("number", "invalid number", "nombre invalide"),
        ("surrogate", "invalid utf-16 surrogate pair", "paire de substitution UTF-16 invalide"),
        ("keys", "object keys must be strings", "les clés d’un objet doivent être des chaînes"),
        ("trailing", "trailing characters", "caractères en trop après le JSON"),
        ("comma-array", "trailing comma in array", "virgule en trop à la fin d’un tableau"),
        ("comma-object", "trailing comma in object", "virgule en trop à la fin d’un objet"),
    )
}
LONE_SURROGATE = text(
    "malformed-json-lone-surrogate",
    "invalid string: the escape {escape} at byte {byte} is a lone UTF-16 surrogate (a high "
    "surrogate, \\ud800 to \\udbff, must be followed by a low one, \\udc00 to \\udfff)",
    "chaîne invalide\u00a0: l’échappement {escape} à l’octet {byte} est un demi-codet de "
    "substitution UTF-16 isolé (un demi-codet haut, de \\ud800 à \\udbff, doit être suivi "
    "d’un demi-codet bas, de \\udc00 à \\udfff)",
)
REPEATED_KEY = text(
    "field-duplicate-key",
    "the key {name} appears {count} times in this object: send it once (only its last value "
    "was read)",
    "la clé {name} apparaît {count}\u00a0fois dans cet objet\u00a0: envoyez-la une seule fois "
    "(seule sa dernière valeur a été lue)",
)
NOT_UTF8 = text(
    "malformed-json-utf8",
    "a string is not valid UTF-8",
    "une chaîne n’est pas de l’UTF-8 valide",
)
_NOT_UTF8 = "Invalid UTF-8 encoded string"
A_JSON_OBJECT = text("a-json-object", "a JSON object", "un objet JSON")
AN_ACTION_OBJECT = text("an-action-object", "an action object", "un objet action")


def _malformed(message: str, raw: bytes = b"") -> Message:
    """msgspec's syntax error in plain words, kept whole (it quotes none of the client's
    text, and where the JSON broke is what the client needs): "expected ',' or '}' at byte
    11", "it ends before the JSON is complete". msgspec says the latter of a high surrogate's
    escape that no low one follows (`"\\ud800"`) wherever it stands: with the body's text
    `raw`, that one is said as what it is (:func:`lone_surrogate`)."""
    if match := _MALFORMED_RE.fullmatch(message):
        what = match.group(1)
        words = SYNTAX.get(what)
        return say(AT_BYTE, what=what if words is None else say(words), byte=match.group(2))
    if message == _TRUNCATED:
        lone = lone_surrogate(raw)
        if lone is not None:
            return say(LONE_SURROGATE, escape=lone[0], byte=lone[1])
        return say(CUT_SHORT)
    if message == _NOT_UTF8:
        return say(NOT_UTF8)
    return shorten(message, MESSAGE_LIMIT)


def lone_surrogate(value: bytes) -> tuple[str, int] | None:
    """The first escape of a high surrogate (`\\ud800` … `\\udbff`) in the JSON text `value`
    that no low surrogate's escape follows, and the byte it starts at; None when there is
    none, or when the text ends right after it (or within the low one's escape): then it is
    cut short indeed. Read only when msgspec refused the body as truncated."""
    for escape in _STRING_ESCAPE.finditer(value):
        digits = escape.group(1)
        if digits is None or not 0xD800 <= int(digits, 16) <= 0xDBFF:
            continue
        after = value[escape.end() : escape.end() + 6]
        low = _STRING_ESCAPE.match(after)
        if low is not None and low.group(1) and 0xDC00 <= int(low.group(1), 16) <= 0xDFFF:
            continue
        if len(after) < 6 and _ESCAPE_START.fullmatch(after):
            return None  # the text ends where the low surrogate would be
        return escape.group(0).decode("ascii"), escape.start()
    return None


class _Pairs(list[tuple[str, Any]]):
    """An object's members in the body's order, repeated keys kept (:func:`repeated_keys`)."""


def repeated_keys(value: bytes) -> list[Flaw]:
    """Each key the JSON text `value` repeats within one object, at its path (`type`,
    `players[1].captured`), with how many times: msgspec, as RFC 8259 §4 lets a reader, keeps
    the last value of a repeated key and says nothing, so a refusal of the rest (`{"type":
    "play", "card": "red-7", "type": "bid"}`: a bid without `tricks`) would not say why. Read
    only when a body is refused (a second parse, in Python), never on a body taken; [] when
    none repeats, or `value` is no JSON Python's parser takes."""
    try:
        parsed = json.loads(value, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError):
        return []
    found: list[Flaw] = []
    todo: list[tuple[Any, str]] = [(parsed, "")]
    while todo and len(found) < MAX_FLAWS:
        node, path = todo.pop()
        if isinstance(node, _Pairs):
            counts: dict[str, int] = {}
            for name, _ in node:
                counts[name] = counts.get(name, 0) + 1
            for name, count in counts.items():
                if count > 1:
                    said = phrase(REPEATED_KEY, name=repr(shorten(name, 40)), count=count)
                    found.append(Flaw(member(path, name), "duplicate-key", said))
            todo.extend((item, member(path, name)) for name, item in reversed(node))
        elif isinstance(node, list):
            todo.extend((item, f"{path}[{i}]") for i, item in reversed(list(enumerate(node))))
    return found


class _Document(dict[str, Any]):
    """A body parsed now and decoded later (:class:`LateBody`), with the keys it repeated:
    named if its decoding refuses it (:func:`body_refusal`)."""

    repeated: tuple[Flaw, ...] = ()


def too_deep(value: bytes) -> bool:
    """Whether the JSON text `value` nests arrays and objects deeper than :data:`MAX_DEPTH`.

    Linear and in C but for the last step, over the brackets outside strings only: escapes
    are dropped, then what lies between quotes; the depth is the running sum of +1/-1 (a body
    that never closes counts as deep as it opens)."""
    if value.count(b"[") + value.count(b"{") <= MAX_DEPTH:  # every body the API expects
        return False
    outside = b"".join(_ESCAPE.sub(b"", value).split(b'"')[::2])
    brackets = outside.translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH


#: JSON's whitespace (RFC 8259 §2): what a body may hold and still be empty.
JSON_SPACE = b" \t\n\r"


def decode_body(value: bytes, model: Any, expected: Text = A_JSON_OBJECT) -> Any:
    """The request body `value` decoded strictly as `model` (`Any`: parsed only), or the
    problem that refuses it: 400 `malformed-json` when empty or no JSON, 422 on field `body`
    when nested too deep (:data:`MAX_DEPTH`), 422 naming every bad field when the schema is
    broken (said in the caller's language by the problem handler).

    A valid body costs one typed decode, as ever; only a refused one is parsed again and
    walked (:func:`body_refusal`)."""
    if not value.strip(JSON_SPACE):
        raise ProblemError(400, "malformed-json", say(EMPTY, expected=say(expected)))
    if too_deep(value):
        raise InvalidFields([Flaw("body", "too-deep", say(TOO_DEEP_TEXT))])
    if model is Any:  # decoded later (a sheet's): its repeated keys kept for its refusal
        return _late(value)
    try:
        return msgspec.json.decode(value, type=model, strict=True)
    except msgspec.ValidationError as exc:
        try:  # typed decoding stops at the first bad value, before the JSON ends
            document = msgspec.json.decode(value)
        except msgspec.ValidationError as beyond:  # a number past 64 bits
            raise body_refusal(beyond) from None
        except msgspec.DecodeError as malformed:
            raise decode_error(malformed, raw=value) from None
        raise body_refusal(exc, document, model, value) from None
    except msgspec.DecodeError as exc:
        raise decode_error(exc, raw=value) from None


def _late(value: bytes) -> Any:
    """`value` parsed (400 unless JSON), an object keeping the keys it repeated."""
    try:
        document = msgspec.json.decode(value)
    except msgspec.DecodeError as exc:  # a ValidationError too: a number past 64 bits
        if isinstance(exc, msgspec.ValidationError):
            raise body_refusal(exc) from None
        raise decode_error(exc, raw=value) from None
    if isinstance(document, dict):
        repeated = repeated_keys(value) if value.count(b":") > len(document) else []
        if repeated:
            document = _Document(document)
            document.repeated = tuple(repeated)
    return document


def decode_document(document: Any, model: type[T]) -> T:
    """A parsed body (:class:`LateBody`) decoded strictly as `model`, or the 422 naming every
    bad field, as :class:`StrictBody` refuses it."""
    try:
        return msgspec.convert(document, type=model, strict=True)
    except msgspec.ValidationError as exc:
        raise body_refusal(exc, document, model) from None


class StrictBody(MsgspecDTO[T], Generic[T]):
    """Decode the body strictly into the handler's msgspec struct (:func:`decode_body`)."""

    def decode_bytes(self, value: bytes) -> Any:
        return decode_body(value, self.model_type)

    def decode_builtins(self, value: dict[str, Any]) -> Any:
        try:
            return msgspec.convert(value, type=self.model_type, strict=True)
        except msgspec.ValidationError as exc:
            raise body_refusal(exc, value, self.model_type) from None

    @classmethod
    def create_openapi_schema(
        cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any
    ) -> Reference | Schema:
        """msgspec's JSON Schema of the request struct, registered as named components."""
        model: type[msgspec.Struct] = field_definition.annotation
        registry = schema_creator.schema_registry
        structs = _structs(model)
        _, components = msgspec.json.schema_components([model], ref_template=_REF + "{name}")
        fields = {name: FieldDefinition.from_annotation(structs[name]) for name in components}
        targets = {name: registry.get_schema_for_field_definition(fields[name]) for name in fields}

        def reference(ref: str) -> Reference:
            found: Reference = registry.get_reference_for_field_definition(
                fields[ref.removeprefix(_REF)]
            )
            return found

        for name, component in components.items():
            built = _to_schema(component, reference)
            assert isinstance(built, Schema)
            for f in dataclasses.fields(Schema):
                setattr(targets[name], f.name, getattr(built, f.name))
        kwarg = field_definition.kwarg_definition
        if isinstance(kwarg, BodyKwarg) and kwarg.examples:
            return Schema(
                all_of=[reference(model.__name__)],
                examples=[example.value for example in kwarg.examples],
            )
        return reference(model.__name__)


_REF = "#/components/schemas/"
#: JSON Schema keywords and the `Schema` attribute each maps to (OpenAPI 3.1 names).
_ATTRIBUTES = {
    (f.metadata.get("alias") or f.name): f.name
    for f in dataclasses.fields(Schema)
    if f.name not in {"schema_not", "schema_if", "schema_else"}
}
_ATTRIBUTES |= {
    "maxItems": "max_items",
    "minItems": "min_items",
    "maxLength": "max_length",
    "minLength": "min_length",
    "uniqueItems": "unique_items",
    "additionalProperties": "additional_properties",
    "anyOf": "any_of",
    "oneOf": "one_of",
    "allOf": "all_of",
    "exclusiveMaximum": "exclusive_maximum",
    "exclusiveMinimum": "exclusive_minimum",
}
_NESTED = {"items", "additional_properties"}
_NESTED_LISTS = {"any_of", "one_of", "all_of", "prefix_items"}


def _to_schema(data: dict[str, Any], ref: Callable[[str], Reference]) -> Schema | Reference:
    """A JSON Schema dict as Litestar's spec objects; `$ref`s resolved by `ref`."""
    if "$ref" in data:
        target: Reference = ref(data["$ref"])
        if len(data) == 1:
            return target
        data = {k: v for k, v in data.items() if k != "$ref"}
        values = _values(data, ref)
        values["all_of"] = [target]
        return Schema(**values)
    return Schema(**_values(data, ref))


def _values(data: dict[str, Any], ref: Callable[[str], Reference]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = _ATTRIBUTES[key]
        if name == "properties":
            value = {k: _to_schema(v, ref) for k, v in value.items()}
        elif name in _NESTED and isinstance(value, dict):
            value = _to_schema(value, ref)
        elif name in _NESTED_LISTS:
            value = [_to_schema(v, ref) for v in value]
        values[name] = value
    return values


def _structs(model: type[msgspec.Struct]) -> dict[str, type[msgspec.Struct]]:
    """Every struct class a request struct holds, by name (msgspec's component names)."""
    found: dict[str, type[msgspec.Struct]] = {}
    todo: list[msgspec.inspect.Type] = [msgspec.inspect.type_info(model)]
    while todo:
        t = todo.pop()
        if isinstance(t, msgspec.inspect.StructType):
            if t.cls.__name__ in found:
                continue
            found[t.cls.__name__] = t.cls
            todo.extend(f.type for f in t.fields)
        elif isinstance(t, msgspec.inspect.Metadata):
            todo.append(t.type)
        elif isinstance(t, msgspec.inspect.ListType):
            todo.append(t.item_type)
        elif isinstance(t, msgspec.inspect.UnionType):
            todo.extend(t.types)
    return found


def check_ruleset(value: str, field: str = "ruleset") -> str:
    """`value` if a ruleset of the registry has that id, else a 422 naming the ids, as a
    `Literal` field's refusal reads (code `enum`). The registry is read at each request: a
    ruleset registered before the app was built is taken, though the body structs were
    defined earlier."""
    if value in RULESETS:
        return value
    raise InvalidFields([one_of(field, sorted(RULESETS), value)])


def ruleset_enum() -> Schema:
    """The schema of a `ruleset` field: the registered ids, read when the spec is built."""
    return Schema(enum=sorted(RULESETS))


class LateBody(StrictBody[T]):
    """A body parsed only (400 unless JSON), decoded strictly (:func:`decode_document`) once
    the caller and the resource are checked: api-contract.md's order of checks is
    authentication, then existence, then the body, and Litestar reads a DTO's body before the
    handler's dependencies. The spec states the handler's struct, as :class:`StrictBody` does."""

    def decode_bytes(self, value: bytes) -> Any:
        return decode_body(value, Any)


class NoFields(msgspec.Struct, forbid_unknown_fields=True):
    """The body an operation that takes none may still be sent: `{}`, which holds nothing to
    ignore (a client's JSON helper that always sends an object)."""


async def unwanted_body(request: Request[Any, Any, Any]) -> Exception | None:
    """The refusal a body sent to an operation that takes none (`POST …/abandon`, `DELETE
    /v1/me` …) earns, not raised: the operation raises it once its caller and the resource
    it names are checked (`api.http.domain.refuse_body`; api-contract.md, "Order of checks":
    authentication, then existence, then the body), as a game action's body is refused
    after `GameService.viewer`. None for no body, an empty or blank one, or `{}`.

    Any other body was once ignored (`{` abandoned a game as no body would); it is read as
    any body is: 413 past the cap, 415 unless declared as JSON, 400 `malformed-json` when
    unparsable, 422 `unknown-field` for each field and `validation-error` on `body` for
    what is no object. Blank is JSON's whitespace only (RFC 8259 §2: space, tab, line feed,
    carriage return), not Python's (`bytes.strip()` also takes a form feed or a vertical tab,
    which abandoned a game as no body would)."""
    try:
        raw = await request.body()
        if raw.strip(JSON_SPACE):
            check_json_declared(request)
            decode_body(raw, NoFields)
    except (ProblemError, DomainError) as refusal:
        return refusal
    except HTTPException as refusal:  # Litestar's 413 past the body cap
        if refusal.status_code != 413:
            raise
        return refusal
    return None
