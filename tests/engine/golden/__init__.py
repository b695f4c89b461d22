"""Golden records: seeded whole matches of every ruleset, committed, replayed by the tests.

Each file ``<ruleset>.v<rules_version>.json`` holds, for a few matches per ruleset (the least,
a middle and the largest player count, then every option set that changes the deal, the play
or the match, a match that goes to a tie-break where the ruleset has one, and matches where a
version's change is at work: numwin's Rulings on targets from version 2), the match's
record (ruleset, options, rules_version, seed, players, actions: :class:`MatchRecord` as
JSON), a SHA-256 digest of every round's deal, every round's scores, the totals, the
winners and the number of tie-break rounds. The matches are played by the seeded
random-legal policy of :mod:`engine.simulate` (its generator seeded with the match seed).

``tests/engine/test_golden.py`` replays every file at its recorded rules version and fails on
any difference: a stored game must never replay differently after an upgrade. A deliberate
change that alters them bumps the ruleset's ``rules_version`` (engine/core/match.py, "Rules
versions"), keeps the old behaviour for the old version, and adds the new version's file:

    .venv/bin/python -m tests.engine.golden            # write the current version's files
    .venv/bin/python -m tests.engine.golden numking    # only some rulesets

Regenerating a version's file in place is only for a change no stored game can see (say, a
record that could not be replayed before); the diff then shows exactly what moved.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from engine import registry
from engine.core.match import Match
from engine.core.rng import Rng
from engine.registry import RULESETS
from engine.simulate import play_match

GOLDEN_DIR = Path(__file__).resolve().parent
REGENERATE = "python -m tests.engine.golden"
#: Seeds searched for a match that satisfies a condition: one that goes to a tie-break (about
#: 1 in 250 at 3 players), one where a numwin Ruling on targets took a target away.
SEARCH = 3000

Want = Callable[[Match], bool]


def _tiebreak(match: Match) -> bool:
    result = match.result()
    return result is not None and result.tiebreak_rounds > 0


def _tie(match: Match) -> bool:
    result = match.result()
    return result is not None and len(result.winners) > 1


def _numwin_spared(match: Match, which: str) -> bool:
    """numwin from rules version 2: whether a target version 1 offered was taken away at some
    step of the match (its record replayed), by the Ruling `which`: ``partner`` (teams:
    `swipe` and `quantum` spare the partner's cards) or ``face-up`` (`flip` and `quantum`
    spare a card revealed by `quantum`). Read from the spectator's view (public facts)."""
    again = Match(match.rules, match.players, match.seed, match.rules_version)
    teams = bool(msgspec.to_builtins(match.rules.options).get("teams"))
    for seat, action in match.history:
        view: Any = again.view(None)
        pending = view.pending
        if pending is not None:
            kind, turn, combos = pending.action, pending.seat, view.combinations
            if which == "partner":
                aims = kind == "quantum" or (kind == "swipe" and pending.step == 1)
                if teams and aims and not all(combos[(turn + 2) % 4].locked):
                    return True
            else:
                revealed = [
                    any(up and not lock for up, lock in zip(c.face_up, c.locked, strict=True))
                    for c in combos
                ]
                if (kind == "flip" and revealed[turn]) or (kind == "quantum" and any(revealed)):
                    return True
        again.apply(seat, action)
    return False


def _partner_spared(match: Match) -> bool:
    return _numwin_spared(match, "partner")


def _face_up_spared(match: Match) -> bool:
    return _numwin_spared(match, "face-up")


#: Per ruleset: (options, players, seed, condition); with a condition, the first seed from
#: `seed` on whose match satisfies it.
PLAN: dict[str, list[tuple[dict[str, Any], int, int, Want | None]]] = {
    "numwars": [
        ({}, 3, 1, None),
        ({}, 5, 2, None),
        ({}, 8, 3, None),
        ({"exchange": 2}, 3, 4, None),
        ({"tiebreak": True}, 3, 0, _tiebreak),
    ],
    "numwars-classic": [
        ({}, 3, 1, None),
        ({}, 5, 2, None),
        ({}, 8, 3, None),
        ({"speed": True}, 3, 4, None),
        ({"alliance": True}, 4, 5, None),
        ({}, 3, 0, _tiebreak),
        ({"alliance": True}, 4, 0, _tiebreak),
        ({"tiebreak": False}, 3, 0, _tie),
    ],
    "numking": [
        ({}, 2, 1, None),
        ({}, 5, 2, None),
        ({}, 8, 3, None),
        ({"zeros": True}, 4, 4, None),
        ({"max_cards": 3, "first_bidder": 2}, 3, 5, None),
    ],
    "numwin": [
        ({}, 2, 1, None),
        ({}, 5, 2, None),
        ({}, 8, 3, None),
        # from rules version 2, matches where the Rulings on targets took a target away
        ({"teams": True}, 4, 4, _partner_spared),
        ({}, 2, 4, _face_up_spared),
    ],
}


def play(ruleset: str, options: dict[str, Any], players: int, seed: int) -> Match:
    """The golden policy: `engine.simulate.play_match` with ``Rng(seed)`` picking actions."""
    return play_match(registry.make(ruleset, options), players, seed, Rng(seed))


def deal_digests(match: Match) -> list[str]:
    """SHA-256 of every round's deal (`rules.deal(setup)` as sorted-key JSON), in order."""
    rules = match.rules
    out = []
    for state in match.rounds:
        deal = registry.make(rules.id, msgspec.to_builtins(rules.options)).deal(state.setup)
        data = json.dumps(msgspec.to_builtins(deal), sort_keys=True, separators=(",", ":"))
        out.append(hashlib.sha256(data.encode()).hexdigest())
    return out


def summary(match: Match) -> dict[str, Any]:
    """What a golden entry checks besides the record itself."""
    result = match.result()
    assert result is not None, "a golden match is played to its end"
    return {
        "deals": deal_digests(match),
        "round_scores": [[p.score for p in r.players] for r in result.rounds],
        "totals": result.totals,
        "winners": result.winners,
        "tiebreak_rounds": result.tiebreak_rounds,
    }


def entry(match: Match) -> dict[str, Any]:
    return {"record": msgspec.to_builtins(match.record()), **summary(match)}


def generate(ruleset: str) -> tuple[Path, list[dict[str, Any]]]:
    """Play the plan of `ruleset` at its current rules version."""
    entries = []
    for options, players, seed, want in PLAN[ruleset]:
        if want is None:
            match = play(ruleset, options, players, seed)
        else:
            for s in range(seed, seed + SEARCH):
                match = play(ruleset, options, players, s)
                if want(match):
                    break
            else:
                raise RuntimeError(f"{ruleset} {options}: no match found in {SEARCH}")
        entries.append(entry(match))
    version = RULESETS[ruleset].rules_version
    return GOLDEN_DIR / f"{ruleset}.v{version}.json", entries


def dump(ruleset: str, entries: list[dict[str, Any]]) -> str:
    """One match per line (small, and a diff names the match that moved)."""
    head = json.dumps({"ruleset": ruleset, "regenerate": REGENERATE})[:-1]
    lines = ",\n".join(json.dumps(e, separators=(",", ":")) for e in entries)
    return f'{head}, "matches": [\n{lines}\n]}}\n'


def golden_files() -> list[Path]:
    return sorted(GOLDEN_DIR.glob("*.v*.json"))


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    names = list(argv if argv is not None else sys.argv[1:]) or list(RULESETS)
    for name in names:
        if name not in RULESETS:
            print(f"unknown ruleset {name!r} (known: {', '.join(RULESETS)})", file=sys.stderr)
            return 2
    for name in names:
        path, entries = generate(name)
        path.write_text(dump(name, entries), encoding="utf-8")
        print(f"wrote {path.relative_to(GOLDEN_DIR.parents[2])} ({len(entries)} matches)")
    return 0
