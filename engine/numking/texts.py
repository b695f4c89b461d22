"""What Num King says when it refuses a request or a move, in English and French
(engine/core/texts.py: each a text with named parameters, rendered in the caller's language)."""

from __future__ import annotations

from engine.core.cards import card_words
from engine.core.texts import ACTION_WORDS, text

MAX_CARDS_FOR_TABLE = text(
    "numking-max-cards-table",
    "max_cards must be between 1 and {high} for {players} players ({deck} cards shared out), "
    "not {value}",
    "max_cards doit être entre 1 et {high} pour {players} joueurs ({deck} cartes distribuées), "
    "pas {value}",
)
FIRST_BIDDER_TABLE = text(
    "numking-first-bidder-table",
    "first_bidder {seat} is not a seat of a {players}-player table (seats 0 to {last})",
    "first_bidder {seat} n’est pas une place d’une table de {players} joueurs (places 0 à {last})",
)
ROUND_RANGE = text(
    "numking-round-range",
    "round must be between 1 and {last} (cards per player)",
    "round doit être entre 1 et {last} (cartes par joueur)",
)
FIRST_BIDDER_SEAT = text(
    "numking-first-bidder-seat",
    "first_bidder must be a seat between 0 and {last}",
    "first_bidder doit être une place entre 0 et {last}",
)
CARRY = text(
    "numking-carry",
    "carry holds one streak between 0 and {high} per seat ({players})",
    "carry contient une série entre 0 et {high} par place ({players})",
)
HANDS = text(
    "numking-hands",
    "hands: {players} hands of {k} cards",
    "hands\u00a0: {players} mains de {k} cartes",
)
MAX_CARDS = text(
    "numking-max-cards",
    "max_cards must be between 1 and {high}",
    "max_cards doit être entre 1 et {high}",
)
NOT_IN_DECK = text(
    "card-not-in-deck", "card {card!r} is not in {deck}", "la carte {card!r} n’est pas dans {deck}"
)
DECK = text("numking-deck", "the numking deck", "le paquet de numking")
DECK_WITH_ZEROS = text(
    "numking-deck-zeros", "the numking deck with zeros", "le paquet de numking avec les zéros"
)
NOT_IN_HAND = text(
    "numking-not-in-hand",
    "{card} is not in your hand",
    "{card} n’est pas dans ta main",
    words=card_words(["card"]),
)
NOT_IN_SEAT_HAND = text(
    "numking-not-in-seat-hand",
    "{card} is not in your hand (seat {seat})",
    "{card} n’est pas dans ta main (place {seat})",
    words=card_words(["card"]),
)
MUST_BEAT = text(
    "must-beat",
    "{card} does not beat the trick while you hold a stronger card ({stronger}): play one of "
    "them (rules, Obligation)",
    "{card} ne bat pas le pli alors que tu as une carte plus forte ({stronger})\u00a0: joue-en une "
    "(règles, Obligation)",
    words=card_words(["card", "stronger"]),
)
MUST_BEAT_HELD = text(
    "must-beat-held",
    "{card} does not beat the trick while you hold a stronger card: play one of these ({legal}) "
    "(rules, Obligation)",
    "{card} ne bat pas le pli alors que tu as une carte plus forte\u00a0: joue l’une de celles-ci "
    "({legal}) (règles, Obligation)",
    words=card_words(["card", "legal"]),
)
INFINITY_17 = text(
    "must-beat-infinity",
    "Infinity is needed to beat the trick: declare it 17 (rules, Obligation)",
    "Il faut l’Infini pour battre le pli\u00a0: annonce-le à 17 (règles, Obligation)",
)
LEGAL = text("legal-move", "legal move", "coup permis")
CARDS_RANGE = text(
    "numking-cards-range",
    "cards (per player this round) must be between 1 and {high}",
    "cards (par joueur cette manche) doit être entre 1 et {high}",
)
PLAYERS_RANGE = text(
    "numking-players-range",
    "score-round takes between 1 and {high} players, not {count}",
    "score-round prend entre 1 et {high} joueurs, pas {count}",
)
BETWEEN = text(
    "numking-between", "{name} must be between 0 and {high}", "{name} doit être entre 0 et {high}"
)
STREAK_RANGE = text(
    "numking-streak-range",
    "streak must be between 0 and {high} (a match has at most {rounds} rounds)",
    "streak doit être entre 0 et {high} (une partie compte au plus {rounds} manches)",
)
PREVIOUS_OVER = text(
    "numking-previous",
    "the previous round is a numking round that is over",
    "la manche précédente est une manche de numking terminée",
)
DECLARED_VALUE = text(
    "numking-declared-value",
    "declared must be 17 or 0, not {declared!r}",
    "declared doit valoir 17 ou 0, pas {declared!r}",
)
DECLARED_MISSING = text(
    "missing-declared",
    "infinity is played with 'declared' 17 or 0",
    "l’infinity se joue avec «\u00a0declared\u00a0» 17 ou 0",
)
DECLARED_OTHER = text(
    "numking-declared-other",
    "only infinity takes a declared value, not {card!r}",
    "seule l’infinity prend une valeur annoncée, pas {card!r}",
)
TRICK_DECLARED_VALUE = text(
    "numking-trick-declared-value",
    "trick[{i}].declared must be 17 or 0, not {declared!r}",
    "trick[{i}].declared doit valoir 17 ou 0, pas {declared!r}",
)
TRICK_DECLARED_MISSING = text(
    "numking-trick-declared-missing",
    "trick[{i}] is infinity: it needs 'declared' 17 or 0",
    "trick[{i}] est l’infinity\u00a0: elle a besoin de «\u00a0declared\u00a0» 17 ou 0",
)
TRICK_DECLARED_OTHER = text(
    "numking-trick-declared-other",
    "trick[{i}] is {card!r}: only infinity takes a declared value",
    "trick[{i}] est {card!r}\u00a0: seule l’infinity prend une valeur annoncée",
)
ROUND_OVER = text("round-over", "the round is over", "la manche est terminée")
NOT_YOUR_TURN = text(
    "numking-not-your-turn",
    "It is seat {turn}'s turn, not seat {seat!r}'s",
    "C’est au tour de la place {turn}, pas de la place {seat!r}",
)
BID_PHASE = text(
    "numking-bid-phase",
    "The round is at its bids: bid 0 to {k} tricks",
    "La manche en est aux annonces\u00a0: annonce de 0 à {k} plis",
)
BAD_BID = text(
    "bad-bid",
    "A bid is 0 to {k} tricks, not {tricks!r}",
    "Une annonce va de 0 à {k} plis, pas {tricks!r}",
)
PLAY_PHASE = text(
    "numking-play-phase",
    "The round is at its play: play a card (a {kind} action is refused)",
    "La manche en est au jeu\u00a0: joue une carte (tu ne peux pas {kind})",
    words={"kind": ACTION_WORDS},
)
NOT_OVER = text("numking-not-over", "the round is not over", "la manche n’est pas terminée")
CARDS_MISMATCH = text(
    "cards-mismatch",
    "this is round {n}: {n} cards, not {cards}",
    "c’est la manche {n}\u00a0: {n} cartes, pas {cards}",
)
STREAK_MISMATCH = text(
    "streak-mismatch",
    "the earlier rounds give a streak of {derived} before round {n}, not {streak} (leave "
    "`streak` out)",
    "les manches précédentes donnent une série de {derived} avant la manche {n}, pas {streak} "
    "(omettez `streak`)",
)
