"""Match checkpoints and resume (engine/core/match.py, "Checkpoints").

A match records a :class:`MatchCheckpoint` at each round start; :meth:`Match.resume` rebuilds
the match there. Every ruleset (min and max player counts, the variants that change the match,
tie-break rounds included) is played by the seeded random-legal policy of engine.simulate; the
match resumed from each round start's checkpoint, through JSON, then takes the remaining
actions in lockstep with a fresh replay of the whole log: same views (every seat and the
spectator), legal actions, actors, events, checkpoints, totals and result at every step.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from engine import registry
from engine.core.actions import SHARED_PASSES, SHARED_PLAYS, Action, Bid, Pass, Play
from engine.core.base import MatchResult, RoundScore
from engine.core.errors import InvalidInput
from engine.core.formats import (
    CHECKPOINT_FORMAT,
    decode_checkpoint,
    decode_played,
    decode_round_score,
    encode_checkpoint,
    encode_played,
    encode_round_score,
)
from engine.core.match import Match, MatchCheckpoint, MatchRecord, MatchRules, replay, round_seed
from engine.core.rng import Rng
from engine.core.tiebreak import TiebreakOutcome
from engine.numwars_classic import NumWarsClassic
from engine.registry import RULESETS
from engine.simulate import pick
from tests.engine.states import check_state_refused, spoilt

Rules = Any  # a rules object of engine.registry (each is a MatchRules)

# ----------------------------------------------------------------------------------- helpers


def play(rules: Rules, players: int, seed: int) -> tuple[Match, list[MatchCheckpoint]]:
    """A match played to its end by the seeded random-legal policy, and the checkpoint taken
    at each round start (right after the action that ended the round before)."""
    match: Match = rules.new_match(players=players, seed=seed)
    checkpoints = [match.checkpoint()]
    rng = Rng(seed)
    while not match.is_over:
        seat, action = pick(match, rng)
        events = match.apply(seat, action)
        if any(e.kind == "round-start" for e in events):
            cp = match.checkpoint()
            assert cp.actions == len(match.history) and cp.index == match.index
            assert cp.setup == match.round.setup
            checkpoints.append(cp)
        else:  # mid-round, and after the last round: still the round's start
            assert match.checkpoint() == checkpoints[-1]
    assert [cp.index for cp in checkpoints] == list(range(len(match.round_scores)))
    return match, checkpoints


def through_json(cp: MatchCheckpoint) -> MatchCheckpoint:
    decoded = decode_checkpoint(encode_checkpoint(cp))
    assert decoded == cp and bytes(decoded.played) == bytes(cp.played)
    return decoded


def version_1(cp: MatchCheckpoint) -> MatchCheckpoint:
    """`cp` as the format's version 1 stored it (the finished rounds decoded, in
    `round_scores`; no `scores` nor `rounds`), read back from that JSON."""
    data = msgspec.json.decode(encode_checkpoint(cp))
    rounds, scores = data.pop("rounds"), data.pop("scores")
    assert data.pop("played") == []  # version 1 had none: a round start's checkpoint
    assert len(rounds) == len(scores) == cp.index and data["round_scores"] == []
    decoded_rounds = [msgspec.to_builtins(decode_round_score(r)) for r in rounds]
    old = msgspec.json.encode({**data, "round_scores": decoded_rounds, "v": 1})
    decoded = decode_checkpoint(old)
    assert decoded.v == 1 and (decoded.scores, decoded.rounds) == ([], [])
    assert decoded.round_scores == [decode_round_score(r) for r in cp.rounds]
    return decoded


def state_of(match: Match) -> dict[str, Any]:
    """Everything a player, a spectator or the store sees of a match. Views, actions, scores
    and checkpoints are frozen msgspec structs: `==` compares them field by field, like their
    `msgspec.to_builtins` data (type included), at a fraction of the cost."""
    n = match.players
    return {
        "phase": match.phase,
        "current_player": match.current_player,
        "actors": match.actors(),
        "index": match.index,
        "is_over": match.is_over,
        "in_tiebreak": match.in_tiebreak,
        "regular_rounds": match.regular_rounds,
        "totals": match.totals(),
        "views": [match.view(s) for s in [None, *range(n)]],
        "legal": [match.legal_actions(s) for s in range(n)],
        "round_scores": match.round_scores,
        "result": match.result(),
        "checkpoint": match.checkpoint(),
    }


def check_resumes(
    rules: Rules,
    record: MatchRecord,
    checkpoints: list[MatchCheckpoint],
    final: Match,
) -> None:
    """Resume from each checkpoint (through JSON, and through its version-1 form) and play the
    rest of `record` in lockstep with a fresh replay: equal states at every step of the round
    it resumed in, equal events at every step, the same checkpoint at each later round start
    and equal states and result at the end. (A later round starts from that checkpoint, whose
    own resume is held to every step of it: comparing every resumed match's whole state at
    every step of every later round too made this quadratic in the rounds, half a minute for a
    match of eight.)"""
    fresh = Match(rules, record.players, record.seed, record.rules_version)
    starts = {cp.actions: cp for cp in checkpoints}
    assert len(starts) == len(checkpoints)
    resumed: list[Match] = []
    current: list[Match] = []  # those resumed at the last round start
    end = len(record.actions)
    for i in range(end + 1):
        if i in starts:
            cp = starts[i]
            assert fresh.checkpoint() == cp
            for match in resumed:
                assert match.checkpoint() == cp
            current = []
            for stored in (through_json(cp), version_1(cp)):
                match = Match.resume(
                    rules, record.players, record.seed, stored, record.rules_version
                )
                assert match.history_start == i and match.history == [] and match.rounds == []
                assert match.checkpoint() == cp
                current.append(match)
            resumed += current
        expected = state_of(fresh)
        for match in resumed if i == end else current:
            assert state_of(match) == expected
        if i == end:
            break
        seat, action = record.actions[i]
        events = msgspec.to_builtins(fresh.apply(seat, action))
        for match in resumed:
            assert msgspec.to_builtins(match.apply(seat, action)) == events
    assert len(resumed) == 2 * len(checkpoints)
    for match in [fresh, *resumed]:
        assert match.is_over and match.result() == final.result()
        assert match.totals() == final.totals()
        assert match.history_start + len(match.history) == len(record.actions)
        assert match.history == record.actions[match.history_start :]


def tied_match(seed: int = 62) -> tuple[Match, list[MatchCheckpoint]]:
    """A numwars-classic match of 3 whose regular totals tie (a tie-break round is played)."""
    match, checkpoints = play(registry.make("numwars-classic"), 3, seed)
    result = match.result()
    assert result is not None and result.tiebreak_rounds >= 1, "seed no longer ties: pick one"
    return match, checkpoints


class _EverTied(NumWarsClassic):
    """numwars-classic whose regular rounds always tie seats 0 and 1, and whose tie-break
    rounds tie them again until the third (3 tie-break rounds: `tied` carried across them)."""

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        regular = super().score_match(rounds)
        return msgspec.structs.replace(regular, winners=[0, 1], tiebreak_needed=True)

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakOutcome:
        more = len(rounds) < 3
        return TiebreakOutcome(
            winners=list(tied) if more else [1],
            decided=not more,
            another_round=more,
            shared=False,
            rounds_used=len(rounds),
        )


# ------------------------------------------------------------------------- every ruleset


CASES = [
    pytest.param(rid, {}, n, seed, id=f"{rid}-{n}-{seed}")
    for rid, cls in RULESETS.items()
    for n, seeds in [(cls.min_players, (3, 2**64 - 5)), (cls.max_players, (3,))]
    for seed in seeds
] + [
    pytest.param(rid, opts, n, 7, id=f"{rid}-{'-'.join(f'{k}={v}' for k, v in opts.items())}-{n}")
    for rid, opts, n in [
        ("numwars", {"tiebreak": True}, 4),
        ("numwars", {"exchange": 2}, 3),
        ("numwars-classic", {"alliance": True}, 4),
        ("numwars-classic", {"speed": True}, 5),
        ("numking", {"max_cards": 2, "first_bidder": 1}, 3),
        ("numking", {"zeros": True}, 4),
        ("numwin", {"teams": True}, 4),
    ]
]


@pytest.mark.parametrize(("rid", "options", "players", "seed"), CASES)
def test_resume_at_every_round_start_equals_the_replay(
    rid: str, options: dict[str, Any], players: int, seed: int
) -> None:
    rules = registry.make(rid, options)
    match, checkpoints = play(rules, players, seed)
    assert len(checkpoints) == len(match.round_scores) >= 2
    check_resumes(rules, match.record(), checkpoints, match)


def test_resume_in_a_tiebreak_round_equals_the_replay() -> None:
    match, checkpoints = tied_match()
    regular = match.regular_rounds
    tiebreak = checkpoints[regular]
    assert tiebreak.index == regular and len(tiebreak.tied) > 1
    totals = match.totals()
    assert tiebreak.tied == [s for s in range(3) if totals[s] == max(totals)]
    resumed = Match.resume(registry.make("numwars-classic"), 3, match.seed, tiebreak)
    assert resumed.in_tiebreak and resumed.index == regular and resumed.totals() == totals
    check_resumes(registry.make("numwars-classic"), match.record(), checkpoints, match)


def test_resume_across_several_tiebreak_rounds_equals_the_replay() -> None:
    rules = _EverTied()
    match, checkpoints = play(rules, 3, 5)
    result = match.result()
    assert result is not None and result.tiebreak_rounds == 3 and result.winners == [1]
    assert [cp.tied for cp in checkpoints] == [[], [], [], [0, 1], [0, 1], [0, 1]]
    check_resumes(rules, match.record(), checkpoints, match)


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_any_resumed_match_plays_as_its_replay(data: st.DataObject) -> None:
    """Property: any ruleset, player count, seed and round start; the checkpoint through its
    stored JSON resumes a match equal to the replay at every step."""
    rid = data.draw(st.sampled_from(list(RULESETS)))
    cls = RULESETS[rid]
    players = data.draw(st.integers(cls.min_players, cls.max_players))
    seed = data.draw(st.integers(0, 2**64 - 1))
    rules = registry.make(rid)
    match, checkpoints = play(rules, players, seed)
    cp = checkpoints[data.draw(st.integers(0, len(checkpoints) - 1))]
    record = match.record()
    fresh = replay(msgspec.structs.replace(record, actions=record.actions[: cp.actions]), rules)
    resumed = Match.resume(rules, players, seed, through_json(cp))
    assert state_of(resumed) == state_of(fresh)
    for seat, action in record.actions[cp.actions :]:
        events = msgspec.to_builtins(fresh.apply(seat, action))
        assert msgspec.to_builtins(resumed.apply(seat, action)) == events
        assert state_of(resumed) == state_of(fresh)
    assert resumed.result() == match.result() and resumed.totals() == match.totals()


# ---------------------------------------------------------------- record, snapshot, the end


def test_a_match_resumed_later_has_no_record_or_snapshot() -> None:
    rules = registry.make("numking")
    match, checkpoints = play(rules, 3, 9)
    cp = checkpoints[2]
    resumed = Match.resume(rules, 3, 9, cp)
    assert resumed.history_start == cp.actions > 0
    for call in (resumed.record, resumed.snapshot):
        with pytest.raises(RuntimeError, match=f"resumed after {cp.actions} actions"):
            call()
    for seat, action in match.history[cp.actions :]:
        resumed.apply(seat, action)
    assert resumed.result() == match.result()
    with pytest.raises(RuntimeError):
        resumed.record()


def test_a_match_resumed_at_its_start_is_a_new_match() -> None:
    """The first checkpoint has no action before it: the resumed match is whole, so its record
    and snapshot are the full match's."""
    rules = registry.make("numwars")
    match, checkpoints = play(rules, 4, 21)
    first = checkpoints[0]
    assert (first.actions, first.index, first.round_scores, first.totals, first.tied) == (
        0,
        0,
        [],
        [0] * 4,
        [],
    )
    resumed = Match.resume(rules, 4, 21, first)
    assert resumed.snapshot() == rules.new_match(players=4, seed=21).snapshot()
    for seat, action in match.history:
        resumed.apply(seat, action)
    assert resumed.record() == match.record() and resumed.snapshot() == match.snapshot()


def test_a_checkpoint_of_a_resumed_match_counts_from_the_match_start() -> None:
    """Two hops: resume at round 2, play it, take the round-3 checkpoint from the resumed
    match, resume from that: the checkpoints are those of the full match."""
    rules = registry.make("numking")
    match, checkpoints = play(rules, 4, 13)
    first = Match.resume(rules, 4, 13, checkpoints[1])
    for seat, action in match.history[checkpoints[1].actions : checkpoints[2].actions]:
        first.apply(seat, action)
    assert first.checkpoint() == checkpoints[2]
    second = Match.resume(rules, 4, 13, first.checkpoint())
    for seat, action in match.history[checkpoints[2].actions :]:
        second.apply(seat, action)
        first.apply(seat, action)
        assert second.checkpoint() == first.checkpoint()
    assert second.result() == first.result() == match.result()
    assert second.history_start == checkpoints[2].actions


def test_a_finished_match_checkpoints_its_last_round_start() -> None:
    rules = registry.make("numwin")
    match, checkpoints = play(rules, 3, 4)
    last = match.checkpoint()
    assert match.is_over and last == checkpoints[-1] and last.index == match.index
    resumed = Match.resume(rules, 3, 4, last)
    assert not resumed.is_over and resumed.index == match.index
    for seat, action in match.history[last.actions :]:
        resumed.apply(seat, action)
    assert resumed.result() == match.result() and resumed.checkpoint() == last


def test_resume_builds_the_round_from_the_checkpoint_setup() -> None:
    """No round state precedes a resumed round: its setup (numking's streaks and first
    bidder) comes from the checkpoint, and the next round's from the resumed round."""
    rules = registry.make("numking")
    match, checkpoints = play(rules, 3, 17)
    cp = checkpoints[3]
    assert cp.setup.carry is not None and cp.setup.leader is not None
    resumed = Match.resume(rules, 3, 17, cp)
    assert resumed.round.setup == cp.setup
    for seat, action in match.history[cp.actions : checkpoints[4].actions]:
        resumed.apply(seat, action)
    assert resumed.round.setup == checkpoints[4].setup
    assert resumed.rounds[0].snapshot() == match.rounds[3].snapshot()


# --------------------------------------------------------------------------------- refusals


def test_resume_checks_version_seed_and_players_like_new_match() -> None:
    rules = registry.make("numwars-classic")
    _, checkpoints = play(rules, 3, 8)
    cp = checkpoints[1]
    assert Match.resume(rules, 3, 8, cp, rules_version=1).rules_version == 1
    with pytest.raises(InvalidInput) as exc:
        Match.resume(rules, 3, 8, cp, rules_version=99)
    assert exc.value.code == "unknown-rules-version"
    with pytest.raises(InvalidInput) as exc:
        Match.resume(rules, 3, 2**64, cp)
    assert exc.value.code == "bad-request" and exc.value.errors[0].field == "seed"
    with pytest.raises(InvalidInput) as exc:
        Match.resume(rules, 2, 8, cp)
    assert exc.value.code == "bad-player-count"


def _changes(cp: MatchCheckpoint, over: MatchCheckpoint) -> list[tuple[str, dict[str, Any]]]:
    """Checkpoints that do not fit the match of `cp` (round 2 of 3), and the field blamed
    (`over` is in the version-1 form, as is the `round_scores` change)."""
    first = decode_round_score(cp.rounds[0])
    return [
        ("index", {"index": 2}),
        ("index", {"index": -1}),
        ("actions", {"actions": 0}),
        ("actions", {"actions": -3}),
        ("setup", {"setup": msgspec.structs.replace(cp.setup, seed=cp.setup.seed ^ 1)}),
        ("setup", {"setup": msgspec.structs.replace(cp.setup, players=4)}),
        ("round_scores[0]", {"round_scores": [msgspec.structs.replace(first, players=[])]}),
        ("scores[0]", {"scores": [cp.scores[0][:-1]]}),
        ("index", {"rounds": []}),
        ("index", {"scores": [], "rounds": []}),
        ("totals", {"totals": [t + 1 for t in cp.totals]}),
        ("tied", {"tied": [0, 1]}),
        ("index", {field: getattr(over, field) for field in over.__struct_fields__}),
    ]


def test_a_checkpoint_that_does_not_fit_the_match_is_refused() -> None:
    rules = registry.make("numwars-classic", {"tiebreak": False})
    match, checkpoints = play(rules, 3, 8)
    result = match.result()
    assert result is not None
    # A fourth round after a match that is over (no tie-break here): refused too.
    over = MatchCheckpoint(
        actions=len(match.history),
        index=3,
        setup=msgspec.structs.replace(checkpoints[-1].setup, seed=round_seed(8, 3)),
        round_scores=result.rounds,
        totals=result.totals,
        tied=[],
    )
    for field, change in _changes(checkpoints[1], over):
        bad = msgspec.structs.replace(checkpoints[1], **change)
        with pytest.raises(InvalidInput) as exc:
            Match.resume(rules, 3, 8, bad)
        assert exc.value.code == "bad-checkpoint"
        assert exc.value.errors[0].field == f"checkpoint.{field}", change


def test_a_tiebreak_checkpoint_must_name_the_tied_seats() -> None:
    match, checkpoints = tied_match()
    cp = checkpoints[match.regular_rounds]
    rules: MatchRules = registry.make("numwars-classic")
    for tied in ([], [0, 1, 2], cp.tied[:1]):
        if tied == cp.tied:
            continue
        with pytest.raises(InvalidInput) as exc:
            Match.resume(rules, 3, match.seed, msgspec.structs.replace(cp, tied=tied))
        assert exc.value.errors[0].field == "checkpoint.tied"


def test_checkpoint_json_ignores_added_fields_and_refuses_missing_ones() -> None:
    """A stored document (STYLE 16): a field a newer replica added is ignored, a checkpoint
    written before `v` existed reads as version 1, a missing field is refused."""
    rules = registry.make("numking")
    _, checkpoints = play(rules, 3, 2)
    data = msgspec.json.decode(encode_checkpoint(checkpoints[1]))
    assert set(data) == {
        *("actions", "index", "setup", "round_scores", "totals", "tied", "scores", "rounds"),
        *("played", "state", "v"),
    }
    assert data["played"] == [] and data["state"] is None
    assert data["v"] == CHECKPOINT_FORMAT == 2 and data["round_scores"] == []
    newer = msgspec.json.encode({**data, "extra": 1, "setup": {**data["setup"], "later": [2]}})
    assert decode_checkpoint(newer) == checkpoints[1]
    assert Match.resume(rules, 3, 2, decode_checkpoint(newer)).index == checkpoints[1].index
    assert decode_checkpoint(encode_checkpoint(checkpoints[1])) == checkpoints[1]
    old = version_1(checkpoints[1])
    unversioned = {k: v for k, v in msgspec.json.decode(encode_checkpoint(old)).items() if k != "v"}
    assert decode_checkpoint(msgspec.json.encode(unversioned)) == old
    del data["tied"]
    with pytest.raises(msgspec.ValidationError):
        decode_checkpoint(msgspec.json.encode(data))


def test_a_stored_round_that_does_not_hold_its_scores_is_refused_when_read() -> None:
    """A checkpoint's `rounds` are read when the match needs them (its result): one whose
    seats' scores are not `scores`' row is refused then, naming it."""
    rules = registry.make("numwars-classic", {"tiebreak": False})
    match, checkpoints = play(rules, 3, 8)
    cp = checkpoints[-1]
    first = decode_round_score(cp.rounds[0])
    other = msgspec.structs.replace(
        first, players=[msgspec.structs.replace(p, score=p.score + 1) for p in first.players]
    )
    bad = msgspec.structs.replace(cp, rounds=[encode_round_score(other), *cp.rounds[1:]])
    resumed = Match.resume(rules, 3, 8, bad)
    history = match.history[cp.actions :]
    for seat, action in history[:-1]:
        resumed.apply(seat, action)
    with pytest.raises(InvalidInput) as exc:
        resumed.apply(*history[-1])
    assert exc.value.errors[0].field == "checkpoint.rounds[0]"


def test_resume_applies_the_checkpoint_round_actions_only() -> None:
    """An action of the round before the checkpoint is refused like in the replay."""
    rules = registry.make("numwars")
    match, checkpoints = play(rules, 3, 6)
    cp = checkpoints[1]
    resumed = Match.resume(rules, 3, 6, cp)
    fresh = replay(msgspec.structs.replace(match.record(), actions=match.history[: cp.actions]))
    actions: list[tuple[int, Action]] = match.history[: cp.actions][-3:]
    for seat, action in actions:
        outcomes = []
        for m in (resumed, fresh):
            try:
                m.apply(seat, action)
                outcomes.append("ok")
            except Exception as err:  # the same refusal on both
                outcomes.append(f"{type(err).__name__}: {err}")
        assert outcomes[0] == outcomes[1]
    assert state_of(resumed) == state_of(fresh)


def test_a_resumed_match_reads_its_stored_rounds_only_for_its_result() -> None:
    """Resuming and the next rounds' checkpoints read the finished rounds' scores by seat and
    copy their stored form: the whole scores are decoded only when the match ends (its
    result); a version-1 checkpoint's are stored anew when its next checkpoint is asked."""
    rules = registry.make("numwars-classic", {"tiebreak": False})
    match, checkpoints = play(rules, 4, 11)
    resumed = Match.resume(rules, 4, 11, through_json(checkpoints[1]))
    old = Match.resume(rules, 4, 11, version_1(checkpoints[1]))
    assert resumed._earlier is None and old._earlier is not None
    for seat, action in match.history[checkpoints[1].actions :]:
        for m in (resumed, old):
            m.apply(seat, action)
            assert m.checkpoint() in checkpoints
        if not resumed.is_over:
            assert resumed._earlier is None
    assert resumed._earlier is not None and resumed.result() == old.result() == match.result()


# ------------------------------------------------------- within a round (`Match.progress`)


def check_progress(rules: Rules, record: MatchRecord, final: Match) -> None:
    """Before every action of `record`, the match's `progress` through its stored JSON
    resumes a match equal to the replay there (its history the round's actions so far), which
    then plays that action as the replay does: same events."""
    fresh = Match(rules, record.players, record.seed, record.rules_version)
    for i, (seat, action) in enumerate(record.actions):
        cp = through_json(fresh.progress())
        assert cp.actions == fresh.checkpoint().actions
        resumed = Match.resume(rules, record.players, record.seed, cp, record.rules_version)
        assert resumed.played == fresh.played == i and resumed.history_start == cp.actions
        assert resumed.history == fresh.history[cp.actions :]
        assert state_of(resumed) == state_of(fresh)
        # the round itself, hidden cards and caches' sources included (a state taken)
        assert resumed.round.snapshot() == fresh.round.snapshot()
        keeps = hasattr(fresh.round, "save_state") and i > cp.actions
        assert (bytes(cp.state) != b"null") == keeps
        events = msgspec.to_builtins(fresh.apply(seat, action))
        assert msgspec.to_builtins(resumed.apply(seat, action)) == events
        if keeps and i % 37 == 0:  # resumed from a state, played to the match's end
            later = through_json(resumed.progress())
            assert bytes(later.state) != b"null"  # its own state, after the one it took
            assert resumed.history_start == cp.actions
            for seat_, action_ in record.actions[i + 1 :]:
                resumed.apply(seat_, action_)
            assert resumed.result() == final.result()
    assert fresh.is_over and fresh.result() == final.result()
    with pytest.raises(RuntimeError):
        fresh.progress()


@pytest.mark.parametrize(("rid", "options", "players", "seed"), CASES)
def test_progress_before_every_action_resumes_as_the_replay(
    rid: str, options: dict[str, Any], players: int, seed: int
) -> None:
    rules = registry.make(rid, options)
    match, _ = play(rules, players, seed)
    check_progress(rules, match.record(), match)


def test_progress_in_tiebreak_rounds_resumes_as_the_replay() -> None:
    match, _ = tied_match()
    check_progress(registry.make("numwars-classic"), match.record(), match)
    rules = _EverTied()
    match, _ = play(rules, 3, 5)
    check_progress(rules, match.record(), match)


def test_progress_resumes_up_to_an_older_version() -> None:
    """`upto`: a reader whose row is older than the checkpoint it reads applies only the
    `played` actions its version holds (none before the round's start)."""
    rules = registry.make("numwars-classic")
    match, checkpoints = play(rules, 4, 11)
    start = checkpoints[1].actions
    record = match.record()
    played_9 = msgspec.structs.replace(record, actions=match.history[: start + 9])
    cp = through_json(replay(played_9, rules).progress())
    assert len(msgspec.json.decode(cp.played)) == 9
    for upto in (start - 1, start, start + 4, start + 9, start + 50):
        resumed = Match.resume(rules, 4, 11, cp, upto=upto)
        at = min(max(upto, start), start + 9)
        fresh = replay(msgspec.structs.replace(record, actions=match.history[:at]), rules)
        assert resumed.played == at
        assert state_of(resumed) == state_of(fresh)


def _refusal(rules: Rules, cp: MatchCheckpoint, players: int, seed: int) -> InvalidInput:
    with pytest.raises(InvalidInput) as exc:
        Match.resume(rules, players, seed, cp)
    assert exc.value.code == "bad-checkpoint"
    return exc.value


def test_played_actions_that_do_not_fit_the_round_are_refused() -> None:
    """`played` is checked as the log is: unreadable JSON, an action its round refuses (out
    of turn, another game's), one that ends the round: `bad-checkpoint`, naming the action,
    in English and in French."""
    rules = registry.make("numwars")
    match, checkpoints = play(rules, 3, 6)
    cp = checkpoints[1]
    round_actions = match.history[cp.actions : checkpoints[2].actions]
    base = msgspec.structs.replace(cp, played=encode_played(round_actions[:5]))
    assert Match.resume(rules, 3, 6, base).played == cp.actions + 5
    for played in (b'{"seat": 0}', b"[[0, {}]]", b'[[0, {"type": "fly"}]]', b"[1, 2"):
        error = _refusal(rules, msgspec.structs.replace(cp, played=msgspec.Raw(played)), 3, 6)
        assert error.errors[0].field == "checkpoint.played"
    (seat, action), rest = round_actions[0], round_actions[1:3]
    wrong = [((seat + 1) % 3, action), *rest]
    error = _refusal(rules, msgspec.structs.replace(cp, played=encode_played(wrong)), 3, 6)
    assert error.errors[0].field == "checkpoint.played[0]"
    assert "played action 0 is refused by its round" in error.render("en")
    assert "l’action jouée 0 est refusée par sa manche" in error.render("fr")
    bid = [*round_actions[:2], (round_actions[2][0], Bid(tricks=1))]
    error = _refusal(rules, msgspec.structs.replace(cp, played=encode_played(bid)), 3, 6)
    assert error.errors[0].field == "checkpoint.played[2]"
    whole = msgspec.structs.replace(cp, played=encode_played(round_actions))
    error = _refusal(rules, whole, 3, 6)
    assert error.errors[0].field == f"checkpoint.played[{len(round_actions) - 1}]"
    assert "ends its round" in error.render("en") and "termine sa manche" in error.render("fr")


def test_a_round_state_that_does_not_fit_is_refused_and_another_version_is_not_read() -> None:
    """A numwars-classic progress carries the round's state (`state`), which resuming takes
    instead of applying `played`: one that is unreadable or does not fit the round (another
    number of actions, a list not one per seat, a seat or a card that is not one, a phase,
    what the trick asks, a finished trick not as the round records one, a turn that is not the
    trick's next seat, a card in two places) is refused, `bad-checkpoint` on `checkpoint.state`, in English and in French; one of another
    version of its form is not read (`played` is applied: the same match)."""
    rules = registry.make("numwars-classic")
    match, checkpoints = play(rules, 4, 11)
    start = checkpoints[1].actions
    record = match.record()
    at = start + 40  # into the play phase
    fresh = replay(msgspec.structs.replace(record, actions=match.history[:at]), rules)
    cp = through_json(fresh.progress())
    saved = msgspec.json.decode(cp.state)
    assert saved[0] == 1 and saved[1] == 40 and saved[2] == "play"
    assert state_of(Match.resume(rules, 4, 11, cp)) == state_of(fresh)

    def fewer(d: list[Any]) -> None:
        d[1] = 39

    def seat(d: list[Any]) -> None:
        d[11] = 4  # the leader

    def card(d: list[Any]) -> None:
        d[3][0][0] = "purple-3"

    def hands(d: list[Any]) -> None:
        del d[3][1]

    def phase(d: list[Any]) -> None:
        d[2] = "over"

    def asked(d: list[Any]) -> None:
        d[14] = 9

    def no_winner(d: list[Any]) -> None:
        d[9][0][2]["winner"] = None

    def longer_trick(d: list[Any]) -> None:
        d[9][0][1].append(d[9][0][1][0])

    def top_seat(d: list[Any]) -> None:
        d[18] = 7

    def no_turn(d: list[Any]) -> None:
        d[12] = None

    def turn(d: list[Any]) -> None:
        d[12] = (d[12] + 1) % 4

    def copied_card(d: list[Any]) -> None:  # a card in two hands, another in none
        d[3][0][0] = d[3][1][0]

    assert saved[9], "a finished trick to spoil: play further"
    spoilers = (fewer, seat, card, hands, phase, asked, no_winner, longer_trick, top_seat)
    cases = [spoilt(cp, f) for f in (*spoilers, no_turn, turn, copied_card)]
    cases += [msgspec.structs.replace(cp, state=msgspec.Raw(b)) for b in (b"[1,", b"{}", b"[x]")]
    for bad in cases:
        check_state_refused(rules, 4, 11, bad)

    def newer(d: list[Any]) -> None:
        d[0] = 2
        d[3] = "a form this code does not know"

    resumed = Match.resume(rules, 4, 11, spoilt(cp, newer))
    assert state_of(resumed) == state_of(fresh)
    assert resumed.round.snapshot() == fresh.round.snapshot()


def test_a_stored_state_s_actions_are_read_as_sent_and_applied_as_the_kernels_share_them() -> None:
    """With a round's state, its `played` actions are only its history: read by msgspec as
    the request types (no Python call an action), the same values as the twins give; applied
    (an older row's `upto`, no state kept), they are the kernels' shared values as ever; and a
    document only the lenient twins read (a newer replica's field) is still read."""
    rules = NumWarsClassic()
    match = rules.new_match(4, 11)
    while match.played < 30 or match.played - match.checkpoint().actions < 20:
        seat = match.actors()[0]
        match.apply(seat, match.legal_actions(seat)[0])
    cp = through_json(match.progress())
    start = cp.actions
    assert bytes(cp.state) != b"null"
    as_sent = decode_played(cp.played, shared=False)
    shared = decode_played(cp.played)
    assert as_sent == shared == match.history[start - match.history_start :]
    passes = [a for _, a in shared if isinstance(a, Pass)]
    plays = [a for _, a in shared if isinstance(a, Play) and a.declared is None]
    assert passes and plays  # an exchange, then tricks
    assert all(a is SHARED_PASSES[a.card] for a in passes)
    assert all(a is SHARED_PLAYS[a.card] for a in plays)
    resumed = Match.resume(rules, 4, 11, cp)
    assert resumed.history == shared and state_of(resumed) == state_of(match)
    older = Match.resume(rules, 4, 11, cp, upto=start + 5)  # an older row: applied
    assert older.played == start + 5
    for (_, a), (_, b) in zip(older.history, shared[:5], strict=True):
        assert a is b or not isinstance(a, Pass | Play)
    # a field the strict request types refuse: read through the twins
    newer = msgspec.json.decode(cp.played)
    for _, action in newer:
        action["v"] = 2
    widened = msgspec.structs.replace(cp, played=msgspec.Raw(msgspec.json.encode(newer)))
    assert decode_played(widened.played, shared=False) == shared
    assert state_of(Match.resume(rules, 4, 11, widened)) == state_of(match)
