"""What Num Win says when it refuses a request, in English and French (engine/core/texts.py:
each a text with named parameters, rendered in the caller's language)."""

from __future__ import annotations

from engine.core.texts import ACTION_WORDS, text

DECK = text("numwin-deck", "the numwin deck", "le paquet de numwin")
TEAMS = text(
    "numwin-teams",
    "the teams variant is played by exactly 4 players, not {players}",
    "la variante en équipes se joue à exactement 4 joueurs, pas {players}",
)
MAX_TURNS = text(
    "numwin-max-turns",
    "max_turns must be a number of turns between 0 (no limit) and {high}",
    "max_turns doit être un nombre de tours entre 0 (sans limite) et {high}",
)
COMBINATION_SIZE = text(
    "numwin-combination-size",
    "players[{i}].combination holds {count} cards; at most {high} are accepted",
    "players[{i}].combination contient {count} cartes\u202f; au plus {high} sont acceptées",
)
TOO_FEW = text(
    "numwin-too-few",
    "players[{i}] holds {held} cards counting locked pairs; a final combination holds at "
    "least {low}",
    "players[{i}] a {held} cartes en comptant les paires bloquées\u202f; une combinaison finale en "
    "a au moins {low}",
)
PLAYERS = text(
    "numwin-players",
    "score-round takes 1 to {high} players, not {count}",
    "score-round prend de 1 à {high} joueurs, pas {count}",
)
NOT_A_PAIR = text(
    "numwin-not-a-pair",
    "players[{i}].locked[{j}] holds {cards}, not a pair: a locked pair is two cards of one "
    "value that may pair (classic+classic, rainbow+numbered, shadow+rainbow)",
    "players[{i}].locked[{j}] contient {cards}, pas une paire\u00a0: une paire bloquée est faite de "
    "deux cartes d’une même valeur qui peuvent s’apparier (classique+classique, "
    "rainbow+numérotée, shadow+rainbow)",
)
CALLER = text(
    "numwin-caller",
    "caller {caller!r} is not a seat (0..{last}) or null",
    "caller {caller!r} n’est pas une place (0..{last}) ni null",
)

# -- the stored round's refusals (engine/numwin/kernel.py) -----------------------------------

ROUND_OVER = text("round-over", "the round is over", "la manche est terminée")
NOT_AN_ACTION = text(
    "numwin-not-an-action",
    "{action} is not a numwin action",
    "on ne peut pas {action} à Num Win",
    words={"action": ACTION_WORDS},
)
NOT_YOUR_TURN = text(
    "numwin-not-your-turn", "it is seat {turn}'s turn", "c’est au tour de la place {turn}"
)
HOLDING = text(
    "numwin-holding",
    "you already hold a card this turn",
    "vous tenez déjà une carte ce tour-ci",
)
NEEDS_CARD = text(
    "numwin-needs-card",
    "{action} needs a card in hand",
    "pour {action}, il faut une carte en main",
    words={"action": ACTION_WORDS},
)
PILES_EXHAUSTED = text(
    "numwin-piles-exhausted", "both piles are exhausted", "les deux piles sont épuisées"
)
DISCARD_EMPTY = text("numwin-discard-empty", "the discard pile is empty", "la défausse est vide")
TAKE_LOCKED = text(
    "numwin-take-locked",
    "taking is allowed only when you could then swap or add (Ruling): your combination holds "
    "{count} cards, all locked",
    "prendre n’est permis que si vous pouvez ensuite échanger ou ajouter (Arbitrage)\u00a0: votre "
    "combinaison a {count} cartes, toutes bloquées",
)
ALREADY_CALLED = text(
    "numwin-already-called",
    "seat {caller} has already called",
    "la place {caller} a déjà annoncé la fin",
)
CALL_LAST = text(
    "numwin-call-last",
    "the call goes with the turn's last action (an activated action card's target)",
    "l’annonce accompagne la dernière action du tour (la cible d’une carte action activée)",
)
CALL_SIZE = text(
    "numwin-call-size",
    "calling needs exactly {target} cards, you would hold {count}",
    "annoncer demande exactement {target} cartes, vous en auriez {count}",
)
TAKEN_SWAP_ADD = text(
    "numwin-taken-swap-add",
    "a card taken from the discard is swapped or added",
    "une carte prise dans la défausse est échangée ou ajoutée",
)
POSITION_LOCKED_PAIR = text(
    "numwin-position-locked-pair",
    "position {position} is a locked pair",
    "la position {position} est une paire bloquée",
)
ADD_TAKEN_ONLY = text(
    "numwin-add-taken-only",
    "only a card taken from the discard can be added",
    "seule une carte prise dans la défausse peut être ajoutée",
)
ADD_FULL = text(
    "numwin-add-full",
    "your combination holds {count} cards; adding is refused from {target}",
    "votre combinaison a {count} cartes\u202f; ajouter est refusé à partir de {target}",
)
NO_TARGET_WAITING = text(
    "numwin-no-target-waiting",
    "no action card is waiting for a target",
    "aucune carte action n’attend de cible",
)
CHOOSES_TARGET = text(
    "numwin-chooses-target",
    "seat {turn} chooses the target of {pending}",
    "la place {turn} choisit la cible de {pending}",
)
TARGET_NOT_SEAT = text(
    "numwin-target-not-seat",
    "target seat {seat!r} is not a seat",
    "la place visée {seat!r} n’est pas une place",
)
PAIR_UNTOUCHABLE = text(
    "numwin-pair-untouchable",
    "a locked pair cannot be touched by actions",
    "une paire bloquée ne peut pas être touchée par les actions",
)
POSITION_NOT_IN = text(
    "numwin-position-not-in",
    "position {position!r} is not in seat {owner}'s combination of {count} cards",
    "la position {position!r} n’est pas dans la combinaison de {count} cartes de la place {owner}",
)
TARGETS_OWN = text(
    "numwin-targets-own", "{kind} targets one of your cards", "{kind} vise l’une de vos cartes"
)
TARGETS_OTHER = text(
    "numwin-targets-other",
    "{kind} targets another player's card",
    "{kind} vise une carte d’un autre joueur",
)
SWIPE_FIRST = text(
    "numwin-swipe-first",
    "swipe first names one of your unlocked cards",
    "swipe nomme d’abord l’une de vos cartes non bloquées",
)
SWIPE_THEN = text(
    "numwin-swipe-then",
    "swipe then names an unlocked card of {whose}",
    "swipe nomme ensuite une carte non bloquée {whose}",
)
AN_OPPONENT = text(
    "numwin-an-opponent",
    "an opponent (the other team, never your partner)",
    "d’un adversaire (l’autre équipe, jamais votre partenaire)",
)
ANOTHER_PLAYER = text("numwin-another-player", "another player", "d’un autre joueur")
FLIP_RULE = text(
    "numwin-flip-rule",
    "flip targets one of your face-down cards (not a locked or revealed one)",
    "flip vise l’une de vos cartes face cachée (ni bloquée ni révélée)",
)
QUANTUM_RULE = text(
    "numwin-quantum-rule",
    "quantum targets a face-down card, yours or {theirs} (not a locked or revealed one)",
    "quantum vise une carte face cachée, la vôtre ou {theirs} (ni bloquée ni révélée)",
)
AN_OPPONENTS = text(
    "numwin-an-opponents",
    "an opponent's (the other team's, never your partner's)",
    "celle d’un adversaire (l’autre équipe, jamais votre partenaire)",
)
ANOTHER_PLAYERS = text("numwin-another-players", "another player's", "celle d’un autre joueur")
ANY_RULE = text(
    "numwin-any-rule",
    "{kind} targets an unlocked card of any player",
    "{kind} vise une carte non bloquée de n’importe quel joueur",
)
NO_CLAIM_NOW = text(
    "numwin-no-claim-now",
    "no discarded card can be claimed now",
    "aucune carte défaussée ne peut être revendiquée maintenant",
)
NO_CLAIM_OPEN = text(
    "numwin-no-claim-open",
    "no claim is open: {why}",
    "aucune revendication n’est ouverte\u00a0: {why}",
)
ACTION_NEVER_PAIRS = text(
    "numwin-action-never-pairs",
    "an action card never pairs",
    "une carte action ne forme jamais de paire",
)
NOT_FRESH = text(
    "numwin-not-fresh",
    "the discard top is not a freshly discarded card",
    "le haut de la défausse n’est pas une carte tout juste défaussée",
)
CLAIMED_WRONG = text(
    "numwin-claimed-wrong",
    "you already claimed this discard with a wrong card",
    "vous avez déjà revendiqué cette défausse avec une mauvaise carte",
)
CLAIM_OWN = text(
    "numwin-claim-own",
    "a claim names your own card (or your partner's)",
    "une revendication nomme l’une de vos cartes (ou de celles de votre partenaire)",
)
POSITION_LOCKED = text(
    "numwin-position-locked", "position {position} is locked", "la position {position} est bloquée"
)
CALL_AFTER_SNAP = text(
    "numwin-call-after-snap",
    "a call is made right after your successful snap",
    "l’annonce se fait juste après votre revendication réussie",
)
NOTHING_TO_SHOW = text(
    "numwin-nothing-to-show", "there is nothing to show now", "il n’y a rien à montrer maintenant"
)
SHOW_OWN = text(
    "numwin-show-own",
    "show one of your own cards, not {card!r}",
    "montrez l’une de vos propres cartes, pas {card!r}",
)
