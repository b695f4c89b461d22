"""Whole matches (engine/core/match.py; issue 9 "Matches", rules/*.md "Match" sections).

Every ruleset is played to its result through the match object at every player count and
with every option that changes the match, by the seeded random-legal policy of
engine.simulate; each result is checked against an independent recomputation (totals = sum of
the regular rounds, winners by the ruleset's rule, the tie-break Ruling), and each match is
replayed from its record (equal views for every seat and the spectator, equal result).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, ClassVar

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from engine import registry
from engine.core.actions import Bid, Play
from engine.core.base import RoundScore, RoundSetup, RoundState
from engine.core.errors import IllegalMove, InvalidInput
from engine.core.events import EventBase, MatchOverEvent, RoundStartEvent
from engine.core.match import (
    Match,
    MatchRecord,
    check_rules_version,
    match_view,
    replay,
    round_seed,
)
from engine.core.rng import Rng
from engine.numking import NumKing, NumKingOptions
from engine.registry import RULESETS
from engine.simulate import pick, play_match
from tests.engine import golden

#: Options that change the deal, the play or the match, per ruleset (player counts they need).
VARIANTS: list[tuple[str, dict[str, Any], tuple[int, ...] | None]] = [
    ("numwars", {}, None),
    ("numwars", {"exchange": 2}, None),
    ("numwars", {"tiebreak": True}, None),
    ("numwars-classic", {}, None),
    ("numwars-classic", {"speed": True}, None),
    ("numwars-classic", {"alliance": True}, (4, 6, 8)),
    ("numwars-classic", {"tiebreak": False}, None),
    ("numking", {}, None),
    ("numking", {"zeros": True}, None),
    ("numking", {"max_cards": 2, "first_bidder": 1}, None),
    ("numwin", {}, None),
    ("numwin", {"teams": True}, (4,)),
]

CASES = [
    pytest.param(rid, opts, n, id=f"{rid}-{'-'.join(f'{k}={v}' for k, v in opts.items())}-{n}")
    for rid, opts, counts in VARIANTS
    for n in counts or range(RULESETS[rid].min_players, RULESETS[rid].max_players + 1)
]

LOWEST_WINS = {"numwin"}


def played(
    rid: str, options: dict[str, Any], players: int, seed: int
) -> tuple[Match, list[EventBase]]:
    """A match played to its end by the seeded random-legal policy, and all its events."""
    events: list[EventBase] = []
    match = play_match(
        registry.make(rid, options), players, seed, Rng(seed), lambda _m, ev: events.extend(ev)
    )
    return match, events


def team_of(players: int) -> list[list[int]]:
    return [[s, s + players // 2] for s in range(players // 2)]


def expected_winners(rid: str, options: dict[str, Any], match: Match) -> list[int]:
    """The winners, recomputed from the round scores by the rules' text (not the engine's)."""
    n = match.players
    regular = match.round_scores[: match.regular_rounds]
    totals = [sum(r.players[s].score for r in regular) for s in range(n)]
    teams = options.get("alliance") or options.get("teams")
    lowest = rid in LOWEST_WINS

    def best(keys: dict[int, int]) -> list[int]:
        target = min(keys.values()) if lowest else max(keys.values())
        return sorted(s for s, v in keys.items() if v == target)

    def team_key(scores: list[int]) -> dict[int, int]:
        return {s: scores[t[0]] + scores[t[1]] for t in team_of(n) for s in t}

    alive = best(team_key(totals) if teams else dict(enumerate(totals)))
    entrants = (len(alive) + 1) // 2 if teams else len(alive)
    tiebreak = options.get("tiebreak", rid == "numwars-classic")
    if entrants > 1 and tiebreak and rid in ("numwars", "numwars-classic"):
        # rules/numwars-classic.md "Match and variants": each tie-break round keeps the highest
        # round score among those still tied (team sums under alliance), at most 3 rounds.
        for extra in match.round_scores[match.regular_rounds :][:3]:
            scores = [p.score for p in extra.players]
            keys = team_key(scores) if teams else dict(enumerate(scores))
            top = max(keys[s] for s in alive)
            alive = [s for s in alive if keys[s] == top]
    return alive


@pytest.mark.parametrize(("rid", "options", "players"), CASES)
def test_match_plays_to_its_result_and_replays(
    rid: str, options: dict[str, Any], players: int
) -> None:
    seed = 1000 + players
    match, events = played(rid, options, players, seed)
    result = match.result()
    assert match.is_over and result is not None and match.phase == "over"
    assert match.actors() == [] and all(match.legal_actions(s) == [] for s in range(players))
    # Rounds: as many as players (numking: 1 … max_cards), then the tie-break rounds.
    rules = registry.make(rid, options)
    regular = rules.deck(players).hand_size if rid == "numking" else players
    assert match.regular_rounds == regular
    assert len(result.rounds) == regular + result.tiebreak_rounds
    assert result.rounds == match.round_scores
    assert 0 <= result.tiebreak_rounds <= 3
    if result.tiebreak_rounds:
        assert rid in ("numwars", "numwars-classic")
        assert options.get("tiebreak", rid == "numwars-classic")
    # Dealers rotate (rules/README.md); numking's first bidders are checked in its own tests.
    if rid != "numking":
        assert [r.setup.dealer for r in match.rounds] == [
            i % players for i in range(len(match.rounds))
        ]
    assert [r.setup.seed for r in match.rounds] == [
        round_seed(seed, i) for i in range(len(match.rounds))
    ]
    # Totals = sum of the regular rounds (tie-break rounds excepted); winners by the rules.
    totals = [sum(r.players[s].score for r in result.rounds[:regular]) for s in range(players)]
    assert result.totals == totals == match.totals()
    assert result.winners == expected_winners(rid, options, match)
    if options.get("alliance") or options.get("teams"):
        assert isinstance(result.teams, list)
        assert [(t.seats, t.score) for t in result.teams] == [
            (t, totals[t[0]] + totals[t[1]]) for t in team_of(players)
        ]
    else:
        assert result.teams is msgspec.UNSET
    # Events: one round-start between rounds, match-over last with the result's figures.
    kinds = [e.kind for e in events]
    assert kinds.count("round-start") == len(result.rounds) - 1
    assert kinds[-1] == "match-over" and kinds.count("match-over") == 1
    assert isinstance(events[-1], MatchOverEvent) and events[-1].to is None
    assert all(
        isinstance(e, RoundStartEvent) and e.to is None for e in events if e.kind == "round-start"
    )
    assert events[-1].data.totals == totals and events[-1].data.winners == result.winners
    starts = [msgspec.to_builtins(e.data) for e in events if e.kind == "round-start"]
    assert [d["round"] for d in starts] == list(range(2, len(result.rounds) + 1))
    assert [d["tiebreak"] for d in starts] == [i >= regular for i in range(1, len(result.rounds))]
    # The view: the last round's, with the match's round (1-based) and totals.
    for seat in [None, *range(players)]:
        view = match.view(seat)
        assert view.round == len(result.rounds) and view.scores == totals
    with pytest.raises(IllegalMove) as exc:
        match.apply(0, Play(card="red-1"))
    assert exc.value.reason == "game-over"
    # Replay from the record, through JSON: the same match.
    record = match.record()
    assert record.rules_version == rules.rules_version
    assert record.options == msgspec.to_builtins(rules.options)
    decoded = msgspec.json.decode(msgspec.json.encode(record), type=MatchRecord)
    assert decoded == record
    again = replay(decoded)
    assert again.result() == result
    assert again.snapshot() == match.snapshot()
    for seat in [None, *range(players)]:
        assert again.view(seat) == match.view(seat)


@pytest.mark.parametrize("rid", list(RULESETS))
def test_views_along_the_way_equal_the_replayed_views(rid: str) -> None:
    """Replay = state at every step: a record cut after k actions replays to the same views."""
    players = RULESETS[rid].min_players + 1
    rules = registry.make(rid)
    match = rules.new_match(players=players, seed=77)
    rng = Rng(77)
    checkpoints = {1, 5, 40, 120}
    step = 0
    while not match.is_over and step < max(checkpoints):
        seat, action = pick(match, rng)
        match.apply(seat, action)
        step += 1
        if step in checkpoints:
            again = replay(match.record())
            assert again.snapshot() == match.snapshot()
            for viewer in [None, *range(players)]:
                view = match.view(viewer)
                assert again.view(viewer) == view
                assert view.round == match.index + 1 and view.scores == match.totals()


def test_round_seed_is_shake256_of_seed_and_index() -> None:
    """Seeds (module docstring): SHAKE-256 of a label, the seed and the index, little-endian."""

    def by_hand(seed: int, index: int) -> int:
        key = b"numrules round " + seed.to_bytes(8, "little") + index.to_bytes(4, "little")
        return int.from_bytes(hashlib.shake_256(key).digest(8), "little")

    for seed, index in [(0, 0), (1, 0), (1, 1), (2**63 - 1, 7), (2**64 - 1, 2**32 - 1)]:
        assert round_seed(seed, index) == by_hand(seed, index)
    assert len({round_seed(5, i) for i in range(12)}) == 12
    assert round_seed(0, 0) == int.from_bytes(
        hashlib.shake_256(b"numrules round " + bytes(12)).digest(8), "little"
    )


@pytest.mark.parametrize("seed", [-1, 2**64, True, 1.5])
def test_bad_seed_is_refused(seed: Any) -> None:
    with pytest.raises(InvalidInput) as exc:
        registry.make("numking").new_match(players=3, seed=seed)
    assert exc.value.code == "bad-request" and exc.value.errors[0].field == "seed"


@pytest.mark.parametrize(
    ("rid", "options", "players"),
    [
        ("numwars", {}, 2),
        ("numwars-classic", {"alliance": True}, 5),
        ("numwin", {"teams": True}, 6),
        ("numking", {"max_cards": 10}, 4),
        ("numking", {"first_bidder": 5}, 4),
    ],
)
def test_bad_table_is_refused_at_the_start(rid: str, options: dict[str, Any], players: int) -> None:
    with pytest.raises(InvalidInput) as exc:
        registry.make(rid, options).new_match(players=players, seed=1)
    assert exc.value.code in ("bad-player-count", "bad-option")


def test_an_illegal_action_changes_nothing() -> None:
    match = registry.make("numking").new_match(players=3, seed=4)
    seat = match.current_player
    assert seat is not None
    before = match.snapshot()
    with pytest.raises(IllegalMove):
        match.apply(seat, Bid(tricks=5))  # round 1 deals one card: bids are 0 or 1
    with pytest.raises(IllegalMove):
        match.apply((seat + 1) % 3, Bid(tricks=0))
    assert match.snapshot() == before and match.history == []


def test_match_view_sets_round_and_scores_only() -> None:
    """A match view is the round's typed view with the match's round and totals; the rest,
    the round's own `round_score` included, is the round's."""
    state = registry.make("numwars").new_round(RoundSetup(players=3, seed=1))
    view = state.view(0)
    assert view.round == 1 and view.scores == [0, 0, 0]
    out = match_view(view, 2, [5, 6, 7])
    assert type(out) is type(view)
    assert (out.round, out.scores, out.hand) == (2, [5, 6, 7], view.hand)
    assert msgspec.structs.replace(out, round=1, scores=[0, 0, 0]) == view
    assert view.round == 1 and view.scores == [0, 0, 0]  # the round's own view is left as it was


# ------------------------------------------------------------------------------- tie-breaks


def first_seed(rid: str, options: dict[str, Any], players: int, want: Any) -> Match:
    """The first seed (bounded search) whose random match satisfies `want`."""
    for seed in range(3000):
        match, _ = played(rid, options, players, seed)
        if want(match):
            return match
    raise AssertionError(f"no {rid} {options} match in 3000 seeds satisfies the condition")


def regular_tie(match: Match) -> bool:
    totals = match.totals()
    best = max(totals)
    return totals.count(best) > 1


def test_classic_tiebreak_round_decides_and_is_kept_out_of_totals() -> None:
    """numwars-classic "Match and variants": a tied total calls for a tie-break round dealt by
    the next dealer in rotation; it alone decides between the tied players; its scores are
    not added to the totals."""
    match = first_seed("numwars-classic", {}, 3, lambda m: m.result().tiebreak_rounds > 0)
    result = match.result()
    assert result is not None
    totals = match.totals()
    tied = [s for s in range(3) if totals[s] == max(totals)]
    assert len(tied) > 1
    extra = match.rounds[3]
    assert extra.setup.dealer == 0  # rounds 0, 1, 2 were dealt by seats 0, 1, 2
    first = [p.score for p in result.rounds[3].players]
    assert set(result.winners) <= set(tied)
    if result.tiebreak_rounds == 1:
        top = max(first[s] for s in tied)
        assert result.winners == [s for s in tied if first[s] == top]
    assert result.winners == expected_winners("numwars-classic", {}, match)
    assert result.totals == [sum(r.players[s].score for r in result.rounds[:3]) for s in range(3)]
    start = match.rounds[3].history  # the tie-break round was played by every seat
    assert {seat for seat, _ in start} == {0, 1, 2}


def test_classic_without_tiebreak_shares_a_tie() -> None:
    match = first_seed("numwars-classic", {"tiebreak": False}, 3, regular_tie)
    result = match.result()
    assert result is not None and result.tiebreak_rounds == 0
    assert len(result.winners) > 1 and len(result.rounds) == 3


def test_numwars_tie_is_a_tie_unless_tiebreak() -> None:
    """numwars "Match", Ruling: a tie is reported as a tie; with `tiebreak` the classic one."""
    shared = first_seed("numwars", {}, 3, regular_tie).result()
    assert shared is not None and shared.tiebreak_rounds == 0 and len(shared.winners) > 1
    broken = first_seed("numwars", {"tiebreak": True}, 3, regular_tie)
    result = broken.result()
    assert result is not None and result.tiebreak_rounds >= 1
    assert result.winners == expected_winners("numwars", {"tiebreak": True}, broken)


def test_tiebreak_round_start_event_names_the_tied_seats() -> None:
    for seed in range(3000):
        match, events = played("numwars-classic", {}, 3, seed)
        result = match.result()
        if result is not None and result.tiebreak_rounds:
            break
    else:
        raise AssertionError("no tie-break in 3000 seeds")
    start = [e for e in events if e.kind == "round-start" and e.data.tiebreak]
    assert start and start[0].data.round == 4 and start[0].data.dealer == 0
    totals = match.totals()
    assert start[0].data.tied == [s for s in range(3) if totals[s] == max(totals)]


# ------------------------------------------------------------------------- records, versions


def export_of(match: Match, names: list[str], salt: str = "ab" * 16) -> dict[str, Any]:
    """A stored game's export (api-contract.md "Stored games") for a finished match."""
    record = match.record()
    return {
        "ruleset": record.ruleset,
        "options": record.options,
        "rules_version": record.rules_version,
        "players": [{"seat": s, "name": name} for s, name in enumerate(names)],
        "seed_commitment": hashlib.sha256(f"{record.seed}:{salt}".encode()).hexdigest(),
        "seed": record.seed,
        "salt": salt,
        "actions": [
            {"seq": i + 1, "seat": seat, "action": msgspec.to_builtins(action)}
            for i, (seat, action) in enumerate(record.actions)
        ],
        "result": msgspec.to_builtins(match.result()),
        "status": "over",  # a field the engine does not read: more fields may be added
    }


@pytest.mark.parametrize("rid", list(RULESETS))
def test_from_export_replays_to_the_exported_result(rid: str) -> None:
    players = 4
    match, _ = played(rid, {}, players, 31)
    export = export_of(match, ["ann", "bob", "cyd", "dee"])
    record = MatchRecord.from_export(export)
    assert record == match.record()
    assert MatchRecord.from_export(msgspec.json.encode(export)) == record
    assert MatchRecord.from_export(msgspec.json.encode(export).decode()) == record
    again = replay(record)
    assert msgspec.to_builtins(again.result()) == export["result"]


def _bad_export(change: Any) -> InvalidInput:
    match, _ = played("numwars", {}, 3, 5)
    export = export_of(match, ["a", "b", "c"])
    change(export)
    with pytest.raises(InvalidInput) as exc:
        MatchRecord.from_export(export)
    return exc.value


def test_from_export_checks_seqs_seats_seed_and_commitment() -> None:
    def swap(export: dict[str, Any]) -> None:
        export["actions"][1]["seq"], export["actions"][2]["seq"] = 3, 2

    err = _bad_export(swap)
    assert err.code == "bad-record" and err.errors[0].field == "actions[1].seq"
    err = _bad_export(lambda e: e["actions"][0].update(seq=0))
    assert err.errors[0].field == "actions[0].seq"
    err = _bad_export(lambda e: e["actions"].pop(4))
    assert err.errors[0].field == "actions[4].seq"
    err = _bad_export(lambda e: e["players"].reverse())
    assert err.errors[0].field == "players[0].seat"
    err = _bad_export(lambda e: e.update(seed=None))
    assert err.errors[0].field == "seed"
    err = _bad_export(lambda e: e.update(salt="cd" * 16))
    assert err.errors[0].field == "seed_commitment"
    err = _bad_export(lambda e: e.pop("ruleset"))
    assert err.code == "bad-record"
    with pytest.raises(InvalidInput) as exc:
        MatchRecord.from_export(b"{not json")
    assert exc.value.code == "bad-record"


def test_unknown_rules_version_is_refused() -> None:
    """A record of a version the engine never published: `unknown-rules-version`."""
    match, _ = played("numking", {}, 3, 8)
    record = match.record()
    for version in (0, 2, 99, -1):
        bad = msgspec.structs.replace(record, rules_version=version)
        with pytest.raises(InvalidInput) as exc:
            replay(bad)
        assert exc.value.code == "unknown-rules-version"
        assert exc.value.errors[0].field == "rules_version"
        assert str(version) in exc.value.message and "replays versions 1" in exc.value.message
    with pytest.raises(InvalidInput) as exc:
        registry.make("numwin").new_match(players=3, seed=1, rules_version=True)  # type: ignore[arg-type]
    assert exc.value.code == "unknown-rules-version"
    export = export_of(match, ["a", "b", "c"])
    export["rules_version"] = 7
    with pytest.raises(InvalidInput) as exc:
        replay(MatchRecord.from_export(export))
    assert exc.value.code == "unknown-rules-version"


def test_every_published_version_replays() -> None:
    """Each ruleset's current version is published, and a match records it."""
    for rid, cls in RULESETS.items():
        assert cls.rules_version == cls.rules_versions[-1]
        assert list(cls.rules_versions) == sorted(set(cls.rules_versions))
        rules = registry.make(rid)
        for version in cls.rules_versions:
            assert rules.for_version(version).rules_version >= version
            match = rules.new_match(players=cls.min_players, seed=3, rules_version=version)
            assert match.record().rules_version == version


def test_replay_refuses_a_tampered_record_naming_the_action() -> None:
    match, _ = played("numwars", {}, 3, 12)
    record = match.record()
    seat, _action = record.actions[10]
    actions = list(record.actions)
    actions[10] = ((seat + 1) % 3, actions[10][1])
    with pytest.raises(InvalidInput) as exc:
        replay(msgspec.structs.replace(record, actions=actions))
    assert exc.value.code == "bad-record" and exc.value.errors[0].field == "actions[10]"
    with pytest.raises(InvalidInput) as exc:
        replay(record, registry.make("numwin"))
    assert exc.value.errors[0].field == "ruleset"


def test_replay_finds_the_rules_through_the_registry_lookup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Core imports no game: the registry installs the lookup replay(record) uses."""
    import engine.core.match as core_match

    assert core_match._rules_lookup is registry.make
    match, _ = played("numwin", {"max_turns": 4}, 3, 2)
    record = match.record()
    assert (
        replay(record).snapshot()
        == replay(record, registry.make("numwin", record.options)).snapshot()
    )
    monkeypatch.setattr(core_match, "_rules_lookup", None)
    with pytest.raises(RuntimeError, match=r"import engine\.registry"):
        replay(record)
    assert replay(record, registry.make("numwin", record.options)).result() == match.result()


def test_record_json_shape() -> None:
    """The record's JSON: the fields of issue 9, actions as [seat, action] pairs."""
    match = registry.make("numking").new_match(players=2, seed=9)
    seat = match.current_player
    assert seat is not None
    match.apply(seat, Bid(tricks=1))
    data = msgspec.json.decode(msgspec.json.encode(match.record()))
    assert data == {
        "ruleset": "numking",
        "options": {"zeros": False, "max_cards": None, "first_bidder": 0},
        "rules_version": 1,
        "seed": 9,
        "players": 2,
        "actions": [[seat, {"type": "bid", "tricks": 1}]],
    }
    assert isinstance(match.round_scores, list) and all(
        isinstance(r, RoundScore) for r in match.round_scores
    )


class _BumpedNumKing(NumKing):
    """How a deliberate change ships (engine/core/match.py, "Rules versions"): version 2
    lets the last seat bid first in round 1; version 1 keeps the published behaviour."""

    rules_version: ClassVar[int] = 2
    rules_versions: ClassVar[tuple[int, ...]] = (1, 2)

    def for_version(self, version: int) -> NumKing:
        check_rules_version(self, version)
        return self if version == 2 else NumKing(self.options)

    def round_setup(
        self, players: int, index: int, seed: int, previous: RoundState | None
    ) -> RoundSetup:
        setup = super().round_setup(players, index, seed, previous)
        return setup if index else msgspec.structs.replace(setup, leader=players - 1)


def test_a_version_bump_keeps_old_records_replaying() -> None:
    """Old records replay by the old behaviour, new matches record the new version, and a
    version never published is still refused."""
    path = golden.GOLDEN_DIR / "numking.v1.json"
    old = [
        msgspec.convert(m["record"], type=MatchRecord)
        for m in json.loads(path.read_text(encoding="utf-8"))["matches"]
    ]
    bumped = _BumpedNumKing()
    for record in old:
        rules = _BumpedNumKing(msgspec.convert(record.options, type=NumKingOptions))
        assert replay(record, rules).snapshot() == replay(record).snapshot()
    match = bumped.new_match(players=3, seed=5)
    assert match.record().rules_version == 2 and match.current_player == 2
    rng = Rng(5)
    while not match.is_over:
        seat, action = pick(match, rng)
        match.apply(seat, action)
    assert replay(match.record(), bumped).snapshot() == match.snapshot()
    with pytest.raises(InvalidInput) as exc:  # version 2 is unknown to the published engine
        replay(match.record())
    assert exc.value.code == "unknown-rules-version"
    with pytest.raises(InvalidInput) as exc:
        bumped.new_match(players=3, seed=5, rules_version=3)
    assert exc.value.code == "unknown-rules-version"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(m, id=f"{path.stem}-{i}")
        for path in golden.golden_files()
        for i, m in enumerate(json.loads(path.read_text(encoding="utf-8"))["matches"])
    ],
)
def test_golden_matches_score_by_the_rules(data: dict[str, Any]) -> None:
    """The golden matches (tie-breaks, alliance and teams included) are also right: totals
    are the regular rounds' sums and the winners follow the rules' text."""
    record = msgspec.convert(data["record"], type=MatchRecord)
    match = replay(record)
    result = match.result()
    assert result is not None
    regular = match.regular_rounds
    n = record.players
    assert result.totals == [
        sum(r.players[s].score for r in result.rounds[:regular]) for s in range(n)
    ]
    assert result.winners == expected_winners(record.ruleset, record.options, match)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_seeded_match_ends_scores_and_replays(data: st.DataObject) -> None:
    """Property: for any ruleset, option variant, player count and seed, the match ends, its
    totals and winners follow the rules, and its record replays to the same match."""
    rid, options, counts = data.draw(st.sampled_from(VARIANTS))
    cls = RULESETS[rid]
    players = data.draw(st.sampled_from(counts or range(cls.min_players, cls.max_players + 1)))
    seed = data.draw(st.integers(min_value=0, max_value=2**64 - 1))
    match, _ = played(rid, options, players, seed)
    result = match.result()
    assert result is not None
    regular = match.regular_rounds
    assert result.totals == [
        sum(r.players[s].score for r in result.rounds[:regular]) for s in range(players)
    ]
    assert result.winners == expected_winners(rid, options, match)
    again = replay(msgspec.json.decode(msgspec.json.encode(match.record()), type=MatchRecord))
    assert again.result() == result and again.snapshot() == match.snapshot()
