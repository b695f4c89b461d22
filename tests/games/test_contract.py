"""Stored games' contract on PostgreSQL: creation, tokens, the errors of api-contract.md
("Stored games": 401, 404, 409, 412, 422 with `reason` and `legal_actions`,
`idempotency-key-reused`, `game-active`), abandon and the verifiable deal."""

from __future__ import annotations

import hashlib
import logging
import random
from typing import Any

import msgspec
import pytest
import sqlalchemy as sa

from api.games import repository
from engine import registry
from engine.core.actions import Action
from engine.core.formats import encode_checkpoint
from tests.games.driver import Table
from tests.games.host import host


def _actor_and_action(table: Table) -> tuple[int, dict[str, Any]]:
    seat = table.shadow.actors()[0]
    return seat, msgspec.to_builtins(table.shadow.legal_actions(seat)[0])


def test_creation_answers_the_contract(games: Any) -> None:
    body = {"ruleset": "numwars", "players": [{"name": n} for n in "ABCD"]}
    response = games.post("/v1/games", json=body)
    assert response.status_code == 201
    game = response.json()
    assert response.headers["location"] == f"/v1/games/{game['id']}"
    assert response.headers["etag"] == '"0"'
    assert game["status"] == "active" and game["version"] == 0
    assert game["ruleset"] == "numwars" and game["rules_version"] >= 1
    assert [s["seat"] for s in game["seats"]] == [0, 1, 2, 3]
    tokens = [s["token"] for s in game["seats"]]
    assert len(set(tokens)) == 4 and all(len(t) >= 43 for t in tokens)  # 256 bits, urlsafe
    assert len(game["seed_commitment"]) == 64 and "seed" not in game and "salt" not in game
    assert game["view"]["seat"] is None and game["view"]["hand"] is None
    # the spectator's GET reveals neither seed nor salt while the game is played
    spectator = games.get(f"/v1/games/{game['id']}").json()
    assert spectator["seed"] is None if "seed" in spectator else True
    assert "salt" not in spectator and spectator["seat"] is None


def test_a_seat_sees_its_hand_and_legal_actions_and_only_its_own(games: Any) -> None:
    table = Table(games, "numking", 4, seed=11)
    for seat in range(4):
        game = table.view(seat)
        assert game["view"]["hand"] == msgspec.to_builtins(table.shadow.view(seat).hand)
        legal = game["view"]["legal_actions"]
        decoded = [msgspec.convert(a, Action) for a in legal]
        assert decoded == table.shadow.legal_actions(seat)
    spectator = table.view(None)["view"]
    assert spectator["hand"] is None and spectator["legal_actions"] is None


@pytest.mark.parametrize(
    ("headers", "detail"),
    [
        ({}, "token"),
        ({"Authorization": "Bearer not-a-token-of-this-game"}, "not a seat token"),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, "Bearer"),
        ({"Authorization": "Bearer "}, "Bearer"),
    ],
)
def test_acting_needs_the_seats_own_token(games: Any, headers: dict[str, str], detail: str) -> None:
    table = Table(games, "numwars-classic", 3, seed=5)
    _, action = _actor_and_action(table)
    response = games.post(f"/v1/games/{table.id}/actions", json=action, headers=headers)
    assert response.status_code == 401, response.text
    problem = response.json()
    assert problem["code"] == "unauthorized" and detail in problem["detail"]
    assert response.headers["www-authenticate"] == "Bearer"
    assert table.view(None)["version"] == 0


def test_a_wrong_token_is_401_never_a_spectator_view(games: Any) -> None:
    table = Table(games, "numwin", 2, seed=3)
    other = Table(games, "numwin", 2, seed=3)
    response = games.get(
        f"/v1/games/{table.id}", headers={"Authorization": f"Bearer {other.tokens[0]}"}
    )
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"


def test_unknown_games_are_404(games: Any) -> None:
    for game_id in ("0" * 32, "nope", "x" * 300):
        for path in ("", "/events", "/export"):
            response = games.get(f"/v1/games/{game_id}{path}")
            assert response.status_code == 404, (game_id, path)
            assert response.json()["code"] == "not-found"
            assert len(response.text) < 600
    response = games.post(f"/v1/games/{'0' * 32}/abandon", headers={"Authorization": "Bearer x"})
    assert response.status_code == 404


def test_out_of_turn_is_409_and_an_illegal_move_is_422_with_the_legal_actions(games: Any) -> None:
    table = Table(games, "numking", 3, seed=21)
    actor = table.shadow.actors()[0]
    idle = next(s for s in range(3) if s not in table.shadow.actors())
    idle_action = {"type": "bid", "tricks": 0}
    response = table.post("/actions", idle, json=idle_action)
    assert response.status_code == 409, response.text
    problem = response.json()
    assert problem["code"] == problem["reason"] == "not-your-turn"
    # numking opens with bids: a bid above the cards dealt is refused by the rules
    response = table.post("/actions", actor, json={"type": "bid", "tricks": 60})
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "illegal-move" and problem["reason"] == "bad-bid"
    legal = [msgspec.convert(a, Action) for a in problem["legal_actions"]]
    assert legal == table.shadow.legal_actions(actor)
    # a play in the bidding phase is the wrong phase
    hand = table.shadow.view(actor).hand or []
    response = table.post("/actions", actor, json={"type": "play", "card": hand[0]})
    assert response.status_code == 409 and response.json()["code"] == "wrong-phase"
    # nothing was applied
    assert table.view(None)["version"] == 0


def test_body_errors_are_precise_problems(games: Any) -> None:
    table = Table(games, "numwars", 4, seed=2)
    seat, _ = _actor_and_action(table)
    cases = [
        (b"", 400, "malformed-json"),
        (b"{", 400, "malformed-json"),
        (b'{"type": "fly"}', 422, "validation-error"),
        (b'{"type": "play", "card": "red-7", "x": 1}', 422, "unknown-field"),
        (b'{"type": "play"}', 422, "missing-field"),
        (b'{"type": "play", "card": 7}', 422, "validation-error"),
        (b'{"type": "play", "card": "' + b"z" * 5000 + b'"}', 422, "unknown-card"),
    ]
    for body, status, code in cases:
        response = table.post(
            "/actions", seat, content=body, headers={"Content-Type": "application/json"}
        )
        assert (response.status_code, response.json()["code"]) == (status, code), body[:40]
        assert len(response.text) < 1500
    response = table.post("/actions", seat, content=b'{"type":"draw"}')
    assert response.status_code == 415
    response = table.post(
        "/actions", seat, content=b'{"type":"draw"}', headers={"Content-Type": "text/plain"}
    )
    assert response.status_code == 415
    assert table.view(None)["version"] == 0


def test_if_match_guards_against_a_moved_game(games: Any) -> None:
    table = Table(games, "numwars-classic", 4, seed=8)
    seat, action = _actor_and_action(table)
    stale = table.post("/actions", seat, json=action, headers={"If-Match": '"3"'})
    assert stale.status_code == 412 and stale.json()["code"] == "version-mismatch"
    assert stale.headers["etag"] == '"0"'
    ok = table.post("/actions", seat, json=action, headers={"If-Match": '"0"'})
    assert ok.status_code == 200 and ok.headers["etag"] == '"1"'
    table.shadow.apply(seat, msgspec.convert(action, Action))
    table.version = 1
    seat, action = _actor_and_action(table)
    again = table.post("/actions", seat, json=action, headers={"If-Match": '"0"'})
    assert again.status_code == 412


def test_an_idempotency_key_applies_once_and_answers_the_same(games: Any) -> None:
    table = Table(games, "numking", 3, seed=4)
    seat, action = _actor_and_action(table)
    key = {"Idempotency-Key": "retry-1"}
    first = table.post("/actions", seat, json=action, headers=key)
    assert first.status_code == 200
    retry = table.post("/actions", seat, json=action, headers=key)
    assert retry.status_code == 200 and retry.json() == first.json()
    assert retry.headers["idempotent-replayed"] == "true"
    table.shadow.apply(seat, msgspec.convert(action, Action))
    table.version = 1
    assert table.view(None)["version"] == 1
    other = {"type": "bid", "tricks": (action.get("tricks", 0) + 1) % 2}
    reused = table.post("/actions", seat, json=other, headers=key)
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency-key-reused"
    for bad_key in ("a b", "x" * 256):
        bad = table.post("/actions", seat, json=action, headers={"Idempotency-Key": bad_key})
        assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "Idempotency-Key"


def test_events_after_n_and_per_viewer(games: Any) -> None:
    table = Table(games, "numwars", 4, seed=31)  # exchange passes are private events
    table.shadow.rules.options  # noqa: B018
    rng = random.Random(2)
    for _ in range(30):
        table.step(rng)
    everything = [table.get("/events?after=0", v).json() for v in [None, 0, 1, 2, 3]]
    for page in everything:
        seqs = [e["seq"] for e in page["events"]]
        assert seqs == sorted(set(seqs)) and page["version"] == 30 and not page["more"]
    public = {e["seq"] for e in everything[0]["events"]}
    for viewer, page in enumerate(everything[1:]):
        own = {e["seq"] for e in page["events"]}
        assert public <= own
        assert all(e["to"] is None or viewer in e["to"] for e in page["events"])
    after = everything[1]["events"][5]["seq"]
    later = table.get(f"/events?after={after}", 0).json()["events"]
    assert later == [e for e in everything[1]["events"] if e["seq"] > after]
    page = table.get("/events?after=0&limit=3").json()
    assert page["more"] and page["next_after"] == 3
    assert table.get("/events?after=-1").status_code == 422
    assert table.get("/events?limit=0").status_code == 422


def test_export_waits_for_the_end_and_abandon_reveals_the_deal(games: Any) -> None:
    table = Table(games, "numwin", 3, seed=77)
    rng = random.Random(3)
    for _ in range(5):
        table.step(rng)
    early = table.get("/export")
    assert early.status_code == 409 and early.json()["code"] == "game-active"
    assert table.post("/abandon", None).status_code == 401
    done = table.post("/abandon", 1)
    assert done.status_code == 200
    body = done.json()
    assert body["status"] == "abandoned" and body["version"] == 5
    digest = hashlib.sha256(f"{body['seed']}:{body['salt']}".encode()).hexdigest()
    assert body["seed"] == 77 and digest == table.created["seed_commitment"]
    game = table.get("").json()
    assert game["status"] == "abandoned" and game["seed"] == 77 and "result" not in game
    seat, action = _actor_and_action(table)
    late = table.post("/actions", seat, json=action)
    assert late.status_code == 409 and late.json()["code"] == "game-over"
    assert table.post("/abandon", 0).status_code == 409
    export = table.get("/export").json()
    assert export["status"] == "abandoned" and len(export["actions"]) == 5
    assert [a["seq"] for a in export["actions"]] == [1, 2, 3, 4, 5]


def test_the_revealed_seed_is_also_given_as_the_decimal_the_commitment_hashes(games: Any) -> None:
    """`seed_decimal` (issue 24): a browser's JSON number is exact only up to 2^53, a seed goes
    up to 2^63 - 1; the string is what `seed_commitment` hashes, and is hidden while active."""
    seed = 2**63 - 1
    table = Table(games, "numwars", 4, seed=seed)
    assert "seed_decimal" not in table.get("").json()
    assert table.post("/abandon", 2).status_code == 200
    game = table.get("").json()
    assert game["seed_decimal"] == "9223372036854775807" and game["seed"] == seed
    assert float(game["seed_decimal"]) != int(game["seed_decimal"])  # past a double's integers
    digest = hashlib.sha256(f"{game['seed_decimal']}:{game['salt']}".encode()).hexdigest()
    assert digest == table.created["seed_commitment"] == game["seed_commitment"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"ruleset": "numking", "players": [{"name": "A"}]}, "bad-player-count"),
        ({"ruleset": "chess", "players": [{"name": "A"}, {"name": "B"}]}, "validation-error"),
        ({"ruleset": "numwin", "players": [{"name": ""}, {"name": "B"}]}, "validation-error"),
        (
            {"ruleset": "numwin", "players": [{"name": "A"}, {"name": "B"}], "seed": 2**63},
            "validation-error",
        ),
        (
            {"ruleset": "numwin", "players": [{"name": "A"}, {"name": "B"}], "options": {"x": 1}},
            "bad-option",
        ),
        ({"ruleset": "numwin", "players": [{"name": "A"}] * 9}, "validation-error"),
    ],
)
def test_creation_refuses_bad_bodies(games: Any, body: dict[str, Any], code: str) -> None:
    response = games.post("/v1/games", json=body, headers=host(games))
    assert response.status_code == 422, response.text
    assert response.json()["code"] == code


def test_an_action_the_game_never_has_is_a_422_on_its_type(games: Any) -> None:
    """A numwin `play` or a numking `snap` can never be legal: 422 on `type`, naming the
    game's actions, not 409 `wrong-phase` as if waiting would help (found by a newcomer)."""
    for ruleset, players, action in (
        ("numwin", 2, {"type": "play", "card": "red-1"}),
        ("numking", 3, {"type": "snap", "position": 0}),
    ):
        table = Table(games, ruleset, players, seed=9)
        seat = table.shadow.actors()[0]
        response = table.post("/actions", seat, json=action)
        assert response.status_code == 422, response.text
        problem = response.json()
        assert problem["code"] == "validation-error"
        assert problem["errors"][0]["field"] == "type"
        name = registry.SPECS[ruleset].names["en"]  # the ruleset said by its name
        assert f"{name} has no {action['type']!r} action" in problem["detail"]


@pytest.mark.parametrize(
    ("ruleset", "players", "action", "code", "field"),
    [
        ("numwars", 3, {"type": "play", "card": "joker-99"}, "unknown-card", "card"),
        ("numwars", 3, {"type": "play", "card": "blue-16"}, "card-not-in-deck", "card"),
        ("numking", 3, {"type": "play", "card": "red-2"}, "card-not-in-deck", "card"),
        (
            "numwars-classic",
            3,
            {"type": "exchange", "cards": ["red-3", "x"]},
            "unknown-card",
            "cards[1]",
        ),
    ],
)
def test_a_card_code_outside_the_game_deck_is_named_as_everywhere(
    games: Any, ruleset: str, players: int, action: dict[str, Any], code: str, field: str
) -> None:
    """A code that is no card, or a card of another deck, is 422 `unknown-card` /
    `card-not-in-deck` naming the field, as the stateless endpoints answer (a newcomer's
    `joker-99` got `illegal-move` `card-not-in-hand`); nothing is applied."""
    table = Table(games, ruleset, players, seed=10)
    seat = table.shadow.actors()[0]
    response = table.post("/actions", seat, json=action)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == code, problem
    assert [e["field"] for e in problem["errors"]] == [field]
    assert table.get("").json()["version"] == 0
    table.view(seat)  # still the engine's view


def test_an_abandoned_game_shows_nobody_to_act_and_export_checks_a_token(games: Any) -> None:
    table = Table(games, "numking", 3, seed=12)
    assert table.post("/abandon", 0).status_code == 200
    for viewer in (None, 0, 1):
        view = table.get("", viewer).json()["view"]
        assert view["actors"] == [] and view["current_player"] is None
        assert view["legal_actions"] == (None if viewer is None else [])
    wrong = games.get(
        f"/v1/games/{table.id}/export", headers={"Authorization": "Bearer not-a-seat-token"}
    )
    assert wrong.status_code == 401
    assert table.get("/export", 2).status_code == 200 and table.get("/export").status_code == 200


def test_an_illegal_move_lists_actions_not_codes(games: Any) -> None:
    table = Table(games, "numking", 3, seed=13)
    seat = table.shadow.actors()[0]
    problem = table.post("/actions", seat, json={"type": "bid", "tricks": 60}).json()
    assert problem["code"] == "illegal-move" and "legal" not in problem
    assert all(a["type"] == "bid" for a in problem["legal_actions"])


def test_two_players_of_one_game_never_share_a_name(games: Any) -> None:
    """A name already taken at the table (case and spaces aside) is refused at the later
    player's field, in the caller's language; nothing is created."""
    players = [{"name": "Ada"}, {"name": "Bo"}, {"name": "  ADA "}]
    for language, words in (("en", "already named"), ("fr", "s’appelle déjà")):
        response = games.post(
            "/v1/games",
            json={"ruleset": "numwars", "players": players},
            headers={**host(games), "Accept-Language": language},
        )
        assert response.status_code == 422, response.text
        problem = response.json()
        assert problem["code"] == "duplicate-name"
        (error,) = problem["errors"]
        assert error["field"] == "players[2].name" and error["code"] == "duplicate-name"
        assert words in error["message"] and "1" in error["message"]
        assert "'Ada'" in error["message"] and "ADA" not in error["message"]  # as written
    distinct = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Adam"}]
    created = games.post(
        "/v1/games", json={"ruleset": "numwars", "players": distinct}, headers=host(games)
    )
    assert created.status_code == 201, created.text


@pytest.mark.parametrize("name", ["Ada\x00", "\u202eevil", "a\u200bb", "   ", "\u0085", "a\x07b"])
def test_names_are_plain_text(games: Any, name: str) -> None:
    """No blank name, no control or formatting character (a NUL was a 500 from PostgreSQL;
    bidi overrides and zero-width spaces were taken; found by attacking the server)."""
    players = [{"name": name}, {"name": "Bo"}]
    response = games.post(
        "/v1/games", json={"ruleset": "numwin", "players": players}, headers=host(games)
    )
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "bad-name" and problem["errors"][0]["field"] == "players[0].name"
    assert "regex" not in problem["detail"]
    assert (
        games.post(
            "/v1/games",
            json={"ruleset": "numwin", "players": [{"name": "Zoë"}, {"name": "李"}]},
            headers=host(games),
        ).status_code
        == 201
    )


def test_a_weak_etag_never_matches_if_match(games: Any) -> None:
    table = Table(games, "numking", 3, seed=14)
    seat, action = _actor_and_action(table)
    weak = table.post("/actions", seat, json=action, headers={"If-Match": 'W/"0"'})
    assert weak.status_code == 412  # RFC 9110 §13.1.1: If-Match compares strongly
    listed = table.post("/actions", seat, json=action, headers={"If-Match": '"7", "0"'})
    assert listed.status_code == 200


def test_answers_with_secrets_are_not_stored_by_caches(games: Any) -> None:
    table = Table(games, "numking", 3, seed=15)
    assert table.get("", 0).headers["cache-control"] == "no-store"
    seat, action = _actor_and_action(table)
    assert table.post("/actions", seat, json=action).headers["cache-control"] == "no-store"
    assert table.post("/stream-tickets", 0).headers["cache-control"] == "no-store"
    created = games.post(
        "/v1/games",
        json={"ruleset": "numwin", "players": [{"name": "A"}, {"name": "B"}]},
        headers=host(games),
    )
    assert created.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("last", ["2147483648", "9999999999", "²", "1e3", "-1"])
def test_a_bad_last_event_id_is_422_and_spends_no_ticket(games: Any, last: str) -> None:
    table = Table(games, "numking", 3, seed=16)
    ticket = table.post("/stream-tickets", 0).json()["ticket"]
    response = games.get(
        f"/v1/games/{table.id}/stream?ticket={ticket}",
        headers={"Last-Event-ID": last.encode()},
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["field"] == "Last-Event-ID"
    # the ticket is still good: one action, abandon, then the stream sends it and ends
    table.step(random.Random(1))
    assert table.post("/abandon", 0).status_code == 200
    with games.stream("GET", f"/v1/games/{table.id}/stream?ticket={ticket}") as stream:
        assert stream.status_code == 200
        text = "".join(stream.iter_text())
    assert "event: end" in text


def test_streams_are_capped_apart_from_the_rest_of_the_api(games: Any, games_app: Any) -> None:
    """Past NUMRULES_MAX_STREAMS open streams, a new stream is a 503 problem with Retry-After,
    and the rest of the API still answers (a thousand spectator streams once took every
    connection uvicorn would accept; found by attacking the server)."""
    table = Table(games, "numking", 3, seed=17)
    saved = games_app.state.max_streams
    games_app.state.max_streams = 0
    try:
        refused = table.get("/stream")
        assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
        assert refused.json()["code"] == "too-many-streams"
        assert table.get("").status_code == 200
    finally:
        games_app.state.max_streams = saved


def test_two_processes_playing_one_game_stay_equal_to_the_engine(games: Any, pg_head: str) -> None:
    """Two apps on one database, as two replicas: each action goes to the other one, so each
    one's cached match is always one action behind and catches up by applying only the
    actions it lacks; every view and answer is held to the engine's own match."""
    from litestar.testing import TestClient

    from api.app import create_app
    from api.ops.settings import Settings

    other_app = create_app(Settings(database_url=pg_head))
    with TestClient(other_app) as other:
        store = other_app.state.games
        replays: list[int] = []
        full_replay = store._replay

        async def counted(conn: Any, game: Any) -> Any:
            replays.append(game.version)
            return await full_replay(conn, game)

        store._replay = counted
        table = Table(games, "numwars-classic", 4, seed=18)
        rng = random.Random(5)
        clients = [games, other]
        for step in range(40):
            table.client = clients[step % 2]
            table.step(rng, check_all=step % 10 == 0)
        assert store._cache[table.id].version == table.version
        # one whole replay, at its first read; catching up since (a second one, at version
        # 75, was seen once on a loaded machine with three test processes: not yet explained,
        # the answers still equal to the engine's)
        assert 1 <= len(replays) <= 2 and replays[0] == 1, replays


async def _spoil(url: str, game_id: str, column: str, value: str) -> None:
    """Set a game's `column` to the SQL expression `value` (a stored document spoilt)."""
    from api.db.engine import create_engine

    apart = create_engine(url)
    async with apart.begin() as conn:
        await conn.execute(
            sa.text(f"UPDATE games SET {column} = {value} WHERE id = :id"), {"id": game_id}
        )
    await apart.dispose()


def test_a_cold_load_resumes_at_the_round_start_checkpoint(
    games: Any, games_app: Any, pg_head: str
) -> None:
    """The action that starts a round writes the match's checkpoint (the engine's own, the
    same data); a cold load (the cache emptied: a restart) resumes from it and applies only
    that round's actions, and everything stays equal to the engine's match: every viewer's
    view, the next actions and their answers. A checkpoint ahead of the version being rebuilt
    (a reader's older row) falls back to the whole log."""
    import asyncio
    from types import SimpleNamespace

    from api.db.engine import create_engine
    from api.games.fanout import Fanout
    from api.games.service import GameService

    store = games_app.state.games
    table = Table(games, "numwars", 3, seed=23)
    rng = random.Random(23)
    while table.shadow.index < 2:
        table.step(rng)
    for _ in range(5):  # into round 3
        table.step(rng)
    expected = table.shadow.checkpoint()
    assert expected.index == 2 and 0 < expected.actions < table.version

    async def saved() -> Any:  # on an engine of this thread's loop (the app's is the client's)
        apart = GameService(create_engine(pg_head), Fanout())
        async with apart.engine.connect() as conn:
            game = await apart._game(conn, table.id)
            checkpoint = (
                await conn.execute(
                    sa.select(repository.GAMES.c.checkpoint).where(
                        repository.GAMES.c.id == table.id
                    )
                )
            ).scalar()
            older = SimpleNamespace(**game._asdict())
            older.version = expected.actions - 1  # before the checkpoint: the whole log
            older_match = await apart._replay(conn, older)
        await apart.close()
        await apart.engine.dispose()
        return checkpoint, older_match

    checkpoint, older = asyncio.run(saved())
    assert msgspec.json.decode(checkpoint) == msgspec.json.decode(encode_checkpoint(expected))
    assert older.history_start == 0 and len(older.history) == expected.actions - 1
    assert older.history == table.shadow.history[: expected.actions - 1]

    store._cache.clear()
    table.check_viewers()
    resumed = store._cache[table.id].match
    assert resumed.history_start == expected.actions
    assert len(resumed.history) == table.version - expected.actions
    for step in range(6):
        table.step(rng, check_all=step == 5)

    deep = '{"actions": 1, "index": 1, "setup": {"x": ' + "[" * 5000 + "]" * 5000 + "}}"
    spoilt = {  # what a cold load must not trust: each time the whole log decides
        # the engine refuses it (totals that are not the rounds' sums)
        "totals": "jsonb_set(checkpoint::jsonb, '{totals,0}', '999')::text",
        # the engine takes it, the round's logged actions then refuse (another first player)
        "dealer": "jsonb_set(checkpoint::jsonb, '{setup,dealer}', "
        "to_jsonb(((checkpoint::jsonb #>> '{setup,dealer}')::int + 1) % 3))::text",
        "unreadable": "'{\"actions\": '",
        "too deep": f"'{deep}'",  # a RecursionError while decoding
    }
    for name, value in spoilt.items():
        asyncio.run(_spoil(pg_head, table.id, "checkpoint", value))
        store._cache.clear()
        view = table.get("", None)
        assert view.status_code == 200, (name, view.text)
        table.check_viewers()
        assert store._cache[table.id].match.history_start == 0, name
    table.step(rng, check_all=True)


def test_a_cold_load_resumes_from_the_round_progress(
    games: Any, games_app: Any, pg_head: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Every `PROGRESS_EVERY` actions into a round, the action's write also stores the round's
    actions so far in the game's `progress` (the engine's `progress`; the checkpoint stays the
    round start's): a cold load resumes with them and reads only the log since; a reader's
    older row applies only those its version holds; a progress that does not fit (a `played`
    action the round refuses, another round's, unreadable) leaves it to the log; the action
    that starts the next round clears it."""
    import asyncio
    from types import SimpleNamespace

    from api.db.engine import create_engine
    from api.games.fanout import Fanout
    from api.games.service import PROGRESS_EVERY, GameService

    store = games_app.state.games
    table = Table(games, "numwars-classic", 4, seed=31)
    rng = random.Random(31)
    caplog.set_level(logging.DEBUG, logger="numrules.games")
    while table.version < PROGRESS_EVERY + 3:  # round 1: its checkpoint written at creation
        table.step(rng)
    store._cache.clear()
    table.check_viewers()
    assert any(
        f"resumed at round 1, {PROGRESS_EVERY} actions from its checkpoint and 3 from the log"
        in r.getMessage()
        for r in caplog.records
    ), caplog.records
    caplog.clear()
    while table.shadow.index < 1:
        table.step(rng)
    start = table.shadow.checkpoint().actions
    while table.version < start + 2 * PROGRESS_EVERY + 3:
        table.step(rng)
    assert table.shadow.index == 1, "the round ended early: pick another seed"
    stored_at = start + 2 * PROGRESS_EVERY  # the last progress the writes stored

    async def saved(version: int) -> Any:
        apart = GameService(create_engine(pg_head), Fanout())
        async with apart.engine.connect() as conn:
            game = await apart._game(conn, table.id)
            texts = await apart.repository.checkpoint_texts(conn, table.id)
            older = SimpleNamespace(**game._asdict())
            older.version = version
            match = await apart._replay(conn, older)
        await apart.close()
        await apart.engine.dispose()
        return texts, match

    (checkpoint, progress), older = asyncio.run(saved(stored_at - 5))
    assert checkpoint == encode_checkpoint(table.shadow.checkpoint())  # the round start's
    stored = msgspec.json.decode(progress)
    assert stored["actions"] == start and stored["v"] == 1
    assert stored["state"][:2] == [1, 2 * PROGRESS_EVERY]  # the round's state after them
    assert [tuple(p) for p in stored["played"]] == [
        (seat, msgspec.to_builtins(action))
        for seat, action in table.shadow.history[start:stored_at]
    ]
    assert older.history_start == start and older.played == stored_at - 5
    assert older.history == table.shadow.history[start : stored_at - 5]

    store._cache.clear()
    table.check_viewers()
    records = [r.getMessage() for r in caplog.records if r.name == "numrules.games"]
    resumed = store._cache[table.id].match
    assert resumed.history_start == start and resumed.played == table.version
    assert any(
        f"{2 * PROGRESS_EVERY} actions from its checkpoint and 3 from the log" in r for r in records
    ), records
    for step in range(PROGRESS_EVERY):
        table.step(rng, check_all=step == PROGRESS_EVERY - 1)

    spoilt = {  # each time the log supplies the round's actions
        # without the round's state, the first played action given to the next seat: the
        # engine refuses the checkpoint
        "refused": "jsonb_set(jsonb_set(progress::jsonb, '{state}', 'null'), '{played,0,0}', "
        "to_jsonb(((progress::jsonb #>> '{played,0,0}')::int + 1) % 4))::text",
        # the round's state with a leader that is no seat: the engine refuses it
        "state": "jsonb_set(progress::jsonb, '{state,11}', '99')::text",
        # another round's (it does not continue the checkpoint)
        "elsewhere": "jsonb_set(progress::jsonb, '{actions}', '0')::text",
        "unreadable": "'{\"actions\": '",
    }
    for name, value in spoilt.items():
        asyncio.run(_spoil(pg_head, table.id, "progress", value))
        store._cache.clear()
        table.check_viewers()
        match = store._cache[table.id].match
        assert match.played == table.version, name
        assert match.history_start == (0 if name in ("refused", "state") else start), name
    table.step(rng, check_all=True)
    while table.shadow.index < 2:
        table.step(rng)
    (checkpoint, progress), _ = asyncio.run(saved(table.version))
    assert progress is None and checkpoint == encode_checkpoint(table.shadow.checkpoint())


def test_readiness_follows_the_database(games: Any) -> None:
    """/readyz is 200 while the database answers, a 503 problem with Retry-After when not
    (the contract's Operations section; it was a 404)."""
    from litestar.testing import TestClient

    from api.app import create_app
    from api.ops.settings import Settings

    ready = games.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "ok"}
    away = Settings(
        database_url="postgresql+asyncpg://nobody@127.0.0.1:1/none", check_db_on_start=False
    )
    with TestClient(create_app(away)) as client:
        down = client.get("/readyz")
        assert down.status_code == 503 and down.headers["retry-after"] == "5"
        assert down.json()["code"] == "database-unavailable"
        assert client.get("/healthz").status_code == 200  # alive, not ready
