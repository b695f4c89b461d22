"""Stored games' refusals in English and French (issue 23), each problem code from a request
of its own (tests/languages.py checks both answers)."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from litestar.testing import TestClient

from engine.core.texts import KINDS
from tests.accounts.conftest import auth, sign_up
from tests.games.driver import Table
from tests.games.host import host
from tests.languages import EN, FR, Case, check_both


def _game(games: Any, ruleset: str = "numking") -> dict[str, Any]:
    body = {"ruleset": ruleset, "players": [{"name": n} for n in "ABCD"]}
    created = games.post("/v1/games", json=body, headers=host(games))
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    return game


def _seat(game: dict[str, Any], seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {game['seats'][seat]['token']}"}


def _turn(games: Any, game: dict[str, Any]) -> int:
    turn: int = games.get(f"/v1/games/{game['id']}").json()["view"]["current_player"]
    return turn


def _act(games: Any, game: dict[str, Any], seat: int, action: Any, headers: Any) -> Any:
    path = f"/v1/games/{game['id']}/actions"
    return games.post(path, json=action, headers={**_seat(game, seat), **headers})


def _not_your_turn(games: Any, headers: dict[str, str]) -> Any:
    game = _game(games)
    other = (_turn(games, game) + 1) % 4
    return _act(games, game, other, {"type": "bid", "tricks": 0}, headers)


def _wrong_phase(games: Any, headers: dict[str, str]) -> Any:
    game = _game(games)
    turn = _turn(games, game)
    hand = games.get(f"/v1/games/{game['id']}", headers=_seat(game, turn)).json()["view"]["hand"]
    return _act(games, game, turn, {"type": "play", "card": hand[0]}, headers)


def _illegal_move(games: Any, headers: dict[str, str]) -> Any:
    game = _game(games)
    return _act(games, game, _turn(games, game), {"type": "bid", "tricks": 9}, headers)


def _game_over(games: Any, headers: dict[str, str]) -> Any:
    game = _game(games)
    abandoned = games.post(f"/v1/games/{game['id']}/abandon", headers=_seat(game, 0))
    assert abandoned.status_code == 200, abandoned.text
    return _act(games, game, 0, {"type": "bid", "tricks": 0}, headers)


def _game_active(games: Any, headers: dict[str, str]) -> Any:
    return games.get(f"/v1/games/{_game(games)['id']}/export", headers=headers)


def _never_started(games: Any, headers: dict[str, str]) -> Any:
    """The rematch of a table cancelled while it waited (issue 26)."""
    table = _open_table(games)
    assert games.post(f"/v1/games/{table['id']}/abandon", headers=host(games)).status_code == 200
    return games.post(f"/v1/games/{table['id']}/rematch", headers={**_seat(table, 0), **headers})


def _key_reused(games: Any, headers: dict[str, str]) -> Any:
    game = _game(games)
    turn = _turn(games, game)
    first = _act(games, game, turn, {"type": "bid", "tricks": 0}, {"Idempotency-Key": "k1"})
    assert first.status_code == 200, first.text
    again = {"Idempotency-Key": "k1", **headers}
    return _act(games, game, turn, {"type": "bid", "tricks": 1}, again)


def _version_mismatch(games: Any, headers: dict[str, str]) -> Any:
    game = _game(games)
    moved = {"If-Match": '"7"', **headers}
    return _act(games, game, _turn(games, game), {"type": "bid", "tricks": 0}, moved)


def _unauthorized(games: Any, headers: dict[str, str]) -> Any:
    game = _game(games)
    return games.post(f"/v1/games/{game['id']}/actions", json={"type": "bid"}, headers=headers)


def _not_found(games: Any, headers: dict[str, str]) -> Any:
    return games.get("/v1/games/no-such-game", headers=headers)


def _community_locked(games: Any, headers: dict[str, str]) -> Any:
    body = {"ruleset": "numking", "players": [{"name": n} for n in "ABCD"]}
    return games.post("/v1/games", json=body, headers=headers)


def _not_your_seat(games: Any, headers: dict[str, str]) -> Any:
    """A seat made for one account, joined by another's session."""
    named = sign_up(games)["pseudo"]
    players = [{"name": "A", "account": named}, *({"name": n} for n in "BCD")]
    body = {"ruleset": "numwars-classic", "players": players}
    created = games.post("/v1/games", json=body, headers=host(games))
    assert created.status_code == 201, created.text
    other = auth(sign_up(games)["token"])
    path = f"/v1/games/{created.json()['id']}/seats/0/join"
    return games.post(path, headers={**other, **headers})


def _duplicate_name(games: Any, headers: dict[str, str]) -> Any:
    """Two players a table could not tell apart (case and spaces aside)."""
    body = {"ruleset": "numwars", "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": " ada "}]}
    return games.post("/v1/games", json=body, headers=headers)


def _too_many_streams(games: Any, headers: dict[str, str]) -> Any:
    """The game's stream opened on an app of the same database whose stream cap is 0
    (`NUMRULES_MAX_STREAMS`): every stream is one too many."""
    from api.app import create_app
    from api.ops.settings import Settings

    game = _game(games)
    url = games.app.state.db.url.render_as_string(hide_password=False)
    capped = create_app(Settings(database_url=url, max_streams=0, check_db_on_start=False))
    with TestClient(capped) as client:
        return client.get(f"/v1/games/{game['id']}/stream", headers={**_seat(game, 0), **headers})


def _open_table(games: Any) -> dict[str, Any]:
    """A waiting game of three: Ada, an open seat and an open seat named Cy (issue 26)."""
    players = [{"name": "Ada"}, {"open": True}, {"open": True, "name": "Cy"}]
    body = {"ruleset": "numwars-classic", "players": players}
    created = games.post("/v1/games", json=body, headers=host(games))
    assert created.status_code == 201, created.text
    table: dict[str, Any] = created.json()
    return table


def _claim(games: Any, table: dict[str, Any], seat: int, session: dict[str, str]) -> Any:
    return games.post(f"/v1/games/{table['id']}/seats/{seat}/claim", headers=session)


def _seat_taken(games: Any, headers: dict[str, str]) -> Any:
    table = _open_table(games)
    assert _claim(games, table, 1, auth(sign_up(games)["token"])).status_code == 201
    return _claim(games, table, 1, {**auth(sign_up(games)["token"]), **headers})


def _already_seated(games: Any, headers: dict[str, str]) -> Any:
    table = _open_table(games)
    session = auth(sign_up(games)["token"])
    assert _claim(games, table, 1, session).status_code == 201
    return _claim(games, table, 2, {**session, **headers})


def _game_started(games: Any, headers: dict[str, str]) -> Any:
    table = _open_table(games)
    session = auth(sign_up(games)["token"])
    assert _claim(games, table, 1, session).status_code == 201
    assert _claim(games, table, 2, auth(sign_up(games)["token"])).status_code == 201
    return games.post(f"/v1/games/{table['id']}/seats/1/leave", headers={**session, **headers})


def _game_waiting(games: Any, headers: dict[str, str]) -> Any:
    table = _open_table(games)
    return _act(games, table, 0, {"type": "exchange", "cards": []}, headers)


def _seats_open(games: Any, headers: dict[str, str]) -> Any:
    table = _open_table(games)
    return games.post(f"/v1/games/{table['id']}/start", headers={**host(games), **headers})


def _not_the_creator(games: Any, headers: dict[str, str]) -> Any:
    table = _open_table(games)
    return games.post(f"/v1/games/{table['id']}/abandon", headers={**_seat(table, 0), **headers})


def _bad_open_seat(games: Any, headers: dict[str, str]) -> Any:
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": "Ada"}, {"open": True}, {"name": "Bo"}, {"open": True}],
    }
    return games.post("/v1/games", json={**body, "seed": 3}, headers={**host(games), **headers})


def _bad_bot_seat(games: Any, headers: dict[str, str]) -> Any:
    """A bot seat bound to an account (tests/games/test_bots_attack.py)."""
    body = {
        "ruleset": "numwars",
        "players": [
            {"name": "Ada"},
            {"name": "Bot", "bot": "basic", "account": "nobody"},
            {"name": "Cy"},
        ],
    }
    return games.post("/v1/games", json=body, headers={**host(games), **headers})


def _turn_timed_out(games: Any, headers: dict[str, str]) -> Any:
    """A seat's move after its clock ran out (issue 26; a 1-second clock that abandons the
    game: no clock of it runs on)."""
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": n} for n in "ABC"],
        "clock": {"turn_seconds": 1, "on_timeout": "abandon"},
    }
    game = games.post("/v1/games", json=body, headers=host(games)).json()
    view = games.get(f"/v1/games/{game['id']}", headers=_seat(game, 0)).json()["view"]
    time.sleep(1.05)
    return _act(games, game, 0, view["legal_actions"][0], {**headers, "If-Match": '"0"'})


CASES: dict[str, Case] = {
    "bad-open-seat": _bad_open_seat,
    "bad-bot-seat": _bad_bot_seat,
    "seat-taken": _seat_taken,
    "already-seated": _already_seated,
    "game-started": _game_started,
    "game-waiting": _game_waiting,
    "seats-open": _seats_open,
    "not-the-creator": _not_the_creator,
    "not-your-turn": _not_your_turn,
    "wrong-phase": _wrong_phase,
    "illegal-move": _illegal_move,
    "game-over": _game_over,
    "game-active": _game_active,
    "never-started": _never_started,
    "idempotency-key-reused": _key_reused,
    "version-mismatch": _version_mismatch,
    "unauthorized": _unauthorized,
    "not-found": _not_found,
    "community-locked": _community_locked,
    "not-your-seat": _not_your_seat,
    "too-many-streams": _too_many_streams,
    "duplicate-name": _duplicate_name,
    "turn-timed-out": _turn_timed_out,
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_a_stored_game_refusal_in_english_and_in_french(games: Any, code: str) -> None:
    check_both(games, code, CASES[code])


def test_a_state_refusal_keeps_its_reason_and_words_its_status(games: Any) -> None:
    en, fr = check_both(games, "game-over", _game_over)
    assert en["reason"] == fr["reason"] == "game-over"
    assert en["detail"] == "the game is abandoned: no more actions"
    assert fr["detail"] == "la partie est abandonnée\u00a0: plus aucune action"


def _lines(node: Any) -> list[dict[str, Any]]:
    """Every breakdown line (an object with a `kind` and a `label`) under `node`."""
    if isinstance(node, list):
        return [line for item in node for line in _lines(item)]
    if not isinstance(node, dict):
        return []
    if "kind" in node and "label" in node:
        return [node]
    return [line for value in node.values() for line in _lines(value)]


def test_a_finished_game_result_is_labelled_in_french(games: Any) -> None:
    """GET of a game over: its `result`'s breakdown labels in the caller's language."""
    table = Table(games, "numwars-classic", 3, seed=31)
    table.play_out(random.Random(31), every=10_000)
    path = f"/v1/games/{table.id}"
    english, french = games.get(path, headers=EN), games.get(path, headers=FR)
    assert english.headers["content-language"] == "en"
    assert french.headers["content-language"] == "fr"
    en_lines, fr_lines = _lines(english.json()["result"]), _lines(french.json()["result"])
    assert en_lines and len(en_lines) == len(fr_lines)
    for en_line, fr_line in zip(en_lines, fr_lines, strict=True):
        assert (en_line["kind"], en_line["params"]) == (fr_line["kind"], fr_line["params"])
        assert en_line["label"] == KINDS[en_line["kind"]].render("en", **en_line["params"])
        assert fr_line["label"] == KINDS[fr_line["kind"]].render("fr", **fr_line["params"])
        assert fr_line["label"] != en_line["label"]
