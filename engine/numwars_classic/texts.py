"""What Num Wars classic says when it refuses a request, in English and French
(engine/core/texts.py: each a text with named parameters, rendered in the caller's language)."""

from __future__ import annotations

from engine.core.texts import text

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
    "numwars-not-a-card", "{card!r} is not a card code", "{card!r} n'est pas un code de carte"
)
