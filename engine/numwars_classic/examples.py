"""Request examples of numwars-classic's stateless operations for the OpenAPI spec, taken from the rule
books (seed file cited), by operation path. Data only: the spec (`spec.py`) hands them to the
API, which shows the engine's answer to each as the response example.
"""

from __future__ import annotations

from engine.core.spec import Example

EXAMPLES: dict[str, list[Example]] = {
    "deal": [
        ("Four players", "000, Distribution", {"players": 4, "seed": 42}),
        ("Speed Wars", "000, Variantes", {"players": 4, "seed": 42, "options": {"speed": True}}),
    ],
    "legal-moves": [
        (
            "Must raise over Rainbow 12",
            "000, Obligation de monter sur les atouts",
            {
                "players": 4,
                "hand": ["shadow-10", "shadow-14"],
                "trick": [{"seat": 0, "card": "rainbow-12"}],
            },
        ),
        (
            "Colour or trump is a free choice; Jokers always",
            "000, Options A-D",
            {
                "players": 4,
                "hand": ["red-3", "blue-9", "rainbow-2", "joker"],
                "trick": [{"seat": 0, "card": "red-12"}],
            },
        ),
    ],
    "validate-move": [
        (
            "Not raising over Rainbow 12",
            "000, Obligation de monter sur les atouts",
            {
                "players": 4,
                "hand": ["shadow-10", "shadow-14"],
                "trick": [{"seat": 0, "card": "rainbow-12"}],
                "card": "shadow-10",
            },
        )
    ],
    "resolve-trick": [
        (
            "Example A: the trick splits",
            "000, RESOLUTION DU PLI",
            {
                "players": 4,
                "trick": [
                    {"seat": 0, "card": "red-16"},
                    {"seat": 1, "card": "blue-14"},
                    {"seat": 2, "card": "rainbow-10"},
                    {"seat": 3, "card": "shadow-10"},
                ],
            },
        )
    ],
    "score-round": [
        (
            "Example 1: trump-pair hunter (40 points)",
            "000, Exemples de comptage complets",
            {
                "players": [
                    {
                        "captured": [
                            "rainbow-14",
                            "shadow-14",
                            "rainbow-10",
                            "shadow-10",
                            "red-16",
                            "red-8",
                            "blue-8",
                            "rainbow-5",
                            "joker",
                        ]
                    }
                ]
            },
        ),
        (
            "Example 3: small cards with bonus (105 points)",
            "000, Exemples de comptage complets",
            {
                "players": [
                    {
                        "captured": [
                            "red-2",
                            "blue-2",
                            "green-2",
                            "red-5",
                            "blue-5",
                            "green-5",
                            "yellow-5",
                            "rainbow-8",
                            "shadow-8",
                            "red-10",
                        ]
                    }
                ]
            },
        ),
    ],
}
