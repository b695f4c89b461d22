"""Events as a tagged union (issue 9): one struct per kind, visibility set where made."""

from __future__ import annotations

import msgspec

from engine.core.events import (
    EVENT_TYPES,
    DrawEvent,
    Event,
    MatchOverEvent,
    PlayEvent,
    RoundOverEvent,
    RoundStartEvent,
    ShowEvent,
    visible_to,
)


def test_an_event_encodes_with_its_kind_and_decodes_to_its_struct() -> None:
    event = PlayEvent(seat=2, cards=["red-3"])
    data = msgspec.json.encode(event)
    assert msgspec.json.decode(data)["kind"] == "play"
    assert msgspec.json.decode(data, type=Event) == event
    back = msgspec.json.decode(b'{"kind": "round-over", "data": {"winners": [1]}}', type=Event)
    assert type(back) is RoundOverEvent and back.data == {"winners": [1]}


def test_every_kind_is_one_struct_and_round_over_is_the_only_end() -> None:
    assert all(cls.kind == kind for kind, cls in EVENT_TYPES.items())
    assert "round-over" in EVENT_TYPES and "round-end" not in EVENT_TYPES


def test_visible_to_keeps_the_public_events_and_a_seats_own() -> None:
    public = DrawEvent(seat=0)
    private = DrawEvent(seat=0, cards=["blue-4"], to=[0])
    shown = ShowEvent(seat=1, cards=["red-9"], to=[3])
    events = [public, private, shown]
    assert visible_to(events, None) == [public]
    assert visible_to(events, 0) == [public, private]
    assert visible_to(events, 3) == [public, shown]
    assert visible_to(events, 2) == [public]
    assert [e.visible(3) for e in events] == [True, False, True]


def test_match_events_are_public_members_of_the_union() -> None:
    """A match adds `round-start` between rounds and `match-over` last (engine.core.match)."""
    assert EVENT_TYPES["round-start"] is RoundStartEvent
    assert EVENT_TYPES["match-over"] is MatchOverEvent and "game-over" not in EVENT_TYPES
    over = MatchOverEvent(data={"totals": [3, 1], "winners": [0], "tiebreak_rounds": 0})
    back = msgspec.json.decode(msgspec.json.encode(over), type=Event)
    assert type(back) is MatchOverEvent and back == over and back.to is None
    assert visible_to([over, RoundStartEvent(data={"round": 2})], None) == [
        over,
        RoundStartEvent(data={"round": 2}),
    ]
