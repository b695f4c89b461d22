"""import-linter contract types whose game packages come from the registry (issue 22: a
ruleset is one folder and one registry line, so pyproject.toml never lists the games).

`pyproject.toml` writes `<games>` where the registered games go: in a `layers` contract's
layer (`"<games>"` becomes `"engine.numwars | engine.numking | …"`, siblings), and as the only
item of a `modules` or `containers` list. The games are the packages of the rules classes in
`engine.registry.SPECS` (a game's `spec.py` names its rules class).
"""

from __future__ import annotations

from typing import Any

from importlinter.contracts.independence import IndependenceContract
from importlinter.contracts.layers import LayersContract

GAMES = "<games>"


def game_packages() -> list[str]:
    """The package of every registered ruleset, in the catalogue's order."""
    from engine.registry import SPECS

    return list(dict.fromkeys(s.rules.__module__.rpartition(".")[0] for s in SPECS.values()))


def _expand(options: dict[str, Any]) -> dict[str, Any]:
    games = game_packages()
    expanded = dict(options)
    for key in ("modules", "containers"):
        if expanded.get(key) == [GAMES]:
            expanded[key] = games
    if "layers" in expanded:
        expanded["layers"] = [
            layer.replace(GAMES, " | ".join(games)) for layer in expanded["layers"]
        ]
    return expanded


class GamesLayers(LayersContract):
    """`layers`, with `<games>` read from the registry."""

    def __init__(
        self, name: str, session_options: dict[str, Any], contract_options: dict[str, Any]
    ) -> None:
        super().__init__(name, session_options, _expand(contract_options))


class GamesIndependence(IndependenceContract):
    """`independence`, with `<games>` read from the registry."""

    def __init__(
        self, name: str, session_options: dict[str, Any], contract_options: dict[str, Any]
    ) -> None:
        super().__init__(name, session_options, _expand(contract_options))
