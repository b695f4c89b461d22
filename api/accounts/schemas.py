"""Request and response bodies of the accounts endpoints (contract "Accounts, score sheets,
history"; rules/app.md "Accounts")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

#: rules/app.md: the age ranges a player picks from at sign-up.
AGE_RANGES = ("under-13", "13-17", "18-24", "25-34", "35-49", "50-plus")
AgeRange = Literal["under-13", "13-17", "18-24", "25-34", "35-49", "50-plus"]
Locale = Literal["fr", "en"]

#: rules/app.md: a pseudo has 3–24 characters. Letters, digits, `_`, `-` and `.` only: no
#: `@`, so that a log-in is an email exactly when it holds one.
PSEUDO_PATTERN = r"^[\w.-]{3,24}$"
Pseudo = Annotated[
    str,
    msgspec.Meta(
        min_length=3,
        max_length=24,
        pattern=PSEUDO_PATTERN,
        description="3–24 letters, digits, `_`, `-` or `.`; unique, case-insensitive",
        examples=["ada_l"],
    ),
]
#: rules/app.md: at least 10 characters; 1,024 at most, so that hashing stays bounded.
Password = Annotated[
    str,
    msgspec.Meta(min_length=10, max_length=1024, description="10 to 1,024 characters"),
]
EMAIL_PATTERN = r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$"
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
    str, msgspec.Meta(min_length=1, max_length=254, description="a pseudo or a verified email")
]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_-]+$")]


class Body(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class SignUp(Body, frozen=True):
    pseudo: Pseudo
    password: Password
    age_range: AgeRange
    accept_terms: bool  # must be true (rules/app.md); the terms version is recorded
    email: Email | None = None
    locale: Locale | None = None  # default: from Accept-Language, else English


class Account(msgspec.Struct, frozen=True, kw_only=True):
    """An account as its owner sees it (never its password hash)."""

    id: str
    pseudo: str
    email: str | None
    email_verified: bool
    age_range: str
    locale: str
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
    status: str
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
    locale: str
