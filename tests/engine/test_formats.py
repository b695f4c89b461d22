"""The engine's stored formats (engine/core/formats.py; issue 22, STYLE 16): an action as a log
stores it, read back leniently as the engine's own action; the export `from_export` reads."""

from __future__ import annotations

import functools
import json
import operator
import random
from typing import Any, get_args

import msgspec
import pytest

from engine import registry
from engine.core.actions import SHARED_PASSES, SHARED_PLAYS, Action, Pass, Play
from engine.core.errors import InvalidInput
from engine.core.formats import (
    ACTION_FORMAT,
    STORED_ACTIONS,
    action_document,
    decode_action,
    encode_action,
)
from engine.core.match import MatchRecord, replay


def test_every_action_type_has_a_stored_twin_with_its_fields() -> None:
    assert set(STORED_ACTIONS) == set(get_args(Action))
    for cls, twin in STORED_ACTIONS.items():
        assert twin.__struct_config__.tag == cls.__struct_config__.tag
        assert twin.__struct_config__.forbid_unknown_fields is False
        mine = {f.name: (f.type, f.default) for f in msgspec.structs.fields(cls)}
        stored = {f.name: (f.type, f.default) for f in msgspec.structs.fields(twin)}
        assert stored == {**mine, "v": (int, ACTION_FORMAT)}


def _legal_actions() -> list[Action]:
    found: dict[str, Action] = {}
    for ruleset, cls in registry.RULESETS.items():
        rng = random.Random(3)
        match = registry.make(ruleset).new_match(cls.min_players, 9)
        while not match.is_over and len(found) < 40:
            seat = rng.choice(match.actors())
            legal = match.legal_actions(seat)
            for action in legal:
                found.setdefault(repr(action), action)
            match.apply(seat, rng.choice(legal))
            if match.index > 0:
                break
    return list(found.values())


def test_stored_actions_round_trip_and_ignore_added_fields() -> None:
    actions = _legal_actions()
    assert {type(a) for a in actions} >= {get_args(Action)[0]}
    for action in actions:
        document = action_document(action)
        assert document["v"] == 1 and document["type"] == type(action).__struct_config__.tag
        assert decode_action(encode_action(action)) == action
        assert decode_action(document) == action
        newer = {**document, "v": 2, "future": {"x": [1]}}
        assert decode_action(newer) == action
        assert decode_action(json.dumps(newer)) == action
        unversioned = msgspec.to_builtins(action)  # today's rows: no `v`
        assert decode_action(json.dumps(unversioned)) == action
    with pytest.raises(msgspec.ValidationError):  # a field's type is still checked
        decode_action({"type": "bid", "tricks": "three"})
    with pytest.raises(msgspec.ValidationError):
        decode_action({"type": "no-such-action"})


def _export() -> tuple[dict[str, Any], Any]:
    rules = registry.make("numking")
    rng = random.Random(4)
    match = rules.new_match(3, 21)
    while not match.is_over:
        seat = rng.choice(match.actors())
        match.apply(seat, rng.choice(match.legal_actions(seat)))
    export = {
        "ruleset": "numking",
        "options": msgspec.to_builtins(rules.options),
        "rules_version": match.rules_version,
        "players": [{"seat": i, "name": f"P{i}"} for i in range(3)],
        "seed": 21,
        "actions": [
            {"seq": i + 1, "seat": s, "action": msgspec.to_builtins(a)}
            for i, (s, a) in enumerate(match.history)
        ],
    }
    return export, match


def test_from_export_reads_a_newer_export() -> None:
    """An export with added fields (its own, an action's) replays to the same result."""
    export, match = _export()
    newer = {
        **export,
        "v": 2,
        "future": 1,
        "actions": [
            {**e, "bot": False, "action": {**e["action"], "v": 2, "later": "x"}}
            for e in export["actions"]
        ],
    }
    for data in (export, newer, json.dumps(newer)):
        again = replay(MatchRecord.from_export(data))
        assert again.result() == match.result()
    broken = {**export, "actions": [{**export["actions"][0], "action": {"type": "bid"}}]}
    with pytest.raises(InvalidInput) as exc:
        MatchRecord.from_export(broken)
    assert exc.value.code == "bad-record" and "actions[0]" in exc.value.message


def test_a_stored_plain_play_or_pass_decodes_to_the_kernels_shared_value() -> None:
    """A kernel finds its legal plays and passes by identity (its fast path): a stored one
    decodes to that very value; any other action (numking's declared play, a card no deck
    holds) to an equal new one."""
    for action in (Play("red-3"), Pass("rainbow-16"), Play("joker")):
        decoded = decode_action(encode_action(action))
        shared = SHARED_PLAYS if isinstance(action, Play) else SHARED_PASSES
        assert decoded == action and decoded is shared[action.card]
    assert decode_action(action_document(Play("red-3"))) is SHARED_PLAYS["red-3"]
    for action in (Play("infinity", declared=17), Play("not-a-card"), Pass("not-a-card")):
        decoded = decode_action(encode_action(action))
        assert decoded == action and decoded is not action


@pytest.mark.parametrize("ruleset", list(registry.RULESETS))
def test_a_log_read_back_replays_as_the_actions_applied(ruleset: str) -> None:
    """Seeded random play-outs of every ruleset, each action stored and read back (the shared
    values where a kernel has them): the replay is the match played, step for step."""
    cls = registry.RULESETS[ruleset]
    rules = registry.make(ruleset)
    for players, seed in ((cls.min_players, 5), (cls.max_players, 6)):
        rng = random.Random(seed)
        played = rules.new_match(players, seed)
        read = rules.new_match(players, seed)
        while not played.is_over:
            seat = rng.choice(played.actors())
            action = rng.choice(played.legal_actions(seat))
            events = msgspec.to_builtins(played.apply(seat, action))
            assert msgspec.to_builtins(read.apply(seat, decode_action(encode_action(action)))) == (
                events
            )
            assert read.view(seat) == played.view(seat)
        assert read.snapshot() == played.snapshot() and read.result() == played.result()


@pytest.mark.parametrize(
    "document",
    [
        {"type": "nope"},
        {"type": "play", "card": 5},
        {"type": "play", "card": "red-3", "declared": [1]},
        5,
        ["play"],
    ],
)
def test_a_bad_stored_action_says_what_converting_it_alone_says(document: Any) -> None:
    """`decode_action` converts a document through a one-field struct (msgspec keeps a
    struct's field types, not a union's); its errors read as the union's would, paths
    included (an export's error names `$.actions[i].action` and what is wrong there)."""
    union = functools.reduce(operator.or_, STORED_ACTIONS.values())  # the stored actions'
    with pytest.raises(msgspec.ValidationError) as alone:
        msgspec.convert(document, union)
    with pytest.raises(msgspec.ValidationError) as boxed:
        decode_action(document)
    assert str(boxed.value) == str(alone.value)
    export, _ = _export()
    broken = {**export, "actions": [{**export["actions"][0], "action": document}]}
    with pytest.raises(InvalidInput) as refused:
        MatchRecord.from_export(broken)
    said = f"{alone.value} - at `$.actions[0].action`"
    assert refused.value.message.endswith(said), (said, refused.value.message)
