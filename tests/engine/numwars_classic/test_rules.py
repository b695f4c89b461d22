"""numwars-classic, stateless answers: one or more tests per paragraph and Ruling of
rules/numwars-classic.md, plus the conformance cases of /work/shared/conformance."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from engine import registry
from engine.core.base import PlayerScore, RoundScore, RoundSetup, TrickCard
from engine.core.cards import canonical
from engine.core.errors import InvalidInput
from engine.core.tiebreak import decide_tiebreak
from engine.numwars_classic.cards import DECK
from engine.numwars_classic.rules import ClassicOptions, NumWarsClassic
from engine.numwars_classic.scoring import ClassicPile
from tests.conftest import CONFORMANCE_DIR

CONFORMANCE = CONFORMANCE_DIR
RULES = NumWarsClassic()


def trick(*cards: str, leader: int = 0, players: int = 4) -> list[TrickCard]:
    return [TrickCard(seat=(leader + i) % players, card=c) for i, c in enumerate(cards)]


def legal(hand: list[str], *played: str, players: int = 4) -> list[str]:
    return RULES.legal_moves(players, hand, trick(*played, players=players)).legal


def reason(hand: list[str], played: list[str], card: str) -> str | None:
    return RULES.validate_move(4, hand, trick(*played), card).reason


def takes(result: Any) -> dict[int, list[str]]:
    return {c.seat: c.cards for c in result.captures}


def piles(*cards: list[str]) -> list[ClassicPile]:
    return [ClassicPile(captured=list(c)) for c in cards]


# --- conformance ---------------------------------------------------------------------------


def subset(expect: Any, actual: Any) -> bool:
    """The conformance README's match: dict keys subset, lists whole, elements recursively."""
    if isinstance(expect, dict):
        return isinstance(actual, dict) and all(
            k in actual and subset(v, actual[k]) for k, v in expect.items()
        )
    if isinstance(expect, list):
        return (
            isinstance(actual, list)
            and len(expect) == len(actual)
            and all(subset(e, a) for e, a in zip(expect, actual, strict=True))
        )
    return bool(expect == actual)


def _cases() -> list[Any]:
    out = []
    for path in sorted(CONFORMANCE.glob("numwars-classic*.json")):
        for case in json.loads(path.read_text()):
            out.append(pytest.param(case, id=f"{path.stem}: {case['name']}"))
    return out


def run_case(case: dict[str, Any]) -> Any:
    req = case["request"]
    rules = registry.make("numwars-classic", req.get("options"))
    assert isinstance(rules, NumWarsClassic)
    endpoint = case["path"].rsplit("/", 1)[-1]
    tricks = [msgspec.convert(t, TrickCard) for t in req.get("trick", [])]
    if endpoint == "legal-moves":
        return rules.legal_moves(req["players"], req["hand"], tricks)
    if endpoint == "validate-move":
        return rules.validate_move(req["players"], req["hand"], tricks, req["card"])
    if endpoint == "resolve-trick":
        return rules.resolve_trick(req["players"], tricks)
    if endpoint == "score-round":
        return rules.score_round([msgspec.convert(p, ClassicPile) for p in req["players"]])
    if endpoint == "deal":
        return rules.deal(RoundSetup(players=req["players"], seed=req["seed"]))
    raise AssertionError(f"no engine call for {endpoint}")


def test_conformance_files_exist() -> None:
    assert len(_cases()) >= 17


@pytest.mark.parametrize("case", _cases())
def test_conformance(case: dict[str, Any]) -> None:
    assert case["status"] == 200
    actual = msgspec.to_builtins(run_case(case))
    assert subset(case["expect"], actual), (case["expect"], actual)


# --- Deck and hands --------------------------------------------------------------------------


def test_deck_is_104_cards_in_canonical_order() -> None:
    """Deck and hands: four colours and both trump families 0–16, two Jokers."""
    info = RULES.deck(4)
    assert len(info.cards) == 104
    assert info.cards == canonical(info.cards)
    counts = Counter(info.cards)
    assert counts["joker"] == 2
    for family in ("red", "blue", "green", "yellow", "rainbow", "shadow"):
        assert all(counts[f"{family}-{v}"] == 1 for v in range(17))
    assert "numx" not in counts and "bomb" not in counts


@pytest.mark.parametrize(
    ("players", "hand", "exchange"),
    [(3, 15, 5), (4, 15, 5), (5, 15, 5), (6, 13, 3), (7, 13, 3), (8, 13, 3)],
)
def test_hand_and_exchange_sizes_by_player_count(players: int, hand: int, exchange: int) -> None:
    """Deck and hands table: 15/5 for 3–5 players, 13/3 for 6–8; the rest is set aside."""
    info = RULES.deck(players)
    assert info.hand_size == hand
    assert info.set_aside == 104 - players * hand
    assert RULES.exchange_size(players) == exchange


@pytest.mark.parametrize("players", range(3, 9))
def test_speed_wars_ten_cards_exchange_two(players: int) -> None:
    """Deck and hands, variant `speed` ("Speed Wars"): 10 cards each, exchange 2."""
    speed = NumWarsClassic(ClassicOptions(speed=True))
    info = speed.deck(players)
    assert info.hand_size == 10 and info.set_aside == 104 - 10 * players
    assert speed.exchange_size(players) == 2


@pytest.mark.parametrize("players", [2, 9, 0, -1])
def test_player_count_out_of_range(players: int) -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.deck(players)
    assert err.value.code == "bad-player-count"


@pytest.mark.parametrize("players", [3, 5, 7])
def test_alliance_refused_with_odd_tables(players: int) -> None:
    """Match and variants: `alliance` is for 4, 6 or 8 players, refused where players is known."""
    rules = NumWarsClassic(ClassicOptions(alliance=True))
    calls: list[Callable[[], object]] = [
        lambda: rules.deck(players),
        lambda: rules.deal(RoundSetup(players=players, seed=1)),
        lambda: rules.new_round(RoundSetup(players=players, seed=1)),
        lambda: rules.legal_moves(players, ["red-1"], []),
        lambda: rules.resolve_trick(players, trick(*DECK[:players], players=players)),
        lambda: rules.score_round(piles(*[[] for _ in range(players)])),
    ]
    for call in calls:
        with pytest.raises(InvalidInput) as err:
            call()
        assert err.value.code == "bad-option"
        assert err.value.errors[0].field == "options.alliance"


@pytest.mark.parametrize("players", [4, 6, 8])
def test_alliance_accepted_with_even_tables(players: int) -> None:
    rules = NumWarsClassic(ClassicOptions(alliance=True))
    assert rules.deck(players).players == players


def test_unknown_option_is_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        registry.make("numwars-classic", {"exchange": 2})
    assert err.value.code == "bad-option"


# --- Set-up: the deal ----------------------------------------------------------------------


@pytest.mark.parametrize("players", range(3, 9))
@pytest.mark.parametrize("speed", [False, True])
def test_deal_conserves_the_deck(players: int, speed: bool) -> None:
    """Set-up: shuffle, deal `hand_size` each, the undealt cards are set aside."""
    rules = NumWarsClassic(ClassicOptions(speed=speed))
    deal = rules.deal(RoundSetup(players=players, seed=42, dealer=players - 1))
    k = rules.hand_size(players)
    assert [len(h) for h in deal.hands] == [k] * players
    assert all(h == canonical(h) for h in deal.hands)
    assert deal.set_aside == canonical(deal.set_aside)
    assert Counter(c for h in deal.hands for c in h) + Counter(deal.set_aside) == Counter(DECK)
    assert deal.dealer == deal.leader == players - 1


def test_deal_is_seeded() -> None:
    """rules/README.md: same ruleset, options, count and seed → the same deal."""
    a = RULES.deal(RoundSetup(players=5, seed=7))
    assert a == RULES.deal(RoundSetup(players=5, seed=7))
    assert a.hands != RULES.deal(RoundSetup(players=5, seed=8)).hands


def test_deal_rejects_a_dealer_out_of_range() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.deal(RoundSetup(players=4, seed=1, dealer=4))
    assert err.value.errors[0].field == "dealer"


# --- Playing a card ----------------------------------------------------------------------------


def test_lead_any_card() -> None:
    """Playing a card, Lead: any card, listed once (two Jokers are one choice)."""
    hand = ["rainbow-3", "joker", "red-1", "joker", "shadow-16", "blue-0"]
    assert legal(hand) == ["red-1", "blue-0", "rainbow-3", "shadow-16", "joker"]


@pytest.mark.parametrize("lead", ["rainbow-5", "shadow-5"])
def test_trump_lead_asks_trump_of_either_family(lead: str) -> None:
    """Lead, Ruling: a Rainbow or a Shadow asks for trump, either family, not its family."""
    assert legal(["red-5", "shadow-3", "rainbow-2"], lead) == ["rainbow-2", "shadow-3"]
    assert legal(["red-5", "shadow-9"], lead) == ["shadow-9"]
    assert legal(["red-5", "rainbow-9"], lead) == ["rainbow-9"]
    assert reason(["red-5", "shadow-9"], [lead], "red-5") == "must-play-trump"


def test_joker_lead_asks_nothing_until_a_non_joker() -> None:
    """Lead, Ruling: a Joker lead asks nothing; the first non-Joker card sets what is asked."""
    hand = ["red-1", "blue-2", "rainbow-3"]
    assert legal(hand, "joker") == ["red-1", "blue-2", "rainbow-3"]
    assert legal(hand, "joker", "blue-5") == ["blue-2", "rainbow-3"]
    assert legal(["red-1", "blue-2", "rainbow-3", "shadow-4"], "joker", "joker", "shadow-2") == [
        "rainbow-3",
        "shadow-4",
    ]


def test_joker_playable_at_any_time() -> None:
    """Joker: may be played at any time, whatever is asked."""
    assert "joker" in legal(["red-1", "joker"], "red-9")
    assert "joker" in legal(["rainbow-1", "joker"], "shadow-9")
    assert "joker" in legal(["shadow-15", "joker"], "red-2", "rainbow-14")
    assert reason(["red-1", "joker"], ["red-9"], "joker") is None


def test_colour_asked_free_choice_between_colour_and_trump() -> None:
    """Colour asked: that colour or a trump ("vous pouvez toujours choisir")."""
    hand = ["red-3", "red-14", "blue-9", "shadow-0"]
    assert legal(hand, "red-12") == ["red-3", "red-14", "shadow-0"]
    assert reason(hand, ["red-12"], "shadow-0") is None
    assert reason(hand, ["red-12"], "blue-9") == "must-follow-color"


def test_colour_asked_holding_neither_any_card() -> None:
    """Colour asked, holding neither the colour nor a trump: any card."""
    assert legal(["blue-9", "green-1", "joker"], "red-12") == ["blue-9", "green-1", "joker"]


def test_colour_asked_holding_only_trumps() -> None:
    """Colour asked, no card of it but a trump: a trump (or a Joker) — must-play-trump."""
    assert legal(["blue-9", "rainbow-4"], "red-12") == ["rainbow-4"]
    assert reason(["blue-9", "rainbow-4"], ["red-12"], "blue-9") == "must-play-trump"


def test_trump_asked_holding_none_any_card() -> None:
    """Trump asked, Ruling: holding no trump, any card."""
    assert legal(["blue-9", "red-1"], "rainbow-12") == ["red-1", "blue-9"]


def test_raise_obligation_over_every_trump_in_the_trick() -> None:
    """Raise obligation: higher than EVERY trump in the trick, not only the lead."""
    hand = ["shadow-11", "shadow-13", "rainbow-16"]
    assert legal(hand, "red-1", "rainbow-10", "shadow-12", players=5) == [
        "rainbow-16",
        "shadow-13",
    ]
    assert reason(hand, ["red-1", "rainbow-10", "shadow-12"], "shadow-11") == "must-raise"


def test_raise_or_complete_a_pair_with_either_trump_played() -> None:
    """Raise obligation: completing a pair with ANY trump already played (not only the top)."""
    hand = ["rainbow-10", "rainbow-11", "shadow-15"]
    assert legal(hand, "red-1", "shadow-10", "rainbow-14", players=5) == [
        "rainbow-10",
        "shadow-15",
    ]


def test_raise_obligation_still_allows_following_colour() -> None:
    """Raise obligation: "You may still follow the colour asked instead of trumping"."""
    hand = ["red-2", "shadow-10", "shadow-14", "blue-1"]
    assert legal(hand, "red-5", "rainbow-12") == ["red-2", "shadow-14"]
    assert reason(hand, ["red-5", "rainbow-12"], "red-2") is None
    assert reason(hand, ["red-5", "rainbow-12"], "shadow-10") == "must-raise"
    assert reason(hand, ["red-5", "rainbow-12"], "blue-1") == "must-follow-color"


def test_raise_obligation_without_a_trump_in_the_trick_is_void() -> None:
    """Raise obligation only "while a trump is already in the trick"."""
    assert legal(["shadow-1", "shadow-14"], "red-5") == ["shadow-1", "shadow-14"]


def test_reason_codes_in_contract_order() -> None:
    """api-contract: the first broken obligation, card-not-in-hand first."""
    assert reason(["red-1"], ["blue-3"], "blue-4") == "card-not-in-hand"
    assert reason(["shadow-14", "shadow-1"], ["rainbow-12"], "rainbow-1") == "card-not-in-hand"
    check = RULES.validate_move(4, ["shadow-14", "shadow-1"], trick("rainbow-12"), "shadow-1")
    assert (check.legal, check.reason, check.legal_moves) == (False, "must-raise", ["shadow-14"])
    assert "Shadow 1" in check.message
    ok = RULES.validate_move(4, ["shadow-14"], trick("rainbow-12"), "shadow-14")
    assert ok.legal and ok.reason is None and ok.legal_moves == ["shadow-14"]


@pytest.mark.parametrize(
    ("hand", "played", "code", "field"),
    [
        (["red-1", "red-99"], [], "unknown-card", "hand[1]"),
        (["numx"], [], "card-not-in-deck", "hand[0]"),
        (["red-1"], ["red-1"], "duplicate-card", "trick[0]"),
        (["joker", "joker"], ["joker"], "duplicate-card", "trick[0]"),
    ],
)
def test_bad_cards_in_a_position(hand: list[str], played: list[str], code: str, field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.legal_moves(4, hand, trick(*played))
    assert err.value.code == code and err.value.errors[0].field == field


def test_bad_tricks_for_legal_moves() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.legal_moves(4, ["red-1"], trick("red-2", "red-3", "red-4", "red-5"))
    assert err.value.code == "bad-trick"
    with pytest.raises(InvalidInput) as err:
        RULES.legal_moves(4, ["red-1"], [TrickCard(0, "red-2"), TrickCard(2, "red-3")])
    assert err.value.code == "bad-trick"


def test_validate_move_unknown_card() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.validate_move(4, ["red-1"], [], "purple-1")
    assert err.value.code == "unknown-card" and err.value.errors[0].field == "card"


# --- Resolving the trick -----------------------------------------------------------------------


def test_rule1_no_trump_highest_of_colour_asked() -> None:
    """Rule 1: no trump, the highest card of the colour asked takes the whole trick."""
    result = RULES.resolve_trick(4, trick("blue-3", "red-16", "blue-9", "joker"))
    assert result.winner == result.next_leader == 2
    assert takes(result) == {2: ["red-16", "blue-3", "blue-9", "joker"]}
    assert result.pairs == [] and not result.annulled


def test_joker_never_wins_even_when_led() -> None:
    """Joker: it never wins a trick; a Joker lead lets the next card set what is asked."""
    result = RULES.resolve_trick(3, trick("joker", "green-2", "red-16", players=3))
    assert result.winner == 1


def test_rule2_no_pair_highest_trump_either_family() -> None:
    """Rule 2: no pair, the highest trump takes all; Rainbow and Shadow are equivalent."""
    result = RULES.resolve_trick(4, trick("red-16", "shadow-9", "rainbow-8", "red-15", leader=1))
    assert result.winner == 2
    assert takes(result) == {2: ["red-15", "red-16", "rainbow-8", "shadow-9"]}


def test_rule3_ruling_single_between_two_pairs() -> None:
    """Rule 3, Ruling (pair 14, single 12, pair 10): pairs above S split, lower ones go to S."""
    played = ["red-3", "rainbow-14", "shadow-14", "rainbow-12", "rainbow-10", "shadow-10"]
    result = RULES.resolve_trick(6, trick(*played, players=6))
    assert [(p.seat, p.cards) for p in result.pairs] == [(2, ["rainbow-14", "shadow-14"])]
    assert takes(result) == {
        2: ["rainbow-14", "shadow-14"],
        3: ["red-3", "rainbow-10", "rainbow-12", "shadow-10"],
    }
    assert result.winner == result.next_leader == 3


def test_rule3_pair_played_shadow_first_goes_to_shadow_player() -> None:
    """Rule 3: a winning pair goes to the player of its `shadow` card, whatever the order."""
    result = RULES.resolve_trick(4, trick("shadow-7", "rainbow-7", "red-1", "blue-16"))
    assert [(p.seat, p.cards) for p in result.pairs] == [(0, ["rainbow-7", "shadow-7"])]
    # Rule 4: trump asked, no single: the rest to the Shadow player of the highest pair.
    assert takes(result) == {0: ["red-1", "blue-16", "rainbow-7", "shadow-7"]}
    assert result.winner == 0


def test_rule4_rest_to_highest_of_colour_asked_when_no_single() -> None:
    """Rule 4: no single, the rest goes to the highest card of the colour asked."""
    result = RULES.resolve_trick(
        5, trick("red-2", "rainbow-3", "red-9", "shadow-3", "blue-16", players=5)
    )
    assert takes(result) == {2: ["red-2", "red-9", "blue-16"], 3: ["rainbow-3", "shadow-3"]}
    assert result.winner == result.next_leader == 2


def test_rule4_rest_to_single_even_below_the_colour() -> None:
    """Rule 4: with a single (below the winning pair), the rest goes to S, not the colour."""
    result = RULES.resolve_trick(
        5, trick("red-16", "rainbow-9", "shadow-9", "shadow-2", "red-1", players=5)
    )
    assert takes(result) == {2: ["rainbow-9", "shadow-9"], 3: ["red-1", "red-16", "shadow-2"]}
    assert result.winner == 3


def test_rule4_joker_lead_then_pair_asks_trump() -> None:
    """Lead Ruling + rule 4: a Joker lead then a trump asks trump; no colour can take the rest."""
    result = RULES.resolve_trick(4, trick("joker", "rainbow-3", "shadow-3", "red-16"))
    assert takes(result) == {2: ["red-16", "rainbow-3", "shadow-3", "joker"]}
    assert result.winner == 2


def test_rule5_nothing_left_shadow_of_highest_pair_leads() -> None:
    """Rule 5: when nothing was left, the `shadow` player of the highest pair leads."""
    result = RULES.resolve_trick(4, trick("rainbow-10", "shadow-14", "shadow-10", "rainbow-14"))
    assert takes(result) == {1: ["rainbow-14", "shadow-14"], 2: ["rainbow-10", "shadow-10"]}
    assert [p.seat for p in result.pairs] == [1, 2]
    assert result.winner == result.next_leader == 1


def test_rule5_pair_taker_does_not_lead() -> None:
    """Rule 5: a player who only took a pair does not lead."""
    result = RULES.resolve_trick(4, trick("green-8", "rainbow-12", "shadow-12", "yellow-5"))
    assert result.next_leader == 0 and result.pairs[0].seat == 2


def test_resolve_trick_needs_one_card_per_player() -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.resolve_trick(4, trick("red-1", "red-2", "red-3"))
    assert err.value.code == "bad-trick"
    with pytest.raises(InvalidInput) as err:
        RULES.resolve_trick(3, trick("red-1", "red-1", "red-3", players=3))
    assert err.value.code == "duplicate-card"


@st.composite
def complete_tricks(draw: st.DrawFn) -> tuple[int, list[TrickCard]]:
    players = draw(st.integers(3, 8))
    cards = draw(st.permutations(DECK))[:players]
    # Bias towards trumps so that pairs, singles and splits all appear.
    trumps = [c for c in DECK if c.startswith(("rainbow", "shadow"))]
    mix = draw(st.lists(st.sampled_from(trumps), max_size=players, unique=True))
    pool = mix + [c for c in cards if c not in mix][: players - len(mix)]
    pool = draw(st.permutations(pool))
    leader = draw(st.integers(0, players - 1))
    return players, trick(*pool, leader=leader, players=players)


@settings(max_examples=300, deadline=None)
@given(complete_tricks())
def test_duel_invariants(case: tuple[int, list[TrickCard]]) -> None:
    """Resolving the trick: every card taken once, winner leads, split pairs beat every single."""
    players, played = case
    result = RULES.resolve_trick(players, played)
    taken = [c for cap in result.captures for c in cap.cards]
    assert Counter(taken) == Counter(t.card for t in played)
    assert [c.seat for c in result.captures] == sorted({c.seat for c in result.captures})
    assert result.winner == result.next_leader
    assert result.winner in {c.seat for c in result.captures}
    by_seat = {t.seat: t.card for t in played}
    trumps = {(c.split("-")[0], int(c.split("-")[1])) for c in by_seat.values() if c != "joker"}
    trumps = {(f, v) for f, v in trumps if f in ("rainbow", "shadow")}
    values = [v for _, v in trumps]
    singles = [v for v in values if values.count(v) == 1]
    for pair in result.pairs:
        value = int(pair.cards[0].split("-")[1])
        assert pair.cards == [f"rainbow-{value}", f"shadow-{value}"]
        assert by_seat[pair.seat] == f"shadow-{value}"
        assert all(value > s for s in singles)
        assert set(pair.cards) <= set(takes(result)[pair.seat])
    if singles and all(max(singles) > v for v in values if v not in singles):
        assert result.pairs == [] and len(result.captures) == 1
    if not trumps:
        assert len(result.captures) == 1


# --- Scoring a round -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "points"),
    [
        (["red-14"], 14),
        (["red-14", "blue-14"], 0),
        (["red-14", "blue-14", "green-14"], 44),
        (["red-14", "blue-14", "green-14", "yellow-14"], 64),
        (["red-3", "blue-3", "green-3"], 33),
        (["red-0"], 0),
    ],
)
def test_value_groups(cards: list[str], points: int) -> None:
    """Scoring: classic cards by value, 1 = value, 2 = 0, 3 = value + 30, 4 = value + 50."""
    assert RULES.score_round(piles(cards)).players[0].score == points


def test_trump_pair_scores_its_value_however_it_got_there() -> None:
    """Scoring: `rainbow-X` and `shadow-X` in one pile score X, split or separate tricks."""
    score = RULES.score_round(piles(["shadow-15", "red-1", "rainbow-15", "rainbow-0", "shadow-0"]))
    player = score.players[0]
    assert player.score == 16
    labels = {line.label: line for line in player.breakdown}
    assert labels["trump pair 15"].cards == ["rainbow-15", "shadow-15"]
    assert labels["trump pair 15"].points == 15 and labels["trump pair 0"].points == 0


def test_lone_trumps_and_jokers_score_zero_but_are_listed() -> None:
    """Scoring: lone trumps and Jokers score 0; the breakdown lists every card once."""
    pile = ["joker", "rainbow-12", "shadow-10", "joker", "red-3"]
    player = RULES.score_round(piles(pile)).players[0]
    assert player.score == 3
    listed = [c for line in player.breakdown for c in line.cards]
    assert Counter(listed) == Counter(pile)
    assert all(line.cards == canonical(line.cards) for line in player.breakdown)


def test_trump_pair_split_across_piles_scores_nothing() -> None:
    score = RULES.score_round(piles(["rainbow-16"], ["shadow-16"]))
    assert [p.score for p in score.players] == [0, 0]
    assert score.winners == [0, 1]


@pytest.mark.parametrize(
    ("cards", "code", "field"),
    [
        ([["red-1"], ["red-1"]], "duplicate-card", "players[1].captured[0]"),
        ([["joker", "joker"], ["joker"]], "duplicate-card", "players[1].captured[0]"),
        ([["red-17"]], "unknown-card", "players[0].captured[0]"),
        ([["bomb"]], "card-not-in-deck", "players[0].captured[0]"),
    ],
)
def test_score_round_validates_cards(cards: list[list[str]], code: str, field: str) -> None:
    """cards.md: a unique card at most once across all piles; Jokers up to 2."""
    with pytest.raises(InvalidInput) as err:
        RULES.score_round(piles(*cards))
    assert err.value.code == code and err.value.errors[0].field == field


@pytest.mark.parametrize("count", [0, 9])
def test_score_round_pile_count(count: int) -> None:
    with pytest.raises(InvalidInput) as err:
        RULES.score_round(piles(*[[] for _ in range(count)]))
    assert err.value.code == "bad-player-count"


def test_alliance_team_scores_partners_opposite() -> None:
    """Alliance: partners opposite (s, s + n/2), team score = sum; winners = the team's seats."""
    rules = NumWarsClassic(ClassicOptions(alliance=True))
    score = rules.score_round(piles(["red-5"], ["red-9"], ["blue-7"], ["blue-2"]))
    assert score.teams is not msgspec.UNSET
    assert [(t.seats, t.score) for t in score.teams] == [([0, 2], 12), ([1, 3], 11)]
    assert score.winners == [0, 2]
    tied = rules.score_round(piles(["red-5"], ["red-9"], ["blue-6"], ["blue-4"], [], []))
    assert tied.winners == [0, 1, 3, 4]


# --- Match and variants ------------------------------------------------------------------------


def round_score(*scores: int) -> RoundScore:
    return RoundScore(
        players=[PlayerScore(seat=s, score=v, breakdown=[]) for s, v in enumerate(scores)],
        winners=[],
    )


def test_match_totals_and_winner() -> None:
    """Match: highest total wins."""
    result = RULES.score_match([round_score(10, 20, 5), round_score(30, 5, 5)])
    assert result.totals == [40, 25, 10] and result.winners == [0]
    assert not result.tiebreak_needed


def test_match_tie_calls_for_a_tiebreak_round() -> None:
    """Match: a tie on the total calls for a tie-break round (option `tiebreak`, default on)."""
    rounds = [round_score(10, 20, 5), round_score(10, 0, 5)]
    assert RULES.score_match(rounds).tiebreak_needed
    assert RULES.score_match(rounds).winners == [0, 1]
    off = NumWarsClassic(ClassicOptions(tiebreak=False)).score_match(rounds)
    assert off.winners == [0, 1] and not off.tiebreak_needed


def test_match_alliance_team_totals() -> None:
    rules = NumWarsClassic(ClassicOptions(alliance=True))
    result = rules.score_match([round_score(10, 20, 15, 4), round_score(1, 1, 1, 1)])
    assert result.teams is not msgspec.UNSET
    assert [t.score for t in result.teams] == [27, 26]
    assert result.winners == [0, 2] and not result.tiebreak_needed
    tie = rules.score_match([round_score(10, 20, 15, 5)])
    assert tie.winners == [0, 1, 2, 3] and tie.tiebreak_needed


def test_match_input_errors() -> None:
    with pytest.raises(InvalidInput):
        RULES.score_match([])
    with pytest.raises(InvalidInput):
        RULES.score_match([round_score(1, 2, 3), round_score(1, 2)])


def test_tiebreak_one_round_decides_among_tied_only() -> None:
    """Ruling: the tie-break round alone decides between the tied players."""
    out = decide_tiebreak([0, 2], [round_score(5, 99, 7)])
    assert (out.winners, out.decided, out.another_round, out.shared) == ([2], True, False, False)


def test_tiebreak_still_tied_then_at_most_three_then_shared() -> None:
    """Ruling: while still tied another round between them, at most 3, then the win is shared."""
    tied = [0, 1, 2]
    first = decide_tiebreak(tied, [round_score(5, 5, 1)])
    assert first.winners == [0, 1] and first.another_round and not first.decided
    three = [round_score(5, 5, 1), round_score(3, 3, 9), round_score(0, 0, 0)]
    out = decide_tiebreak(tied, three)
    assert out.winners == [0, 1] and out.shared and out.decided and out.rounds_used == 3
    assert decide_tiebreak(tied, [*three, round_score(9, 0, 0)]).winners == [0, 1]


def test_tiebreak_no_rounds_yet() -> None:
    out = decide_tiebreak([1, 3], [])
    assert out.another_round and out.rounds_used == 0 and out.winners == [1, 3]


def test_tiebreak_alliance_uses_team_totals() -> None:
    """Ruling: team totals under `alliance`."""
    rules = NumWarsClassic(ClassicOptions(alliance=True))
    out = rules.tiebreak([0, 1, 2, 3], [round_score(10, 1, 0, 12)])
    assert out.winners == [1, 3] and out.decided
    again = rules.tiebreak([0, 1, 2, 3], [round_score(10, 1, 1, 10)])
    assert again.winners == [0, 1, 2, 3] and again.another_round


def test_tiebreak_round_must_score_the_tied_seats() -> None:
    with pytest.raises(InvalidInput):
        decide_tiebreak([0, 5], [round_score(1, 2, 3)])
