"""The stored formats of the games area: an action row, an event row, an idempotent answer,
the export (issue 22, "Stored formats with a version"; STYLE 8 and 16).

Every stored document carries its schema version ``v`` and is read with a type that ignores
unknown fields (msgspec's "Schema Evolution"): during a rolling deploy an older replica reads
what a newer one wrote, and a row written before versions existed (no ``v``) reads as
version 1, its format (tests/fixtures/stored pins those rows). New fields get defaults, a
field's type never changes. The public request bodies stay strict (``forbid_unknown_fields``).

An event row holds the engine's event (:mod:`engine.core.events`: one struct per kind, its
details typed per kind) as JSON with ``v``; it is read back as that typed event, and a row
of a kind this code does not know (a newer replica's) is passed on as it was stored, since
clients keep a default branch for kinds they do not know.

Actions and checkpoints are the engine's formats (:mod:`engine.core.formats`, also read by
``MatchRecord.from_export``); this module adds the API's own documents and is the only place
the store encodes or decodes a JSON column.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import datetime
from typing import Any, Final

import msgspec
from msgspec import UNSET, UnsetType

from api.games.schemas import ActionOut, EventOut, ExportAction, SeatDeadline
from engine.core.actions import Action
from engine.core.events import EVENT_TYPES, Event, EventBase
from engine.core.formats import (
    EXPORT_FORMAT,
    MatchCheckpoint,
    action_document,
    decode_action,
    decode_checkpoint,
    encode_checkpoint,
    unboxed,
)

__all__ = [
    "ANSWER_FORMAT",
    "EVENT_FORMAT",
    "EXPORT_FORMAT",
    "PROGRESS_FORMAT",
    "MatchCheckpoint",
    "StoredAnswer",
    "StoredEvent",
    "StoredProgress",
    "action_document",
    "answer_document",
    "decode_action",
    "decode_answer",
    "decode_checkpoint",
    "decode_event",
    "encode_checkpoint",
    "encode_progress",
    "event_document",
    "event_out",
    "export_actions",
    "stored_event_out",
    "with_progress",
]

EVENT_FORMAT: Final = 1
ANSWER_FORMAT: Final = 1
PROGRESS_FORMAT: Final = 1


class StoredEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event row's payload (`game_events.payload`) of a kind this code does not know: the
    event as JSON, the kind's details in `data` (untyped), `to` the seats that may see it
    (null: everyone). Rows of known kinds decode to their typed event (:func:`decode_event`).
    """

    kind: str
    seat: int | None = None
    cards: list[str] = []
    data: dict[str, Any] = {}
    to: list[int] | None = None
    v: int = EVENT_FORMAT


class StoredAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The first answer of an action sent with an `Idempotency-Key` (`idempotency_keys.
    response`), replayed to its retries as it was sent."""

    version: int
    events: list[EventOut]
    view: dict[str, Any]
    deadlines: list[SeatDeadline] | UnsetType = UNSET
    deadline: datetime | UnsetType | None = UNSET
    v: int = ANSWER_FORMAT


class StoredProgress(msgspec.Struct, frozen=True, kw_only=True):
    """A game's `progress` column: the current round's actions so far (`played`, as a
    checkpoint's: :meth:`engine.core.match.Match.progress`), after the `actions` of the match
    that precede the round (its checkpoint's, which a cold load checks it continues), and the
    round's `state` after them when its ruleset keeps one (`null` else; a cold load takes it
    instead of applying `played`: :class:`engine.core.match.SavesState`)."""

    actions: int
    played: msgspec.Raw
    state: msgspec.Raw = msgspec.Raw(b"null")
    v: int = PROGRESS_FORMAT


_PROGRESS_JSON = msgspec.json.Decoder(StoredProgress)
_PROGRESS_ENCODER = msgspec.json.Encoder()


def encode_progress(progress: MatchCheckpoint) -> str:
    """The `progress` column of a checkpoint taken within its round (`Match.progress`)."""
    stored = StoredProgress(actions=progress.actions, played=progress.played, state=progress.state)
    return _PROGRESS_ENCODER.encode(stored).decode()


def with_progress(checkpoint: MatchCheckpoint, text: str | None) -> MatchCheckpoint:
    """`checkpoint` with the round's actions of a stored `progress` when it continues it (the
    same `actions`); else, or when unreadable, as it is (the log then supplies them)."""
    if text is None:
        return checkpoint
    try:
        progress = _PROGRESS_JSON.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return checkpoint
    if progress.actions != checkpoint.actions:
        return checkpoint
    return msgspec.structs.replace(checkpoint, played=progress.played, state=progress.state)


def event_document(event: EventBase) -> dict[str, Any]:
    """The payload stored for `event`."""
    document: dict[str, Any] = msgspec.to_builtins(event)
    document["v"] = EVENT_FORMAT
    return document


class _EventOf(msgspec.Struct):
    """A stored event as a struct's one field: `msgspec.convert` keeps a struct's field types
    once converted, but converts a union given alone (:data:`Event`) again at every call
    (0.8 µs an event through this struct, 24 µs as the union)."""

    event: Event


def decode_event(payload: Any) -> EventBase | StoredEvent:
    """A stored event: the engine's typed event of its kind (unknown fields and ``v``
    ignored), or, for a kind this code does not know, the row as it is."""
    if isinstance(payload, dict) and payload.get("kind") not in EVENT_TYPES:
        return msgspec.convert(payload, StoredEvent)
    try:
        event: EventBase = msgspec.convert({"event": payload}, _EventOf).event
    except msgspec.ValidationError as exc:
        raise unboxed(exc, "event") from None
    return event


def event_out(seq: int, event: EventBase | StoredEvent) -> EventOut:
    """The public event `seq` (`data`: the kind's typed details)."""
    return EventOut(
        seq=seq, kind=event.kind, seat=event.seat, cards=event.cards, data=event.data, to=event.to
    )


def stored_event_out(seq: int, payload: Any) -> EventOut:
    """The public event of a stored payload (unknown fields and ``v`` left out)."""
    return event_out(seq, decode_event(payload))


def answer_document(answer: ActionOut) -> dict[str, Any]:
    """The stored first answer of a keyed action."""
    document: dict[str, Any] = msgspec.to_builtins(answer)
    document["v"] = ANSWER_FORMAT
    return document


def decode_answer(document: Any) -> ActionOut:
    """The answer a retry gets: the stored one, as the public type (``v`` left out)."""
    stored = msgspec.convert(document, StoredAnswer)
    return ActionOut(
        version=stored.version,
        events=stored.events,
        view=stored.view,
        deadlines=stored.deadlines,
        deadline=stored.deadline,
    )


def export_actions(
    rows: Iterable[Any],
    bots: Collection[int] = (),
    hinted: Collection[tuple[int, int]] = (),
    timed: Collection[tuple[int, int]] = (),
) -> list[ExportAction]:
    """An export's log from the action rows (`seq`, `seat`, `action` as stored): each action
    read by the engine's codec and written as the request it was (no ``v``, nothing a newer
    replica added), so that it can be replayed and posted as it is; `"bot": true` on the
    actions of the `bots` seats, `"hint_used": true` on a `(seat, seq)` of `hinted`,
    `"timeout": true` on a `(seat, seq)` of `timed` (played when the seat's clock ran out)."""
    exported = []
    for row in rows:
        action: Action = decode_action(row.action)
        exported.append(
            ExportAction(
                row.seq,
                row.seat,
                msgspec.to_builtins(action),
                bot=row.seat in bots,
                hint_used=(row.seat, row.seq) in hinted,
                timeout=(row.seat, row.seq) in timed,
            )
        )
    return exported
