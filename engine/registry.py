"""Ruleset registry (STYLE 6): ruleset ids → implementations, options → typed structs.

It also installs itself as the rules lookup of :func:`engine.core.match.replay` (core
imports no game, so a record's rules are found through this lookup; see that module's
"Replay and the registry").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from engine.core.errors import InvalidInput, UnknownRuleset
from engine.core.match import set_rules_lookup
from engine.numking import NumKing
from engine.numwars import NumWars
from engine.numwars_classic import NumWarsClassic
from engine.numwin import NumWin

AnyRuleset = NumWars | NumWarsClassic | NumKing | NumWin

RULESETS: dict[str, type[AnyRuleset]] = {
    cls.id: cls for cls in (NumWars, NumWarsClassic, NumKing, NumWin)
}


def ruleset_class(ruleset_id: str) -> type[AnyRuleset]:
    try:
        return RULESETS[ruleset_id]
    except KeyError:
        known = ", ".join(RULESETS)
        raise UnknownRuleset(f"unknown ruleset {ruleset_id!r} (known: {known})") from None


def make(ruleset_id: str, options: Mapping[str, Any] | None = None) -> AnyRuleset:
    """Build the rules object of `ruleset_id` with `options` (unknown options are refused)."""
    cls = ruleset_class(ruleset_id)
    try:
        opts = msgspec.convert(dict(options or {}), type=cls.Options)
    except msgspec.ValidationError as exc:
        raise InvalidInput(
            f"bad {ruleset_id} option: {exc}", code="bad-option", field="options"
        ) from None
    return cls(opts)  # type: ignore[arg-type]


set_rules_lookup(make)
