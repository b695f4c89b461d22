"""numwin stateless rules (rules/numwin.md): deck, deal, round scoring, match totals."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from engine import registry
from engine.core.base import RoundScore, RoundSetup
from engine.core.cards import CARDS, canonical
from engine.core.errors import InvalidInput
from engine.numwin.cards import DECK, may_pair
from engine.numwin.rules import NumWin, NumWinOptions
from engine.numwin.scoring import NumWinHand

RULES = NumWin()
TEAMS = NumWin(NumWinOptions(teams=True))


def hand(*cards: str, locked: list[list[str]] | None = None) -> NumWinHand:
    return NumWinHand(combination=list(cards), locked=locked or [])


def score_of(*cards: str) -> int:
    """One player's score, through score_round with filler players absent."""
    return RULES.score_hands([hand(*cards)], None).players[0].score


# -- Deck -----------------------------------------------------------------------------------


def test_deck_has_111_cards_as_listed() -> None:
    """Rules "Deck": 4 colours and rainbow/shadow 0..16, 2 swipe, 2 flip, 2 quantum, 3 malus."""
    info = RULES.deck(4)
    counts = Counter(info.cards)
    assert len(info.cards) == 111
    assert info.hand_size == 2 and info.set_aside == 0 and info.players == 4
    for family in ("red", "blue", "green", "yellow", "rainbow", "shadow"):
        assert all(counts[f"{family}-{v}"] == 1 for v in range(17))
    assert counts["swipe"] == counts["flip"] == counts["quantum"] == 2
    assert counts["malus-0"] == counts["malus-1"] == counts["malus-2"] == 1
    assert info.cards == canonical(info.cards)


@pytest.mark.parametrize("players", [0, 1, 9, 12])
def test_player_count_is_2_to_8(players: int) -> None:
    """Ruling: 2 to 8 players."""
    with pytest.raises(InvalidInput) as err:
        RULES.deck(players)
    assert err.value.code == "bad-player-count"


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_teams_only_with_four_players(players: int) -> None:
    """Variant `teams`: 4 players, partners opposite."""
    with pytest.raises(InvalidInput) as err:
        TEAMS.deck(players)
    assert err.value.code == "bad-option" and err.value.errors[0].field == "options.teams"
    assert TEAMS.deck(4).players == 4


def test_max_turns_must_not_be_negative() -> None:
    with pytest.raises(InvalidInput) as err:
        registry.make("numwin", {"max_turns": -1})
    assert err.value.code == "bad-option" and err.value.errors[0].field == "options.max_turns"
    assert registry.make("numwin", {"max_turns": 5}).options == NumWinOptions(max_turns=5)


# -- Deal -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 9))
def test_deal_two_cards_each_and_one_face_up(players: int) -> None:
    """Rules "Set-up": 2 cards each, the next card turned up, the rest is the draw pile."""
    deal = RULES.deal(RoundSetup(players=players, seed=42, dealer=1))
    assert [len(h) for h in deal.hands] == [2] * players
    assert deal.discard is not None and len(deal.discard) == 1  # type: ignore[arg-type]
    assert deal.draw_pile_count == 111 - 2 * players - 1
    assert deal.set_aside == []
    dealt = Counter(c for h in deal.hands for c in h) + Counter(deal.discard)  # type: ignore[arg-type]
    assert not dealt - Counter(DECK)
    assert all(h == canonical(h) for h in deal.hands)


def test_dealer_plays_first() -> None:
    """Rules "Set-up": the dealer plays first."""
    deal = RULES.deal(RoundSetup(players=5, seed=3, dealer=3))
    assert deal.dealer == 3 and deal.leader == 3


def test_deal_is_seeded() -> None:
    a = RULES.deal(RoundSetup(players=4, seed=7))
    b = RULES.deal(RoundSetup(players=4, seed=7))
    c = RULES.deal(RoundSetup(players=4, seed=8))
    assert a == b
    assert (a.hands, a.discard) != (c.hands, c.discard)


def test_deal_refuses_bad_dealer() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.deal(RoundSetup(players=4, seed=7, dealer=4))
    assert err.value.code == "bad-request" and err.value.errors[0].field == "dealer"


# -- Pairing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "pairs"),
    [
        ("red-3", "blue-3", True),  # two classics of equal value
        ("red-3", "blue-4", False),
        ("rainbow-3", "green-3", True),  # rainbow-X with any numbered X
        ("rainbow-3", "shadow-3", True),
        ("shadow-3", "red-3", False),  # shadow-X only with rainbow-X
        ("shadow-3", "rainbow-4", False),
        ("swipe", "swipe", False),  # action cards never
        ("malus-1", "red-1", False),
    ],
)
def test_pairing_rules(a: str, b: str, pairs: bool) -> None:
    """Rules "Instant recovery": which cards may pair."""
    assert may_pair(a, b) is pairs
    assert may_pair(b, a) is pairs


# -- Round scoring --------------------------------------------------------------------------


def test_locked_pairs_are_removed() -> None:
    """Scoring 1: locked pairs score nothing."""
    res = RULES.score_round(
        [hand("red-1", "blue-2", "green-4", locked=[["red-16", "blue-16"]])], None
    )
    p = res.players[0]
    assert p.score == 7
    assert p.breakdown[0].label == "locked pairs" and p.breakdown[0].points == 0
    assert p.breakdown[0].cards == ["red-16", "blue-16"]


def test_classic_pairs_removed_at_the_end() -> None:
    """Scoring 2: every other pair of equal value that may pair is removed too."""
    assert score_of("red-9", "blue-9", "green-2", "yellow-3", "red-4") == 9
    assert score_of("red-9", "blue-9", "green-9", "yellow-3", "red-4") == 16


def test_shadow_does_not_pair_with_classic() -> None:
    assert score_of("shadow-6", "red-6", "blue-1", "green-1", "yellow-0") == 12


def test_rainbow_pairs_with_classic_and_shadow() -> None:
    """Scoring 2: rainbow-X pairs with a classic X or with shadow-X."""
    assert score_of("rainbow-6", "red-6", "blue-1", "green-1", "yellow-0") == 0
    assert score_of("rainbow-6", "shadow-6", "blue-1", "green-1", "yellow-2") == 2


def test_rainbow_shadow_pair_beats_rainbow_classic() -> None:
    """Several pairings possible: the lowest is used (keep classics paired, shadow gone)."""
    assert score_of("rainbow-8", "shadow-8", "red-8", "blue-8", "green-0") == 0


def test_one_remaining_rainbow_scores_zero() -> None:
    """Scoring 3: a Rainbow alone scores 0."""
    res = RULES.score_hands([hand("rainbow-12", "red-1", "blue-2", "green-3", "yellow-4")], None)
    assert res.players[0].score == 10
    labels = {line.label: line for line in res.players[0].breakdown}
    assert labels["Rainbow alone scores 0"].cards == ["rainbow-12"]


def test_two_rainbows_score_their_values() -> None:
    """Scoring 3: two or more Rainbows remaining score their values."""
    assert score_of("rainbow-12", "rainbow-3", "red-1", "blue-2", "green-0") == 18


def test_pairing_choice_uses_the_rainbow_rule() -> None:
    """Ruling: the pairing that leaves the lowest score — keep a lone Rainbow when it pays."""
    # classics 5+5 pair, rainbow-5 left alone = 0 (rather than rainbow-5 + red-5, blue-5 = 5)
    assert score_of("red-5", "blue-5", "rainbow-5", "red-9", "blue-9") == 0
    # with another lone Rainbow left, keeping rainbow-5 would make both score: pair it
    assert score_of("red-5", "blue-5", "rainbow-5", "rainbow-3", "green-1") == 6
    # two open values: keep the Rainbow of the higher one
    assert score_of("red-5", "blue-5", "rainbow-5", "red-7", "blue-7", "rainbow-7") == 5


def test_action_cards_score_five() -> None:
    """Scoring 3: action cards +5 each."""
    res = RULES.score_round([hand("swipe", "swipe", "malus-2", "red-0", "blue-1")], None)
    assert res.players[0].score == 16
    line = next(b for b in res.players[0].breakdown if b.label == "action cards")
    assert line.cards == ["swipe", "swipe", "malus-2"] and line.points == 15


FIVE_LOW = hand("red-0", "blue-0", "green-1", "yellow-1", "red-2")  # 2
FIVE_LOW2 = hand("green-0", "yellow-0", "red-1", "blue-1", "blue-2")  # 2
FIVE_LOW3 = hand("green-3", "yellow-3", "green-4", "yellow-4", "yellow-2")  # 2
FIVE_MID = hand("red-7", "blue-8", "green-9", "shadow-0", "red-10")  # 34
FIVE_MID2 = hand("blue-7", "green-8", "yellow-9", "shadow-10", "red-12")  # 46
FIVE_MID3 = hand("green-7", "yellow-8", "red-9", "shadow-12", "green-12")  # 48


def test_caller_penalty_when_someone_is_strictly_lower() -> None:
    """Scoring 4: the caller scores +15 more if another player's score is strictly lower."""
    res = RULES.score_round([FIVE_MID, FIVE_LOW], caller=0)
    assert [p.score for p in res.players] == [49, 2]
    assert res.players[0].breakdown[-1].label == "caller penalty"
    assert res.players[0].breakdown[-1].points == 15
    assert res.winners == [1]
    assert RULES.score_round([FIVE_MID, FIVE_LOW], caller=1).players[1].score == 2


def test_caller_no_penalty_on_a_tie() -> None:
    res = RULES.score_round([FIVE_LOW, FIVE_LOW2], caller=0)
    assert [p.score for p in res.players] == [2, 2]
    assert res.winners == [0, 1]


def test_winners_lowest_ties_share() -> None:
    res = RULES.score_round([FIVE_MID, FIVE_LOW, FIVE_LOW2], None)
    assert res.winners == [1, 2]


def test_teams_sum_and_lowest_team_wins() -> None:
    """Variant teams: team score = sum; the lowest team wins."""
    res = TEAMS.score_round([FIVE_MID, FIVE_LOW, FIVE_LOW2, FIVE_LOW3], None)
    assert res.teams is not None
    assert [(t.seats, t.score) for t in res.teams] == [([0, 2], 36), ([1, 3], 4)]  # type: ignore[union-attr]
    assert res.winners == [1, 3]


def test_teams_caller_penalty_counts_partner() -> None:
    """Ruling: the call fails when the partner is strictly lower; the +15 goes to the team."""
    res = TEAMS.score_round([FIVE_MID, FIVE_MID2, FIVE_LOW, FIVE_MID3], caller=0)
    assert [p.score for p in res.players] == [49, 46, 2, 48]
    assert [t.score for t in res.teams] == [51, 94]  # type: ignore[union-attr]
    assert res.winners == [0, 2]


def test_score_round_refuses_fewer_than_five_cards() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([FIVE_LOW, hand("red-9", "blue-9", "green-9", locked=[])], None)
    assert err.value.code == "bad-request" and err.value.errors[0].field == "players[1]"
    ok = RULES.score_round([hand("red-9", "blue-8", "green-7", locked=[["red-1", "blue-1"]])], None)
    assert ok.players[0].score == 24


def test_score_round_refuses_bad_locked_pair() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.score_round(
            [hand("red-9", "blue-8", "green-7", locked=[["shadow-1", "blue-1"]])], None
        )
    assert err.value.code == "bad-request"
    assert err.value.errors[0].field == "players[0].locked[0]"
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([hand("red-9", "blue-8", "green-7", locked=[["red-1"]])], None)
    assert err.value.errors[0].field == "players[0].locked[0]"


def test_score_round_card_checks() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([FIVE_LOW, FIVE_LOW], None)
    assert err.value.code == "duplicate-card"
    assert err.value.errors[0].field == "players[1].combination[0]"
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([hand("red-1", "blue-1", "green-1", "joker", "red-2")], None)
    assert err.value.code == "card-not-in-deck"
    assert err.value.errors[0].field == "players[0].combination[3]"
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([hand("red-1", "blue-1", "green-1", "red-17", "red-2")], None)
    assert err.value.code == "unknown-card"
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([hand("swipe", "swipe", "swipe", "red-1", "red-2")], None)
    assert err.value.code == "duplicate-card"


def test_score_round_player_count_and_caller() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([], None)
    assert err.value.code == "bad-player-count"
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([FIVE_LOW, FIVE_MID], caller=2)
    assert err.value.code == "bad-request" and err.value.errors[0].field == "caller"
    with pytest.raises(InvalidInput) as err:
        TEAMS.score_round([FIVE_LOW, FIVE_MID], None)
    assert err.value.code == "bad-option"
    long = [f"{f}-{v}" for f in ("red", "blue", "green") for v in range(17)]
    with pytest.raises(InvalidInput) as err:
        RULES.score_round([hand(*long)], None)
    assert err.value.errors[0].field == "players[0].combination"


def test_breakdown_adds_up_and_lists_every_card() -> None:
    h = hand("red-5", "blue-5", "rainbow-5", "shadow-2", "flip", locked=[["red-1", "rainbow-1"]])
    p = RULES.score_round([h], None).players[0]
    assert sum(line.points for line in p.breakdown) == p.score
    listed = Counter(c for line in p.breakdown for c in line.cards)
    assert listed == Counter([*h.combination, "red-1", "rainbow-1"])


# -- Independent oracle for the lowest pairing -------------------------------------------------


def _points(cards: list[str]) -> int:
    rainbows = [c for c in cards if CARDS[c].family == "rainbow"]
    total = 0
    for c in cards:
        ci = CARDS[c]
        if ci.value is None:
            total += 5
        elif ci.family != "rainbow":
            total += ci.value
    if len(rainbows) >= 2:
        total += sum(CARDS[c].value or 0 for c in rainbows)
    return total


def _brute_force(cards: list[str], kept: tuple[str, ...] = ()) -> int:
    """Minimum over every set of disjoint pairs (any matching), by exhaustive recursion."""
    if not cards:
        return _points(list(kept))
    head, tail = cards[0], cards[1:]
    best = _brute_force(tail, (*kept, head))
    for i, other in enumerate(tail):
        if may_pair(head, other):
            best = min(best, _brute_force(tail[:i] + tail[i + 1 :], kept))
    return best


# a small dense pool of values so that pairs and Rainbow choices are frequent
_POOL = [c for c in DECK if CARDS[c].value is None or CARDS[c].value in (0, 3, 5, 7)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(len(_POOL))), min_size=1, max_size=9, unique=True))
def test_lowest_pairing_matches_exhaustive_search(idx: list[int]) -> None:
    """Ruling "Scoring" 2: the chosen pairing leaves the lowest score of all pairings."""
    cards = [_POOL[i] for i in idx]
    assert score_of(*cards) == _brute_force(cards)


def test_oracle_sanity() -> None:
    assert _brute_force(["red-5", "blue-5", "rainbow-5"]) == 0
    assert _brute_force(["rainbow-3", "rainbow-5"]) == 8
    assert _brute_force(["shadow-3", "red-3"]) == 6


# -- Match ----------------------------------------------------------------------------------


def _rs(*scores: int) -> RoundScore:
    return RULES.score_hands(
        [hand(*[c for c in DECK if CARDS[c].family == "red"][s : s + 1]) for s in scores], None
    )


def test_match_totals_lowest_wins_ties_share() -> None:
    """Rules "Match": totals add up; the lowest total wins; a tie is shared."""
    rounds = [_rs(3, 1, 2), _rs(0, 2, 1)]
    res = RULES.score_match(rounds)
    assert res.totals == [3, 3, 3] and res.winners == [0, 1, 2]
    res = RULES.score_match([_rs(3, 1, 2)])
    assert res.totals == [3, 1, 2] and res.winners == [1]


def test_match_teams_totals() -> None:
    rounds = [_rs(3, 1, 2, 0), _rs(0, 2, 1, 5)]
    res = TEAMS.score_match(rounds)
    assert res.teams is not None
    assert [(t.seats, t.score) for t in res.teams] == [([0, 2], 6), ([1, 3], 8)]  # type: ignore[union-attr]
    assert res.winners == [0, 2]


def test_match_refuses_mismatched_rounds() -> None:
    with pytest.raises(InvalidInput):
        RULES.score_match([_rs(1, 2), _rs(1, 2, 3)])
    with pytest.raises(InvalidInput):
        RULES.score_match([])


def test_every_two_card_pairing_is_symmetric() -> None:
    numbered = [c for c in DECK if CARDS[c].value in (4,)] + ["quantum"]
    for a, b in itertools.combinations(numbered, 2):
        assert may_pair(a, b) == may_pair(b, a)
