"""The rules summary of Num King — the app's "Règles de Calcul" card — in English and
French: four sections (set-up, turn, hierarchy, scoring). Text only; served by
:mod:`engine.summaries`."""

from __future__ import annotations

#: language → (description, sections)
TEXT: dict[str, tuple[str, dict[str, str]]] = {
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
        "Num King\u00a0: 2 à 8 joueurs annoncent le nombre exact de plis qu’ils feront, manche après "
        "manche avec de plus en plus de cartes.",
        {
            "setup": "Rainbow et Shadow 1–16, Num-X, Infini, deux Flash (option zéros\u00a0: les 0). "
            "La manche k distribue k cartes\u202f; les cartes non distribuées restent face cachée.",
            "turn": "Annoncer 0…k à tour de rôle, puis jouer\u00a0: dès la deuxième carte, battre "
            "toutes les cartes du pli si possible, ou jouer un Rainbow/Shadow de même valeur.",
            "hierarchy": "Flash (annule le pli) > Num-X > Infini à 17 > cartes par valeur > Infini "
            "à 0. Les paires Rainbow/Shadow de même valeur s’annulent.",
            "scoring": "Annonce b réussie\u00a0: 10 + 3b (0 réussi\u00a0: 25 + 2k)\u202f; ratée\u00a0: −3 par pli "
            "d’écart (0 raté\u00a0: −(10 + 5t))\u202f; série de précision +5 à 2, +10 dès 3.",
        },
    ),
}


#: Rulings the summary card leaves out, by stateless answer (English): the rules' rulings and
#: the engine's choices where they are silent, as the API docs state them.
NOTES: dict[str, str] = {
    "resolve_trick": "A Flash annuls the trick; equal Rainbow/Shadow pairs cancel "
    "(`cancelled`); an annulled trick has `winner: null` and its leader leads again.",
    "score_round": "The precision bonus is +5 at a streak of 2 and +10 every round from 3 "
    "on. Tricks need not add up to `cards`: the rule book's own scoring example does not, so "
    "a front-end may score players one at a time.",
}
