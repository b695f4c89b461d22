"""Events as a tagged union (issue 9): one struct per kind, visibility set where made; each
kind's details typed (issue 23), the JSON of every event as it was before the typing."""

from __future__ import annotations

import typing

import msgspec
import pytest

from engine.core.base import BombResult, Capture, TeamScore
from engine.core.events import (
    EVENT_TYPES,
    DealData,
    DealEvent,
    DrawEvent,
    Event,
    EventBase,
    EventData,
    ExchangeData,
    ExchangeEvent,
    MatchOverData,
    MatchOverEvent,
    PassData,
    PassEvent,
    PlayEvent,
    RoundOverEvent,
    RoundStartData,
    RoundStartEvent,
    ShowEvent,
    TrickData,
    TrickEvent,
    visible_to,
)


def test_an_event_encodes_with_its_kind_and_decodes_to_its_struct() -> None:
    event = PlayEvent(seat=2, cards=["red-3"])
    data = msgspec.json.encode(event)
    assert msgspec.json.decode(data)["kind"] == "play"
    assert msgspec.json.decode(data, type=Event) == event
    back = msgspec.json.decode(b'{"kind": "round-over", "data": {"winners": [1]}}', type=Event)
    assert type(back) is RoundOverEvent and back.data.winners == [1]
    assert msgspec.to_builtins(back.data) == {"winners": [1]}  # the others left out


def test_every_kind_is_one_struct_and_round_over_is_the_only_end() -> None:
    assert all(cls.kind == kind for kind, cls in EVENT_TYPES.items())
    assert "round-over" in EVENT_TYPES and "round-end" not in EVENT_TYPES
    assert set(EVENT_TYPES.values()) == set(typing.get_args(Event))


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_every_kind_has_its_own_typed_details(kind: str) -> None:
    """`data` is a struct of its own per kind (a subclass of EventData), not a dict."""
    cls = EVENT_TYPES[kind]
    hints = typing.get_type_hints(cls)
    data_type = hints["data"]
    assert isinstance(data_type, type) and issubclass(data_type, EventData)
    assert data_type is not EventData
    others = [typing.get_type_hints(c)["data"] for k, c in EVENT_TYPES.items() if k != kind]
    assert data_type not in others


def test_the_json_of_an_event_is_the_untyped_one() -> None:
    """Fields a kind's event lacks are left out: the wire is what it was with dicts."""
    public = PassEvent(seat=1, data=PassData(count=2))
    private = PassEvent(seat=1, cards=["red-1", "red-2"], to=[1])
    assert msgspec.to_builtins(public) == {
        "kind": "pass",
        "seat": 1,
        "cards": [],
        "data": {"count": 2},
        "to": None,
    }
    assert msgspec.to_builtins(private)["data"] == {}
    got = ExchangeEvent(seat=0, cards=["blue-3"], data=ExchangeData(from_=1, to=3, passed=[]))
    assert msgspec.to_builtins(got)["data"] == {"from": 1, "to": 3, "passed": []}
    trick = TrickEvent(
        seat=None,
        data=TrickData(winner=None, annulled=True, next_leader=0, cancelled=["red-2"]),
    )
    assert msgspec.to_builtins(trick)["data"] == {
        "winner": None,
        "annulled": True,
        "next_leader": 0,
        "cancelled": ["red-2"],
    }
    plain = TrickData(
        winner=1,
        annulled=False,
        next_leader=1,
        captures=[Capture(seat=1, cards=["red-2"])],
        pairs=[],
        bomb=None,
    )
    assert msgspec.to_builtins(plain)["bomb"] is None  # numwars: null, not left out
    bomb = BombResult(outcome="stolen", captured_by=2, neutralized=None)
    assert msgspec.to_builtins(msgspec.structs.replace(plain, bomb=bomb))["bomb"] == {
        "outcome": "stolen",
        "captured_by": 2,
        "neutralized": None,
    }


def test_a_stored_event_decodes_to_its_typed_kind_and_back_unchanged() -> None:
    """What a row holds decodes to the kind's struct (unknown fields ignored) and encodes back
    to the same JSON."""
    row = {
        "kind": "exchange",
        "seat": 2,
        "cards": ["red-4"],
        "data": {"from": 3, "to": 1, "passed": ["blue-1"]},
        "to": [2],
        "v": 1,
    }
    event = msgspec.convert(row, Event)
    assert isinstance(event, ExchangeEvent) and event.data.from_ == 3
    assert msgspec.to_builtins(event) == {k: v for k, v in row.items() if k != "v"}
    with pytest.raises(msgspec.ValidationError):  # a kind's required details
        msgspec.convert({"kind": "bid", "data": {}}, Event)


def test_visible_to_keeps_the_public_events_and_a_seats_own() -> None:
    public = DrawEvent(seat=0)
    private = DrawEvent(seat=0, cards=["blue-4"], to=[0])
    shown = ShowEvent(seat=1, cards=["red-9"], to=[3])
    dealt = DealEvent(seat=3, cards=["red-1"], data=DealData(round=1), to=[3])
    events: list[EventBase] = [public, private, shown, dealt]
    assert visible_to(events, None) == [public]
    assert visible_to(events, 0) == [public, private]
    assert visible_to(events, 3) == [public, shown, dealt]
    assert visible_to(events, 2) == [public]
    assert [e.visible(3) for e in events] == [True, False, True, True]


def test_match_events_are_public_members_of_the_union() -> None:
    """A match adds `round-start` and the deals before each round and `match-over` last
    (engine.core.match)."""
    assert EVENT_TYPES["round-start"] is RoundStartEvent
    assert EVENT_TYPES["deal"] is DealEvent
    assert EVENT_TYPES["match-over"] is MatchOverEvent and "game-over" not in EVENT_TYPES
    over = MatchOverEvent(
        data=MatchOverData(
            totals=[3, 1],
            winners=[0],
            tiebreak_rounds=0,
            teams=[TeamScore(seats=[0, 2], score=3)],
        )
    )
    back = msgspec.json.decode(msgspec.json.encode(over), type=Event)
    assert type(back) is MatchOverEvent and back == over and back.to is None
    start = RoundStartEvent(
        data=RoundStartData(round=2, dealer=1, tiebreak=False, current_player=2)
    )
    assert "tied" not in msgspec.to_builtins(start)["data"]
    assert visible_to([over, start], None) == [over, start]
