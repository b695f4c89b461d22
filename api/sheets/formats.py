"""The stored formats of the score sheets: a round's input, a keyed write's first answer
(issue 22, "Stored formats with a version"; STYLE 8 and 16).

As for stored games (:mod:`api.games.formats`), every stored document carries its schema
version ``v`` (a document written before versions existed has none and reads as version 1,
its format: tests/fixtures/stored pins those rows) and its reader ignores the fields it does
not know, so that an older replica reads what a newer one wrote during a rolling deploy. New
fields get defaults; a field's type never changes.

A round's input is the complete score-round body of its ruleset (`round_input`: what the
sheet was sent, with what it derives, numking's `cards` and streaks, written out). It is read
back as that ruleset's round body type, which refuses unknown fields as a request must: so
the stored document is first cut down to the fields that type declares (:func:`known`),
recursively, and ``v`` is left out; what the scoring then reads is exactly a body today's
code accepts.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec
import msgspec.inspect as mi

__all__ = [
    "ANSWER_FORMAT",
    "ROUND_INPUT_FORMAT",
    "answer_document",
    "decode_answer",
    "decode_round_input",
    "known",
    "round_input_document",
]

ROUND_INPUT_FORMAT: Final = 1
ANSWER_FORMAT: Final = 1
#: The key of the schema version in a stored document.
VERSION_KEY: Final = "v"


def round_input_document(data: dict[str, Any]) -> dict[str, Any]:
    """The stored input of a round (`scoresheet_rounds.input`)."""
    return {**data, VERSION_KEY: ROUND_INPUT_FORMAT}


def decode_round_input(document: Any, body: type[msgspec.Struct]) -> dict[str, Any]:
    """A stored round input as its ruleset's round `body` type reads it: the fields that type
    declares (recursively), without ``v`` or any field a newer replica added."""
    if not isinstance(document, dict):
        raise msgspec.ValidationError("a stored round input is a JSON object")
    kept = known(document, _info(body))
    assert isinstance(kept, dict)
    return kept


def answer_document(body: dict[str, Any] | None) -> dict[str, Any] | None:
    """The stored first answer of a keyed write (its JSON body, None for a 204)."""
    return None if body is None else {**body, VERSION_KEY: ANSWER_FORMAT}


def decode_answer(document: Any) -> Any:
    """The body a retry gets: the stored answer without ``v``."""
    if isinstance(document, dict):
        return {k: v for k, v in document.items() if k != VERSION_KEY}
    return document


_INFOS: dict[type[msgspec.Struct], mi.Type] = {}


def _info(body: type[msgspec.Struct]) -> mi.Type:
    info = _INFOS.get(body)
    if info is None:
        info = _INFOS[body] = mi.type_info(body)
    return info


def _bare(t: mi.Type) -> mi.Type:
    while isinstance(t, mi.Metadata):
        t = t.type
    return t


def known(value: Any, t: mi.Type) -> Any:
    """`value` (decoded JSON) with every object cut down to the fields its struct type `t`
    declares (a struct's tag kept); values of other types as they are."""
    t = _bare(t)
    if isinstance(t, mi.StructType) and isinstance(value, dict):
        fields = {f.encode_name: f.type for f in t.fields}
        return {
            k: known(v, fields[k]) if k in fields else v
            for k, v in value.items()
            if k in fields or k == t.tag_field
        }
    if isinstance(t, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
        return [known(v, t.item_type) for v in value] if isinstance(value, list) else value
    if isinstance(t, mi.TupleType) and isinstance(value, list):
        return [known(v, i) for v, i in zip(value, t.item_types, strict=False)] + value[
            len(t.item_types) :
        ]
    if isinstance(t, mi.DictType) and isinstance(value, dict):
        return {k: known(v, t.value_type) for k, v in value.items()}
    if isinstance(t, mi.UnionType):
        return known(value, _branch(value, t))
    return value


def _branch(value: Any, t: mi.UnionType) -> mi.Type:
    """The member of union `t` that reads `value`: for an object, its struct (by tag when
    tagged), for an array, its array type; else `any` (kept as it is)."""
    members = [_bare(m) for m in t.types]
    if isinstance(value, dict):
        structs = [m for m in members if isinstance(m, mi.StructType)]
        for struct in structs:
            if struct.tag_field is not None and value.get(struct.tag_field) == struct.tag:
                return struct
        if len(structs) == 1:
            return structs[0]
        dicts = [m for m in members if isinstance(m, mi.DictType)]
        if dicts:
            return dicts[0]
    if isinstance(value, list):
        for m in members:
            if isinstance(m, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
                return m
    return mi.AnyType()
