"""numking stateless rules (rules/numking.md): deck, deal, legal moves, tricks, scoring.

Each test names the rule paragraph or Ruling it pins.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import msgspec
import pytest

from engine.core.base import RoundSetup, TrickCard
from engine.core.cards import canonical
from engine.core.errors import InvalidInput
from engine.numking.rules import NumKing, NumKingOptions
from engine.numking.scoring import NumKingBid, next_first_bidder
from tests.conftest import CONFORMANCE_DIR

CONFORMANCE = CONFORMANCE_DIR

RULES = NumKing()
ZEROS = NumKing(NumKingOptions(zeros=True))


def trick(*entries: str | tuple[str, int]) -> list[TrickCard]:
    """A trick led by seat 0: plain codes, or (infinity, declared)."""
    out = []
    for seat, e in enumerate(entries):
        if isinstance(e, tuple):
            out.append(TrickCard(seat=seat, card=e[0], declared=e[1]))
        else:
            out.append(TrickCard(seat=seat, card=e))
    return out


def legal(
    hand: list[str], played: list[TrickCard], players: int = 4
) -> tuple[list[str], list[int]]:
    moves = RULES.legal_moves(players, hand, played)
    assert moves.infinity is not msgspec.UNSET
    return moves.legal, list(moves.infinity)


def invalid(fn: Any, *args: Any, **kwargs: Any) -> InvalidInput:
    with pytest.raises(InvalidInput) as err:
        fn(*args, **kwargs)
    return err.value


# ----------------------------------------------------------------------------- Deck


def test_deck_lists_the_36_components() -> None:
    """Deck: rainbow-1..16, shadow-1..16, numx, infinity, flash ×2 (Ruling: 36 by default)."""
    deck = RULES.deck(4)
    counts = Counter(deck.cards)
    assert len(deck.cards) == 36
    assert counts["flash"] == 2 and counts["numx"] == 1 and counts["infinity"] == 1
    for v in range(1, 17):
        assert counts[f"rainbow-{v}"] == 1 and counts[f"shadow-{v}"] == 1
    assert "rainbow-0" not in counts and "shadow-0" not in counts
    assert deck.cards == canonical(deck.cards)


def test_zeros_option_adds_the_two_zeros() -> None:
    """Deck Ruling: `zeros: true` adds rainbow-0 and shadow-0 (38 cards, the seed's total)."""
    deck = ZEROS.deck(4)
    assert len(deck.cards) == 38
    assert {"rainbow-0", "shadow-0"} <= set(deck.cards)


@pytest.mark.parametrize("players", range(2, 9))
@pytest.mark.parametrize("zeros", [False, True])
def test_k_max_is_floor_of_deck_over_players(players: int, zeros: bool) -> None:
    """Deck: k_max = floor(deck size / players); hand_size = k_max, set_aside its reserve."""
    rules = NumKing(NumKingOptions(zeros=zeros))
    size = 38 if zeros else 36
    deck = rules.deck(players)
    assert deck.hand_size == size // players
    assert deck.set_aside == size - players * (size // players)


def test_seed_progression_example_five_players_38_cards() -> None:
    """Rounds, the seed's example: 38 cards, 5 players → k_max 7, reserves 33, 28 … 3."""
    deck = ZEROS.deck(5)
    assert deck.hand_size == 7 and deck.set_aside == 3
    reserves = [
        len(ZEROS.deal(RoundSetup(players=5, seed=9, round=k)).set_aside) for k in range(1, 8)
    ]
    assert reserves == [33, 28, 23, 18, 13, 8, 3]


def test_max_cards_option_sets_the_last_hand() -> None:
    """Rounds: option max_cards (1 ≤ max_cards ≤ k_max) is the last round's hand size."""
    deck = NumKing(NumKingOptions(max_cards=5)).deck(4)
    assert deck.hand_size == 5 and deck.set_aside == 36 - 20


@pytest.mark.parametrize("max_cards", [0, -1, 10])
def test_max_cards_outside_1_to_k_max_is_a_bad_option(max_cards: int) -> None:
    """Rounds: max_cards outside 1 … k_max (9 for 4 players) is refused."""
    err = invalid(lambda: NumKing(NumKingOptions(max_cards=max_cards)).deck(4))
    assert err.code == "bad-option"
    assert err.errors[0].field == "options.max_cards"


@pytest.mark.parametrize("first_bidder", [-1, 4, 9])
def test_first_bidder_outside_the_table_is_a_bad_option(first_bidder: int) -> None:
    """Bids: option first_bidder is a seat of the table."""
    err = invalid(lambda: NumKing(NumKingOptions(first_bidder=first_bidder)).deck(4))
    assert err.code == "bad-option"
    assert err.errors[0].field == "options.first_bidder"


@pytest.mark.parametrize("players", [1, 9, 0])
def test_player_count_outside_2_to_8(players: int) -> None:
    """numking: 2 to 8 players."""
    assert invalid(RULES.deck, players).code == "bad-player-count"


# ----------------------------------------------------------------------------- Rounds


@pytest.mark.parametrize("k", [1, 4, 9])
def test_round_k_deals_k_cards_and_keeps_the_rest_as_reserve(k: int) -> None:
    """Rounds: round k deals k cards to each player; the rest is the reserve."""
    deal = RULES.deal(RoundSetup(players=4, seed=123, round=k, dealer=2))
    assert [len(h) for h in deal.hands] == [k] * 4
    assert len(deal.set_aside) == 36 - 4 * k
    everything = [c for h in deal.hands for c in h] + deal.set_aside
    assert Counter(everything) == Counter(RULES.deck(4).cards)
    assert all(h == canonical(h) for h in deal.hands)
    assert deal.set_aside == canonical(deal.set_aside)
    assert deal.dealer == 2
    assert deal.leader == 0


def test_deal_is_reproducible_and_reshuffled_each_seed() -> None:
    """Rounds: all cards are gathered and reshuffled every round (a seed fixes the deal)."""
    a = RULES.deal(RoundSetup(players=3, seed=7, round=5))
    b = RULES.deal(RoundSetup(players=3, seed=7, round=5))
    c = RULES.deal(RoundSetup(players=3, seed=8, round=5))
    assert a == b
    assert a.hands != c.hands


def test_deal_leader_is_the_first_bidder() -> None:
    """Bids: the first bidder is option first_bidder in round 1, else setup.leader."""
    rules = NumKing(NumKingOptions(first_bidder=2))
    assert rules.deal(RoundSetup(players=4, seed=1)).leader == 2
    assert rules.deal(RoundSetup(players=4, seed=1, leader=3)).leader == 3


@pytest.mark.parametrize("k", [0, 10, -3])
def test_round_outside_1_to_max_cards(k: int) -> None:
    """Rounds: a round deals 1 … max_cards cards."""
    err = invalid(RULES.deal, RoundSetup(players=4, seed=1, round=k))
    assert err.code == "bad-request" and err.errors[0].field == "round"


def test_round_beyond_max_cards_option() -> None:
    """Rounds: the game ends after round max_cards."""
    rules = NumKing(NumKingOptions(max_cards=3))
    rules.deal(RoundSetup(players=4, seed=1, round=3))
    assert invalid(rules.deal, RoundSetup(players=4, seed=1, round=4)).errors[0].field == "round"


# ----------------------------------------------------------------------------- Bids Ruling


def test_next_first_bidder_is_the_player_with_most_tricks() -> None:
    """Bids: later rounds, the player who took the most tricks bids first."""
    assert next_first_bidder(0, [1, 3, 0, 2]) == 1


def test_next_first_bidder_tie_goes_clockwise_from_previous() -> None:
    """Bids Ruling: on a tie, the tied player first met clockwise from the previous first
    bidder, that seat included."""
    assert next_first_bidder(2, [2, 0, 1, 2]) == 3
    assert next_first_bidder(3, [2, 0, 1, 2]) == 3
    assert next_first_bidder(1, [2, 0, 1, 2]) == 3
    assert next_first_bidder(0, [2, 0, 1, 2]) == 0


def test_next_first_bidder_keeps_seat_when_nobody_took_a_trick() -> None:
    """Bids Ruling: a round where nobody took a trick keeps the same first bidder."""
    assert next_first_bidder(2, [0, 0, 0, 0, 0]) == 2


# ----------------------------------------------------------------------------- Lead


def test_lead_any_card_and_infinity_at_either_value() -> None:
    """Lead: the leader plays any card (infinity at either value)."""
    hand = ["flash", "rainbow-3", "infinity", "shadow-16", "numx", "flash"]
    cards, decl = legal(hand, [])
    assert cards == ["rainbow-3", "shadow-16", "numx", "infinity", "flash"]
    assert decl == [17, 0]


def test_infinity_declarations_empty_when_not_held() -> None:
    """API: `infinity` is [] when infinity is not legal."""
    assert legal(["rainbow-3"], [])[1] == []


# ----------------------------------------------------------------------------- Obligation


def test_must_play_a_strictly_stronger_card() -> None:
    """Obligation: holding a card stronger than every card in the trick, play one such card."""
    cards, _ = legal(["rainbow-2", "rainbow-10", "shadow-12", "shadow-4"], trick("rainbow-9"))
    assert cards == ["rainbow-10", "shadow-12"]


def test_stronger_than_every_card_not_just_the_lead() -> None:
    """Obligation: stronger than every card already in the trick."""
    cards, _ = legal(["rainbow-10", "shadow-14"], trick("rainbow-9", "shadow-13"))
    assert cards == ["shadow-14"]


def test_no_stronger_card_means_any_card_and_infinity_either_value() -> None:
    """Obligation: holding no stronger card, any card (and infinity at either value)."""
    cards, decl = legal(["rainbow-2", "infinity", "shadow-3"], trick("numx"))
    assert cards == ["rainbow-2", "shadow-3", "infinity"]
    assert decl == [17, 0]


def test_infinity_counts_as_stronger_than_numbered_and_must_be_17() -> None:
    """Obligation: infinity counts as strictly stronger than any numbered card; played to meet
    the obligation it must be declared 17."""
    cards, decl = legal(["rainbow-2", "infinity"], trick("shadow-16"))
    assert cards == ["infinity"] and decl == [17]
    check = RULES.validate_move(4, ["rainbow-2", "infinity"], trick("shadow-16"), "infinity", 0)
    assert not check.legal and check.reason == "must-beat"
    assert RULES.validate_move(
        4, ["rainbow-2", "infinity"], trick("shadow-16"), "infinity", 17
    ).legal


def test_infinity_stronger_than_infinity_at_zero_lead_then_numbered_must_follow() -> None:
    """Strength: numbered cards > infinity@0, so after infinity@0 every numbered card beats."""
    cards, _ = legal(["rainbow-1", "shadow-5"], trick(("infinity", 0)))
    assert cards == ["rainbow-1", "shadow-5"]


def test_zero_cards_beat_infinity_at_zero() -> None:
    """Strength with zeros: rainbow-0 is a numbered card, stronger than infinity@0."""
    moves = ZEROS.legal_moves(3, ["rainbow-0", "numx"], trick(("infinity", 0)))
    assert moves.legal == ["rainbow-0", "numx"]


def test_numx_must_beat_infinity_at_17_and_flash_must_beat_numx() -> None:
    """Strength: flash > numx > infinity@17."""
    assert legal(["rainbow-16", "numx", "flash"], trick(("infinity", 17)))[0] == ["numx", "flash"]
    assert legal(["rainbow-16", "infinity", "flash"], trick("numx"))[0] == ["flash"]


def test_two_flashes_are_equal() -> None:
    """Strength: two Flashes are equal, so after a Flash nothing is stronger."""
    cards, decl = legal(["rainbow-1", "flash", "infinity"], trick("rainbow-3", "flash"))
    assert cards == ["rainbow-1", "infinity", "flash"]
    assert decl == [17, 0]


def test_obligation_uses_cards_before_cancellation() -> None:
    """Obligation: the comparison uses every card already played, before cancellations."""
    cards, _ = legal(["rainbow-7", "rainbow-13"], trick("rainbow-12", "shadow-12"))
    assert cards == ["rainbow-13"]


# ----------------------------------------------------------------------------- Equal value


def test_equal_value_exception_allows_the_twin() -> None:
    """Equal-value exception: a rainbow-X/shadow-X equal to a numbered card in the trick."""
    cards, _ = legal(["shadow-9", "rainbow-12", "shadow-3"], trick("rainbow-9"))
    assert cards == ["rainbow-12", "shadow-9"]


def test_equal_value_exception_with_a_card_that_is_not_the_highest() -> None:
    """Equal-value exception: the value of any numbered card already in the trick."""
    cards, _ = legal(["shadow-5", "rainbow-14", "rainbow-1"], trick("rainbow-5", "shadow-12"))
    assert cards == ["rainbow-14", "shadow-5"]


def test_equal_value_exception_does_not_apply_to_infinity() -> None:
    """Equal-value exception: infinity is not a numbered card; 17 is no card's value."""
    cards, _ = legal(["rainbow-16", "numx"], trick(("infinity", 17)))
    assert cards == ["numx"]


# ----------------------------------------------------------------------------- validate-move


def test_validate_move_reasons_in_contract_order() -> None:
    """API: card-not-in-hand first, then must-beat; legal moves listed."""
    hand = ["rainbow-2", "rainbow-10"]
    check = RULES.validate_move(4, hand, trick("rainbow-9"), "numx")
    assert (check.legal, check.reason) == (False, "card-not-in-hand")
    assert check.legal_moves == ["rainbow-10"]
    check = RULES.validate_move(4, hand, trick("rainbow-9"), "rainbow-2")
    assert (check.legal, check.reason) == (False, "must-beat")
    assert "Rainbow 10" in check.message
    check = RULES.validate_move(4, hand, trick("rainbow-9"), "rainbow-10")
    assert (check.legal, check.reason) == (True, None)


def test_validate_move_declared_checks() -> None:
    """API: infinity needs `declared` (missing-declared); no other card takes one."""
    err = invalid(RULES.validate_move, 4, ["infinity"], [], "infinity")
    assert err.code == "missing-declared" and err.errors[0].field == "declared"
    err = invalid(RULES.validate_move, 4, ["rainbow-2"], [], "rainbow-2", 17)
    assert err.code == "bad-request" and err.errors[0].field == "declared"
    err = invalid(RULES.validate_move, 4, ["rainbow-2"], [], "red-2")
    assert err.code == "card-not-in-deck"
    assert RULES.validate_move(4, ["infinity"], [], "infinity", 0).legal


def test_trick_infinity_without_declared_is_refused() -> None:
    """API: an `infinity` trick entry without `declared` is a 422 missing-declared."""
    for fn, args in (
        (RULES.legal_moves, (4, ["rainbow-1"], [TrickCard(0, "infinity")])),
        (RULES.resolve_trick, (2, [TrickCard(0, "infinity"), TrickCard(1, "rainbow-1")])),
    ):
        err = invalid(fn, *args)
        assert err.code == "missing-declared" and err.errors[0].field == "trick[0].declared"
    err = invalid(
        RULES.legal_moves, 4, [], [TrickCard(0, "rainbow-1"), TrickCard(1, "infinity", 5)]
    )  # given, but neither 17 nor 0: not "missing" (found by attacking a server)
    assert err.code == "bad-request" and err.errors[0].field == "trick[1].declared"
    assert "must be 17 or 0, not 5" in err.message
    err = invalid(RULES.legal_moves, 4, [], [TrickCard(0, "rainbow-1", 17)])
    assert err.code == "bad-request" and err.errors[0].field == "trick[0].declared"


def test_position_input_errors() -> None:
    """API conventions: unknown card, card outside the deck, duplicates, trick seats."""
    assert invalid(RULES.legal_moves, 4, ["rainbow-17"], []).code == "unknown-card"
    assert invalid(RULES.legal_moves, 4, ["rainbow-0"], []).code == "card-not-in-deck"
    assert invalid(RULES.legal_moves, 4, ["red-3"], []).code == "card-not-in-deck"
    err = invalid(RULES.legal_moves, 4, ["numx"], trick("numx"))
    assert err.code == "duplicate-card" and err.errors[0].field == "trick[0]"
    assert (
        invalid(RULES.legal_moves, 4, ["flash"], trick("flash", "flash")).code == "duplicate-card"
    )
    assert invalid(RULES.legal_moves, 2, [], trick("rainbow-1", "rainbow-2")).code == "bad-trick"
    bad_order = [TrickCard(0, "rainbow-1"), TrickCard(2, "rainbow-2")]
    assert invalid(RULES.legal_moves, 4, [], bad_order).code == "bad-trick"


# ----------------------------------------------------------------------------- Resolving


def test_flash_annuls_even_against_numx() -> None:
    """Resolving 1: any flash → the trick is annulled, nobody wins it, even against numx."""
    result = RULES.resolve_trick(3, trick("shadow-3", "numx", "flash"))
    assert result.winner is None and result.annulled
    assert result.captures == [] and result.cancelled == [] and result.pairs == []
    assert result.next_leader == 0


def test_annulled_trick_is_led_again_by_its_leader() -> None:
    """Ruling: after an annulled trick, the player who led it leads again."""
    played = [TrickCard(2, "rainbow-5"), TrickCard(0, "flash"), TrickCard(1, "numx")]
    result = RULES.resolve_trick(3, played)
    assert result.winner is None and result.next_leader == 2


def test_every_pair_cancels_at_once() -> None:
    """Resolving 2: every rainbow-X + shadow-X pair is removed, all pairs at once."""
    result = RULES.resolve_trick(
        5, trick("rainbow-9", "shadow-5", "rainbow-2", "shadow-9", "rainbow-5")
    )
    assert result.winner == 2
    assert result.cancelled == ["rainbow-5", "rainbow-9", "shadow-5", "shadow-9"]
    assert [(c.seat, c.cards) for c in result.captures] == [(2, ["rainbow-2"])]


def test_numx_wins_among_remaining() -> None:
    """Resolving 3: among the remaining cards numx wins."""
    result = RULES.resolve_trick(3, trick(("infinity", 17), "rainbow-16", "numx"))
    assert result.winner == 2 and result.next_leader == 2
    assert result.captures[0].cards == ["rainbow-16", "numx", "infinity"]


def test_infinity_17_beats_every_numbered_card() -> None:
    """Resolving 3: else infinity@17."""
    assert RULES.resolve_trick(3, trick("shadow-16", ("infinity", 17), "rainbow-2")).winner == 1


def test_highest_numbered_card_wins() -> None:
    """Resolving 3: else the highest numbered card (Rainbow or Shadow alike)."""
    assert RULES.resolve_trick(3, trick("rainbow-12", "shadow-14", "rainbow-11")).winner == 1
    assert RULES.resolve_trick(3, trick(("infinity", 0), "shadow-1", "rainbow-11")).winner == 2


def test_infinity_zero_wins_only_when_alone() -> None:
    """Resolving 3: infinity@0 wins if it is the only card left (conformance), not else."""
    result = RULES.resolve_trick(3, trick(("infinity", 0), "rainbow-9", "shadow-9"))
    assert result.winner == 0 and result.cancelled == ["rainbow-9", "shadow-9"]
    assert result.captures[0].cards == ["infinity"]
    result = ZEROS.resolve_trick(2, trick(("infinity", 0), "rainbow-0"))
    assert result.winner == 1


def test_nothing_left_annuls() -> None:
    """Resolving 4: no card left → annulled; the cancelled cards are still reported."""
    result = RULES.resolve_trick(4, trick("rainbow-5", "shadow-5", "shadow-8", "rainbow-8"))
    assert result.annulled and result.winner is None and result.captures == []
    assert result.cancelled == ["rainbow-5", "rainbow-8", "shadow-5", "shadow-8"]
    assert result.next_leader == 0


def test_resolve_needs_one_card_per_player() -> None:
    """API: a resolve-trick trick holds exactly one card per player."""
    assert invalid(RULES.resolve_trick, 3, trick("rainbow-1", "rainbow-2")).code == "bad-trick"


# ----------------------------------------------------------------------------- Scoring


@pytest.mark.parametrize(
    ("k", "bid", "tricks", "points"),
    [
        (6, 1, 1, 13),
        (6, 3, 3, 19),
        (6, 6, 6, 28),
        (6, 3, 5, -6),
        (6, 3, 1, -6),
        (5, 4, 0, -12),
        (3, 0, 0, 31),
        (7, 0, 0, 39),
        (5, 0, 0, 35),
        (5, 0, 1, -15),
        (5, 0, 2, -20),
        (5, 0, 3, -25),
    ],
)
def test_scoring_table(k: int, bid: int, tricks: int, points: int) -> None:
    """Scoring: 10 + 3b / −3|t − b| / 25 + 2k / −(10 + 5t)."""
    score = RULES.score_round(k, [NumKingBid(bid=bid, tricks=tricks)])
    player = score.players[0]
    assert player.score == points and player.bonus == 0
    assert player.breakdown[0].points == points
    assert player.streak == (1 if bid == tricks else 0)


def test_precision_bonus_example_sequence() -> None:
    """Precision bonus Ruling: bids met in rounds 1–4, missed in 5 → 0, +5, +10, +10, 0."""
    streak = 0
    bonuses = []
    for met in (True, True, True, True, False):
        player = RULES.score_round(
            5, [NumKingBid(bid=2, tricks=2 if met else 1, streak=streak)]
        ).players[0]
        bonuses.append(player.bonus)
        assert player.streak is not msgspec.UNSET
        streak = player.streak
        assert player.breakdown[-1].points == player.bonus
        assert player.score == sum(line.points for line in player.breakdown)
    assert bonuses == [0, 5, 10, 10, 0]
    assert streak == 0


def test_zero_bid_met_extends_the_streak() -> None:
    """Precision bonus: a bid met exactly, 0 included, extends the streak."""
    player = RULES.score_round(4, [NumKingBid(bid=0, tricks=0, streak=1)]).players[0]
    assert (player.streak, player.bonus, player.score) == (2, 5, 25 + 8 + 5)


def test_score_round_winners_share_ties() -> None:
    """Scoring: the round's winners hold the best score, ties share."""
    score = RULES.score_round(
        3, [NumKingBid(bid=1, tricks=1), NumKingBid(bid=1, tricks=1), NumKingBid(bid=2, tricks=1)]
    )
    assert score.winners == [0, 1]


@pytest.mark.parametrize(
    ("cards", "bids", "field"),
    [
        (0, [NumKingBid(bid=0, tricks=0)], "cards"),
        (3, [NumKingBid(bid=4, tricks=0)], "players[0].bid"),
        (3, [NumKingBid(bid=1, tricks=0), NumKingBid(bid=1, tricks=-1)], "players[1].tricks"),
        (3, [NumKingBid(bid=1, tricks=1, streak=-1)], "players[0].streak"),
    ],
)
def test_score_round_input_errors(cards: int, bids: list[NumKingBid], field: str) -> None:
    """score-round: bid and tricks in 0 … cards, streak ≥ 0."""
    err = invalid(RULES.score_round, cards, bids)
    assert err.code == "bad-request" and err.errors[0].field == field


def test_score_round_player_count() -> None:
    """score-round: 1 … 8 players."""
    assert invalid(RULES.score_round, 3, []).code == "bad-player-count"
    assert (
        invalid(RULES.score_round, 9, [NumKingBid(bid=1, tricks=1)] * 9).code == "bad-player-count"
    )
    assert len(RULES.score_round(9, [NumKingBid(bid=1, tricks=1)] * 8).players) == 8


# ----------------------------------------------------------------------------- Game end


def test_score_match_highest_total_wins_ties_share() -> None:
    """Game end: after the last round the highest total wins; ties share the win."""
    r1 = RULES.score_round(
        2, [NumKingBid(bid=1, tricks=1), NumKingBid(bid=0, tricks=1), NumKingBid(bid=2, tricks=0)]
    )
    r2 = RULES.score_round(
        2, [NumKingBid(bid=0, tricks=1), NumKingBid(bid=1, tricks=1), NumKingBid(bid=1, tricks=0)]
    )
    result = RULES.score_match([r1, r2])
    assert result.totals == [13 - 15, -15 + 13, -6 - 3]
    assert result.winners == [0, 1]


# ----------------------------------------------------------------------------- Conformance


def _subset(actual: Any, expect: Any, where: str = "") -> None:
    if isinstance(expect, dict):
        assert isinstance(actual, dict), where
        for key, value in expect.items():
            assert key in actual, f"{where}.{key} missing"
            _subset(actual[key], value, f"{where}.{key}")
    elif isinstance(expect, list):
        assert isinstance(actual, list) and len(actual) == len(expect), where
        for i, (a, e) in enumerate(zip(actual, expect, strict=True)):
            _subset(a, e, f"{where}[{i}]")
    else:
        assert actual == expect, f"{where}: {actual!r} != {expect!r}"


def _cases(name: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads((CONFORMANCE / name).read_text())
    return cases


@pytest.mark.parametrize("case", _cases("numking-score.json"), ids=lambda c: c["name"])
def test_conformance_score(case: dict[str, Any]) -> None:
    req = case["request"]
    rules = NumKing(msgspec.convert(req.get("options", {}), NumKingOptions))
    result = rules.score_round(req["cards"], msgspec.convert(req["players"], list[NumKingBid]))
    _subset(msgspec.to_builtins(result), case["expect"])


@pytest.mark.parametrize("case", _cases("numking-trick.json"), ids=lambda c: c["name"])
def test_conformance_trick(case: dict[str, Any]) -> None:
    req = case["request"]
    result = RULES.resolve_trick(req["players"], msgspec.convert(req["trick"], list[TrickCard]))
    _subset(msgspec.to_builtins(result), case["expect"])
