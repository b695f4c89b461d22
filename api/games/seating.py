"""What open tables and rematches (issue 26; api-contract.md, "Turn clocks, open tables,
rematch" and its settled edge cases) need below the flow: the new seats of a game, the checks
of a creation's open seats, the sealing of a claimed seat's token, the open tables' cursor and
the refusals' words. The flows themselves are :mod:`api.games.tables`.

**The same token again.** Seat tokens are stored only hashed, so a token once handed out
cannot be read back from the database. A claim therefore keeps its token *sealed* with a pad
that only the claiming session's token derives (HMAC-SHA256 keyed by that session token,
which the server never stores, with a random salt per seal): the same session claiming again
gets the very same token back, and a copy of the database alone opens nothing. Another session
of the same account (a second device) cannot open the seal: it gets a freshly issued token for
the same seat, sealed for it in turn, and the earlier token stops working (the account's
session still acts for the seat on every device, as a joined seat's does).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec

from api.db.engine import aware
from api.games.schemas import BotLevel, CreateGame
from api.http.domain import DomainError, Invalid, Unauthenticated, field_error
from api.http.responses import HEX_ID
from api.http.tokens import check_name
from engine.core.texts import say, text

#: Hours a waiting game may wait for its players (`NUMRULES_WAITING_HOURS`).
WAITING_HOURS = 24.0
#: The open tables' page: its default and largest size.
TABLES_PAGE = 20
TABLES_MAX = 100


@dataclass(frozen=True)
class NewSeat:
    """A seat of a game being created: who holds it and how its token goes out. `issue`:
    its token is in the answer now; `pending`: its player fetches it later (a rematch's other
    seats); neither: nobody gets one (a bot, an open seat)."""

    name: str
    account_id: str | None = None
    joined: bool = False
    bot: BotLevel | None = None
    open: bool = False
    open_name: str | None = None
    issue: bool = True
    pending: bool = False
    #: The pseudo the answer shows (`account`), when the seat is bound to one.
    pseudo: str | None = None


OPEN_NEEDS_SESSION = text(
    "open-needs-session",
    "opening a seat needs the creator's account session: Authorization: Bearer <session token>",
    "ouvrir une place demande la session du compte qui crée la partie\u00a0: Authorization: Bearer "
    "<jeton de session>",
)
NAME_NEEDED = text(
    "player-name-needed",
    "a player needs a name (only an open seat may go without one)",
    "un joueur a besoin d’un nom (seule une place ouverte peut s’en passer)",
)
OPEN_NOT_WITH = text(
    "open-seat-not-with",
    "an open seat is for whoever claims it: not with {field}",
    "une place ouverte est à qui la prend\u00a0: pas avec {field}",
)
BOT_NOT_WITH = text(
    "bot-seat-not-with",
    "a bot seat is played by the server: not with {field} (an account bound to it would act, "
    "see its hand and ask hints for a seat the table sees as a bot)",
    "une place de bot est jouée par le serveur\u00a0: pas avec {field} (un compte lié à elle "
    "jouerait, verrait sa main et demanderait des conseils pour une place que la table croit "
    "tenue par un bot)",
)
SEED_WITH_OPEN = text(
    "seed-with-open-seats",
    "a game with open seats draws its own seed: players who join could not trust a seed the "
    "creator chose",
    "une partie à places ouvertes tire sa propre graine\u00a0: les joueurs qui la rejoignent ne "
    "pourraient pas se fier à une graine choisie par son créateur",
)
NO_OPEN_SEAT = text(
    "no-open-seat",
    "the game has no open seat: the open tables are waiting games only",
    "la partie n’a pas de place ouverte\u00a0: seules les parties en attente sont des tables ouvertes",
)
SEAT_TAKEN = text(
    "seat-taken",
    "seat {seat} is taken: another player was first",
    "la place {seat} est prise\u00a0: un autre joueur a été plus rapide",
)
ALREADY_SEATED = text(
    "already-seated",
    "your account already holds seat {seat} of this game: one seat per account",
    "votre compte occupe déjà la place {seat} de cette partie\u00a0: une place par compte",
)
GAME_STARTED = text(
    "game-started",
    "the game has started: seats can be claimed, left or filled only while it waits",
    "la partie a commencé\u00a0: on ne prend, ne quitte ou ne remplit une place que tant qu’elle attend",
)
GAME_WAITING = text(
    "game-waiting",
    "the game waits for players in its open seats (seats {seats}): nothing is played before it "
    "starts",
    "la partie attend des joueurs à ses places ouvertes (places {seats})\u00a0: rien ne se joue "
    "avant qu’elle commence",
)
SEATS_OPEN = text(
    "seats-open",
    "open seats left (seats {seats}): let players claim them, or start with fill_with_bots",
    "il reste des places ouvertes (places {seats})\u00a0: attendez des joueurs, ou démarrez en les "
    "confiant à des bots",
)
NOT_THE_CREATOR = text(
    "not-the-creator",
    "only the account that created this game may {what} while it waits",
    "seul le compte qui a créé cette partie peut {what} tant qu’elle attend",
    {
        "what": {
            "start": text("creator-start", "start it", "la démarrer"),
            "cancel": text("creator-cancel", "cancel it", "l’annuler"),
        }
    },
)
CREATOR_NEEDS_SESSION = text(
    "creator-needs-session",
    "starting a waiting game needs its creator's session: Authorization: Bearer <session token>",
    "démarrer une partie en attente demande la session de son créateur\u00a0: Authorization: "
    "Bearer <jeton de session>",
)
NOT_SEATED = text(
    "not-seated",
    "seat {seat} is not held by your account: only its player may leave it",
    "la place {seat} n’est pas occupée par votre compte\u00a0: seul son joueur peut la quitter",
)
REMATCH_NEEDS_SEAT = text(
    "rematch-needs-seat",
    "a rematch is asked by one of the game's seats: its seat token, or its account's session",
    "une revanche se demande depuis une place de la partie\u00a0: son jeton de place, ou la "
    "session de son compte",
)
REMATCH_TOO_SOON = text(
    "rematch-too-soon",
    "the game is not over: a rematch comes once it is over or abandoned",
    "la partie n’est pas finie\u00a0: la revanche vient une fois la partie terminée ou abandonnée",
)
NEVER_STARTED = text(
    "rematch-never-started",
    "this table never started (it was cancelled or lapsed while it waited): there is no game "
    "to play again; open a new table",
    "cette table n’a jamais commencé (annulée ou expirée pendant qu’elle attendait)\u00a0: il n’y a "
    "pas de partie à rejouer\u202f; ouvrez une nouvelle table",
)
BAD_TABLES_CURSOR = text(
    "bad-tables-cursor",
    "not a cursor of the open tables: pass `next_cursor` of the previous page as it is",
    "pas un curseur des tables ouvertes\u00a0: passez tel quel le `next_cursor` de la page précédente",
)
STATUS_OPEN_ONLY = text(
    "status-open-only",
    "the list holds the open tables only: status=open",
    "la liste ne montre que les tables ouvertes\u00a0: status=open",
)


def check_players(body: CreateGame, has_session: bool) -> None:
    """A creation's players: a name for every seat but an open one; an open seat bound to
    nobody and played by nobody yet; a bot seat bound to no account (its account would play
    for it); open seats only with the creator's session (the
    creator starts or cancels the table); no creator's seed with an open seat (Edge cases,
    "Seeds of shared tables")."""
    opened = False
    for i, player in enumerate(body.players):
        if player.open:
            opened = True
            for field, value in (("account", player.account), ("bot", player.bot)):
                if value is not None:
                    message = say(OPEN_NOT_WITH, field=field)
                    raise field_error(Invalid, "bad-open-seat", f"players[{i}].{field}", message)
        if player.bot is not None and player.account is not None:
            message = say(BOT_NOT_WITH, field="account")
            raise field_error(Invalid, "bad-bot-seat", f"players[{i}].account", message)
        if player.name is None:
            if not player.open:
                raise field_error(Invalid, "bad-name", f"players[{i}].name", say(NAME_NEEDED))
        else:
            check_name(player.name, f"players[{i}].name")
    if opened and not has_session:
        raise Unauthenticated(say(OPEN_NEEDS_SESSION))
    if opened and body.seed is not None:
        raise field_error(Invalid, "bad-open-seat", "seed", say(SEED_WITH_OPEN))


def creation_record(body: CreateGame) -> dict[str, object]:
    """What a rematch starts again from: the creation request without its players (the
    rematch seats them) and its seed (a rematch always draws a fresh one)."""

    kept: dict[str, object] = msgspec.to_builtins(body)
    kept.pop("players", None)
    kept.pop("seed", None)
    return kept


# -- the seal of a claimed seat's token ----------------------------------------------------


def _pad(session_token: str, salt: bytes, size: int) -> bytes:
    key = hashlib.sha256(b"numrules claim seal\n" + session_token.encode()).digest()
    stream = b"".join(
        hmac.new(key, salt + i.to_bytes(4, "big"), hashlib.sha256).digest()
        for i in range((size + 31) // 32)
    )
    return stream[:size]


def seal(token: str, session_token: str) -> str:
    """`token` XOR a pad only `session_token` derives: `<salt>.<sealed>`, base64url."""
    salt = secrets.token_bytes(16)
    raw = token.encode()
    sealed = bytes(a ^ b for a, b in zip(raw, _pad(session_token, salt, len(raw)), strict=True))
    return f"{base64.urlsafe_b64encode(salt).decode()}.{base64.urlsafe_b64encode(sealed).decode()}"


def unseal(stored: str, session_token: str) -> str | None:
    """The sealed token, or None when another session sealed it (or the seal is unreadable)."""
    salt_text, _, sealed_text = stored.partition(".")
    try:
        salt = base64.urlsafe_b64decode(salt_text)
        sealed = base64.urlsafe_b64decode(sealed_text)
        pad = _pad(session_token, salt, len(sealed))
        return bytes(a ^ b for a, b in zip(sealed, pad, strict=True)).decode("ascii")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


# -- the open tables' cursor ---------------------------------------------------------------


def _bad_cursor() -> DomainError:
    return field_error(Invalid, "bad-cursor", "cursor", say(BAD_TABLES_CURSOR))


def encode_cursor(at: datetime, game_id: str) -> str:
    raw = json.dumps([aware(at).isoformat(), game_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The last item's `(created_at, id)` of the previous page; 422 `bad-cursor` else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        at, game_id = json.loads(raw)
        moment = datetime.fromisoformat(at)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        raise _bad_cursor() from None
    if moment.tzinfo is None or not isinstance(game_id, str) or not HEX_ID.fullmatch(game_id):
        raise _bad_cursor()
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise _bad_cursor() from None
    return moment, game_id
