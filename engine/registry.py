"""Ruleset registry (STYLE 6, 13): ruleset ids → what each game declares (`SPECS`, its
`engine/<game>/spec.py`) and its rules class (`RULESETS`); options → typed structs.

Adding a ruleset is one folder and one line of `_GAMES` below: `api/` builds its routes,
stored games, score sheets, stats and CLI from these two dicts when the app is built.
`register` adds a spec after import (the test-only ruleset of tests/fixtures does), before
`api.app.create_app()`.

It also installs itself as the rules lookup of :func:`engine.core.match.replay` (core
imports no game, so a record's rules are found through this lookup; see that module's
"Replay and the registry").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from engine.core.errors import InvalidInput, UnknownRuleset
from engine.core.match import Rules, set_rules_lookup
from engine.core.spec import RulesetSpec, SpecError
from engine.core.texts import BY_RULESET, RULESET_NAMES, Text, say, text
from engine.numking import spec as numking
from engine.numwars import spec as numwars
from engine.numwars_classic import spec as numwars_classic
from engine.numwin import spec as numwin

#: A registered ruleset's rules object, for typing: the structural type every rules class is
#: (`engine.core.match.Rules`), so a new game's class is named nowhere but in its folder.
AnyRuleset = Rules

#: The games, in the catalogue's order: one line per ruleset.
_GAMES = (
    numwars.SPEC,
    numwars_classic.SPEC,
    numking.SPEC,
    numwin.SPEC,
)

SPECS: dict[str, RulesetSpec] = {}
RULESETS: dict[str, type[AnyRuleset]] = {}


def register(spec: RulesetSpec) -> None:
    """List a ruleset (its id must be new): built apps and later lookups see it."""
    if not isinstance(spec, RulesetSpec):
        raise SpecError(f"{spec!r} is not a RulesetSpec")
    if spec.id in SPECS:
        raise SpecError(f"ruleset {spec.id!r} is already registered")
    SPECS[spec.id] = spec
    RULESETS[spec.id] = spec.rules
    RULESET_NAMES[spec.id] = Text(f"ruleset-{spec.id}", spec.names["en"], spec.names["fr"])


def unregister(ruleset_id: str) -> None:
    """Take a ruleset registered by `register` off the lists (tests)."""
    SPECS.pop(ruleset_id, None)
    RULESETS.pop(ruleset_id, None)
    RULESET_NAMES.pop(ruleset_id, None)


for _spec in _GAMES:
    register(_spec)


def spec(ruleset_id: str) -> RulesetSpec:
    """The declaration of `ruleset_id` (UnknownRuleset, a 404, when there is none)."""
    ruleset_class(ruleset_id)
    return SPECS[ruleset_id]


UNKNOWN_RULESET = text(
    "unknown-ruleset",
    "unknown ruleset {ruleset!r} (known: {known})",
    "règle du jeu inconnue {ruleset!r} (connues\u00a0: {known})",
)
BAD_OPTION = text(
    "bad-option",
    "bad {ruleset} option: {error}",
    "option de {ruleset} incorrecte\u00a0: {error}",
    BY_RULESET,
)


def ruleset_class(ruleset_id: str) -> type[AnyRuleset]:
    try:
        return RULESETS[ruleset_id]
    except KeyError:
        known = ", ".join(RULESETS)
        raise UnknownRuleset(say(UNKNOWN_RULESET, ruleset=ruleset_id, known=known)) from None


def make(ruleset_id: str, options: Mapping[str, Any] | None = None) -> AnyRuleset:
    """Build the rules object of `ruleset_id` with `options` (unknown options are refused)."""
    cls = ruleset_class(ruleset_id)
    try:
        opts = msgspec.convert(dict(options or {}), type=cls.Options)
    except msgspec.ValidationError as exc:
        raise InvalidInput(
            say(BAD_OPTION, ruleset=ruleset_id, error=str(exc)), code="bad-option", field="options"
        ) from None
    return cls(opts)


set_rules_lookup(make)
