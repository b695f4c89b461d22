"""Request examples of numking's stateless operations for the OpenAPI spec, taken from the rule
books (seed file cited), by operation path. Data only: the spec (`spec.py`) hands them to the
API, which shows the engine's answer to each as the response example.
"""

from __future__ import annotations

from engine.core.spec import Example

EXAMPLES: dict[str, list[Example]] = {
    "deal": [
        ("Round 3 for four players", "003, Deroulement", {"players": 4, "seed": 42, "round": 3}),
    ],
    "legal-moves": [
        (
            "Must beat Shadow 9",
            "003, Obligation de monter",
            {
                "players": 3,
                "hand": ["rainbow-4", "shadow-11", "infinity"],
                "trick": [{"seat": 0, "card": "shadow-9"}],
            },
        ),
    ],
    "validate-move": [
        (
            "Infinity declared 0 when it must beat",
            "003, HIERARCHIE DES CARTES",
            {
                "players": 3,
                "hand": ["rainbow-4", "infinity"],
                "trick": [{"seat": 0, "card": "shadow-9"}],
                "card": "infinity",
                "declared": 0,
            },
        ),
    ],
    "resolve-trick": [
        (
            "12s cancel, Rainbow 7 wins",
            "003, REGLE D'ANNULATION",
            {
                "players": 3,
                "trick": [
                    {"seat": 0, "card": "rainbow-12"},
                    {"seat": 1, "card": "shadow-12"},
                    {"seat": 2, "card": "rainbow-7"},
                ],
            },
        ),
        (
            "Flash annuls even against Num-X",
            "003, HIERARCHIE DES CARTES",
            {
                "players": 3,
                "trick": [
                    {"seat": 0, "card": "rainbow-3"},
                    {"seat": 1, "card": "numx"},
                    {"seat": 2, "card": "flash"},
                ],
            },
        ),
    ],
    "score-round": [
        (
            "Precision bonus +5 then +10",
            "003, SYSTEME DE SCORE",
            {
                "cards": 4,
                "players": [
                    {"bid": 2, "tricks": 2, "streak": 1},
                    {"bid": 1, "tricks": 1, "streak": 2},
                    {"bid": 1, "tricks": 1, "streak": 5},
                    {"bid": 0, "tricks": 0, "streak": 0},
                ],
            },
        ),
    ],
}
