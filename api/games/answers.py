"""A game's answers as JSON, a view's growing lists encoded once (issue 27, "every layer paid
for").

A read or an action answers the seat's view. A Num Wars view holds every finished trick of
its round, about two thirds of the answer's bytes late in a round, and each answer encoded
them all again. A view names such lists in `GROWS` (:class:`engine.core.view.BaseView`):
within a round they only grow, their elements the very objects from one view to the next.
:class:`AnswerEncoder` keeps the JSON of each such list it encoded, by its first and last
element and its length, and encodes a list one element longer as the kept JSON plus that
element. The view is encoded with those lists empty, the kept JSON put in their place; the
bytes are those `msgspec.json.encode(answer)` gives (tests/games/test_answers.py).

The store is bounded (`size` lists, emptied when full) and holds only what a process shows:
one entry a game in play (its seats' and spectators' views share its tricks), an extended
list taking its shorter one's place. A list of fewer than two elements, or a view without
such lists, is encoded as it is.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["AnswerEncoder", "encode_answer"]

_ENCODE = msgspec.json.Encoder().encode


class AnswerEncoder:
    """`msgspec.json.encode` for an answer whose `view` may name growing lists (module
    docstring); any other answer is encoded as it is."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        #: id of a list's last element -> (its first, its last, its length, its JSON); the
        #: elements are held, so their ids are not reused while they are kept
        self._kept: dict[int, tuple[Any, Any, int, bytes]] = {}
        #: A view type's growing lists: (name, `"name":[]`)
        self._grows: dict[type, tuple[tuple[str, bytes], ...]] = {}
        #: Lists encoded whole, and lists extended by their new element (tests).
        self.whole = 0
        self.extended = 0

    def __call__(self, answer: Any) -> bytes:
        view: Any = getattr(answer, "view", None)
        kind = type(view)
        grows = self._grows.get(kind)
        if grows is None:
            names: tuple[str, ...] = getattr(kind, "GROWS", ())
            grows = self._grows[kind] = tuple((n, b'"%s":[]' % n.encode()) for n in names)
        spliced = view
        found: list[tuple[bytes, Any]] = []
        for name, empty in grows:
            items = getattr(view, name)
            if len(items) > 1:
                spliced = msgspec.structs.replace(spliced, **{name: []})
                found.append((empty, items))
        if not found:
            return _ENCODE(answer)
        text = _ENCODE(spliced)
        for empty, items in found:
            if text.count(empty) != 1:  # the name elsewhere too: not worth telling apart
                return _ENCODE(answer)
            text = text.replace(empty, empty[:-2] + self._json(items), 1)
        return _ENCODE(msgspec.structs.replace(answer, view=msgspec.Raw(text)))

    def _json(self, items: list[Any]) -> bytes:
        """The JSON of `items`, kept or extended from the kept JSON of all but its last."""
        first, last, length = items[0], items[-1], len(items)
        kept = self._kept.get(id(last))
        if kept is not None and kept[0] is first and kept[1] is last and kept[2] == length:
            return kept[3]
        before = items[-2]
        kept = self._kept.get(id(before))
        if kept is not None and kept[0] is first and kept[1] is before and kept[2] == length - 1:
            json = b"%s,%s]" % (kept[3][:-1], _ENCODE(last))
            del self._kept[id(before)]  # the shorter list is not shown again
            self.extended += 1
        else:
            json = _ENCODE(items)
            self.whole += 1
        if len(self._kept) >= self.size:
            self._kept.clear()
        self._kept[id(last)] = (first, last, length, json)
        return json


#: The process's encoder of game answers (api.games.fast, api.games.routes).
encode_answer = AnswerEncoder()
