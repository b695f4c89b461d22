"""Request examples for the OpenAPI spec, taken from the rule books (seed file cited).

Response examples are not written here: the spec shows what the engine answers to each
request example, computed when the app is built, so examples can never drift from behaviour.
"""

from __future__ import annotations

from typing import Any

Example = tuple[str, str, dict[str, Any]]  # (name, source, request body)

EXAMPLES: dict[tuple[str, str], list[Example]] = {
    ("numwars", "deal"): [
        ("Five players", "001, Mise en place", {"players": 5, "seed": 42}),
        ("Three players: the Joker is set aside", "001, Mise en place", {"players": 3, "seed": 7}),
    ],
    ("numwars", "legal-moves"): [
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
    ("numwars", "validate-move"): [
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
    ("numwars", "resolve-trick"): [
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
    ("numwars", "score-round"): [
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
    ("numwars-classic", "deal"): [
        ("Four players", "000, Distribution", {"players": 4, "seed": 42}),
        ("Speed Wars", "000, Variantes", {"players": 4, "seed": 42, "options": {"speed": True}}),
    ],
    ("numwars-classic", "legal-moves"): [
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
    ("numwars-classic", "validate-move"): [
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
    ("numwars-classic", "resolve-trick"): [
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
    ("numwars-classic", "score-round"): [
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
    ("numking", "deal"): [
        ("Round 3 for four players", "003, Deroulement", {"players": 4, "seed": 42, "round": 3}),
    ],
    ("numking", "legal-moves"): [
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
    ("numking", "validate-move"): [
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
    ("numking", "resolve-trick"): [
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
    ("numking", "score-round"): [
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
    ("numwin", "deal"): [
        ("Four players", "004, Mise en place", {"players": 4, "seed": 42}),
    ],
    ("numwin", "score-round"): [
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
