"""The rules summary of Num Wars, secret-roles edition — the app's "Règles de Calcul" card — in English and
French: four sections (set-up, turn, hierarchy, scoring). Text only; served by
:mod:`engine.summaries`."""

from __future__ import annotations

#: language → (description, sections)
TEXT: dict[str, tuple[str, dict[str, str]]] = {
    "en": (
        "Num Wars, secret-roles edition: a trick-taking game for 3 to 8 players where four "
        "secret roles fight over the fate of the Bomb.",
        {
            "setup": "Role draw (Bomb → poseur, Joker → complice, Quantum → demineur, Num-X → "
            "agent, a '1' → civil), then the rest of the deck is dealt; 3–5 players use values "
            "0–12, 6–8 players 0–16. The dealer leads.",
            "turn": "Lead a colour or a trump. Follow: the steal rule first (the complementary "
            "Rainbow/Shadow is always allowed), then the colour asked, else a trump, and raise "
            "when a trump is contesting.",
            "hierarchy": "Num-X > Rainbow/Shadow by value > Joker = Quantum > Bomb. A Rainbow X "
            "+ Shadow X pair goes at once to the player who completed it.",
            "scoring": "Classic cards by value: 1 card = value, 2 = 0, 3 = value + 30, 4 = value "
            "+ 50; a captured trump pair scores its value; then the role bonuses of the Bomb's "
            "fate.",
        },
    ),
    "fr": (
        "Num Wars, édition rôles secrets\u00a0: un jeu de plis de 3 à 8 joueurs où quatre rôles "
        "secrets se disputent le sort de la Bombe.",
        {
            "setup": "Tirage des rôles (Bombe → Poseur, Joker → Complice, Quantique → Démineur, "
            "Num-X → Agent double, un «\u00a01\u00a0» → civil), puis distribution du reste\u202f; valeurs 0–12 "
            "de 3 à 5 joueurs, 0–16 de 6 à 8. Le donneur ouvre.",
            "turn": "Ouvrir sur une couleur ou sur atout. Suivre\u00a0: la règle de vol d’abord, puis "
            "la couleur demandée, sinon couper, et monter si un atout est en jeu.",
            "hierarchy": "Num-X > Rainbow/Shadow par valeur > Joker = Quantique > Bombe. Une "
            "paire Rainbow X + Shadow X revient aussitôt à celui qui l’a complétée.",
            "scoring": "Cartes classiques par valeur\u00a0: 1 carte = valeur, 2 = 0, 3 = valeur + 30, "
            "4 = valeur + 50\u202f; une paire d’atouts capturée vaut sa valeur\u202f; puis les bonus de "
            "rôle selon le sort de la Bombe.",
        },
    ),
}


#: Rulings the summary card leaves out, by stateless answer (English): the rules' rulings and
#: the engine's choices where they are silent, as the API docs state them.
NOTES: dict[str, str] = {
    "resolve_trick": "A Quantum beats a Shadow for the Bomb; a Shadow played by the "
    "demineur counts as `stolen`, by the complice as `complice-capture`, by the agent as "
    "`numx-capture`; when trump is asked and no real trump or Num-X contests, the highest "
    "card of the first classic card's colour wins, else the leader.",
    "score_round": "A Rainbow and a Shadow of the same value won in different tricks score 0 "
    "(only pairs captured as pairs score), unlike numwars-classic.",
}
