"""What a ruleset declares about itself (STYLE 13): one `RulesetSpec` per game, in its folder
(`engine/<game>/spec.py`, `SPEC`), listed once in :mod:`engine.registry`.

As python-chess's variants carry their identity and capabilities as class attributes and
OpenSpiel's games register a `GameType`, a spec holds everything the API needs of a game:
its identity and names, the View struct and the action types of its stored games, whether
the lowest score wins, whether it is a community game, its stateless operations (request
struct, answer struct, the engine call, texts, refusals and rule-book examples), its deck
query, how a score sheet turns a round body into a complete `score-round` request (and
re-derives a later round), its per-round stats and its rules summary. `api/` loops over the
registry and never names a ruleset.

A spec is checked when it is built, so a game that misses a declaration fails when its
module is imported, with a message naming what is missing, never at a first request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import msgspec

from engine.core.actions import Action
from engine.core.base import DeckInfo, RoundScore
from engine.core.bots import BotSupport
from engine.core.errors import FieldError, InvalidInput
from engine.core.match import Rules
from engine.core.texts import Message, say, text

#: A refusal of a schema-valid request that JSON Schema cannot state: (what, problem code).
Refusal = tuple[str, str]
#: A rule-book request example: (name, source, request body).
Example = tuple[str, str, dict[str, Any]]


class SpecError(TypeError):
    """A ruleset's declaration is incomplete or inconsistent (raised when it is built)."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: The default of every required declaration: building a spec without it names it.
MISSING: Any = _Missing()
#: The action types of the engine's `Action` union (`type` tags).
ACTION_TYPES = frozenset(cls.__struct_config__.tag for cls in Action.__args__)
#: The rules summary's sections, in the order the app's card shows them.
SECTIONS = ("setup", "turn", "hierarchy", "scoring")
LANGUAGES = ("en", "fr")


def _missing(obj: object) -> list[str]:
    return [f.name for f in fields(obj) if getattr(obj, f.name) is MISSING]  # type: ignore[arg-type]


def _struct(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, msgspec.Struct)


def _check(owner: str, missing: list[str], problems: list[str]) -> None:
    if missing:
        problems.insert(0, "misses " + ", ".join(missing))
    if problems:
        raise SpecError(f"{owner}: " + "; ".join(problems))


@dataclass(frozen=True, kw_only=True)
class Operation:
    """A stateless `POST /v1/rulesets/{id}/{path}` operation: decode `request`, answer
    `call(request)` (an `answer` struct); an answer holding sentences (a move's message) is
    given by `call_in(request, language)` when the operation declares it."""

    path: str = MISSING  # deal, legal-moves, validate-move, resolve-trick, score-round …
    request: type[msgspec.Struct] = MISSING
    answer: type[msgspec.Struct] = MISSING
    call: Callable[[Any], Any] = MISSING
    #: the call answering in a language (`en`, `fr`): its sentences are rendered in it
    call_in: Callable[[Any, str], Any] | None = None
    summary: str = MISSING  # "deal a round" (the spec prefixes the ruleset's name)
    description: str = MISSING  # what it does; the rules and refusals are added by the API
    #: the rules summary's section the description quotes
    section: str = MISSING
    refusals: Sequence[Refusal] = ()
    examples: Sequence[Example] = ()

    def __post_init__(self) -> None:
        problems = []
        if self.request is not MISSING and not _struct(self.request):
            problems.append("`request` is not a msgspec struct")
        if self.answer is not MISSING and not _struct(self.answer):
            problems.append("`answer` is not a msgspec struct")
        if self.call is not MISSING and not callable(self.call):
            problems.append("`call` is not callable")
        if self.section is not MISSING and self.section not in SECTIONS:
            problems.append(f"`section` {self.section!r} is none of {', '.join(SECTIONS)}")
        _check(f"operation {self.path!r}", _missing(self), problems)


@dataclass(frozen=True, kw_only=True)
class DeckOperation:
    """`GET /v1/rulesets/{id}/deck`: `query` holds `players` and the deck's options, each a
    query parameter (its `msgspec.Meta` bounds and description become the parameter's);
    `call(query)` answers the deck."""

    query: type[msgspec.Struct] = MISSING
    call: Callable[[Any], DeckInfo] = MISSING
    description: str = MISSING
    refusals: Sequence[Refusal] = ()

    def __post_init__(self) -> None:
        problems = []
        if self.query is not MISSING and (
            not _struct(self.query) or "players" not in self.query.__struct_fields__
        ):
            problems.append("`query` is not a msgspec struct with a `players` field")
        _check("deck operation", _missing(self), problems)


def first_round(rules: Rules, players: int) -> int:
    """A lone simulated round is round 1 (the default of `RulesetSpec.lone_round`)."""
    return 1


def no_rederive(data: dict[str, Any], n: int, previous: RoundScore | None) -> dict[str, Any]:
    """A round's stored input as it is: it does not depend on the rounds before it."""
    return data


@dataclass(frozen=True, kw_only=True)
class SheetRounds:
    """How a score sheet scores its rounds (rules/app.md, "Score sheets").

    `body` is a round's request body (the `score-round` request with what the sheet knows left
    out, plus `dealer`); `complete(body, n, previous, options)` returns round `n`'s complete
    `score-round` request (a dict of builtins) from it, `previous` being round n-1's scores
    and `options` the sheet's options as builtins; it raises `InvalidInput` (with a code and a
    field) when the body contradicts what the sheet derives. `rederive(input, n, previous)`
    redoes that derivation for a stored round renumbered to `n` or after a changed earlier
    round. `most_rounds(rules, players)`: the most regular rounds a sheet may plan (None: no
    limit). `role(input, seat)`: the role a seat played in a round, for per-role stats (None:
    the ruleset has no roles)."""

    body: type[msgspec.Struct] = MISSING
    complete: Callable[[Any, int, RoundScore | None, dict[str, Any]], dict[str, Any]] = MISSING
    rederive: Callable[[dict[str, Any], int, RoundScore | None], dict[str, Any]] = no_rederive
    most_rounds: Callable[[Any, int], int] | None = None
    role: Callable[[dict[str, Any], int], str] | None = None
    #: what `complete` refuses beyond the `score-round` request's own refusals
    refusals: Sequence[Refusal] = ()

    def __post_init__(self) -> None:
        problems = []
        if self.body is not MISSING and (
            not _struct(self.body) or not {"players", "dealer"} <= set(self.body.__struct_fields__)
        ):
            problems.append("`body` is not a msgspec struct with `players` and `dealer`")
        _check("sheet rounds", _missing(self), problems)


@dataclass(frozen=True, kw_only=True)
class RulesetSpec:
    """Everything the API needs of one ruleset (see the module docstring)."""

    #: the rules class: `id`, `name`, `min_players`, `max_players`, `Options`, `rules_version`
    #: … (`engine.core.match.Rules`, which mypy checks the class against here)
    rules: type[Rules] = MISSING
    names: Mapping[str, str] = MISSING  # by language: en, fr
    view: type[msgspec.Struct] = MISSING  # the stored games' view
    view_component: str = MISSING  # its OpenAPI component name (NumWarsView …)
    actions: tuple[str, ...] = MISSING  # the action types its stored games take
    phases: tuple[str, ...] = MISSING  # every `phase` its views say, "over" included
    lowest_wins: bool = MISSING  # the best round score is the lowest
    community: bool = MISSING  # rules/app.md "Jeux de la communauté 🔒": needs an account
    deck: DeckOperation = MISSING
    operations: tuple[Operation, ...] = MISSING  # in the spec's order
    sheet: SheetRounds = MISSING
    #: the rules summary (the app's card): language → (description, section → text)
    summary: Mapping[str, tuple[str, Mapping[str, str]]] = MISSING
    #: its bots (issue 25): the sampler of worlds a seat cannot tell apart and the basic
    #: heuristic, in its `bots.py` (engine.core.bots, engine.bots)
    bots: BotSupport = MISSING
    #: rulings the card leaves out, by operation (`score_round` …), as the API docs state them
    notes: Mapping[str, str] = field(default_factory=dict)
    #: the round number a lone simulated round plays (`numrules simulate`, the property
    #: tests) at a table of that many players: round 1 unless the game's rounds differ
    lone_round: Callable[[Rules, int], int] = first_round

    def __post_init__(self) -> None:
        problems: list[str] = []
        owner = "ruleset spec"
        if self.rules is not MISSING:
            owner = f"ruleset spec {getattr(self.rules, 'id', self.rules)!r}"
            for name in ("id", "name", "min_players", "max_players", "Options", "rules_version"):
                if not hasattr(self.rules, name):
                    problems.append(f"the rules class has no `{name}`")
        if self.names is not MISSING and set(LANGUAGES) - set(self.names):
            problems.append(f"`names` needs {', '.join(LANGUAGES)}")
        elif (
            self.names is not MISSING
            and self.rules is not MISSING
            and self.names["en"] != getattr(self.rules, "name", None)
        ):
            problems.append("`names['en']` is not the rules class's `name`")
        if self.view is not MISSING and not _struct(self.view):
            problems.append("`view` is not a msgspec struct")
        if self.actions is not MISSING:
            unknown = sorted(set(self.actions) - ACTION_TYPES)
            if not self.actions or unknown:
                problems.append(f"`actions` must be action types of engine.core.actions: {unknown}")
        if self.phases is not MISSING and "over" not in self.phases:
            problems.append("`phases` must list every phase of a round, `over` included")
        if self.operations is not MISSING:
            paths = [op.path for op in self.operations]
            if len(set(paths)) != len(paths) or "deck" in paths:
                problems.append("operation paths must be unique (and not `deck`)")
            if "score-round" not in paths:
                problems.append("a `score-round` operation is needed (score sheets use it)")
        if self.bots is not MISSING and not isinstance(self.bots, BotSupport):
            problems.append("`bots` is not a BotSupport")
        if self.summary is not MISSING:
            for language in LANGUAGES:
                text = self.summary.get(language)
                if text is None or set(SECTIONS) - set(text[1]):
                    problems.append(f"`summary` needs {language} with {', '.join(SECTIONS)}")
        _check(owner, _missing(self), problems)

    @property
    def id(self) -> str:
        return str(self.rules.id)

    @property
    def name(self) -> str:
        return str(self.rules.name)

    @property
    def min_players(self) -> int:
        return int(self.rules.min_players)

    @property
    def max_players(self) -> int:
        return int(self.rules.max_players)

    @property
    def options(self) -> type[msgspec.Struct]:
        options: type[msgspec.Struct] = self.rules.Options
        return options

    def operation(self, path: str) -> Operation:
        for op in self.operations:
            if op.path == path:
                return op
        raise KeyError(path)

    def score(self, data: dict[str, Any]) -> RoundScore:
        """A complete `score-round` request's score, by the stateless operation's own call
        (score sheets score their rounds so): msgspec's ValidationError or an EngineError."""
        op = self.operation("score-round")
        answer: RoundScore = op.call(msgspec.convert(data, op.request, strict=True))
        return answer


FIELD_DETAIL = text("field-detail", "{field}: {message}", "{field}\u00a0: {message}")


def mismatch(code: str, field_name: str, message: Message) -> InvalidInput:
    """A round body that contradicts what the sheet derives (422 `code`, naming the field)."""
    exc = InvalidInput(say(FIELD_DETAIL, field=field_name, message=message), code=code)
    exc.errors = [FieldError(field_name, message)]
    return exc


# --- the texts the games' operations share -------------------------------------------------

DECK_DOC = (
    "The whole deck of that format (`cards`), the hand size, how many of its cards are not "
    "dealt (`set_aside`), and `out_of_play`: the cards of `cards` that never take part in a "
    "round at that table, so a front-end never offers them (a round naming one is refused); "
    "empty except for 3-player `numwars`, where it holds `joker`, the set-aside card."
)
DEAL_DOC = (
    "Deal a round from a seed: the same ruleset, options, player count and seed always give the "
    "same hands. Shows every hand, so it is meant for physical-card helpers and tests; stored "
    "games keep hands secret."
)
LEGAL_DOC = "The cards of `hand` that may be played on `trick` (empty trick: a lead)."
VALIDATE_DOC = (
    "Whether `card` may be played. An illegal move is not an HTTP error: the answer is 200 with "
    "`legal: false`, the first broken obligation as `reason` and the legal alternatives."
)
RESOLVE_DOC = "Resolve a complete trick (exactly one card per player, in play order)."
SCORE_DOC = "Score one round from what each player captured, with a line-by-line breakdown."

# The refusals of schema-valid requests, by kind (each operation lists its own).
NOT_IN_DECK = ("a card outside the deck of that player count", "card-not-in-deck")
BAD_TRICK = (
    "a trick seat that is not a seat of the table, repeated, or out of clockwise order from the "
    "leader, or a trick that already holds one card per player",
    "bad-trick",
)
RESOLVE_TRICK = (
    "a trick that is not exactly one card per player, a seat that is not a seat of the table, "
    "repeated, or out of clockwise order from the leader",
    "bad-trick",
)


def duplicates(where: str) -> Refusal:
    return (f"a card more often than the deck holds it, {where}", "duplicate-card")


HAND_AND_TRICK = duplicates("within a list or across `hand`, `trick` (and `card`)")
