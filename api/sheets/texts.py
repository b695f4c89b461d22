"""What the score sheets say when they refuse a request, in English and French
(engine/core/texts.py: each a text with named parameters, rendered in the caller's language)."""

from __future__ import annotations

from engine.core.texts import BY_RULESET, text

NO_SHEET = text("no-sheet", "no score sheet {sheet!r}", "aucune feuille de score {sheet!r}")
NEEDS_TOKEN = text(
    "sheet-needs-token",
    "changing a score sheet needs its owner's session or its sheet token: Authorization: "
    "Bearer <token>",
    "modifier une feuille de score demande la session de son propriétaire ou son jeton de "
    "feuille\u00a0: Authorization: Bearer <jeton>",
)
WRONG_TOKEN = text(
    "sheet-wrong-token",
    "the bearer token is neither a live session nor this sheet's token",
    "le jeton n’est ni une session en cours ni le jeton de cette feuille",
)
NOT_OWNER = text(
    "not-owner",
    "only the sheet's owner (or its sheet token) changes it; a player named on it reads and "
    "confirms it",
    "seul le propriétaire de la feuille (ou son jeton de feuille) la modifie\u202f; un joueur qui y "
    "est nommé la lit et la confirme",
)
IF_MATCH_REQUIRED = text(
    "if-match-required",
    'this change needs If-Match: "<version>", the ETag of the sheet as read (now If-Match: '
    '"{version}"): a round corrected or deleted on an old reading would undo another\'s change',
    'ce changement demande If-Match: "<version>", l’ETag de la feuille telle que lue '
    '(maintenant If-Match: "{version}")\u00a0: une manche corrigée ou supprimée sur une lecture '
    "ancienne déferait le changement d’un autre",
)
VERSION_MISMATCH = text(
    "version-mismatch",
    "the sheet is at version {version}, not the one in If-Match: read it again",
    "la feuille est à la version {version}, pas celle de If-Match\u00a0: relisez-la",
)
NAME_EACH = text(
    "sheet-name-each",
    "the sheet has {players} players: name each of them, in order",
    "la feuille a {players} joueurs\u00a0: nommez chacun d’eux, dans l’ordre",
)
SCORE_EACH = text(
    "sheet-score-each",
    "the sheet has {players} players: a round scores each of them, not {count}",
    "la feuille a {players} joueurs\u00a0: une manche les compte tous, pas {count}",
)
FINISHED_AFTER = text(
    "sheet-finished",
    "the match is over after {rounds} rounds ({planned} planned and the tie-breaks it called "
    "for): raise planned_rounds (PATCH) to play on",
    "la partie est terminée après {rounds} manches ({planned} prévues et les manches de "
    "départage demandées)\u00a0: augmentez le nombre de manches prévues pour continuer",
)
FINISHED_PAST = text(
    "sheet-finished-past",
    "the match is over after round {last}: round {next} is past the {planned} planned rounds "
    "and no tie-break round is due",
    "la partie est terminée après la manche {last}\u00a0: la manche {next} dépasse les {planned} "
    "manches prévues et aucune manche de départage n’est due",
)
NO_ROUND = text("sheet-no-round", "the sheet has no round {n}", "la feuille n’a pas de manche {n}")
KEY_REUSED = text(
    "idempotency-key-reused",
    "this Idempotency-Key was used for another request: use a new key for a new change",
    "cette Idempotency-Key a servi à une autre requête\u00a0: utilisez une nouvelle clé pour un "
    "nouveau changement",
)
OPTIONS_MISMATCH = text(
    "options-mismatch",
    "the sheet plays {name}={value}: a round takes the sheet's options (leave `options` out)",
    "la feuille se joue avec {name}={value}\u00a0: une manche prend les options de la feuille "
    "(omettez `options`)",
)
ROUND_OBJECT = text(
    "sheet-round-object", "a round is a JSON object", "une manche est un objet JSON"
)
MUST_BE_OBJECT = text("must-be-object", "must be an object", "doit être un objet")
DEALER_SEAT = text(
    "sheet-dealer-seat",
    "must be a seat of the table, 0 … {last}",
    "doit être une place de la table, 0 … {last}",
)
NO_LONGER_SCORES = text(
    "round-no-longer-scores",
    "round {n} (as renumbered or re-derived) no longer scores: {reason}",
    "la manche {n} (renumérotée ou recalculée) ne se compte plus\u00a0: {reason}",
)
MOST_ROUNDS = text(
    "sheet-most-rounds",
    "a {ruleset} match of {players} players has at most {most} rounds, not {planned}",
    "une partie de {ruleset} à {players} joueurs a au plus {most} manches, pas {planned}",
    BY_RULESET,
)
SHEET_PLAYER = text(
    "sheet-player",
    "must be a player of the sheet, 0 … {last}",
    "doit être un joueur de la feuille, 0 … {last}",
)
PLAYER_BOUND = text(
    "player-bound",
    "player {player} is bound to another account already",
    "le joueur {player} est déjà lié à un autre compte",
)
PLAYER_ALREADY = text(
    "player-bound-self",
    "you play on this sheet already, as player {player}: an account is one player of a sheet",
    "vous jouez déjà sur cette feuille, comme joueur {player}\u00a0: un compte est un seul joueur "
    "d’une feuille",
)
ACCOUNT_ALREADY = text(
    "sheet-account-already",
    "this account plays on this sheet already, as player {player}: an account is one player of "
    "a sheet",
    "ce compte joue déjà sur cette feuille, comme joueur {player}\u00a0: un compte est un seul joueur "
    "d’une feuille",
)
