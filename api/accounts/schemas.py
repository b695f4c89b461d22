"""Request and response bodies of the accounts endpoints (contract "Accounts, score sheets,
history"; rules/app.md "Accounts")."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from api.accounts.texts import TERMS_NOT_ACCEPTED
from api.http.domain import Flaw
from api.http.fields import human_pattern, member
from api.http.structs import List, Strict
from engine.core.texts import say

#: rules/app.md: the age ranges a player picks from at sign-up.
AGE_RANGES = ("under-13", "13-17", "18-24", "25-34", "35-49", "50-plus")
AgeRange = Literal["under-13", "13-17", "18-24", "25-34", "35-49", "50-plus"]
Locale = Literal["fr", "en"]

#: rules/app.md: a pseudo has 3–24 characters. ASCII letters, digits, `_`, `-` and `.` only:
#: no `@`, so that a log-in is an email exactly when it holds one, and no look-alike letters
#: from other scripts to pass for another player (the pattern means the same in JSON Schema
#: and in Python: no `\w`, which is ASCII in one and Unicode in the other).
PSEUDO_PATTERN = human_pattern(
    r"^[A-Za-z0-9_.-]{3,24}$(?!\n)",
    "field-pattern-pseudo",
    "3 to 24 characters: letters without accents, digits, underscore (_), dot (.) or hyphen (-)",
    "3 à 24 caractères\u00a0: lettres sans accent, chiffres, tiret bas (_), point (.) ou trait "
    "d’union (-)",
)
Pseudo = Annotated[
    str,
    msgspec.Meta(
        min_length=3,
        max_length=24,
        pattern=PSEUDO_PATTERN,
        description="3–24 ASCII letters, digits, `_`, `-` or `.`; unique, case-insensitive",
        examples=["ada_l"],
    ),
]
#: rules/app.md: at least 10 characters; 1,024 at most, so that hashing stays bounded.
Password = Annotated[
    str,
    msgspec.Meta(min_length=10, max_length=1024, description="10 to 1,024 characters"),
]
#: No `@`, space, control or invisible formatting character (bidi overrides, zero-width
#: spaces) in either part, spelled out: `\s` differs between JSON Schema and Python. Every
#: pattern here ends `$(?!\n)`: Python's `$` also matches before a final newline.
_EMAIL_CHAR = r"[^@\x00-\x20\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]"
EMAIL_PATTERN = human_pattern(
    rf"^{_EMAIL_CHAR}{{1,64}}@{_EMAIL_CHAR}+\.{_EMAIL_CHAR}+$(?!\n)",
    "field-pattern-email",
    "an email address such as ada@example.org, without spaces",
    "une adresse email comme ada@example.org, sans espaces",
)
Email = Annotated[
    str,
    msgspec.Meta(
        max_length=254,
        pattern=EMAIL_PATTERN,
        description="unique, case-insensitive; verified by a link before it can log in",
        examples=["ada@example.org"],
    ),
]
Login = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=254,
        pattern=human_pattern(
            r"^[^\x00-\x1f\x7f]+$(?!\n)",
            "field-pattern-login",
            "a pseudo or an email, on one line, without control characters",
            "un pseudo ou un email, sur une ligne, sans caractère de contrôle",
        ),
        description="a pseudo or a verified email",
    ),
]
#: An account named by its pseudo (on a sheet or a stored game's seat).
PseudoRef = Annotated[
    str,
    msgspec.Meta(
        min_length=3,
        max_length=24,
        pattern=PSEUDO_PATTERN,
        description="an account's pseudo (case-insensitive)",
    ),
]
TOKEN_PATTERN = human_pattern(
    r"^[A-Za-z0-9_-]+$(?!\n)",
    "field-pattern-token",
    "the token exactly as it was sent to you: ASCII letters, digits, _ and -",
    "le jeton tel qu’il t’a été envoyé\u00a0: lettres ASCII, chiffres, _ et -",
)
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=TOKEN_PATTERN)]


#: The accounts' request bodies: the API's one strict base (api.http.structs).
Body = Strict


class SignUp(Body, frozen=True):
    pseudo: Pseudo
    password: Password
    age_range: AgeRange
    accept_terms: bool  # must be true (rules/app.md); the terms version is recorded
    email: Email | None = None
    locale: Locale | None = None  # default: from Accept-Language, else English

    @classmethod
    def beyond_schema(cls, value: Mapping[str, Any], path: str = "") -> list[Flaw]:
        """rules/app.md "Accounts": the terms are accepted at sign-up. A rule the schema's
        `bool` does not state, named with the body's other invalid fields
        (api.http.fields.find_flaws) or alone by the service: 422 `terms-not-accepted`."""
        if value.get("accept_terms") is False:
            field = member(path, "accept_terms")
            return [Flaw(field, "terms-not-accepted", say(TERMS_NOT_ACCEPTED))]
        return []


class Account(msgspec.Struct, frozen=True, kw_only=True):
    """An account as its owner sees it (never its password hash)."""

    id: str
    pseudo: str
    email: str | None
    email_verified: bool
    age_range: AgeRange
    locale: Locale
    terms_version: str
    created_at: datetime


class SignedUp(Account, frozen=True, kw_only=True):
    """The new account, signed in: `token` is its first session's token, shown only here."""

    token: str
    expires_at: datetime


class LogIn(Body, frozen=True):
    login: Login
    password: Annotated[str, msgspec.Meta(max_length=1024)]


class Session(msgspec.Struct, frozen=True):
    token: str
    expires_at: datetime


class UpdateMe(Body, frozen=True):
    """`email`: a new address (unverified until its link is confirmed), or null to remove it."""

    email: Email | msgspec.UnsetType | None = msgspec.UNSET
    locale: Locale | msgspec.UnsetType = msgspec.UNSET


class PasswordChange(Body, frozen=True):
    current: Annotated[str, msgspec.Meta(max_length=1024)]
    new: Password


class ResetRequest(Body, frozen=True):
    login: Login


class ResetAccepted(msgspec.Struct, frozen=True):
    status: Literal["accepted"]
    detail: str


class ResetConfirm(Body, frozen=True):
    token: Token
    password: Password


class EmailConfirm(Body, frozen=True):
    token: Token


class EmailVerified(msgspec.Struct, frozen=True):
    email: str
    email_verified: bool


class Terms(msgspec.Struct, frozen=True):
    version: str
    text: str
    locale: Locale


#: An API key's label, for its owner (which back end, which app).
KeyName = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=100,
        description="1–100 characters, not blank, no control character",
        examples=["legality checker (prod)"],
    ),
]


class ApiKeyIn(Body, frozen=True):
    name: KeyName


class ApiKey(msgspec.Struct, frozen=True, kw_only=True):
    """An API key as its owner's list shows it: never the key, which only the 201 holds.
    `last_used_at` is exact to within the rate limiter's cache time (30 s by default)."""

    id: str
    name: str
    created_at: datetime
    last_used_at: datetime | None


class ApiKeyCreated(msgspec.Struct, frozen=True, kw_only=True):
    """A new API key: `key` is shown only here (stored as its sha256)."""

    id: str
    name: str
    key: str
    created_at: datetime


class ApiKeys(List[ApiKey], frozen=True, kw_only=True):
    """Every key of the account (`items` restated: the spec names the items' type)."""

    items: list[ApiKey]
