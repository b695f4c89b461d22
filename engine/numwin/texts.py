"""What Num Win says when it refuses a request, in English and French (engine/core/texts.py:
each a text with named parameters, rendered in the caller's language)."""

from __future__ import annotations

from engine.core.texts import text

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
    "players[{i}].combination contient {count} cartes ; au plus {high} sont acceptées",
)
TOO_FEW = text(
    "numwin-too-few",
    "players[{i}] holds {held} cards counting locked pairs; a final combination holds at "
    "least {low}",
    "players[{i}] a {held} cartes en comptant les paires bloquées ; une combinaison finale en "
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
    "players[{i}].locked[{j}] contient {cards}, pas une paire : une paire bloquée est faite de "
    "deux cartes d'une même valeur qui peuvent s'apparier (classique+classique, "
    "rainbow+numérotée, shadow+rainbow)",
)
CALLER = text(
    "numwin-caller",
    "caller {caller!r} is not a seat (0..{last}) or null",
    "caller {caller!r} n'est pas une place (0..{last}) ni null",
)
