"""Actions a seat can take in a round: one tagged union for every ruleset (STYLE 8).

Each ruleset accepts the subset it needs; `legal_actions(seat)` lists concrete instances.
The exchange is passed one card at a time (`Pass`), as in OpenSpiel's hearts, so that legal
actions stay enumerable; `Exchange` is a convenience that applies several `Pass`es at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal, get_args

import msgspec
import msgspec.inspect as mi

from engine.core.errors import InvalidInput
from engine.core.texts import say, text

FIELD_TYPE = text(
    "action-field-type",
    "{name} must be {expected}, not {value!r}",
    "{name} doit être {expected}, pas {value!r}",
)

#: Bounds of the actions' integers and lists (the spec states them; the rules refuse more).
Seat = Annotated[int, msgspec.Meta(ge=0, le=7)]
Position = Annotated[int, msgspec.Meta(ge=0, le=63)]
Cards = Annotated[list[str], msgspec.Meta(max_length=16)]


class _Action(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class Play(_Action, frozen=True, tag="play"):
    """Play a card to the trick (`declared`: 17 or 0, only with numking's `infinity`)."""

    card: str
    declared: Literal[17, 0] | None = None


class Bid(_Action, frozen=True, tag="bid"):
    """numking: announce the exact number of tricks this seat will take."""

    tricks: Annotated[int, msgspec.Meta(ge=0, le=63)]


class Pass(_Action, frozen=True, tag="pass"):
    """Exchange phase: pass one card face down to the right neighbour."""

    card: str


class Exchange(_Action, frozen=True, tag="exchange"):
    """Exchange phase: pass all of this seat's cards at once (several `Pass`es)."""

    cards: Cards


class Show(_Action, frozen=True, tag="show"):
    """Partner show step: show one card to the partner; numwars-classic `alliance` may skip
    (None), numwin `teams` may not (Ruling: mandatory, before the first turn)."""

    card: str | None = None


class Neutralize(_Action, frozen=True, tag="neutralize"):
    """numwars: the complice's choice, once the trick holding Bomb + Joker + a threat ends."""

    neutralize: bool


class Draw(_Action, frozen=True, tag="draw"):
    """numwin: draw the top card of the draw pile."""


class Take(_Action, frozen=True, tag="take"):
    """numwin: take the top card of the discard pile."""


class Discard(_Action, frozen=True, tag="discard"):
    """numwin: discard the card in hand (`call`: call "Num Win" with it, ending the turn)."""

    call: bool = False


class Swap(_Action, frozen=True, tag="swap"):
    """numwin: put the card in hand at `position` of the combination, discarding the old one."""

    position: Position
    call: bool = False


class Add(_Action, frozen=True, tag="add"):
    """numwin: add the card taken from the discard as a new last card of the combination."""

    call: bool = False


class Snap(_Action, frozen=True, tag="snap"):
    """numwin: claim the uncovered discard with the card at `position` of `owner`'s combination.

    `owner` defaults to the claimant; under `teams` it may name the partner.
    """

    position: Position
    owner: Seat | None = None


class Call(_Action, frozen=True, tag="call"):
    """numwin: call "Num Win" right after a successful snap."""


class Target(_Action, frozen=True, tag="target"):
    """numwin: choose the card an action applies to (a seat's combination, a position)."""

    seat: Seat
    position: Position
    call: bool = False  # call "Num Win" with it, when it is the turn's last action


Action = (
    Play
    | Bid
    | Pass
    | Exchange
    | Show
    | Neutralize
    | Draw
    | Take
    | Discard
    | Swap
    | Add
    | Snap
    | Call
    | Target
)

#: The plain `Play` and `Pass` of each card a kernel lists, one shared value each
#: (:func:`shared_play`, :func:`shared_pass`): a kernel finds its legal actions by identity
#: (the fast path of its `apply`), and a stored action decodes to these values
#: (:func:`engine.core.formats.decode_action`), so that a replay takes that path too. Filled
#: by the kernels at import only, never by what a client sends (bounded by the decks).
SHARED_PLAYS: dict[str, Play] = {}
SHARED_PASSES: dict[str, Pass] = {}


def shared_play(card: str) -> Play:
    """The shared `Play(card)` (made on first call: kernels call this when imported)."""
    play = SHARED_PLAYS.get(card)
    if play is None:
        play = SHARED_PLAYS[card] = Play(card)
    return play


def shared_pass(card: str) -> Pass:
    """The shared `Pass(card)` (made on first call: kernels call this when imported)."""
    passed = SHARED_PASSES.get(card)
    if passed is None:
        passed = SHARED_PASSES[card] = Pass(card)
    return passed


def _accepts(t: mi.Type) -> tuple[Callable[[object], bool], str]:
    """A test for a value of msgspec type `t` (the kinds actions use) and its name."""
    if isinstance(t, mi.Metadata):  # bounds: the rules check them, with better messages
        return _accepts(t.type)
    if isinstance(t, mi.LiteralType):
        values = t.values
        return (lambda v: type(v) is int and v in values), " or ".join(map(str, values))
    if isinstance(t, mi.BoolType):
        return (lambda v: type(v) is bool), "a boolean"
    if isinstance(t, mi.IntType):
        return (lambda v: type(v) is int), "an integer"
    if isinstance(t, mi.StrType):
        return (lambda v: type(v) is str), "a string"
    if isinstance(t, mi.UnionType) and len(t.types) == 2 and isinstance(t.types[1], mi.NoneType):
        test, name = _accepts(t.types[0])
        return (lambda v: v is None or test(v)), f"{name} or null"
    if isinstance(t, mi.ListType):
        item, name = _accepts(t.item_type)
        return (lambda v: type(v) is list and all(map(item, v))), f"a list of {name[2:]}s"
    raise TypeError(f"no field check for {t!r}")  # a new kind of field: add it here


#: Per action class, each field's name, test and expected type, from the structs themselves.
_FIELD_CHECKS = {
    cls: [(f.name, *_accepts(f.type)) for f in mi.type_info(cls).fields]  # type: ignore[attr-defined]
    for cls in get_args(Action)
}


def check_fields(action: object) -> None:
    """Refuse an action built in Python whose field has the wrong type (`InvalidInput`, naming
    the field); anything but an action passes, for the round to refuse by its type.

    Decoded from JSON (`msgspec`, as the API does), actions always have the declared types;
    built by hand they may not, and the mypyc-compiled round states would then raise a
    TypeError or read a bool as an int. The compiled round states call this before reading an
    action's fields (numwin: every action; the Num Wars editions: off their fast path, which
    takes only the turn's own legal plays), in both builds alike.
    """
    for name, test, expected in _FIELD_CHECKS.get(type(action), ()):
        value = getattr(action, name)
        if not test(value):
            raise InvalidInput(
                say(FIELD_TYPE, name=name, expected=expected, value=value),
                code="bad-request",
                field=name,
            )
