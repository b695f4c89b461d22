"""What Num Wars says when it refuses a request, in English and French (engine/core/texts.py:
each a text with named parameters, rendered in the caller's language)."""

from __future__ import annotations

from engine.core.texts import ACTION_WORDS, PHASE_WORDS, Text, text

DECK = text(
    "numwars-deck", "the {players}-player numwars deck", "le paquet de numwars à {players} joueurs"
)
ROLES_COUNT = text(
    "numwars-roles-count",
    "roles lists one role per seat ({players}), not {count}",
    "roles donne un rôle par place ({players}), pas {count}",
)
NOT_A_ROLE = text(
    "numwars-not-a-role",
    "seat {seat}: {role!r} is not a role (expected one of {roles})",
    "place {seat}\u00a0: {role!r} n’est pas un rôle (attendu\u00a0: l’un de {roles})",
)
EXCHANGE = text(
    "numwars-exchange",
    "exchange must be between 0 and 5 cards",
    "exchange doit être entre 0 et 5 cartes",
)
NOT_A_CARD = text(
    "numwars-not-a-card", "{card!r} is not a card code", "{card!r} n’est pas un code de carte"
)
BOMB_NEEDS_ROLES = text(
    "numwars-bomb-roles",
    "the trick holds the Bomb: roles (one per seat) are needed to resolve it",
    "le pli contient la Bombe\u00a0: roles (un par place) est nécessaire pour le résoudre",
)
NOT_A_PAIR = text(
    "numwars-not-a-pair",
    "a captured pair is rainbow-X with shadow-X, not {cards}",
    "une paire capturée est rainbow-X avec shadow-X, pas {cards}",
)
NOT_AN_OUTCOME = text(
    "numwars-not-an-outcome",
    "{outcome!r} is not a Bomb outcome (expected one of {outcomes})",
    "{outcome!r} n’est pas une issue de la Bombe (attendu\u00a0: l’une de {outcomes})",
)
# -- the stored round's refusals (engine/numwars/kernel.py) ----------------------------------

WRONG_PHASE = text(
    "numwars-wrong-phase",
    "a {kind} action is not possible during {phase}",
    "{kind} n’est pas possible pendant {phase}",
    words={"kind": ACTION_WORDS, "phase": PHASE_WORDS},
)
PASSED_ALL = text(
    "numwars-passed-all",
    "seat {seat} has passed its {k} cards; the others are still passing",
    "la place {seat} a passé ses {k} cartes\u202f; les autres passent encore",
)
PASS_COUNT = text(
    "numwars-pass-count",
    "seat {seat} passes 1 to {remaining} distinct cards now, not {cards!r}",
    "la place {seat} passe maintenant de 1 à {remaining} cartes distinctes, pas {cards!r}",
)
ROLE_CARD_LOCKED = text(
    "numwars-role-card-locked",
    "{card} is a role card: it cannot be passed",
    "{card} est une carte de rôle\u00a0: elle ne peut pas être passée",
)
NOT_YOUR_TURN = text(
    "numwars-not-your-turn",
    "It is seat {turn}'s turn to play, not seat {seat}'s",
    "C’est à la place {turn} de jouer, pas à la place {seat}",
)
NO_DECLARATION = text(
    "numwars-no-declaration",
    "numwars cards carry no declaration",
    "les cartes de numwars ne portent pas d’annonce",
)
COMPLICE_DECIDES = text(
    "numwars-complice-decides",
    "the complice (seat {complice}) decides, not seat {seat}",
    "le complice (place {complice}) décide, pas la place {seat}",
)

# -- the game's words for its codes (the app's "Règles de Calcul" card, rules/numwars.md) ----
# A score line's parameters keep the codes (`role: demineur`, `outcome: stolen`); its label
# says them in words: in English the code itself (as the English rules name them), in French
# the card's words (« Démineur », « Bombe volée »).

#: Each role as a label names it.
ROLE_WORDS = {
    code: text(f"role-{code}", code, fr)
    for code, fr in (
        ("poseur", "Poseur"),
        ("complice", "Complice"),
        ("demineur", "Démineur"),
        ("agent", "Agent double"),
        ("civil", "Civil"),
    )
}
#: Each role with how many of it a table has, as a list of roles says it (« 2 Civils »,
#: "1 poseur"), keyed `"<count>:<role>"` (engine.numwars.cards.role_counts): the words of
#: ROLES_SET's lists, so a refusal names the roles in the game's words with their plural,
#: never `2 poseur`. Words, not sentences: not in the catalogue.
_PLURALS = {
    "poseur": ("poseurs", "Poseurs"),
    "complice": ("complices", "Complices"),
    "demineur": ("demineurs", "Démineurs"),
    "agent": ("agents", "Agents doubles"),
    "civil": ("civils", "Civils"),
}
ROLE_COUNT_WORDS = {
    f"{n}:{code}": Text(
        f"role-count-{n}-{code}",
        f"{n} {code if n == 1 else en}",
        f"{n} {ROLE_WORDS[code].fr if n == 1 else fr}",
    )
    for code, (en, fr) in _PLURALS.items()
    for n in range(1, 9)
}
#: The roles a table has against those sent (lists of ROLE_COUNT_WORDS' keys).
ROLES_SET = text(
    "numwars-roles-set",
    "a {players}-player round has exactly {expected}; got {got}",
    "une manche à {players} joueurs a exactement {expected}\u202f; reçu {got}",
    words={"expected": ROLE_COUNT_WORDS, "got": ROLE_COUNT_WORDS},
)
#: Each fate of the Bomb as a label names it.
OUTCOME_WORDS = {
    code: text(f"bomb-outcome-{code}", code, fr)
    for code, fr in (
        ("numx-capture", "Num-X capture la Bombe"),
        ("stolen", "Bombe volée"),
        ("civil-capture", "un Civil capture la Bombe"),
        ("complice-capture", "le Complice capture la Bombe"),
        ("protected", "le Joker protège la Bombe"),
        ("protected-quantum", "le Joker protège la Bombe de la Quantique"),
        ("kept", "Bombe gardée"),
    )
}
#: A role card played by another seat than roles names (said in the game's words).
ROLE_CARD = text(
    "numwars-role-card",
    "seat {seat} played {card}, the {role}'s card, but roles names it {named}",
    "la place {seat} a joué {card}, la carte du {role}, mais roles la nomme {named}",
    words={"role": ROLE_WORDS, "named": ROLE_WORDS},
)
