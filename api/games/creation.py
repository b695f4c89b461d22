"""Idempotent creation of stored games (api-contract.md, "Edge cases settled", "Idempotent
creation"): the first answer of a `POST /v1/games` sent with an `Idempotency-Key`, kept in
`game_creation_keys` and replayed to a retry of the same body, so a 201 lost on a phone
network can be retried and gives the same game and the same seat tokens once more.

A key belongs to the session's account, else to nobody (`anonymous`): anonymous creations
share one sender, the key alone telling them apart, hence at least 16 characters
(`api.http.conditions.check_anonymous_key`). The caller's network is deliberately not part
of it: the retry of a lost 201 often comes from another address (a phone moving between
Wi-Fi and its carrier, a carrier's NAT), and a key tied to the address would then create a
second game, the very thing the key prevents; what guards the tokens is the key itself.
The table holds a digest of (sender, key), the answer with every seat's `token` null, and
the tokens sealed with a pad that only the key derives (`api.http.idempotency`): a copy of
the table, or a guess at another sender's digest, gives no usable token. A game of bots only
created without a session has its `creator_token` sealed with them, after the seats'.
"""

from __future__ import annotations

import msgspec
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts.sessions import Caller
from api.db.models import GameCreationKey, table
from api.games.schemas import CreateGame, GameCreated
from api.http import idempotency as shared
from api.http.idempotency import ANONYMOUS, KeyedAnswers, request_hash

KEYS = table(GameCreationKey)
#: The digests' and the seals' purposes (other areas' rows never match these).
PURPOSE = b"numrules game-creation idempotency"
SEAL_PURPOSE = b"numrules seat-tokens seal"
#: The stored answer's format (a field added later gets a default; decoding ignores `v`).
VERSION_KEY = "v"
ANSWER_FORMAT = 1

_TOKENS = msgspec.json.Decoder(list[str | None])


def sender_of(caller: Caller | None) -> str:
    """Whose `Idempotency-Key` a creation's is: the session's account, else nobody."""
    return ANONYMOUS if caller is None else f"account:{caller.account_id}"


def creation_hash(body: CreateGame) -> str:
    """What a retry must send again: the creation's body (its JSON, keys sorted)."""
    return request_hash("create-game", body)


class CreationAnswers:
    """The stored first answer of one keyed creation, inside the creation's transaction."""

    def __init__(self, conn: AsyncConnection, caller: Caller | None, key: str, request: str):
        self.keyed = KeyedAnswers(
            conn, KEYS, PURPOSE, SEAL_PURPOSE, sender_of(caller), key, request
        )

    @property
    def reused(self) -> bool:
        """The key was found with another body (after :meth:`replay`)."""
        return self.keyed.reused

    async def replay(self) -> GameCreated | None:
        """The first answer, its seats' tokens unsealed, or None for a new (or expired) key
        or one used for another body (:attr:`reused`)."""
        row = await self.keyed.find()
        if row is None:
            return None
        document = {k: v for k, v in row.response.items() if k != VERSION_KEY}
        created = msgspec.convert(document, GameCreated)
        if row.sealed_tokens is None:
            return created
        tokens = _TOKENS.decode(self.keyed.unseal(row.sealed_tokens))
        seated, host = tokens[: len(created.seats)], tokens[len(created.seats) :]
        seats = [
            msgspec.structs.replace(seat, token=token)
            for seat, token in zip(created.seats, seated, strict=True)
        ]
        return msgspec.structs.replace(created, seats=seats, creator_token=(host or [None])[0])

    async def remember(self, created: GameCreated) -> None:
        """Keep `created` for the retries: its body without tokens, the tokens sealed (the
        seats' in order, then the creator's token if it has one)."""
        tokens = [seat.token for seat in created.seats]
        if created.creator_token is not None:
            tokens.append(created.creator_token)
        bare = msgspec.structs.replace(
            created,
            seats=[msgspec.structs.replace(s, token=None) for s in created.seats],
            creator_token=None,
        )
        response = {**msgspec.to_builtins(bare), VERSION_KEY: ANSWER_FORMAT}
        sealed = None
        if any(token is not None for token in tokens):
            sealed = self.keyed.seal(msgspec.json.encode(tokens).decode())
        await self.keyed.add(game_id=created.id, response=response, sealed_tokens=sealed)


async def purge(engine: AsyncEngine) -> None:
    """Delete the creations' answers past their 24 hours (`api.http.idempotency.purge`)."""
    await shared.purge(engine, KEYS)
