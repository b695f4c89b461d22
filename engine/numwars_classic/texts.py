"""What Num Wars classic says when it refuses a request, in English and French
(engine/core/texts.py: each a text with named parameters, rendered in the caller's language)."""

from __future__ import annotations

from engine.core.texts import ACTION_WORDS, PHASE_WORDS, text

DECK = text("numwars-classic-deck", "the numwars-classic deck", "le paquet de numwars-classic")
ALLIANCE = text(
    "numwars-classic-alliance",
    "the alliance variant needs 4, 6 or 8 players (partners opposite), not {players}",
    "la variante alliance demande 4, 6 ou 8 joueurs (partenaires face à face), pas {players}",
)
PILES = text(
    "numwars-classic-piles",
    "score-round takes 1 to {high} players' piles, not {count}",
    "score-round prend les plis de 1 à {high} joueurs, pas {count}",
)
NOT_A_CARD = text(
    "numwars-not-a-card", "{card!r} is not a card code", "{card!r} n’est pas un code de carte"
)

# -- the stored round's refusals (engine/numwars_classic/kernel.py) --------------------------

WRONG_PHASE = text(
    "numwars-classic-wrong-phase",
    "a {kind} action is not allowed during {phase} (allowed: {allowed})",
    "{kind} n’est pas permis pendant {phase} (permis\u00a0: {allowed})",
    words={"kind": ACTION_WORDS, "phase": PHASE_WORDS, "allowed": ACTION_WORDS},
)
WRONG_PHASE_OVER = text(
    "numwars-classic-wrong-phase-over",
    "a {kind} action is not allowed: the round is over",
    "{kind} n’est plus permis\u00a0: la manche est terminée",
    words={"kind": ACTION_WORDS},
)
PASSED_ALL = text(
    "numwars-classic-passed-all",
    "seat {seat} has already passed its {k} cards",
    "la place {seat} a déjà passé ses {k} cartes",
)
PASS_LEFT = text(
    "numwars-classic-pass-left",
    "seat {seat} has {left} card(s) left to pass, not {count}",
    "il reste {left} carte(s) à passer à la place {seat}, pas {count}",
)
NOT_IN_SEAT_HAND = text(
    "numwars-classic-not-in-seat-hand",
    "{card!r} is not in seat {seat}'s hand",
    "{card!r} n’est pas dans la main de la place {seat}",
)
NOT_IN_SEAT_HAND_OFTEN = text(
    "numwars-classic-not-in-seat-hand-often",
    "{card!r} is not in seat {seat}'s hand that often",
    "{card!r} n’est pas autant de fois dans la main de la place {seat}",
)
SHOWN = text(
    "numwars-classic-shown",
    "seat {seat} has already shown or skipped",
    "la place {seat} a déjà montré une carte ou passé son tour",
)
NOT_YOUR_TURN = text(
    "numwars-classic-not-your-turn",
    "It is seat {turn}'s turn, not seat {seat}'s",
    "C’est au tour de la place {turn}, pas de la place {seat}",
)
NO_DECLARATION = text(
    "numwars-classic-no-declaration",
    "numwars-classic cards take no declaration",
    "les cartes de numwars-classic ne prennent pas d’annonce",
)
