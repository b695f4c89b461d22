"""The rules summary of Num Wars, classic edition — the app's "Règles de Calcul" card — in English and
French: four sections (set-up, turn, hierarchy, scoring). Text only; served by
:mod:`engine.summaries`."""

from __future__ import annotations

#: language → (description, sections)
TEXT: dict[str, tuple[str, dict[str, str]]] = {
    "en": (
        "Num Wars, classic edition: 3 to 8 players, two Jokers, a card exchange, and tricks "
        "that split when a strong trump pair is played.",
        {
            "setup": "104 cards; 15 each (3–5 players) or 13 (6–8), 10 in Speed Wars; pass 5 (3 "
            "in 6–8, 2 in Speed) cards to the right neighbour. The dealer leads.",
            "turn": "Colour asked: play it or a trump, your choice. Trump asked: a trump if you "
            "have one. A trump must beat every trump played or complete a pair. Jokers any time.",
            "hierarchy": "Rainbow and Shadow are one trump suit, by value. Pairs above the "
            "highest single go to their Shadow player; the rest to the highest single.",
            "scoring": "Classic cards by value: 1 = value, 2 = 0, 3 = value + 30, 4 = value + 50; "
            "Rainbow X + Shadow X in a pile scores X; lone trumps and Jokers 0.",
        },
    ),
    "fr": (
        "Num Wars, édition classique\u00a0: 3 à 8 joueurs, deux Jokers, un échange de cartes, et des "
        "plis qui se partagent quand une forte paire d’atouts est jouée.",
        {
            "setup": "104 cartes\u202f; 15 chacun (3–5 joueurs) ou 13 (6–8), 10 en Speed Wars\u202f; "
            "passer 5 cartes (3 à 6–8, 2 en Speed) au voisin de droite. Le donneur ouvre.",
            "turn": "Couleur demandée\u00a0: la jouer ou couper, au choix. Atout demandé\u00a0: un atout si "
            "possible. Un atout doit monter ou compléter une paire. Le Joker se joue à tout moment.",
            "hierarchy": "Rainbow et Shadow forment un seul atout, par valeur. Les paires "
            "au-dessus du plus fort atout seul vont au joueur du Shadow\u202f; le reste à cet atout.",
            "scoring": "Cartes classiques par valeur\u00a0: 1 = valeur, 2 = 0, 3 = valeur + 30, 4 = "
            "valeur + 50\u202f; Rainbow X + Shadow X dans un tas vaut X\u202f; atouts seuls et Jokers 0.",
        },
    ),
}


#: Rulings the summary card leaves out, by stateless answer (English): the rules' rulings and
#: the engine's choices where they are silent, as the API docs state them.
NOTES: dict[str, str] = {
    "resolve_trick": "A trick holding a winning trump pair splits (the trump duel).",
    "score_round": "A pile holding both Rainbow X and Shadow X scores X however they got there.",
}
