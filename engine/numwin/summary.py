"""The rules summary of Num Win — the app's "Règles de Calcul" card — in English and
French: four sections (set-up, turn, hierarchy, scoring). Text only; served by
:mod:`engine.summaries`."""

from __future__ import annotations

#: language → (description, sections)
TEXT: dict[str, tuple[str, dict[str, str]]] = {
    "en": (
        "Num Win: 2 to 8 players build a face-down combination of 5 cards with the lowest total.",
        {
            "setup": "111 cards; 2 face down each, the rest is the draw pile; its top card "
            "starts the discard. The dealer plays first.",
            "turn": "Draw or take the discard, then discard, swap with one of your cards, or add "
            "a taken card. Action cards (Swipe, Flip, Quantum, Malus) act when discarded; snap "
            'a discard with a card of the same value. Call "Num Win" with 5 cards.',
            "hierarchy": "Pairs: equal classic values; Rainbow X with any card of value X; "
            "Shadow X only with Rainbow X. Action cards never pair.",
            "scoring": "Pairs are removed; cards score their value (a lone Rainbow 0), action "
            "cards +5; a caller who is not lowest gets +15. Lowest total wins.",
        },
    ),
    "fr": (
        "Num Win\u00a0: 2 à 8 joueurs construisent une combinaison cachée de 5 cartes au plus "
        "petit total.",
        {
            "setup": "111 cartes\u202f; 2 face cachée chacun, le reste forme la pioche\u202f; sa première "
            "carte lance la défausse. Le donneur commence.",
            "turn": "Piocher ou prendre la défausse, puis défausser, échanger avec une de ses "
            "cartes, ou ajouter la carte prise. Les cartes action agissent à la défausse\u202f; "
            "récupération instantanée d’une carte de même valeur. Annoncer «\u00a0Num Win\u00a0» à 5.",
            "hierarchy": "Paires\u00a0: valeurs classiques égales\u202f; Rainbow X avec toute carte de "
            "valeur X\u202f; Shadow X seulement avec Rainbow X. Les cartes action ne s’apparient pas.",
            "scoring": "Les paires sont retirées\u202f; chaque carte vaut sa valeur (un Rainbow seul "
            "0), cartes action +5\u202f; un annonceur battu prend +15. Le plus petit total gagne.",
        },
    ),
}


#: Rulings the summary card leaves out, by stateless answer (English): the rules' rulings and
#: the engine's choices where they are silent, as the API docs state them.
NOTES: dict[str, str] = {
    "score_round": "Pairs that may pair are removed, choosing the pairing that leaves the "
    "lowest score; a lone remaining Rainbow scores 0; action cards +5; a caller beaten by a "
    "strictly lower score takes +15.",
}
