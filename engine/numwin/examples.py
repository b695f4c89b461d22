"""Request examples of numwin's stateless operations for the OpenAPI spec, taken from the rule
books (seed file cited), by operation path. Data only: the spec (`spec.py`) hands them to the
API, which shows the engine's answer to each as the response example.
"""

from __future__ import annotations

from engine.core.spec import Example

EXAMPLES: dict[str, list[Example]] = {
    "deal": [
        ("Four players", "004, Mise en place", {"players": 4, "seed": 42}),
    ],
    "score-round": [
        (
            "A caller beaten by a lower combination",
            "004, Fin de manche and Comptage",
            {
                "players": [
                    {"combination": ["red-3", "blue-3", "rainbow-5", "shadow-2", "green-1"]},
                    {
                        "combination": ["green-4", "yellow-0", "rainbow-9"],
                        "locked": [["red-6", "blue-6"]],
                    },
                ],
                "caller": 0,
            },
        ),
    ],
}
