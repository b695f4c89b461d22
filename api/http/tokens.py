"""Secrets shared by every area: bearer tokens (seat, session, sheet and creator tokens, API keys),
their hashes, ids, and the 401 that asks for one; player names as every area checks them.

A token is 256 random bits (`secrets.token_urlsafe(32)`), handed out once and stored only as
its sha256: a leaked table gives no usable token, and a lookup is one indexed equality.

Each kind of bearer token starts with its own prefix (contract, "Edge cases settled":
Credentials), so that one look at a token says which table could hold it: the rate limiter
(api/ops/ratelimit.py) finds a request's bucket with one lookup, and a key pasted where a session
belongs is recognised as what it is. Tokens handed out before the prefixes, without one,
stay valid (the limiter then looks in every table).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
import uuid
from collections.abc import Sequence
from typing import Any

from litestar import Request

from api.http.domain import Invalid, field_error
from api.http.problems import ProblemError, shorten
from engine.core.texts import Message, Text, say, text

_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,200}")


#: The prefixes of the bearer tokens (emailed tokens and stream tickets have none: they are
#: never sent as a bearer). `nrk_`: an API key, metering only (api/accounts/service.py).
SEAT_PREFIX = "nrg_"
SESSION_PREFIX = "nrs_"
SHEET_PREFIX = "nrc_"
#: The creator's token of a game of bots only created without a session: it ends that game
#: (`POST /v1/games/{id}/abandon`) and nothing else; never a seat, never counted as one.
CREATOR_PREFIX = "nrh_"
API_KEY_PREFIX = "nrk_"


def kind_of(token: str) -> Text | None:
    """What kind of token `token` is by its prefix (an API key's aside: it has its own
    words), None without one of theirs."""
    for prefix, kind in _KINDS:
        if token.startswith(prefix):
            return kind
    return None


def new_token(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(32)


def unheld_token_hash() -> str:
    """The hash of a seat token nobody is ever given: an open seat's, a revoked one's."""
    return token_hash(new_token(SEAT_PREFIX))


def new_id() -> str:
    return uuid.uuid4().hex


def well_formed(token: str) -> bool:
    """Shaped as a token of this service (1 … 200 URL-safe characters)."""
    return _TOKEN.fullmatch(token) is not None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


#: What a bearer token is, as the 401 that asks for one names it.
TOKEN = text("token-any", "token", "jeton")
SEAT_TOKEN = text("token-seat", "seat token", "jeton de place")
SESSION_TOKEN = text("token-session", "session token", "jeton de session")
SHEET_TOKEN = text("token-sheet", "sheet token", "jeton de feuille")
CREATOR_TOKEN = text("token-creator", "creator token", "jeton de créateur")
SESSION_OR_SHEET_TOKEN = text(
    "token-session-or-sheet", "session or sheet token", "jeton de session ou de feuille"
)
_KINDS = (
    (SEAT_PREFIX, SEAT_TOKEN),
    (SESSION_PREFIX, SESSION_TOKEN),
    (SHEET_PREFIX, SHEET_TOKEN),
    (CREATOR_PREFIX, CREATOR_TOKEN),
)
BEARER_FORM = text(
    "bearer-form",
    "Authorization must be 'Bearer <{kind}>'",
    "Authorization doit être «\u00a0Bearer <{kind}>\u00a0»",
)
NAME_CONTROL = text(
    "bad-name-control",
    "a name holds no control or formatting character, not {characters}",
    "un nom ne contient aucun caractère de contrôle ou de mise en forme, pas {characters}",
)
NAME_BLANK = text("bad-name-blank", "a name is not blank", "un nom n’est pas vide")
NAME_TAKEN = text(
    "duplicate-name",
    "another player is already named {name!r} (player {other}): give each player their own name",
    "un autre joueur s’appelle déjà {name!r} (joueur {other})\u00a0: donnez à chacun son propre nom",
)


def unauthorized(detail: Message) -> ProblemError:
    """401 `unauthorized`, asking for a Bearer token."""
    return ProblemError(401, "unauthorized", detail, headers={"WWW-Authenticate": "Bearer"})


def bearer(request: Request[Any, Any, Any], kind: Text = TOKEN) -> str | None:
    """The token of `Authorization: Bearer <token>` (None without the header); anything else
    in the header is 401, never read as an anonymous caller."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not well_formed(token):
        raise unauthorized(say(BEARER_FORM, kind=say(kind)))
    return token


def check_name(name: str, field: str) -> None:
    """A player's name: not blank, no control or formatting character (Unicode categories Cc
    and Cf: a NUL, which PostgreSQL cannot store, bidi overrides, zero-width spaces)."""
    odd = sorted({f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in ("Cc", "Cf")})
    if odd:
        message = say(NAME_CONTROL, characters=", ".join(odd[:5]))
    elif not name.strip():
        message = say(NAME_BLANK)
    else:
        return
    raise field_error(Invalid, "bad-name", field, message)


def check_names(names: Sequence[str | None], field: str = "players") -> None:
    """The players' names of one sheet or game: each valid (:func:`check_name`, at
    `players[i].name`) and none twice (422 `duplicate-name` at the later one's field). Names
    are compared as people read them (case and outer or repeated spaces aside: « Ada » and
    « ada  » are one name; the message quotes the earlier name as written), since totals, turns and results name the players and two
    « Ada » at one table cannot be told apart."""
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name is None:  # an open seat's: its claimer's pseudo will name it
            continue
        check_name(name, f"{field}[{i}].name")
        key = " ".join(name.split()).casefold()
        if key in seen:
            # the name quoted as the earlier player wrote it (« Ada », not the later « ada »):
            # the one the player sees on the table
            first = names[seen[key]] or name
            message = say(NAME_TAKEN, name=shorten(" ".join(first.split())), other=seen[key] + 1)
            raise field_error(Invalid, "duplicate-name", f"{field}[{i}].name", message)
        seen[key] = i
