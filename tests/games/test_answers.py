"""A game's answers encoded with their views' growing lists kept (api/games/answers.py): the
very bytes `msgspec.json.encode` gives, at every step of seeded play-outs of every ruleset,
for every seat and a spectator; a Num Wars list extended, not encoded again; the views keep
the promise that makes it right (`GROWS`: each element the same object from view to view)."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any, ClassVar

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from api.games.answers import AnswerEncoder
from api.games.schemas import ActionOut, GameOut, SeatDeadline, SeatOut
from engine.registry import SPECS, make

PLAYERS = {"numwars": 4, "numwars-classic": 4, "numking": 3, "numwin": 3}


def _play(ruleset: str, seed: int, encoder: AnswerEncoder, steps: int) -> int:
    """Up to `steps` random legal actions of a seeded match, every viewer's answer checked
    after each; the number of rounds it went through."""
    players = PLAYERS[ruleset]
    match = make(ruleset).new_match(players, seed)
    rng = random.Random(seed)
    before: dict[int | None, list[Any]] = {}
    rounds = {match.index}
    for version in range(steps):
        if match.is_over:
            break
        for seat in [*range(players), None]:
            view = match.view(seat)
            for answer in _answers(version, seat, view):
                assert encoder(answer) == msgspec.json.encode(answer), (ruleset, seed, version)
            for name in type(view).GROWS:  # the promise: the elements are kept, in order
                items, earlier = getattr(view, name), before.get(seat, [])
                if len(items) >= len(earlier):
                    assert all(a is b for a, b in zip(items, earlier, strict=False)), name
                before[seat] = items
        seat = rng.choice(match.actors())
        match.apply(seat, rng.choice(match.legal_actions(seat)))
        rounds.add(match.index)
    return len(rounds)


_AT = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def _answers(version: int, seat: int | None, view: Any) -> list[Any]:
    """The answers a view is sent in: an action's (without a clock and with one) and a
    game's (its defaults left out of its JSON)."""
    clocked = [SeatDeadline(seat=seat or 0, at=_AT)]
    return [
        ActionOut(version=version, events=[], view=view),
        ActionOut(version=version, events=[], view=view, deadlines=clocked, deadline=_AT),
        GameOut(
            id="0" * 32,
            ruleset=view.ruleset,
            options={},
            rules_version=1,
            version=version,
            status="active",
            seat=seat,
            players=[SeatOut(seat=i, name=f"p{i}") for i in range(view.players)],
            seed_commitment="c" * 64,
            view=view,
        ),
    ]


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**62))
@pytest.mark.parametrize("ruleset", sorted(SPECS))
def test_the_bytes_of_a_plain_encoding_at_every_step(ruleset: str, seed: int) -> None:
    encoder = AnswerEncoder()
    rounds = _play(ruleset, seed, encoder, 200)
    if ruleset.startswith("numwars"):  # tricks are finished: each new one extends the list
        assert encoder.extended > 10, (encoder.extended, encoder.whole)
        # once a round (at its second trick), not once a view: 5 viewers share the JSON
        assert encoder.whole <= rounds, (encoder.whole, rounds)
        assert len(encoder._kept) <= rounds  # a longer list takes its shorter one's place


def test_a_small_store_is_emptied_and_still_right() -> None:
    encoder = AnswerEncoder(size=3)
    _play("numwars", 7, encoder, 150)
    assert len(encoder._kept) <= 3
    assert encoder.extended > 0


class _Twice(msgspec.Struct, frozen=True):
    """A view whose growing list's name is also a key inside it."""

    GROWS: ClassVar[tuple[str, ...]] = ("cards",)
    cards: list[int]
    trick: dict[str, list[int]]


def test_a_name_found_twice_is_encoded_as_it_is() -> None:
    encoder = AnswerEncoder()
    answer = ActionOut(version=1, events=[], view=_Twice(cards=[1, 2, 3], trick={"cards": []}))
    assert encoder(answer) == msgspec.json.encode(answer)
    assert encoder.whole == encoder.extended == 0
