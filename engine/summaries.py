"""The rules summary of each ruleset — the app's "Règles de Calcul" card — in English and French.

Four sections per ruleset: set-up, turn, hierarchy, scoring. Text only; the rules themselves
live in the ruleset modules.
"""

from __future__ import annotations

from dataclasses import dataclass

LANGUAGES = ("en", "fr")


@dataclass(frozen=True, slots=True)
class Summary:
    language: str
    description: str
    sections: dict[str, str]


_TEXT: dict[str, dict[str, tuple[str, dict[str, str]]]] = {
    "numwars": {
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
            "Num Wars, édition rôles secrets : un jeu de plis de 3 à 8 joueurs où quatre rôles "
            "secrets se disputent le sort de la Bombe.",
            {
                "setup": "Tirage des rôles (Bombe → Poseur, Joker → Complice, Quantique → Démineur, "
                "Num-X → Agent double, un « 1 » → civil), puis distribution du reste ; valeurs 0–12 "
                "de 3 à 5 joueurs, 0–16 de 6 à 8. Le donneur ouvre.",
                "turn": "Ouvrir sur une couleur ou sur atout. Suivre : la règle de vol d'abord, puis "
                "la couleur demandée, sinon couper, et monter si un atout est en jeu.",
                "hierarchy": "Num-X > Rainbow/Shadow par valeur > Joker = Quantique > Bombe. Une "
                "paire Rainbow X + Shadow X revient aussitôt à celui qui l'a complétée.",
                "scoring": "Cartes classiques par valeur : 1 carte = valeur, 2 = 0, 3 = valeur + 30, "
                "4 = valeur + 50 ; une paire d'atouts capturée vaut sa valeur ; puis les bonus de "
                "rôle selon le sort de la Bombe.",
            },
        ),
    },
    "numwars-classic": {
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
            "Num Wars, édition classique : 3 à 8 joueurs, deux Jokers, un échange de cartes, et des "
            "plis qui se partagent quand une forte paire d'atouts est jouée.",
            {
                "setup": "104 cartes ; 15 chacun (3–5 joueurs) ou 13 (6–8), 10 en Speed Wars ; "
                "passer 5 cartes (3 à 6–8, 2 en Speed) au voisin de droite. Le donneur ouvre.",
                "turn": "Couleur demandée : la jouer ou couper, au choix. Atout demandé : un atout si "
                "possible. Un atout doit monter ou compléter une paire. Le Joker se joue à tout moment.",
                "hierarchy": "Rainbow et Shadow forment un seul atout, par valeur. Les paires "
                "au-dessus du plus fort atout seul vont au joueur du Shadow ; le reste à cet atout.",
                "scoring": "Cartes classiques par valeur : 1 = valeur, 2 = 0, 3 = valeur + 30, 4 = "
                "valeur + 50 ; Rainbow X + Shadow X dans un tas vaut X ; atouts seuls et Jokers 0.",
            },
        ),
    },
    "numking": {
        "en": (
            "Num King: 2 to 8 players bid the exact number of tricks they will take, in rounds "
            "of growing hand size.",
            {
                "setup": "Rainbow and Shadow 1–16, Num-X, Infinity, two Flashes (zeros option: the "
                "0s). Round k deals k cards each; the rest stays face down.",
                "turn": "Bid 0…k in turn, then play: from the second card you must beat every card "
                "in the trick if you can, or play a Rainbow/Shadow equal to a numbered card in it.",
                "hierarchy": "Flash (annuls the trick) > Num-X > Infinity at 17 > numbered by value > "
                "Infinity at 0. Equal Rainbow/Shadow pairs cancel each other.",
                "scoring": "Bid b met: 10 + 3b (bid 0 met: 25 + 2k); missed: −3 per trick of "
                "difference (bid 0 missed: −(10 + 5t)); precision streak +5 at 2, +10 from 3.",
            },
        ),
        "fr": (
            "Num King : 2 à 8 joueurs annoncent le nombre exact de plis qu'ils feront, manche après "
            "manche avec de plus en plus de cartes.",
            {
                "setup": "Rainbow et Shadow 1–16, Num-X, Infini, deux Flash (option zéros : les 0). "
                "La manche k distribue k cartes ; le reste reste face cachée.",
                "turn": "Annoncer 0…k à tour de rôle, puis jouer : dès la deuxième carte, battre "
                "toutes les cartes du pli si possible, ou jouer un Rainbow/Shadow de même valeur.",
                "hierarchy": "Flash (annule le pli) > Num-X > Infini à 17 > cartes par valeur > Infini "
                "à 0. Les paires Rainbow/Shadow de même valeur s'annulent.",
                "scoring": "Annonce b réussie : 10 + 3b (0 réussi : 25 + 2k) ; ratée : −3 par pli "
                "d'écart (0 raté : −(10 + 5t)) ; série de précision +5 à 2, +10 dès 3.",
            },
        ),
    },
    "numwin": {
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
            "Num Win : 2 à 8 joueurs construisent une combinaison cachée de 5 cartes au plus "
            "petit total.",
            {
                "setup": "111 cartes ; 2 face cachée chacun, le reste forme la pioche ; sa première "
                "carte lance la défausse. Le donneur commence.",
                "turn": "Piocher ou prendre la défausse, puis défausser, échanger avec une de ses "
                "cartes, ou ajouter la carte prise. Les cartes action agissent à la défausse ; "
                "récupération instantanée d'une carte de même valeur. Annoncer « Num Win » à 5.",
                "hierarchy": "Paires : valeurs classiques égales ; Rainbow X avec toute carte de "
                "valeur X ; Shadow X seulement avec Rainbow X. Les cartes action ne s'apparient pas.",
                "scoring": "Les paires sont retirées ; chaque carte vaut sa valeur (un Rainbow seul "
                "0), cartes action +5 ; un annonceur battu prend +15. Le plus petit total gagne.",
            },
        ),
    },
}


#: Rulings the summary card leaves out, by ruleset and stateless answer (English): the rules'
#: rulings and the engine's choices where they are silent, as the API docs state them.
NOTES: dict[str, dict[str, str]] = {
    "numwars": {
        "resolve_trick": "A Quantum beats a Shadow for the Bomb; a Shadow played by the "
        "demineur counts as `stolen`, by the complice as `complice-capture`, by the agent as "
        "`numx-capture`; when trump is asked and no real trump or Num-X contests, the highest "
        "card of the first classic card's colour wins, else the leader.",
        "score_round": "A Rainbow and a Shadow of the same value won in different tricks score 0 "
        "(only pairs captured as pairs score), unlike numwars-classic.",
    },
    "numwars-classic": {
        "resolve_trick": "A trick holding a winning trump pair splits (the trump duel).",
        "score_round": "A pile holding both Rainbow X and Shadow X scores X however they got "
        "there.",
    },
    "numking": {
        "resolve_trick": "A Flash annuls the trick; equal Rainbow/Shadow pairs cancel "
        "(`cancelled`); an annulled trick has `winner: null` and its leader leads again.",
        "score_round": "The precision bonus is +5 at a streak of 2 and +10 every round from 3 "
        "on. Tricks need not add up to `cards`: the rule book's own scoring example does not, so "
        "a front-end may score players one at a time.",
    },
    "numwin": {
        "score_round": "Pairs that may pair are removed, choosing the pairing that leaves the "
        "lowest score; a lone remaining Rainbow scores 0; action cards +5; a caller beaten by a "
        "strictly lower score takes +15.",
    },
}


def pick_language(accept_language: str | None) -> str:
    """The first supported language of an Accept-Language header by quality; English else."""
    if not accept_language:
        return "en"
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                quality = 0.0
        ranked.append((-quality, index, tag.strip().lower()[:2]))
    for negative_quality, _, language in sorted(ranked):
        if negative_quality < 0 and language in LANGUAGES:
            return language
    return "en"


def summary(ruleset_id: str, language: str) -> Summary:
    description, sections = _TEXT[ruleset_id][language if language in LANGUAGES else "en"]
    return Summary(language=language, description=description, sections=dict(sections))
