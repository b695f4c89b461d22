"""Typed engine errors (STYLE 4): a malformed request versus an illegal move.

`api/` maps these to RFC 9457 problems in one place; the engine never knows about HTTP.
An error keeps its sentence as a :class:`engine.core.texts.Said` (a text and its parameters),
so the HTTP layer words it in the caller's language; `message` is its English rendering.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.texts import DEFAULT_LANGUAGE, Message, join_details, render, text

#: "<field>: <message>", in French "<field> : <message>" (a detail that lists fields).
FIELD_DETAIL = text("field-detail", "{field}: {message}", "{field}\u00a0: {message}")


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
    """One bad field of a request: a JSON-pointer-like path, a message (`said`, rendered in
    the caller's language; `message` in English) and, when it differs from its error's, the
    field's own code."""

    __slots__ = ("code", "field", "message", "said")

    def __init__(self, field: str, message: Message, code: str | None = None) -> None:
        self.field = field
        self.said = message
        self.message = render(message)
        self.code = code

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return render(self.said, language)

    def __repr__(self) -> str:
        return f"FieldError({self.field!r}, {self.message!r}, {self.code!r})"


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
        self.errors: list[FieldError] = [FieldError(field, message, self.code)] if field else []

    @classmethod
    def every(cls, found: Sequence[InvalidInput]) -> InvalidInput:
        """Independent refusals (each bad card of a request …) as one naming every field:
        the one itself when alone; else its code is theirs when they share one, else
        `validation-error`, and its message lists them ("<field>: <message>; …")."""
        if len(found) == 1:
            return found[0]
        codes = {e.code for e in found}
        errors = [f for e in found for f in e.errors]
        message = "; ".join(f"{f.field}: {f.message}" for f in errors)
        combined = cls(message, code=codes.pop() if len(codes) == 1 else "validation-error")
        combined.errors = errors
        combined.joined = True
        return combined

    #: Whether the message lists :attr:`errors` (:meth:`every`): then it is said again in
    #: each language from theirs, not kept in English.
    joined = False

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        if self.joined:
            return join_details(
                (
                    FIELD_DETAIL.render(language, field=f.field, message=f.render(language))
                    for f in self.errors
                ),
                language,
            )
        return super().render(language)


#: The reason codes of an illegal move (api-contract, "Reason codes for an illegal move"): the
#: first broken obligation of a trick game, then the stored games' own. A closed set, stated
#: in the spec as the `reason` of a stored game's 422 `illegal-move`; new ones may be added.
MOVE_REASONS = (
    "card-not-in-hand",
    "special-lead",
    "must-follow-color",
    "must-play-trump",
    "must-raise",
    "must-beat",
    "bad-bid",
    "role-card-locked",
    "combination-full",
    "card-locked",
    "cannot-call",
    "not-your-decision",
)
#: Who may act and when: raised as illegal moves by the engine, answered by a stored game as a
#: status (409) whose `code` and `reason` are the reason.
TURN_REASONS = ("not-your-turn", "wrong-phase", "game-over")


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
