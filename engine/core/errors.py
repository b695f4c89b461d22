"""Typed engine errors (STYLE 4): a malformed request versus an illegal move.

`api/` maps these to RFC 9457 problems in one place; the engine never knows about HTTP.
An error keeps its sentence as a :class:`engine.core.texts.Said` (a text and its parameters),
so the HTTP layer words it in the caller's language; `message` is its English rendering.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.texts import DEFAULT_LANGUAGE, Message, render


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""

    code: str = "engine-error"

    def __init__(self, message: Message, *, code: str | None = None) -> None:
        english = render(message)
        super().__init__(english)
        self.said = message
        self.message = english
        if code is not None:
            self.code = code

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        """The error's sentence in `language`."""
        return render(self.said, language)


class FieldError:
    """One bad field of a request: a JSON-pointer-like path and a message (`said`, rendered
    in the caller's language; `message` in English)."""

    __slots__ = ("field", "message", "said")

    def __init__(self, field: str, message: Message) -> None:
        self.field = field
        self.said = message
        self.message = render(message)

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return render(self.said, language)

    def __repr__(self) -> str:
        return f"FieldError({self.field!r}, {self.message!r})"


class InvalidInput(EngineError):
    """The input breaks the contract: unknown card, card outside the deck, bad trick …

    `code` is a stable kebab-case identifier (`unknown-card`, `card-not-in-deck`,
    `duplicate-card`, `bad-player-count`, `bad-trick`, `missing-declared`, `bad-option`,
    `bad-request`); `field` names the offending input, e.g. ``hand[2]``.
    """

    code = "invalid-input"

    def __init__(
        self, message: Message, *, code: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(message, code=code)
        self.errors: list[FieldError] = [FieldError(field, message)] if field else []


class IllegalMove(EngineError):
    """A well-formed action the rules forbid now.

    `reason` is one of the contract's reason codes (`must-follow-color`, `not-your-turn` …);
    `legal` lists the legal alternatives as card codes or action tags, when known.
    """

    code = "illegal-move"

    def __init__(self, reason: str, message: Message, legal: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.reason = reason
        self.legal = tuple(legal)


class UnknownRuleset(EngineError):
    """No ruleset with that id is registered."""

    code = "unknown-ruleset"
