"""One invariants suite over the registry (issue 9; STYLE 10): every ruleset, every player
count, every option, played out by seeded random legal actions.

At every step: a seat can act until the round is over (never stuck), and no view and no event
visible to a seat (or to a spectator) shows a card hidden from it (STYLE 7). At the end: the
last event is `round-over`, every card is in exactly one place, the scores are the ruleset's
scoring of the final state, and replaying the setup and the actions rebuilds the same state.

Whole matches (engine.core.match) keep the same invariants round after round, through the
match object: every ruleset, every player count and option set, one seed each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from engine import registry
from engine.core.base import RoundScore, RoundSetup
from engine.core.cards import canonical
from engine.core.events import (
    DealData,
    DealEvent,
    EventBase,
    MatchOverEvent,
    RoundOverEvent,
    RoundStartEvent,
    visible_to,
)
from engine.core.match import MatchRecord, replay
from engine.core.rng import Rng
from engine.core.tiebreak import MAX_TIEBREAK_ROUNDS
from engine.numking import NumKingBid
from engine.numwars_classic import ClassicPile
from engine.numwin.cards import DECK as NUMWIN_DECK
from engine.simulate import default_round, pick

#: Per ruleset, the option sets played: the defaults and each option on its own. A set that
#: only some player counts allow names them.
OPTIONS: dict[str, list[tuple[dict[str, Any], tuple[int, ...] | None]]] = {
    "numwars": [({}, None), ({"exchange": 2}, None), ({"exchange": 5, "tiebreak": True}, None)],
    "numwars-classic": [
        ({}, None),
        ({"speed": True}, None),
        ({"alliance": True}, (4, 6, 8)),
        ({"alliance": True, "speed": True, "tiebreak": False}, (4, 6, 8)),
    ],
    "numking": [({}, None), ({"zeros": True}, None), ({"max_cards": 1, "first_bidder": 1}, None)],
    "numwin": [({}, None), ({"teams": True}, (4,)), ({"max_turns": 6}, None)],
}
SEEDS = (1, 2)
MAX_STEPS = 5_000


def _cases() -> list[Any]:
    cases = []
    for ruleset_id, cls in registry.RULESETS.items():
        for options, counts in OPTIONS[ruleset_id]:
            for players in range(cls.min_players, cls.max_players + 1):
                if counts is None or players in counts:
                    for seed in SEEDS:
                        label = f"{ruleset_id}-{players}p-{options or 'defaults'}-s{seed}"
                        cases.append(pytest.param(ruleset_id, options, players, seed, id=label))
    return cases


def test_every_ruleset_has_option_sets_here() -> None:
    assert set(OPTIONS) == set(registry.RULESETS)


def _strings(data: Any) -> Counter[str]:
    """Every string value in a view or events, as JSON-able data (field names excluded)."""
    out: Counter[str] = Counter()
    stack = [msgspec.to_builtins(data)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out[item] += 1
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _hidden(ruleset_id: str, state: Any, viewer: int | None) -> set[str]:
    """Cards hidden from `viewer` (None: a spectator) whose code is unique in the deck, so
    that seeing the code anywhere means seeing that card."""
    if ruleset_id == "numwin":
        k = state.kernel
        held = [k.hand] if k.hand >= 0 else []
        hidden = [c for comb in k.comb for c in comb if not k.visible(viewer, c)] + [
            c for c in held if not k.visible(viewer, c)
        ]
        hidden += list(k.pile) + list(k.aside)
        return {NUMWIN_DECK[c] for c in hidden}
    cards = [c for s, hand in enumerate(state.hands) if s != viewer for c in hand]
    cards += state.reserve if ruleset_id == "numking" else state.set_aside
    known: set[str] = set()
    if viewer is not None and ruleset_id != "numking":  # the cards it passed on
        known |= set(state.passed[viewer])
    if viewer is not None and ruleset_id == "numwars-classic" and state.alliance:
        partner = state.partner(viewer)  # the card its partner showed it
        if state.has_shown[partner] and state.shown[partner] is not None:
            known.add(state.shown[partner])
    return set(cards) - known


def _unique_codes(ruleset_id: str, rules: Any, players: int) -> set[str]:
    counts = Counter(NUMWIN_DECK if ruleset_id == "numwin" else rules.deck(players).cards)
    return {c for c, n in counts.items() if n == 1}


def _placed(ruleset_id: str, state: Any) -> Counter[str]:
    """Where every card is once the round is over (hands are empty by then)."""
    if ruleset_id == "numwars":
        piles = state.final_piles()
        cards = [c for p in piles for c in p.captured] + [
            c for p in piles for pair in p.pairs for c in pair
        ]
        return Counter(cards + state.set_aside)
    if ruleset_id == "numwars-classic":
        return Counter([c for pile in state.piles for c in pile] + state.set_aside)
    if ruleset_id == "numking":
        return Counter([c for w in state.won for c in w] + state.discarded + state.reserve)
    k = state.kernel
    places = [c for comb in k.comb for c in comb] + k.pile + k.discard + k.aside
    return Counter(NUMWIN_DECK[c] for c in places)


def _dealt(ruleset_id: str, rules: Any, players: int) -> Counter[str]:
    if ruleset_id == "numwin":
        return Counter(NUMWIN_DECK)
    return Counter(rules.deck(players).cards)


#: The ruleset's own scoring of a finished round's final state.
SCORING: dict[str, Callable[[Any, Any], RoundScore]] = {
    "numwars": lambda rules, s: rules.score_round(s.final_piles(), s.bomb.outcome),
    "numwars-classic": lambda rules, s: rules.score_round(
        [ClassicPile(captured=list(p)) for p in s.piles]
    ),
    "numking": lambda rules, s: rules.score_round(
        s.k,
        [
            NumKingBid(bid=b, tricks=t, streak=k)
            for b, t, k in zip(s.bids, s.tricks_taken, s.streaks_before, strict=True)
        ],
    ),
    "numwin": lambda rules, s: rules.score_hands(s.final_hands(), s.score_caller),
}


@pytest.mark.parametrize(("ruleset_id", "options", "players", "seed"), _cases())
def test_a_seeded_round_keeps_every_invariant(
    ruleset_id: str, options: dict[str, Any], players: int, seed: int
) -> None:
    rules = registry.make(ruleset_id, options)
    rng = Rng(seed)
    setup = RoundSetup(
        players=players,
        seed=rng.next_u64(),
        dealer=rng.below(players),
        round=default_round(rules, players),
    )
    state = rules.new_round(setup)
    unique = _unique_codes(ruleset_id, rules, players)
    viewers: list[int | None] = [None, *range(players)]
    events: list[EventBase] = []
    for _ in range(MAX_STEPS):
        if state.is_over:
            break
        actors = state.actors()
        assert actors, f"stuck in phase {state.phase!r}"
        assert all(state.legal_actions(seat) for seat in actors)
        seat, action = pick(state, rng)
        events = state.apply(seat, action)
        assert events, "every action tells what happened"
        # the views' finished tricks (built once each, when a view first asks) are the
        # state's own record of them
        shown = getattr(state.view(None), "tricks", None)
        if shown:
            recorded = msgspec.convert(state.snapshot()["tricks"], list[type(shown[0])])  # type: ignore[misc]
            assert shown == recorded
        for viewer in viewers:
            hidden = _hidden(ruleset_id, state, viewer) & unique
            view = state.view(viewer)
            assert view.seat == viewer and view.players == players
            # the spec's enums of this ruleset's views (api.exact_types)
            declared = registry.SPECS[ruleset_id]
            assert view.phase in declared.phases, view.phase
            for legal in view.legal_actions or ():
                assert type(legal).__struct_config__.tag in declared.actions, legal
            assert view.ruleset == ruleset_id and view.scores == [0] * players
            leaked = hidden & set(_strings(view))
            assert not leaked, (viewer, "view", leaked)
            leaked = hidden & set(_strings(visible_to(events, viewer)))
            assert not leaked, (viewer, "events", leaked)
    assert state.is_over, f"not over after {MAX_STEPS} actions"
    assert isinstance(events[-1], RoundOverEvent) and events[-1].kind == "round-over"
    assert _placed(ruleset_id, state) == _dealt(ruleset_id, rules, players), "cards conserved"
    assert state.scores() == SCORING[ruleset_id](rules, state)
    replay = rules.new_round(setup)
    for seat, action in state.history:
        replay.apply(seat, action)
    assert replay.snapshot() == state.snapshot()
    assert [replay.view(v) for v in viewers] == [state.view(v) for v in viewers]


def _match_cases() -> list[Any]:
    cases = []
    for ruleset_id, cls in registry.RULESETS.items():
        for options, counts in OPTIONS[ruleset_id]:
            for players in range(cls.min_players, cls.max_players + 1):
                if counts is None or players in counts:
                    label = f"{ruleset_id}-{players}p-{options or 'defaults'}"
                    cases.append(pytest.param(ruleset_id, options, players, id=label))
    return cases


def _assert_no_leak(ruleset_id: str, state: Any, events: list[EventBase], unique: set[str]) -> None:
    """No event visible to a seat or the spectator shows a card `state` hides from it."""
    for viewer in [None, *range(state.setup.players)]:
        hidden = _hidden(ruleset_id, state, viewer) & unique
        leaked = hidden & set(_strings(visible_to(events, viewer)))
        assert not leaked, (viewer, "events", leaked)


def _assert_deals(ruleset_id: str, match: Any, opening: list[EventBase], unique: set[str]) -> None:
    """A round's opening events: a public `round-start` of that round, then each seat's own
    hand as dealt, private to it, with no card the new round hides from that seat."""
    start, *deals = opening
    assert isinstance(start, RoundStartEvent) and start.to is None and not start.cards
    assert start.data.round == match.index + 1
    assert start.data.current_player == match.current_player
    assert [type(e) for e in deals] == [DealEvent] * match.players
    for seat, deal in enumerate(deals):
        assert (
            deal.seat == seat
            and deal.to == [seat]
            and deal.data == DealData(round=start.data.round)
        )
        assert deal.cards, "every seat is dealt cards"
        hidden = _hidden(ruleset_id, match.round, seat) & unique
        assert not hidden & set(deal.cards), (seat, "deal", hidden & set(deal.cards))
        view = match.round.view(seat)
        if view.hand:  # trick games: the hand as the view shows it (numwin: the combination)
            assert deal.cards == view.hand


@pytest.mark.parametrize(("ruleset_id", "options", "players"), _match_cases())
def test_a_seeded_match_keeps_every_invariant(
    ruleset_id: str, options: dict[str, Any], players: int
) -> None:
    """A whole match through the match object: never stuck, no leak in any view or visible
    event, each round `round-over` then `round-start` (or `match-over` last), cards conserved
    and scores = scoring of the final state in every round, totals = the regular rounds' sums,
    and the record replays to the same match."""
    rules = registry.make(ruleset_id, options)
    seed = 7919 * players + len(options)
    match = rules.new_match(players=players, seed=seed)
    rng = Rng(seed)
    unique = _unique_codes(ruleset_id, rules, players)
    viewers: list[int | None] = [None, *range(players)]
    bound = MAX_STEPS * (match.regular_rounds + MAX_TIEBREAK_ROUNDS)
    events: list[EventBase] = []
    for _ in range(bound):
        if match.is_over:
            break
        actors = match.actors()
        assert actors, f"stuck in phase {match.phase!r} of round {match.index + 1}"
        state = match.round
        seat, action = pick(match, rng)
        events = match.apply(seat, action)
        assert events, "every action tells what happened"
        played = events
        if state.is_over:  # this action ended the round: the events are that round's
            starts = [i for i, e in enumerate(events) if isinstance(e, RoundStartEvent)]
            cut = starts[0] if starts else len(events) - 1
            played, opening = events[:cut], events[cut:]
            assert isinstance(played[-1], RoundOverEvent)
            if match.is_over:
                assert [type(e) for e in opening] == [MatchOverEvent]
                assert opening[0].to is None and not opening[0].cards
            else:
                assert opening == match.round_start_events()  # public start, then the deals
                _assert_deals(ruleset_id, match, opening, unique)
        _assert_no_leak(ruleset_id, state, played, unique)
        for viewer in viewers:
            hidden = _hidden(ruleset_id, match.round, viewer) & unique
            view = match.view(viewer)
            assert view.seat == viewer and view.ruleset == ruleset_id
            assert view.round == match.index + 1 and view.scores == match.totals()
            leaked = hidden & set(_strings(view))
            assert not leaked, (viewer, "view", leaked)
    assert match.is_over, f"not over after {bound} actions"
    assert isinstance(events[-1], MatchOverEvent)
    result = match.result()
    assert result is not None and result.rounds == match.round_scores
    for state, score in zip(match.rounds, match.round_scores, strict=True):
        assert _placed(ruleset_id, state) == _dealt(ruleset_id, rules, players), "conserved"
        assert score == SCORING[ruleset_id](rules, state)
    regular = match.round_scores[: match.regular_rounds]
    assert result.totals == [sum(r.players[s].score for r in regular) for s in range(players)]
    record = msgspec.json.decode(msgspec.json.encode(match.record()), type=MatchRecord)
    again = replay(record)
    assert again.snapshot() == match.snapshot() and again.result() == result
    assert [again.view(v) for v in viewers] == [match.view(v) for v in viewers]


@pytest.mark.parametrize("ruleset_id", list(registry.RULESETS))
def test_card_codes_hold_every_deck(ruleset_id: str) -> None:
    """The ruleset's card codes (data for the HTTP spec) hold every deck it deals, with every
    option, and nothing else."""
    cls = registry.ruleset_class(ruleset_id)
    dealt: set[str] = set()
    for options, counts in OPTIONS[ruleset_id]:
        rules = registry.make(ruleset_id, options)
        for players in range(cls.min_players, cls.max_players + 1):
            if counts is None or players in counts:
                dealt |= set(rules.deck(players).cards)
    assert list(cls.card_codes) == canonical(dealt)
