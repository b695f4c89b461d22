"""Every invalid field of a request body at once, in human words (issue 23, "French and
English").

msgspec, the decoder of record, stops at the first bad value and words it for a programmer
(``Expected `str` matching regex '^[A-Za-z0-9_.-]{3,24}$(?!\\n)'``). When it refuses a body,
:func:`find_flaws` walks the body's type (msgspec's own view of it, `msgspec.inspect`) over
the parsed JSON and names *every* invalid field, in the order of the struct's fields (the
unknown ones after them, in the body's order): a missing required field, a value of the wrong
JSON kind, a broken bound, length or pattern, a value outside a fixed set, an unknown field.
A struct's own checks (`__post_init__`) run, through msgspec, only once its fields are all
valid. Each finding is a :class:`~api.http.domain.Flaw`: its path, a stable code (the
:data:`~api.http.domain.SCHEMA_CODES`, `missing-field`, `unknown-field`) and a message said
in English and French (:class:`Phrase`), rendered in the caller's language when the problem
is sent.

A pattern is never shown to a person: each one the API uses has a human text here
(:func:`human_pattern`, :data:`PATTERNS`), read by the walk and checked against every
pattern of the served spec by the tests.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import msgspec
import msgspec.inspect as mi
from litestar import Litestar
from litestar.openapi.spec import Schema

from api.http.domain import Flaw, InvalidFields
from engine import registry
from engine.core.cards import CARD_PATTERN
from engine.core.errors import InvalidInput
from engine.core.texts import DEFAULT_LANGUAGE, Text, text

#: The most flaws one answer lists: a 64 KiB body of bad items is not answered item by item.
MAX_FLAWS = 50
#: How many characters of a client's value a message quotes before cutting it with "…".
QUOTE_LIMIT = 40


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text` cut to `limit` characters with "…"."""
    return text if len(text) <= limit else text[:limit] + "…"


# --- words that messages are made of --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Phrase:
    """A text with its parameters, where a parameter may itself be words (a :class:`Text`, a
    :class:`Phrase`, or :class:`Either`) said in the same language as the whole."""

    text: Text
    params: Mapping[str, Any]

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return self.text.render(language, **{k: _say(v, language) for k, v in self.params.items()})

    def __str__(self) -> str:
        return self.render(DEFAULT_LANGUAGE)


@dataclass(frozen=True, slots=True)
class Either:
    """Alternatives, said "a or b or c" in the language of the message."""

    words: tuple[Text, ...]

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return f" {OR.render(language)} ".join(w.render(language) for w in self.words)


def _say(value: Any, language: str) -> Any:
    if isinstance(value, Text | Phrase | Either):
        return value.render(language)
    return value


def phrase(t: Text, /, **params: Any) -> Phrase:
    """`t` with its parameters, checked against the template's names."""
    if frozenset(params) != t.params:
        raise ValueError(f"text {t.key!r} takes {sorted(t.params)}, given {sorted(params)}")
    return Phrase(t, params)


OR = text("field-or", "or", "ou")
KINDS = {
    "int": text("field-kind-integer", "an integer", "un entier"),
    "number": text("field-kind-number", "a number", "un nombre"),
    "string": text("field-kind-string", "a string", "une chaîne de caractères"),
    "bool": text("field-kind-boolean", "true or false", "true ou false"),
    "array": text("field-kind-list", "a list", "une liste"),
    "object": text("field-kind-object", "an object", "un objet"),
    "null": text("field-kind-null", "null", "null"),
}
#: msgspec's names of JSON kinds, as its messages spell them.
_MSGSPEC_KINDS = {
    "int": "int",
    "float": "number",
    "str": "string",
    "bool": "bool",
    "array": "array",
    "object": "object",
    "null": "null",
}
UNITS = {
    ("string", False): text("field-unit-characters", "characters", "caractères"),
    ("string", True): text("field-unit-character", "character", "caractère"),
    ("array", False): text("field-unit-items", "items", "éléments"),
    ("array", True): text("field-unit-item", "item", "élément"),
    ("object", False): text("field-unit-fields", "fields", "champs"),
    ("object", True): text("field-unit-field", "field", "champ"),
}

MISSING = text(
    "field-missing", "required field {name} is missing", "champ obligatoire {name} absent"
)
UNKNOWN = text("field-unknown", "unknown field {name}", "champ inconnu {name}")
WRONG_KIND = text("field-type", "must be {expected}, not {got}", "doit être {expected}, pas {got}")
MUST_BE = text("field-type-only", "must be {expected}", "doit être {expected}")
ONE_OF = text(
    "field-enum",
    "must be one of {choices}, not {value}",
    "doit être l’une des valeurs {choices}, pas {value}",
)
NOT_ONE_OF = text(
    "field-enum-unknown",
    "must be one of the values this field takes",
    "doit être l’une des valeurs que prend ce champ",
)
BOUNDS = {
    "ge": text(
        "field-at-least",
        "must be {kind} at least {limit}",
        "doit être {kind} supérieur ou égal à {limit}",
    ),
    "gt": text(
        "field-more-than",
        "must be {kind} more than {limit}",
        "doit être {kind} strictement supérieur à {limit}",
    ),
    "le": text(
        "field-at-most",
        "must be {kind} at most {limit}",
        "doit être {kind} inférieur ou égal à {limit}",
    ),
    "lt": text(
        "field-less-than",
        "must be {kind} less than {limit}",
        "doit être {kind} strictement inférieur à {limit}",
    ),
}
HOLD_AT_LEAST = text(
    "field-min-length", "must hold at least {count} {unit}", "doit contenir au moins {count} {unit}"
)
HOLD_AT_MOST = text(
    "field-max-length", "must hold at most {count} {unit}", "doit contenir au plus {count} {unit}"
)
OUT_OF_RANGE = text(
    "field-out-of-range",
    "a number is out of range: every number here is an integer of at most 64 bits",
    "un nombre est hors limites\u00a0: ici, tout nombre est un entier d’au plus 64 bits",
)
NO_FORM = text(
    "field-pattern",
    "is not in the form this field takes",
    "n’a pas la forme que prend ce champ",
)
INVALID = text("field-invalid", "is not valid: {reason}", "n’est pas valide\u00a0: {reason}")


# --- the human text of every pattern --------------------------------------------------------

#: Each regular expression the API states (request fields, headers, the spec's card codes)
#: and what it means to a person, in every language.
PATTERNS: dict[str, Text] = {}


def human_pattern(pattern: str, key: str, en: str, fr: str) -> str:
    """Register `pattern`'s human text (`key` `field-pattern-…`) and give the pattern back, so that a
    module states a pattern and its meaning in one place."""
    made = text(key, en, fr)
    if PATTERNS.setdefault(pattern, made) != made:
        raise ValueError(f"pattern {pattern!r} is described twice with different words")
    return pattern


human_pattern(
    CARD_PATTERN,
    "field-pattern-card",
    "a card code such as red-7, rainbow-14, shadow-0, joker or malus-1 (rules/cards.md)",
    "un code de carte comme red-7, rainbow-14, shadow-0, joker ou malus-1 (rules/cards.md)",
)


def pattern_text(pattern: str) -> Text:
    """What `pattern` means to a person (a generic sentence for one nobody described)."""
    return PATTERNS.get(pattern, NO_FORM)


# --- the walk --------------------------------------------------------------------------------

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def member(path: str, name: str) -> str:
    """`path.name`, or `path["name"]` (quoted, cut short) when the name is no identifier."""
    if _IDENTIFIER.fullmatch(name) and len(name) <= QUOTE_LIMIT:
        return f"{path}.{name}" if path else name
    return f"{path}[{json.dumps(shorten(name), ensure_ascii=False)}]"


def quoted(value: Any) -> str:
    """A client's value as a message quotes it: a string in quotes, cut short."""
    return repr(shorten(value)) if isinstance(value, str) else shorten(repr(value))


def missing(path: str, name: str) -> Flaw:
    return Flaw(member(path, name), "missing-field", phrase(MISSING, name=repr(shorten(name))))


def unknown(path: str, name: str) -> Flaw:
    return Flaw(member(path, name), "unknown-field", phrase(UNKNOWN, name=repr(shorten(name))))


def wrong_kind(path: str, expected: Sequence[str], got: str) -> Flaw:
    said = phrase(WRONG_KIND, expected=_either(expected), got=KINDS[got])
    return Flaw(path or "body", "type", said)


def one_of(path: str, choices: Sequence[Any], value: Any) -> Flaw:
    listed = ", ".join(map(repr, choices))
    return Flaw(path or "body", "enum", phrase(ONE_OF, choices=listed, value=quoted(value)))


def bound(path: str, kind: str, which: str, limit: Any) -> Flaw:
    code = "minimum" if which in ("ge", "gt") else "maximum"
    return Flaw(path or "body", code, phrase(BOUNDS[which], kind=KINDS[kind], limit=limit))


def length(path: str, kind: str, which: str, count: int) -> Flaw:
    unit = UNITS[(kind, count == 1)]
    texts = HOLD_AT_LEAST if which == "min" else HOLD_AT_MOST
    code = f"{which}-{'items' if kind == 'array' else 'length'}"
    return Flaw(path or "body", code, phrase(texts, count=count, unit=unit))


def bad_form(path: str, pattern: str) -> Flaw:
    return Flaw(path or "body", "pattern", phrase(pattern_text(pattern)))


def _either(kinds: Sequence[str]) -> Either:
    ordered = sorted(dict.fromkeys(kinds), key=lambda k: k == "null")  # null said last
    return Either(tuple(KINDS[k] for k in ordered))


def kind_of(value: Any) -> str:
    """The JSON kind of a parsed value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _kinds(info: mi.Type) -> list[str]:
    """The JSON kinds a type takes, in msgspec's order of the union."""
    if isinstance(info, mi.Metadata):
        return _kinds(info.type)
    if isinstance(info, mi.UnionType):
        return [k for t in info.types for k in _kinds(t)]
    if isinstance(info, mi.LiteralType | mi.EnumType):
        values = info.values if isinstance(info, mi.LiteralType) else [m.value for m in info.cls]
        return list(dict.fromkeys(kind_of(v) for v in values))
    if isinstance(info, mi.IntType):
        return ["int"]
    if isinstance(info, mi.FloatType):
        return ["number"]
    if isinstance(info, mi.StrType):
        return ["string"]
    if isinstance(info, mi.BoolType):
        return ["bool"]
    if isinstance(info, mi.NoneType):
        return ["null"]
    if isinstance(info, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        return ["array"]
    if isinstance(info, mi.TupleType):
        return ["array"]
    if isinstance(info, mi.DictType | mi.StructType | mi.TypedDictType | mi.DataclassType):
        return ["object"]
    return list(KINDS)  # Any, and kinds the requests do not use: whatever the JSON holds


def _takes(kinds: Sequence[str], value: Any) -> bool:
    got = kind_of(value)
    return got in kinds or (got == "int" and "number" in kinds)


@cache
def _info(model: Any) -> mi.Type:
    return mi.type_info(model)


class _Full(Exception):
    """:data:`MAX_FLAWS` found: the walk stops."""


class _Walk:
    def __init__(self) -> None:
        self.flaws: list[Flaw] = []

    def add(self, flaw: Flaw) -> None:
        self.flaws.append(flaw)
        if len(self.flaws) >= MAX_FLAWS:
            raise _Full

    def value(self, value: Any, info: mi.Type, path: str) -> None:
        if isinstance(info, mi.Metadata):
            self.value(value, info.type, path)
        elif isinstance(info, mi.AnyType):
            return
        elif isinstance(info, mi.UnionType):
            self.union(value, info, path)
        elif isinstance(info, mi.StructType):
            self.struct(value, info, path)
        elif not _takes(_kinds(info), value):
            self.add(wrong_kind(path, _kinds(info), kind_of(value)))
        elif isinstance(info, mi.LiteralType | mi.EnumType):
            values = (
                info.values if isinstance(info, mi.LiteralType) else [m.value for m in info.cls]
            )
            if not any(type(v) is type(value) and v == value for v in values):
                self.add(one_of(path, values, value))
        elif isinstance(info, mi.IntType | mi.FloatType):
            self.number(value, info, path)
        elif isinstance(info, mi.StrType):
            self.string(value, info, path)
        elif isinstance(info, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
            self.sized(value, info, path, "array")
            # past its bound a list's items are not walked: they are too many whatever they
            # hold, and a 64 KiB list of small valid items cost 25 times a valid body's time
            for index, item in enumerate(value[: info.max_length]):
                self.value(item, info.item_type, f"{path}[{index}]")
        elif isinstance(info, mi.DictType):
            self.sized(value, info, path, "object")
            for key, item in itertools.islice(value.items(), info.max_length):
                self.value(item, info.value_type, member(path, key))

    def number(self, value: Any, info: mi.IntType | mi.FloatType, path: str) -> None:
        kind = "int" if isinstance(info, mi.IntType) else "number"
        for which in ("ge", "gt", "le", "lt"):
            limit = getattr(info, which)
            if limit is not None and not _within(value, which, limit):
                self.add(bound(path, kind, which, limit))
                return
        if kind == "int" and not -(2**63) <= value < 2**64:
            self.add(Flaw(path or "body", "out-of-range", phrase(OUT_OF_RANGE)))

    def string(self, value: str, info: mi.StrType, path: str) -> None:
        if self.sized(value, info, path, "string") or info.pattern is None:
            return
        if not _compiled(info.pattern).search(value):
            self.add(bad_form(path, info.pattern))

    def sized(self, value: Any, info: Any, path: str, kind: str) -> bool:
        """Whether a length bound is broken (then said)."""
        if info.min_length is not None and len(value) < info.min_length:
            self.add(length(path, kind, "min", info.min_length))
            return True
        if info.max_length is not None and len(value) > info.max_length:
            self.add(length(path, kind, "max", info.max_length))
            return True
        return False

    def union(self, value: Any, info: mi.UnionType, path: str) -> None:
        types = [t.type if isinstance(t, mi.Metadata) else t for t in info.types]
        structs = [t for t in types if isinstance(t, mi.StructType)]
        tag_field = structs[0].tag_field if structs else None
        if tag_field is not None and isinstance(value, dict):
            self.tagged(value, structs, tag_field, path)
            return
        for member_info in info.types:
            if _takes(_kinds(member_info), value):
                self.value(value, member_info, path)
                return
        self.add(wrong_kind(path, _kinds(info), kind_of(value)))

    def tagged(
        self, value: dict[str, Any], structs: list[mi.StructType], tag_field: str, path: str
    ) -> None:
        """A tagged union (`{"type": "play", …}`): the tag names the struct to check."""
        if tag_field not in value:
            self.add(missing(path, tag_field))
            return
        tags = {s.tag: s for s in structs}
        tag = value[tag_field]
        chosen = next((s for t, s in tags.items() if type(t) is type(tag) and t == tag), None)
        if chosen is None:
            self.add(one_of(member(path, tag_field), list(tags), tag))
            return
        self.struct(value, chosen, path)

    def struct(self, value: Any, info: mi.StructType, path: str) -> None:
        if not isinstance(value, dict):
            self.add(wrong_kind(path, ["object"], kind_of(value)))
            return
        before = len(self.flaws)
        names = {info.tag_field} if info.tag_field is not None else set()
        for f in info.fields:
            names.add(f.encode_name)
            if f.encode_name in value:
                self.value(value[f.encode_name], f.type, member(path, f.encode_name))
            elif f.required:
                self.add(missing(path, f.encode_name))
        if info.forbid_unknown_fields:
            for key in value:
                if key not in names:
                    self.add(unknown(path, key))
        beyond = getattr(info.cls, "beyond_schema", None)
        if beyond is not None:  # a body's rule its schema cannot state (accept_terms: true)
            for flaw in beyond(value, path):
                self.add(flaw)
        if len(self.flaws) == before:  # its fields are valid: the struct's own checks
            self.checked(value, info.cls, path)

    def checked(self, value: Any, model: Any, path: str) -> None:
        """msgspec's verdict on a struct whose fields the walk found valid (the struct's own
        checks), placed under `path`."""
        try:
            msgspec.convert(value, model, strict=True)
        except msgspec.ValidationError as exc:
            self.add(flaw_of(exc, value, model, path))


def _within(value: float, which: str, limit: float) -> bool:
    if which == "ge":
        return value >= limit
    if which == "gt":
        return value > limit
    if which == "le":
        return value <= limit
    return value < limit


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def find_flaws(document: Any, model: Any) -> list[Flaw]:
    """Every invalid field of `document` (parsed JSON) as a body of type `model`, in order
    (at most :data:`MAX_FLAWS`); empty when msgspec would take it."""
    walk = _Walk()
    with contextlib.suppress(_Full):
        walk.value(document, _info(model), "")
    return walk.flaws


# --- one msgspec error in the same words ----------------------------------------------------

#: msgspec ends a validation message with the path of the bad value: `` - at `$.a[0].b` ``.
#: Request fields are identifiers, so the path is a run of `.name` and `[i]`; anchoring it at
#: the end keeps a field *name* holding `` - at `$ `` from being read as a path.
_PATH_RE = re.compile(r" - at `\$((?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])*)`$")
#: A path msgspec could not place (`$[...]`), or any other: cut from the message.
_ANY_PATH_RE = re.compile(r" - at `\$[^`]*`$")
_STEP_RE = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]")
_UNKNOWN = "Object contains unknown field `"
_MISSING = "Object missing required field `"
_ENUM = "Invalid enum value "
_EXPECTED_GOT = re.compile(r"Expected `([^`]*)`, got `([^`]*)`")
_BOUND = re.compile(r"Expected `(int|float)` (>=|<=|>|<) (-?[0-9.e+]+)")
_LENGTH = re.compile(r"Expected `(array|str|object)` of length (>=|<=) ([0-9]+)")
_EXPECTED = re.compile(r"Expected `([^`]*)`")
_PATTERN = re.compile(r"Expected `str` matching regex ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
_BOUND_NAMES = {">=": "ge", ">": "gt", "<=": "le", "<": "lt"}


def _holds(document: object, path: str, name: str) -> bool:
    """Whether the object at `path` (`.a[0].b`) of the decoded body has a key `name`."""
    node = document
    for key, index in _STEP_RE.findall(path):
        if key and isinstance(node, dict) and key in node:
            node = node[key]
        elif index and isinstance(node, list) and int(index) < len(node):
            node = node[int(index)]
        else:
            return False
    return isinstance(node, dict) and name in node


def _choices(model: Any, path: str) -> list[Any] | None:
    """The values a `Literal` (or enum) field at `path` (`.a[0].b`) of `model` takes, found
    through msgspec's own view of the type; None where the path leads elsewhere."""
    info: Any = _info(model)
    for key, index in [*_STEP_RE.findall(path), ("", "")]:
        if isinstance(info, mi.Metadata):
            info = info.type
        if isinstance(info, mi.UnionType):  # `X | None`: the one that is not None
            kept = [t for t in info.types if not isinstance(t, mi.NoneType)]
            info = kept[0] if len(kept) == 1 else None
        if isinstance(info, mi.Metadata):
            info = info.type
        if key and isinstance(info, mi.StructType):
            info = next((f.type for f in info.fields if f.encode_name == key), None)
        elif index and isinstance(info, mi.ListType | mi.SetType):
            info = info.item_type
        elif key or index:
            return None
    if isinstance(info, mi.LiteralType):
        return list(info.values)
    if isinstance(info, mi.EnumType):
        return [m.value for m in info.cls]
    return None


def choices_of(annotation: Any) -> list[Any] | None:
    """The values a parameter of type `annotation` takes when it is a fixed set (a
    `Literal` or an enum, optional or not), else None: a query parameter's refusal names
    them as a body field's does."""
    try:
        return _choices(annotation, "")
    except (TypeError, ValueError):  # a type msgspec cannot inspect: no fixed set to name
        return None


def _join(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if not path or path.startswith("["):
        return prefix + path
    return f"{prefix}.{path}"


def flaw_of(
    exc: msgspec.ValidationError, document: object = None, model: Any = None, prefix: str = ""
) -> Flaw:
    """msgspec's one validation error in the walk's words and codes (the bad value's path
    under `prefix`): what a refusal says when the walk has nothing to add (a number past
    64 bits, which the JSON parser itself refuses) or when no type is known.

    msgspec names the path only in its message text, after the message, so an unknown field
    *named* like a path suffix (`` x` - at `$.players ``) reads like field `x` at `players`;
    `document` settles it: a path is believed only when the object there holds that name,
    else the whole text is the name of a top-level field."""
    message = str(exc)
    match = _PATH_RE.search(message)
    steps = match.group(1) if match else ""
    field = _join(prefix, steps.lstrip("."))
    said = message[: match.start()] if match else _ANY_PATH_RE.sub("", message)
    if message.startswith(_UNKNOWN) and said.endswith("`"):
        name = said[len(_UNKNOWN) : -1]
        if match and not _holds(document, steps, name):
            name, field = message[len(_UNKNOWN) : -1], prefix
        return unknown(field, name)
    if said.startswith(_MISSING) and said.endswith("`"):
        return missing(field, said[len(_MISSING) : -1])
    choices = None
    if said.startswith(_ENUM) and model is not None and match:
        choices = _choices(model, steps)
    return message_flaw(said, field, choices)


def message_flaw(said: str, field: str, choices: Sequence[Any] | None = None) -> Flaw:
    """msgspec's message about one value (its path cut off: ``Expected `int` >= 3``) in the
    walk's words and codes, about `field`: a body's value (:func:`flaw_of`), or a query or
    path parameter as Litestar reports it (`api.http.problems`). `choices`: the values of
    the fixed set an "Invalid enum value" is not one of, when known."""
    if said in ("Number out of range", "Integer value out of range"):
        return Flaw(field or "body", "out-of-range", phrase(OUT_OF_RANGE))
    if said.startswith(_ENUM):
        if choices:
            try:
                value = ast.literal_eval(said[len(_ENUM) :])
            except (ValueError, SyntaxError):
                value = said[len(_ENUM) :]
            return one_of(field, choices, value)
        return Flaw(field or "body", "enum", phrase(NOT_ONE_OF))
    if m := _EXPECTED_GOT.fullmatch(said):
        expected = [_MSGSPEC_KINDS.get(k.strip(), "object") for k in m.group(1).split("|")]
        return wrong_kind(field, expected, _MSGSPEC_KINDS.get(m.group(2), "object"))
    if m := _BOUND.fullmatch(said):
        limit = m.group(3)
        number: int | float = int(limit) if re.fullmatch(r"-?[0-9]+", limit) else float(limit)
        kind = "int" if m.group(1) == "int" else "number"
        return bound(field, kind, _BOUND_NAMES[m.group(2)], number)
    if m := _LENGTH.fullmatch(said):
        kind = {"array": "array", "str": "string", "object": "object"}[m.group(1)]
        return length(field, kind, "min" if m.group(2) == ">=" else "max", int(m.group(3)))
    if m := _PATTERN.fullmatch(said):
        return bad_form(field, ast.literal_eval(m.group(1)))
    if m := _EXPECTED.fullmatch(said):
        expected = [_MSGSPEC_KINDS.get(k.strip(), "object") for k in m.group(1).split("|")]
        return Flaw(field or "body", "type", phrase(MUST_BE, expected=_either(expected)))
    reason = shorten(said, 200)
    return Flaw(field or "body", "invalid", phrase(INVALID, reason=reason))


def made_rules(ruleset_id: str, options: Mapping[str, Any]) -> Any:
    """`registry.make`, whose refusal of an ill-typed or unknown option (`bad-option`, which
    quotes msgspec's English) is said as a body's fields are: every bad option named at
    `options.<name>`, in the caller's words. Looked at only when the engine refused."""
    try:
        return registry.make(ruleset_id, options)
    except InvalidInput as exc:
        if exc.code != "bad-option":
            raise
        model = registry.ruleset_class(ruleset_id).Options
        document = dict(options)
        flaws = find_flaws(document, model)
        if not flaws:
            try:
                msgspec.convert(document, type=model)
            except msgspec.ValidationError as invalid:
                flaws = [flaw_of(invalid, document, model)]
        if not flaws:  # a value the engine's own rules refuse: its words already
            raise
        fields = ["options" if f.field in ("", "body") else f"options.{f.field}" for f in flaws]
        raise InvalidFields(
            [Flaw(field, "bad-option", f.message) for field, f in zip(fields, flaws, strict=True)]
        ) from None


# --- the spec --------------------------------------------------------------------------------

FIELD_CODES = (
    "`missing-field`, `unknown-field`, `type` (the wrong JSON kind), `pattern` (not in the "
    "field's form), `min-length`, `max-length` (a string's characters), `min-items`, "
    "`max-items` (a list's items), `minimum`, `maximum`, `enum` (not one of a fixed set), "
    "`out-of-range` (a number past 64 bits), `too-deep` (field `body`), `duplicate-key` (a "
    "key an object of a refused body repeats), `invalid`, or the problem code of a rule broken "
    "on that field (`unknown-card`, `pseudo-taken` …)"
)


def document_field_problems(application: Litestar) -> None:
    """`errors[]` entries in the spec: every one carries its `code` (the server fills it
    when the code making an entry names none, so the spec says it is always there)."""
    components = application.openapi_schema.components
    schema = (components.schemas or {}).get("FieldProblem")
    if not isinstance(schema, Schema) or not schema.properties:
        return
    schema.description = (
        "One invalid field: its path (`players[0].bid`, a header, a parameter, `body` for "
        "the whole), a message in the caller's language (`Accept-Language`) and a stable code"
    )
    schema.required = ["field", "message", "code"]
    code = schema.properties.get("code")
    if isinstance(code, Schema):
        code.default = None
        code.description = f"what kind of wrong, stable: {FIELD_CODES}"
    message = schema.properties.get("message")
    if isinstance(message, Schema):
        message.description = (
            "what is wrong, in words for a person, in English or French by `Accept-Language`"
        )
