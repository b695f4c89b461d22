"""The stored-games service without HTTP (issue 22, "Stored games in three layers"; STYLE 14):
`api.games.service.GameService` on the run's PostgreSQL database (asyncpg), refusing with the
domain errors of `api.http.domain` (kind, contract code, extra members), never a problem, a
status or a header; and the engine refusing a card outside the game's deck itself."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from api.db.engine import create_engine
from api.games.fanout import Fanout
from api.games.schemas import CreateGame, GameCreated
from api.games.service import (
    Credential,
    Expected,
    GameMoved,
    GameService,
    seat_credential,
)
from api.http.conditions import parse_if_match
from api.http.domain import (
    Conflict,
    DomainError,
    Invalid,
    NotFound,
    Unauthenticated,
    VersionMismatch,
    status_of,
)
from api.http.problems import ProblemError
from engine import registry
from engine.core.actions import Action, Play
from engine.core.errors import InvalidInput
from engine.core.match import Match


def _run(pg_head: str, scenario: Callable[[GameService], Awaitable[None]]) -> None:
    async def main() -> None:
        service = GameService(create_engine(pg_head), Fanout())
        try:
            await scenario(service)
        finally:
            await service.close()
            await service.engine.dispose()

    asyncio.run(main())


async def _numwars(service: GameService, seed: int) -> GameCreated:
    body = msgspec.convert(
        {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"], "seed": seed}, CreateGame
    )
    return await service.create(body)


async def _refusal(call: Awaitable[Any]) -> DomainError:
    """The domain error `call` raises: never an HTTP problem."""
    try:
        await call
    except ProblemError as exc:  # pragma: no cover - the failure this test exists for
        raise AssertionError(f"the service raised an HTTP problem: {exc.problem}") from None
    except DomainError as exc:
        assert not exc.headers, "a service names no header"
        return exc
    raise AssertionError("no refusal")


def test_the_service_refuses_in_domain_terms(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        created = await _numwars(service, 11)
        seats = [seat_credential(s.token) for s in created.seats]
        game = created.id
        actor = created.view.actors[0]
        other = next(s for s in range(3) if s not in created.view.actors)
        legal = (await service.get(game, seats[actor])).view.legal_actions
        assert legal
        play: Action = legal[0]

        missing = await _refusal(service.get("0" * 32, None))
        assert isinstance(missing, NotFound) and missing.code == "not-found"
        assert isinstance(await _refusal(service.get("no-game", None)), NotFound)

        nobody = await _refusal(service.act(game, None, play, None, None))
        assert isinstance(nobody, Unauthenticated) and nobody.code == "unauthorized"
        stranger = await _refusal(service.act(game, Credential("0" * 64), play, None, None))
        assert isinstance(stranger, Unauthenticated) and "not a seat token" in stranger.detail
        # a session of an account that joined no seat of this game is no seat either
        session = await _refusal(service.get(game, Credential("1" * 64, "no-such-account")))
        assert isinstance(session, Unauthenticated)

        turn = await _refusal(service.act(game, seats[other], play, None, None))
        assert isinstance(turn, Conflict) and turn.code == "not-your-turn"
        assert turn.extra == {"reason": "not-your-turn"} and status_of(turn) == 409

        stale = Expected(parse_if_match('"7"') or pytest.fail("If-Match"), '"7"')
        moved = await _refusal(service.act(game, seats[actor], play, stale, None))
        assert isinstance(moved, GameMoved) and isinstance(moved, VersionMismatch)
        assert moved.code == "version-mismatch" and moved.version == 0
        assert '"7"' in moved.detail and status_of(moved) == 412

        kinds = registry.spec("numwars").actions
        assert "bid" not in kinds
        wrong = await _refusal(
            service.act(
                game,
                seats[actor],
                msgspec.convert({"type": "bid", "tricks": 1}, Action),
                None,
                None,
            )
        )
        assert isinstance(wrong, Invalid) and wrong.code == "validation-error"
        assert (wrong.field, wrong.extra) == ("type", {})  # its message in field_message
        assert wrong.detail == f"type: {wrong.field_message}"

        held = set((await service.get(game, seats[actor])).view.hand)
        foreign = next(c for c in registry.make("numwars", None).deck(3).cards if c not in held)
        illegal = await _refusal(service.act(game, seats[actor], Play(card=foreign), None, None))
        assert isinstance(illegal, Invalid) and illegal.code == "illegal-move"
        assert illegal.extra["reason"] == "card-not-in-hand"
        assert illegal.extra["legal_actions"] == msgspec.to_builtins(legal)

        answer, replayed = await service.act(game, seats[actor], play, None, "key-1")
        assert answer.version == 1 and not replayed
        again, replayed = await service.act(game, seats[actor], play, None, "key-1")
        assert msgspec.to_builtins(again) == msgspec.to_builtins(answer) and replayed
        # the same key with another action: refused before the turn or the move is looked at
        reused = await _refusal(service.act(game, seats[actor], Play(card=foreign), None, "key-1"))
        assert isinstance(reused, Invalid) and reused.code == "idempotency-key-reused"

        active = await _refusal(service.export(game, None))
        assert isinstance(active, Conflict) and active.code == "game-active"
        assert (await service.abandon(game, seats[other])).status == "abandoned"
        over = await _refusal(service.abandon(game, seats[other]))
        assert isinstance(over, Conflict) and over.code == "game-over"
        ended = await _refusal(service.act(game, seats[actor], play, None, None))
        assert isinstance(ended, Conflict) and ended.extra == {"reason": "game-over"}
        assert (await service.export(game, None)).status == "abandoned"

        ticketless = await _refusal(service.redeem(game, "nrt_nothing"))
        assert isinstance(ticketless, Unauthenticated)

    _run(pg_head, scenario)


@pytest.mark.parametrize(
    ("action", "code", "field"),
    [
        (Play(card="joker-99"), "unknown-card", "card"),
        (Play(card="blue-16"), "card-not-in-deck", "card"),
    ],
)
def test_the_engine_refuses_a_card_outside_the_deck(
    pg_head: str, action: Action, code: str, field: str
) -> None:
    """`Match.check_cards` (engine/core) refuses, with the problem's code and field; the
    service lets that refusal through (the problem map words it) and changes nothing."""
    match = Match(registry.make("numwars", None), 3, 5)
    with pytest.raises(InvalidInput) as caught:
        match.check_cards(action)
    assert caught.value.code == code and [e.field for e in caught.value.errors] == [field]
    assert "the 3-player Num Wars deck" in caught.value.message or code == "unknown-card"
    if code != "unknown-card":  # the deck named in French too (no English inside French)
        assert "le paquet de Num Wars à 3\u00a0joueurs" in caught.value.render("fr")

    async def scenario(service: GameService) -> None:
        created = await _numwars(service, 5)
        seat = seat_credential(created.seats[created.view.actors[0]].token)
        with pytest.raises(InvalidInput) as refused:
            await service.act(created.id, seat, action, None, None)
        assert refused.value.code == code
        assert (await service.get(created.id, None)).version == 0

    _run(pg_head, scenario)


def test_the_engine_refuses_a_card_named_twice() -> None:
    rules = registry.make("numwars-classic", None)
    cards = rules.deck(3).cards
    once = next(c for c in cards if cards.count(c) == 1)
    match = Match(rules, 3, 5)
    exchange = msgspec.convert({"type": "exchange", "cards": [once, once]}, Action)
    with pytest.raises(InvalidInput) as caught:
        match.check_cards(exchange)
    assert caught.value.code == "duplicate-card"
    assert [e.field for e in caught.value.errors] == ["cards[1]"]
    match.check_cards(msgspec.convert({"type": "draw"}, Action))  # no card: nothing to check


def test_the_caller_is_resolved_once_seat_token_or_joined_session(games: Any) -> None:
    """The controller's resolver (`provide_caller`): a seat token acts for its seat; the
    session of the account a seat was created for acts for it once joined, not before; a
    session of another account, or a token that is nothing, is 401 `unauthorized` naming
    both kinds, after 404 for a game that does not exist."""
    from tests.accounts.conftest import auth, sign_up

    owner, other = sign_up(games), sign_up(games)
    created = games.post(
        "/v1/games",
        json={
            "ruleset": "numwars",
            "players": [{"name": "A", "account": owner["pseudo"]}, {"name": "B"}, {"name": "C"}],
            "seed": 3,
        },
    ).json()
    path = f"/v1/games/{created['id']}"
    mine = auth(owner["token"])
    before = games.get(path, headers=mine)
    assert before.status_code == 401 and before.json()["code"] == "unauthorized"
    assert "nor the session of an account" in before.json()["detail"]
    assert games.post(f"{path}/seats/0/join", headers=mine).status_code == 200
    view = games.get(path, headers=mine)
    assert view.status_code == 200 and view.json()["seat"] == 0
    assert view.json() == games.get(path, headers=auth(created["seats"][0]["token"])).json()
    for stranger in (auth(other["token"]), auth("nrs_" + "x" * 40), auth("something")):
        refused = games.get(path, headers=stranger)
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        missing = games.get("/v1/games/" + "0" * 32, headers=stranger)
        assert missing.status_code == 404
    assert 0 in view.json()["view"]["actors"]  # numwars opens with every seat's exchange
    action = view.json()["view"]["legal_actions"][0]
    acted = games.post(f"{path}/actions", headers=mine, json=action)
    assert acted.status_code == 200 and acted.headers["etag"] == '"1"'
