"""The engine's stored formats: an action as a log stores it, a match checkpoint, a game's
export (issue 22, "Stored formats with a version"; STYLE 8 and 16).

A stored document outlives the code that wrote it: during a rolling deploy an older replica
reads rows a newer one wrote, and any replica reads rows written years ago. So, following
msgspec's "Schema Evolution" rules, every stored type here

* carries a schema version, ``v`` (1 today, 2 for the checkpoint since issue 27: see
  :class:`MatchCheckpoint`; a document written before versions existed has none and reads as
  1, which is its format: the fixtures in tests/fixtures/stored pin it);
* accepts unknown fields (no ``forbid_unknown_fields``): a field a newer writer added is
  ignored by an older reader;
* gets new fields only with defaults, and never changes a field's type.

The request types stay strict (``forbid_unknown_fields`` on :mod:`engine.core.actions`): a
client's typo must be refused, a newer replica's field must not. Hence the stored action
types: one lenient twin per action type (same tag, same fields, same types, plus ``v``),
built from the request types so that they can never drift apart. Decoding a stored action
goes through its twin and gives the engine's own action (:func:`decode_action`): for a plain
play or pass, the value the kernels share (:data:`engine.core.actions.SHARED_PLAYS`), which
their `apply` recognises without checking it again (a replay's cost halved).

One codec serves storage (``api.games``), the export and :meth:`MatchRecord.from_export`.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import operator
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast, get_args

import msgspec

from engine.core.actions import SHARED_PASSES, SHARED_PLAYS, Action, Pass, Play
from engine.core.base import RoundScore, RoundSetup

__all__ = [
    "ACTION_FORMAT",
    "CHECKPOINT_FORMAT",
    "EXPORT_FORMAT",
    "STORED_ACTIONS",
    "Export",
    "ExportAction",
    "ExportPlayer",
    "MatchCheckpoint",
    "action_document",
    "decode_action",
    "decode_checkpoint",
    "decode_export",
    "decode_played",
    "decode_round_score",
    "encode_action",
    "encode_checkpoint",
    "encode_played",
    "encode_round_score",
]

#: The schema versions written today (a document without ``v`` is version 1).
ACTION_FORMAT: Final = 1
CHECKPOINT_FORMAT: Final = 2
EXPORT_FORMAT: Final = 1


class _StoredActionBase(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """A stored action: lenient (unknown fields ignored), with its schema version."""

    v: int = ACTION_FORMAT


def _twin(cls: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """The stored twin of the request action type `cls`: same tag, fields, types, defaults."""
    info = msgspec.structs.fields(cls)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = [
        (f.name, f.type) if f.required else (f.name, f.type, f.default) for f in info
    ]
    return msgspec.defstruct(
        f"Stored{cls.__name__}",
        fields,
        bases=(_StoredActionBase,),
        tag=cls.__struct_config__.tag,
        frozen=True,
        kw_only=True,
        module=__name__,
    )


_ACTION_TYPES: tuple[type[msgspec.Struct], ...] = get_args(Action)
#: Each request action type's stored twin.
STORED_ACTIONS = {cls: _twin(cls) for cls in _ACTION_TYPES}
_FROM_TWIN = {twin: cls for cls, twin in STORED_ACTIONS.items()}
for _cls, _twin_cls in STORED_ACTIONS.items():  # `v` first, then the request's fields in its order
    assert _twin_cls.__struct_fields__ == ("v", *_cls.__struct_fields__), _cls
#: The union of the stored action types (tagged by ``type``, as the requests' union).
_STORED_UNION: Any = functools.reduce(operator.or_, STORED_ACTIONS.values())

_ACTION_JSON = msgspec.json.Decoder(_STORED_UNION)
#: A stored action as a struct's one field: `msgspec.convert` keeps a struct's field types
#: once converted, but converts a union given alone again at every call (a decoded
#: document's action: 0.9 µs through this struct, about 25 µs as the union).
_ACTION_OF: Any = msgspec.defstruct("_StoredActionOf", [("action", _STORED_UNION)])


_STORED_PLAY: Final = STORED_ACTIONS[Play]
_STORED_PASS: Final = STORED_ACTIONS[Pass]


def _from_twin(stored: Any) -> Action:
    """The request action of a stored twin (positional: a third of keyword arguments' cost):
    a kernel's shared value for a plain play or pass (:data:`engine.core.actions.SHARED_PLAYS`:
    its `apply` finds those by identity, half the cost of checking an equal one)."""
    kind = type(stored)
    shared: Action | None = None
    if kind is _STORED_PLAY and stored.declared is None:
        shared = SHARED_PLAYS.get(stored.card)
    elif kind is _STORED_PASS:
        shared = SHARED_PASSES.get(stored.card)
    if shared is not None:
        return shared
    return cast(Action, _FROM_TWIN[kind](*msgspec.structs.astuple(stored)[1:]))


def decode_action(document: str | bytes | Mapping[str, Any]) -> Action:
    """The engine's action from a stored one: JSON text (a log read as text, the fast path)
    or a decoded document (a JSON column, an export). Unknown fields are ignored; a field's
    bounds are the request's (msgspec.ValidationError else)."""
    if isinstance(document, str | bytes):
        return _from_twin(_ACTION_JSON.decode(document))
    try:
        boxed = msgspec.convert({"action": document}, _ACTION_OF)
    except msgspec.ValidationError as exc:
        raise unboxed(exc, "action") from None
    return _from_twin(boxed.action)


def unboxed(error: msgspec.ValidationError, field: str) -> msgspec.ValidationError:
    """`error` of a document converted as a one-field struct's `field` (:data:`_ACTION_OF`),
    as converting the document alone says it: its path without the struct's field."""
    text = str(error).replace(f" - at `$.{field}`", "").replace(f"`$.{field}", "`$")
    return msgspec.ValidationError(text)


def action_document(action: Action) -> dict[str, Any]:
    """The stored document of `action` (a JSON column's value): its fields and ``v``."""
    document: dict[str, Any] = msgspec.to_builtins(action)
    document["v"] = ACTION_FORMAT
    return document


def encode_action(action: Action) -> bytes:
    """`action` as stored JSON text."""
    return msgspec.json.encode(action_document(action))


class MatchCheckpoint(msgspec.Struct, frozen=True, kw_only=True):
    """Where a match stands at the start of its current round: enough to resume it there
    (:meth:`engine.core.match.Match.resume`, "Checkpoints" in :mod:`engine.core.match`).

    `actions`: how many actions of the whole match's history precede the round's first one;
    `index`: the round's index, 0-based (tie-break rounds continue the count); `setup`: the
    round's setup as the match built it; `scores`: each finished round's scores by seat, in
    order (as many as `index`: what resuming reads); `rounds`: each finished round's whole
    :class:`RoundScore` (its breakdown), compressed (:func:`encode_round_score`) and read only
    when the match needs it (its result, a tie-break); `totals`: each seat's total over the
    finished regular rounds;
    `tied`: the seats still tied, in a tie-break round (else empty); `played`: the round's
    actions so far as `[[seat, action], …]` JSON, kept raw until resuming applies them (empty
    at the round's start; :meth:`engine.core.match.Match.progress` fills it, so a cold load
    reads a few rows of the log instead of the whole round: issue 27's growth); `state`: the
    round's state after `played`, as JSON, when its ruleset keeps one (`null` else: a round
    object's `save_state`, :class:`engine.core.match.SavesState`), which resuming takes
    instead of applying `played`; `v`: the
    stored format (a stored document: unknown fields are ignored, module docstring).

    Version 1 held the finished rounds as JSON objects, in `round_scores` (`scores` and
    `rounds` empty): parsing them (4 µs a KB, 57 KB in the last round of an 8-player
    numwars-classic match) cost a late round's cold load more than replaying the round
    (issue 27); compressed strings are 6 times smaller and read without being parsed.
    Version 2 writes `round_scores` empty (a version-1 reader refuses the checkpoint, its
    `index` not matching it, and replays the whole log); this code reads both. `played` came
    later within version 2: a reader that does not know it resumes at the round's start and
    applies the round's actions from the log, as before; `state` later still (a reader that
    does not know it applies `played`).
    """

    actions: int
    index: int
    setup: RoundSetup
    round_scores: list[RoundScore] = []
    totals: list[int]
    tied: list[int]
    scores: list[list[int]] = []
    rounds: list[str] = []
    played: msgspec.Raw = msgspec.Raw(b"[]")
    state: msgspec.Raw = msgspec.Raw(b"null")
    v: int = 1  # a document without `v` is version 1: the writer sets CHECKPOINT_FORMAT


_CHECKPOINT_JSON = msgspec.json.Decoder(MatchCheckpoint)
_ENCODER = msgspec.json.Encoder()


def encode_checkpoint(checkpoint: MatchCheckpoint) -> str:
    """The checkpoint as stored JSON text (``v`` written out)."""
    return _ENCODER.encode(checkpoint).decode()


#: A checkpoint's `played`: each action read through its lenient stored twin, as the log's.
_PLAYED_JSON = msgspec.json.Decoder(list[tuple[int, _STORED_UNION]])


def encode_played(played: Sequence[tuple[int, Action]]) -> msgspec.Raw:
    """A round's actions as a checkpoint's `played` (each action as its request's JSON, which
    its stored twin reads: a document without ``v`` is version 1)."""
    return msgspec.Raw(_ENCODER.encode(played))


def read_round_state(
    saved: msgspec.Raw, decoder: msgspec.json.Decoder[Any], version: int, actions: int
) -> Any:
    """A round's stored state within its round (`engine/<game>/state.py`: a JSON array led by
    its form's version, then the number of the round's actions it follows), decoded by
    `decoder`; None when it is of another version than `version` (not read: the caller applies
    the round's actions instead). ValueError, or msgspec's DecodeError or ValidationError,
    when it is not such an array or follows another number of actions than `actions`."""
    text = bytes(saved)
    comma = text.find(b",", 0, 24)
    head = text[1:comma] if comma > 0 else b""
    if not (text.startswith(b"[") and head.isdigit()):
        raise ValueError("the state is not an array led by its version")
    if int(head) != version:
        return None
    state = decoder.decode(text)
    if state.actions != actions:
        raise ValueError(f"the state follows {state.actions} actions, not {actions}")
    return state


def encode_round_state(version: int, actions: int, values: tuple[Any, ...]) -> msgspec.Raw:
    """A round's state as stored (:func:`read_round_state` reads it): its form's `version`,
    the number of the round's `actions` it follows, then its kernel's `state_values`."""
    return msgspec.Raw(_ENCODER.encode((version, actions, *values)))


def state_fields(state: msgspec.Struct) -> dict[str, Any]:
    """A decoded round state's fields after its version and its count of actions, by name:
    what the game's kernel `restore_values` takes."""
    return {name: getattr(state, name) for name in state.__struct_fields__[2:]}


#: A checkpoint's `played` read as the request actions it was written from (:func:`encode_played`).
_PLAYED_AS_SENT = msgspec.json.Decoder(list[tuple[int, Action]])


def decode_played(played: msgspec.Raw, *, shared: bool = True) -> list[tuple[int, Action]]:
    """A checkpoint's `played` as (seat, action) pairs (msgspec.DecodeError or ValidationError
    when unreadable), a plain play or pass as the kernels' shared value (:func:`decode_action`).

    Not `shared`: each action as the request type it was written from, read by msgspec alone
    (half the cost: no Python call per action), for actions that are not applied (a round's
    stored state is taken after them, :meth:`engine.core.match.Match.resume`); a document the
    strict request types refuse (a newer replica's field) is read through the twins."""
    if not shared:
        with contextlib.suppress(msgspec.ValidationError):
            return _PLAYED_AS_SENT.decode(played)
    return [(seat, _from_twin(stored)) for seat, stored in _PLAYED_JSON.decode(played)]


def decode_checkpoint(text: str | bytes) -> MatchCheckpoint:
    """A stored checkpoint (msgspec.DecodeError or ValidationError when unreadable): version 2's
    `rounds` stay JSON (:func:`decode_round_score` reads one)."""
    return _CHECKPOINT_JSON.decode(text)


_ROUND_SCORE_JSON = msgspec.json.Decoder(RoundScore)


def encode_round_score(scores: RoundScore) -> str:
    """A finished round's scores as a checkpoint's `rounds` stores them: the base64 (RFC 4648)
    of the zlib stream (RFC 1950) of their JSON."""
    return base64.b64encode(zlib.compress(_ENCODER.encode(scores))).decode("ascii")


def decode_round_score(stored: str) -> RoundScore:
    """One of a checkpoint's `rounds` (msgspec.DecodeError or ValidationError)."""
    try:
        data = zlib.decompress(base64.b64decode(stored, validate=True))
    except (ValueError, zlib.error) as exc:
        raise msgspec.DecodeError(f"not a stored round: {exc}") from None
    return _ROUND_SCORE_JSON.decode(data)


class ExportPlayer(msgspec.Struct, frozen=True):
    seat: int
    name: str


class ExportAction(msgspec.Struct, frozen=True):
    """One action of an export's log: `seq` is the game's version it produced."""

    seq: int
    seat: int
    action: Any  # a stored action document, read by `decode_action`


class Export(msgspec.Struct, frozen=True, kw_only=True):
    """The fields of a game's export that replay reads (api-contract.md, "Stored games"; more
    fields may be added: they are ignored). `v`: the export's format."""

    ruleset: str
    options: dict[str, Any] = {}
    rules_version: int
    players: list[ExportPlayer]
    seed: int | None = None
    seed_commitment: str | None = None
    salt: str | None = None
    actions: list[ExportAction]
    v: int = EXPORT_FORMAT


def decode_export(export: bytes | str | Mapping[str, Any]) -> tuple[Export, list[Action]]:
    """An export and its actions as the engine's (msgspec.DecodeError or ValidationError)."""
    if isinstance(export, bytes | str):
        data = msgspec.json.decode(export, type=Export)
    else:
        data = msgspec.convert(dict(export), type=Export)
    actions = []
    for i, entry in enumerate(data.actions):
        try:
            actions.append(decode_action(entry.action))
        except msgspec.ValidationError as exc:
            raise msgspec.ValidationError(f"{exc} - at `$.actions[{i}].action`") from None
    return data, actions
