"""What the service says to players, in French and English (rules/app.md): the terms of use
served at `GET /v1/terms` and the emails it sends.

The terms' `TERMS_VERSION` is recorded on every account at sign-up: a change of the text
bumps it.
"""

from __future__ import annotations

from engine.core.texts import BY_RULESET, text

TERMS_VERSION = "2026-12-04"

TERMS = {
    "en": (
        "numrules keeps the score sheets and games of the Num Project card games for the "
        "players who create an account. We store your pseudo, your age range, your email if "
        "you give one, your password as an Argon2id hash (never the password itself), your "
        "score sheets, games and stats. Your email is used only to verify it and to reset "
        "your password. You may change your email, or delete your account and its data, at "
        "any time (DELETE /v1/me). Play fair: do not enter another player's results as theirs."
    ),
    "fr": (
        "numrules conserve les feuilles de score et les parties des jeux de cartes du Num "
        "Project pour les joueurs qui créent un compte. Nous gardons ton pseudo, ta tranche "
        "d’âge, ton e-mail si tu en donnes un, ton mot de passe sous forme d’empreinte "
        "Argon2id (jamais le mot de passe lui-même), tes feuilles de score, parties et "
        "statistiques. Ton e-mail sert seulement à le vérifier et à réinitialiser ton mot de "
        "passe. Tu peux changer ton e-mail, ou supprimer ton compte et ses données, à tout "
        "moment (DELETE /v1/me). Joue franc jeu\u00a0: n’inscris pas les résultats d’un autre "
        "joueur à sa place."
    ),
}

_MAIL = {
    "verify": {
        "en": (
            "numrules: confirm your email",
            "Hello {pseudo},\n\nConfirm this address for your numrules account with this "
            "token (valid {hours} hours):\n\n{token_line}\n\nIf you did not ask for it, "
            "ignore this message.\n",
        ),
        "fr": (
            "numrules\u00a0: confirme ton e-mail",
            "Bonjour {pseudo},\n\nConfirme cette adresse pour ton compte numrules avec ce "
            "jeton (valable {hours} heures)\u00a0:\n\n{token_line}\n\nSi tu n’as rien demandé, "
            "ignore ce message.\n",
        ),
    },
    "reset": {
        "en": (
            "numrules: reset your password",
            "Hello {pseudo},\n\nSomeone asked to reset the password of your numrules "
            "account. Choose a new one with this single-use token (valid {hours} hour):"
            "\n\n{token_line}\n\nIf it was not you, ignore this message: your password "
            "stays as it is.\n",
        ),
        "fr": (
            "numrules\u00a0: réinitialise ton mot de passe",
            "Bonjour {pseudo},\n\nQuelqu’un a demandé à réinitialiser le mot de passe de ton "
            "compte numrules. Choisis-en un nouveau avec ce jeton à usage unique (valable "
            "{hours} heure)\u00a0:\n\n{token_line}\n\nSi ce n’était pas toi, ignore ce message\u00a0: "
            "ton mot de passe ne change pas.\n",
        ),
    },
}

#: The front-end page each emailed token opens, below NUMRULES_APP_URL.
PAGES = {"verify": "verify-email", "reset": "reset-password"}


def mail_text(
    purpose: str, locale: str, pseudo: str, token: str, hours: int, app_url: str | None
) -> tuple[str, str]:
    """Subject and body of a `verify` or `reset` email: the token on a line `token: <token>`,
    and a link ending `?token=<token>` when the front-end's URL is configured."""
    subject, body = _MAIL[purpose]["fr" if locale == "fr" else "en"]
    token_line = f"token: {token}"
    if app_url:
        token_line += f"\n{app_url.rstrip('/')}/{PAGES[purpose]}?token={token}"
    return subject, body.format(pseudo=pseudo, hours=hours, token_line=token_line)


# -- the accounts' refusals (api/accounts/service.py, api/accounts/sessions.py) --------------

RESET_ACCEPTED = text(
    "reset-accepted",
    "if this login has a verified email, a reset token is on its way",
    "si cet identifiant a un e-mail vérifié, un jeton de réinitialisation est en route",
)
INVALID_CREDENTIALS = text(
    "invalid-credentials",
    "the login or the password is wrong",
    "l’identifiant ou le mot de passe est incorrect",
)
ACCOUNT_GONE = text("account-gone", "the account no longer exists", "le compte n’existe plus")
WRONG_PASSWORD = text(
    "wrong-password",
    "current: this is not the account's password",
    "current\u00a0: ce n’est pas le mot de passe du compte",
)
NOT_THE_PASSWORD = text(
    "wrong-password-field", "not the account's password", "pas le mot de passe du compte"
)
EMAIL_TAKEN = text(
    "email-taken", "another account uses this email", "un autre compte utilise cet e-mail"
)
PSEUDO_TAKEN = text(
    "pseudo-taken",
    "another account uses this pseudo (pseudos are compared case-insensitively)",
    "un autre compte utilise ce pseudo (les pseudos sont comparés sans tenir compte de la casse)",
)
PSEUDO_TAKEN_FIELD = text(
    "pseudo-taken-field", "another account uses this pseudo", "un autre compte utilise ce pseudo"
)
TOO_MANY_ATTEMPTS = text(
    "too-many-attempts",
    "too many failed attempts: try again in {seconds} s",
    "trop de tentatives échouées\u00a0: réessayez dans {seconds} s",
)
INVALID_TOKEN = text(
    "invalid-token",
    "unknown, expired or already used",
    "inconnu, expiré ou déjà utilisé",
)
TERMS_NOT_ACCEPTED = text(
    "terms-not-accepted",
    "must be true: the terms of GET /v1/terms are accepted at sign-up",
    "accepte les conditions d’utilisation pour t’inscrire",
)
TOO_MANY_API_KEYS = text(
    "too-many-api-keys",
    "an account holds at most {most} API keys: delete one first",
    "un compte a au plus {most} clés d’API\u00a0: supprimez-en une d’abord",
)
NO_API_KEY = text(
    "no-api-key",
    "this account has no API key with this id",
    "ce compte n’a pas de clé d’API avec cet identifiant",
)
KEY_NOT_SESSION = text(
    "api-key-not-session",
    "an API key only meters requests: this needs a session token",
    "une clé d’API ne sert qu’à compter les requêtes\u00a0: il faut ici un jeton de session",
)
TOKEN_NOT_SESSION = text(
    "token-not-session",
    "a {kind} is not a session token: this needs Authorization: Bearer <session token>",
    "un {kind} n’est pas un jeton de session\u00a0: il faut ici Authorization: Bearer "
    "<jeton de session>",
)
SESSION_UNKNOWN = text(
    "session-unknown",
    "the session token is unknown, expired or ended",
    "le jeton de session est inconnu, expiré ou terminé",
)
SESSION_NEEDED = text(
    "session-needed",
    "this needs a session: Authorization: Bearer <session token>",
    "il faut une session\u00a0: Authorization: Bearer <jeton de session>",
)
COMMUNITY_LOCKED = text(
    "community-locked",
    "{ruleset} is a community game: it needs an account's session "
    "(Authorization: Bearer <session token>)",
    "{ruleset} est un jeu de la communauté\u00a0: il faut la session d’un compte "
    "(Authorization: Bearer <jeton de session>)",
    BY_RULESET,
)
UNKNOWN_ACCOUNT = text(
    "unknown-account",
    "no account has the pseudo {pseudo!r}",
    "aucun compte n’a le pseudo {pseudo!r}",
)
DUPLICATE_ACCOUNT = text(
    "duplicate-account",
    "an account takes one place only",
    "un compte ne prend qu’une seule place",
)
