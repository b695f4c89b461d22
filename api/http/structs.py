"""The base request struct and the one page type of the API (issue 22, "HTTP concerns once").

`Strict`: every request body is frozen, keyword-only and refuses a field it does not know
(a typo is a 422 `unknown-field`, never silently dropped).

`Page`: a paginated answer, `items` and, where the list goes on, the opaque `next_cursor` to
ask the next page with (null on the last page). An answer that lists everything at once
(`GET /v1/me/api-keys`) is a `List`: `items` only. The contract fixes the field names; the
stored games' events keep their own `after` / `next_after` (a position, not a cursor)."""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

T = TypeVar("T")


class Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The base of every request body."""


class List(msgspec.Struct, Generic[T], frozen=True, kw_only=True):
    """Every item at once."""

    items: list[T]


class Page(msgspec.Struct, Generic[T], frozen=True, kw_only=True):
    """One page of a longer list; `next_cursor` asks the next one (null: the last page)."""

    items: list[T]
    next_cursor: str | None = None
