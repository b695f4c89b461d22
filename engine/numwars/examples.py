"""Request examples of numwars's stateless operations for the OpenAPI spec, taken from the rule
books (seed file cited), by operation path. Data only: the spec (`spec.py`) hands them to the
API, which shows the engine's answer to each as the response example.
"""

from __future__ import annotations

from engine.core.spec import Example

EXAMPLES: dict[str, list[Example]] = {
    "deal": [
        ("Five players", "001, Mise en place", {"players": 5, "seed": 42}),
        ("Three players: the Joker is set aside", "001, Mise en place", {"players": 3, "seed": 7}),
    ],
    "legal-moves": [
        (
            "Colour asked: follow it",
            "001, ordre OBLIGATOIRE des options, Priorite 1",
            {
                "players": 5,
                "hand": ["red-3", "red-9", "rainbow-4", "bomb"],
                "trick": [{"seat": 0, "card": "red-7"}],
            },
        ),
        (
            "Steal rule: the complement is always allowed",
            "001, regle de vol",
            {
                "players": 4,
                "hand": ["red-2", "shadow-8", "rainbow-11"],
                "trick": [{"seat": 1, "card": "red-10"}, {"seat": 2, "card": "rainbow-8"}],
            },
        ),
    ],
    "validate-move": [
        (
            "Trumping while holding the colour asked",
            "001, Priorite 1",
            {
                "players": 5,
                "hand": ["red-3", "red-9", "rainbow-4", "bomb"],
                "trick": [{"seat": 0, "card": "red-7"}],
                "card": "rainbow-4",
            },
        )
    ],
    "resolve-trick": [
        (
            "The Joker protects the Bomb from a Shadow",
            "001, La Bombe et ses quatre roles",
            {
                "players": 4,
                "trick": [
                    {"seat": 0, "card": "red-5"},
                    {"seat": 1, "card": "bomb"},
                    {"seat": 2, "card": "shadow-9"},
                    {"seat": 3, "card": "joker"},
                ],
                "roles": ["agent", "poseur", "demineur", "complice"],
                "joker_neutralizes": True,
            },
        ),
        (
            "A trump pair goes to the player who completed it",
            "001, Paires d'atouts : capture immediate",
            {
                "players": 4,
                "trick": [
                    {"seat": 0, "card": "rainbow-6"},
                    {"seat": 1, "card": "shadow-6"},
                    {"seat": 2, "card": "rainbow-9"},
                    {"seat": 3, "card": "rainbow-2"},
                ],
            },
        ),
    ],
    "score-round": [
        (
            "The Quantum steals the Bomb",
            "001, Comptage des points and Table des bonus",
            {
                "players": [
                    {"captured": ["red-5", "blue-5", "green-5", "bomb"], "role": "demineur"},
                    {
                        "captured": ["red-12", "yellow-3"],
                        "pairs": [["rainbow-7", "shadow-7"]],
                        "role": "poseur",
                    },
                    {"captured": ["blue-1", "green-1"], "role": "agent"},
                    {"captured": ["rainbow-4", "joker"], "role": "complice"},
                ],
                "bomb_outcome": "stolen",
            },
        )
    ],
}
