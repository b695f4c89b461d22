"""`numwars` stateless rules (rules/numwars.md): deck, deal, legal moves, tricks, scoring.

Each test names the paragraph or Ruling of the spec it pins.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from engine.core.base import BOMB_OUTCOMES, ROLES, RoundScore, RoundSetup, TrickCard
from engine.core.errors import InvalidInput
from engine.core.rng import Rng
from engine.numwars.cards import BOMB_HOLDER
from engine.numwars.rules import NumWars, NumWarsOptions
from engine.numwars.scoring import NumWarsPile, score_piles
from engine.registry import make
from tests.conftest import CONFORMANCE_DIR

RULES = NumWars()
CONFORMANCE = CONFORMANCE_DIR

#: The spec's deck table: players -> (deck size, cards per player, set aside).
TABLE = {
    3: (82, 27, 1),
    4: (82, 20, 2),
    5: (82, 16, 2),
    6: (106, 17, 4),
    7: (106, 15, 1),
    8: (106, 13, 2),
}


def trick(*cards: str, leader: int = 0, players: int = 4) -> list[TrickCard]:
    return [TrickCard(seat=(leader + i) % players, card=c) for i, c in enumerate(cards)]


def legal(hand: list[str], *cards: str, players: int = 4) -> list[str]:
    return RULES.legal_moves(players, hand, trick(*cards, players=players)).legal


def reason(hand: list[str], card: str, *cards: str, players: int = 4) -> str | None:
    check = RULES.validate_move(players, hand, trick(*cards, players=players), card)
    assert check.legal_moves == legal(hand, *cards, players=players)
    assert check.legal == (check.reason is None)
    return check.reason


def error(fn: Any, *args: Any, **kwargs: Any) -> InvalidInput:
    with pytest.raises(InvalidInput) as err:
        fn(*args, **kwargs)
    return err.value


# --- Deck -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", sorted(TABLE))
def test_deck_table(players: int) -> None:
    """Deck: reduced 0–12 for 3–5 players, full 0–16 for 6–8; hand size and set-aside."""
    size, hand, aside = TABLE[players]
    info = RULES.deck(players)
    assert (info.players, len(info.cards), info.hand_size, info.set_aside) == (
        players,
        size,
        hand,
        aside,
    )
    assert hand * players + aside == size
    high = 12 if players <= 5 else 16
    assert f"red-{high}" in info.cards and f"shadow-{high}" in info.cards
    assert f"rainbow-{high + 1}" not in info.cards
    assert {"joker", "numx", "bomb", "quantum"} <= set(info.cards)
    assert len(set(info.cards)) == size


@pytest.mark.parametrize("players", [0, 2, 9, -1])
def test_player_count_errors(players: int) -> None:
    """Deck: 3 to 8 players."""
    assert error(RULES.deck, players).code == "bad-player-count"
    assert error(RULES.deal, RoundSetup(players=players, seed=1)).code == "bad-player-count"


@pytest.mark.parametrize("k", [-1, 6, 10])
def test_exchange_option_range(k: int) -> None:
    """Set-up 3: option exchange 0 ≤ k ≤ 5."""
    err = error(NumWars, NumWarsOptions(exchange=k))
    assert (err.code, err.errors[0].field) == ("bad-option", "options.exchange")
    assert error(make, "numwars", {"exchange": k}).code == "bad-option"
    assert make("numwars", {"exchange": 5}).options.exchange == 5


def test_joker_is_not_in_the_three_player_deck() -> None:
    """Set-up 1: with 3 players the Joker is out of the round (card-not-in-deck)."""
    assert error(RULES.legal_moves, 3, ["joker"], []).code == "card-not-in-deck"
    assert error(RULES.validate_move, 3, ["red-1"], [], "joker").code == "card-not-in-deck"
    assert error(RULES.resolve_trick, 3, trick("red-1", "joker", "red-2", players=3)).code == (
        "card-not-in-deck"
    )
    assert RULES.legal_moves(4, ["joker"], []).legal == ["joker"]


def test_values_above_twelve_only_with_six_players_or_more() -> None:
    """Deck: the reduced deck stops at 12."""
    err = error(RULES.legal_moves, 5, ["red-13"], [])
    assert (err.code, err.errors[0].field) == ("card-not-in-deck", "hand[0]")
    assert RULES.legal_moves(6, ["red-13"], []).legal == ["red-13"]


# --- Deal -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", sorted(TABLE))
@pytest.mark.parametrize("seed", [0, 1, 99, 2**63 + 5])
def test_deal_uses_every_card_once(players: int, seed: int) -> None:
    """Set-up 1-2: hands reach the hand size; the remainder is set aside (3p: the Joker)."""
    deal = RULES.deal(RoundSetup(players=players, seed=seed, dealer=players - 1))
    _, hand, aside = TABLE[players]
    assert [len(h) for h in deal.hands] == [hand] * players
    assert len(deal.set_aside) == aside
    everything = [c for h in deal.hands for c in h] + deal.set_aside
    assert Counter(everything) == Counter(RULES.deck(players).cards)
    if players == 3:
        assert deal.set_aside == ["joker"]
    assert (deal.dealer, deal.leader) == (players - 1, players - 1)
    for h in deal.hands:
        assert h == sorted(h, key=RULES.deck(players).cards.index)


@pytest.mark.parametrize("players", sorted(TABLE))
def test_role_draw(players: int) -> None:
    """Set-up 1: one lot card per seat; roles follow from it; 'anything else' is civil."""
    lot = ["bomb", "quantum", "numx"] + (["joker"] if players >= 4 else [])
    lot += ["red-1", "blue-1", "green-1", "yellow-1"][: players - len(lot)]
    of_card = {"bomb": "poseur", "joker": "complice", "quantum": "demineur", "numx": "agent"}
    for seed in range(20):
        deal = RULES.deal(RoundSetup(players=players, seed=seed))
        assert isinstance(deal.roles, list)
        holders = [next(s for s, h in enumerate(deal.hands) if card in h) for card in lot]
        assert sorted(holders) == list(range(players)), "each seat receives one lot card"
        for card, seat in zip(lot, holders, strict=True):
            assert deal.roles[seat] == of_card.get(card, "civil")
        expected = Counter(of_card[c] for c in lot if c in of_card)
        expected["civil"] += players - len(expected)
        assert Counter(deal.roles) == +expected


def test_role_draw_follows_the_documented_algorithm() -> None:
    """Set-up 1-2 (as the module docstring documents): the lot, in the spec's order, is
    shuffled with Rng(seed) and lot[s] goes to seat s; then the rest is shuffled and dealt."""
    for players in (3, 6):
        rng = Rng(7)
        lot = ["bomb", "quantum", "numx", "joker", "red-1", "blue-1", "green-1", "yellow-1"]
        lot = [c for c in lot if players >= 4 or c != "joker"][:players]
        rng.shuffle(lot)
        deal = RULES.deal(RoundSetup(players=players, seed=7))
        assert all(lot[s] in deal.hands[s] for s in range(players))
        excluded = set(lot) | ({"joker"} if players == 3 else set())
        rest = [c for c in RULES.deck(players).cards if c not in excluded]
        rng.shuffle(rest)
        k = TABLE[players][1] - 1
        assert set(deal.hands[0]) == {lot[0], *rest[:k]}


def test_deal_is_reproducible_and_seeded() -> None:
    """rules/README.md: the same seed always gives the same deal."""
    a = RULES.deal(RoundSetup(players=5, seed=42))
    assert a == RULES.deal(RoundSetup(players=5, seed=42))
    assert a != RULES.deal(RoundSetup(players=5, seed=43))
    bombs = Counter(
        next(
            s
            for s, r in enumerate(RULES.deal(RoundSetup(players=4, seed=i)).roles)
            if r == "poseur"
        )
        for i in range(200)
    )
    assert set(bombs) == {0, 1, 2, 3}


# --- Leading ----------------------------------------------------------------------------


def test_lead_classic_or_real_trump_only() -> None:
    """Leading, Ruling: a special may lead only without classic card and real trump."""
    hand = ["red-3", "shadow-4", "bomb"]
    assert legal(hand) == ["red-3", "shadow-4"]
    assert reason(hand, "bomb") == "special-lead"
    assert legal(["rainbow-0", "numx"]) == ["rainbow-0"]
    assert reason(["rainbow-0", "numx"], "numx") == "special-lead"
    assert legal(["quantum", "numx"]) == ["numx", "quantum"]


def test_special_lead_asks_for_trump() -> None:
    """Leading, Ruling: a special lead asks for trump."""
    assert legal(["red-2", "shadow-1"], "joker") == ["shadow-1"]
    assert reason(["red-2", "shadow-1"], "red-2", "joker") == "must-play-trump"


def test_real_trump_lead_asks_for_trump_of_either_family() -> None:
    """Leading: a real trump asks for trump (either family)."""
    assert legal(["red-2", "shadow-9", "rainbow-1"], "rainbow-5") == ["shadow-9"]
    assert legal(["red-2", "blue-4"], "rainbow-5") == ["red-2", "blue-4"]


# --- Following --------------------------------------------------------------------------


def test_colour_asked_must_follow() -> None:
    """Following 1: holding the colour asked, play it (a trump is refused)."""
    hand = ["red-3", "red-9", "shadow-12", "blue-1"]
    assert legal(hand, "red-5") == ["red-3", "red-9"]
    assert reason(hand, "shadow-12", "red-5") == "must-follow-color"
    assert reason(hand, "blue-1", "red-5") == "must-follow-color"


def test_colour_asked_without_colour_must_trump() -> None:
    """Following 1: without the colour but with a trump, a trump must be played."""
    hand = ["blue-1", "rainbow-2", "green-7"]
    assert legal(hand, "red-5") == ["rainbow-2"]
    assert reason(hand, "blue-1", "red-5") == "must-play-trump"


def test_without_colour_or_trump_any_card() -> None:
    """Following 1-2: with neither, any card."""
    assert legal(["green-7", "blue-1"], "red-5") == ["blue-1", "green-7"]
    assert legal(["green-7", "blue-1"], "shadow-5") == ["blue-1", "green-7"]


def test_trump_asked_must_trump_and_raise() -> None:
    """Following 2-3: trump asked; the trump must raise when one does."""
    hand = ["red-1", "shadow-3", "rainbow-9"]
    assert legal(hand, "rainbow-5") == ["rainbow-9"]
    assert reason(hand, "shadow-3", "rainbow-5") == "must-raise"
    assert reason(hand, "red-1", "rainbow-5") == "must-play-trump"


def test_no_raising_trump_any_trump() -> None:
    """Following 3: if none of your trumps raises, any trump."""
    assert legal(["red-1", "shadow-3", "rainbow-2"], "rainbow-5") == ["rainbow-2", "shadow-3"]


def test_raise_over_trumps_of_a_colour_trick() -> None:
    """Following 1+3: trumping a colour trick must raise over the contesting trumps."""
    hand = ["blue-1", "rainbow-2", "shadow-8"]
    assert legal(hand, "red-5", "shadow-6") == ["shadow-8"]
    assert reason(hand, "rainbow-2", "red-5", "shadow-6") == "must-raise"


def test_no_raise_obligation_without_contesting_trump() -> None:
    """Following 3: with no trump contesting there is no raise obligation."""
    assert legal(["rainbow-2", "shadow-8", "bomb"], "red-5") == ["rainbow-2", "shadow-8", "bomb"]


def test_pairs_leave_the_contest_for_raising() -> None:
    """Trump pairs: a paired trump no longer counts for raising (only contesting ones do)."""
    hand = ["shadow-5", "rainbow-2", "red-1"]
    assert legal(hand, "rainbow-9", "shadow-9", "rainbow-3") == ["shadow-5"]
    assert legal(hand, "rainbow-9", "rainbow-3") == ["rainbow-2", "shadow-5"]


def test_steal_rule_beats_colour_obligation() -> None:
    """Following 0: the complement of a contesting real trump may always be played."""
    hand = ["red-9", "shadow-4", "shadow-6"]
    assert legal(hand, "red-5", "rainbow-4") == ["red-9", "shadow-4"]
    assert reason(hand, "shadow-6", "red-5", "rainbow-4") == "must-follow-color"


def test_steal_rule_beats_raise_obligation() -> None:
    """Following 0: a steal needs no raise; it is a right, the raising card stays legal."""
    assert legal(["rainbow-12", "shadow-2"], "rainbow-2", "shadow-10") == ["rainbow-12", "shadow-2"]
    assert legal(["rainbow-12", "red-3"], "rainbow-2", "shadow-10") == ["rainbow-12"]


def test_steal_works_both_ways_and_never_for_specials() -> None:
    """Following 0: rainbow-X steals shadow-X and the reverse; never bomb, numx, quantum, joker."""
    assert legal(["red-9", "rainbow-4"], "red-5", "shadow-4") == ["red-9", "rainbow-4"]
    assert legal(["red-9", "numx", "quantum"], "red-5", "bomb", "rainbow-4") == ["red-9"]


def test_a_same_value_trump_pairs_rather_than_raises() -> None:
    """Strength order: a real trump of the same value as a contesting one does not raise."""
    assert legal(["shadow-7", "shadow-5", "blue-1"], "red-2", "rainbow-7") == [
        "shadow-5",
        "shadow-7",
    ]
    assert legal(["shadow-7", "shadow-9"], "red-2", "rainbow-7") == ["shadow-7", "shadow-9"]
    r = RULES.resolve_trick(4, trick("red-2", "rainbow-7", "shadow-7", "red-5"))
    assert r.winner == 3, "shadow-7 paired: it does not win as the highest trump"


@pytest.mark.parametrize("special", ["bomb", "joker", "quantum"])
def test_zero_level_trumps_forced_out_by_obligation(special: str) -> None:
    """Consequences: bomb, joker and quantum are trumps that obligation can force out."""
    hand = ["blue-3", special]
    assert legal(hand, "red-5") == [special]
    assert reason(hand, "blue-3", "red-5") == "must-play-trump"
    assert legal(hand, "rainbow-5") == [special]


def test_numx_forced_when_it_is_the_only_raising_card() -> None:
    """Consequences: numx can be forced out when it is the only card that raises."""
    hand = ["blue-1", "rainbow-3", "numx"]
    assert legal(hand, "red-5", "shadow-12") == ["numx"]
    assert reason(hand, "rainbow-3", "red-5", "shadow-12") == "must-raise"
    assert legal(["rainbow-8", "numx"], "red-5", "shadow-6") == ["rainbow-8", "numx"]


def test_joker_and_quantum_raise_on_a_contesting_bomb() -> None:
    """Consequences: on a contesting bomb, joker and quantum raise."""
    assert legal(["quantum", "blue-3"], "red-5", "bomb") == ["quantum"]
    assert legal(["joker", "blue-3"], "red-5", "bomb", players=5) == ["joker"]


def test_only_real_trump_or_numx_raise_on_joker_or_quantum() -> None:
    """Consequences: on a contesting joker or quantum only a real trump or numx raises."""
    assert legal(["quantum", "rainbow-0"], "red-5", "joker") == ["rainbow-0"]
    assert reason(["quantum", "rainbow-0"], "quantum", "red-5", "joker") == "must-raise"
    assert legal(["joker", "numx"], "red-5", "quantum") == ["numx"]
    assert legal(["joker", "bomb"], "red-5", "quantum") == ["joker", "bomb"]


def test_reason_order_card_not_in_hand_first() -> None:
    """Contract: card-not-in-hand is the first reason checked."""
    assert reason(["red-3", "shadow-4"], "blue-2") == "card-not-in-hand"
    assert reason(["red-3"], "shadow-4", "red-5") == "card-not-in-hand"
    assert reason(["red-3"], "red-3", "red-5") is None


def test_legal_list_is_canonical_and_deduplicated() -> None:
    """cards.md: every card list in canonical order."""
    hand = ["shadow-4", "yellow-2", "numx", "red-9", "rainbow-11", "blue-0"]
    assert legal(hand) == ["red-9", "blue-0", "yellow-2", "rainbow-11", "shadow-4"]
    assert legal(["shadow-4", "rainbow-9"], "red-1", "rainbow-4") == ["rainbow-9", "shadow-4"]


def test_input_errors() -> None:
    """Conventions: bad tricks and duplicated cards are refused with the field named."""
    err = error(RULES.legal_moves, 4, ["red-3", "red-3"], [])
    assert (err.code, err.errors[0].field) == ("duplicate-card", "hand[1]")
    err = error(RULES.legal_moves, 4, ["red-3"], trick("red-3"))
    assert err.code == "duplicate-card"
    err = error(RULES.legal_moves, 4, ["red-3"], [TrickCard(0, "red-1"), TrickCard(2, "red-2")])
    assert err.code == "bad-trick"
    err = error(RULES.legal_moves, 4, ["red-3"], trick("red-1", "red-2", "red-4", "red-5"))
    assert err.code == "bad-trick"
    assert error(RULES.legal_moves, 4, ["purple-3"], []).code == "unknown-card"
    err = error(RULES.validate_move, 4, ["red-3"], [], "red-99")
    assert (err.code, err.errors[0].field) == ("unknown-card", "card")
    err = error(RULES.validate_move, 4, ["red-3"], [], "red-16")
    assert (err.code, err.errors[0].field) == ("card-not-in-deck", "card")


# --- Trick resolution -------------------------------------------------------------------


def resolve(
    *cards: str,
    players: int = 4,
    leader: int = 0,
    roles: list[str] | None = None,
    neutralize: bool = True,
) -> Any:
    return RULES.resolve_trick(
        players, trick(*cards, leader=leader, players=players), roles, neutralize
    )


def captures(result: Any) -> dict[int, list[str]]:
    return {c.seat: c.cards for c in result.captures}


def test_pair_taken_by_the_second_player_whoever_wins() -> None:
    """Trump pairs: the second card's player takes both at once, whoever wins the trick."""
    r = resolve("red-5", "rainbow-7", "shadow-7", "red-9")
    assert [(p.seat, p.cards) for p in r.pairs] == [(2, ["rainbow-7", "shadow-7"])]
    assert (r.winner, r.next_leader) == (3, 3)
    assert captures(r) == {2: ["rainbow-7", "shadow-7"], 3: ["red-5", "red-9"]}
    assert r.bomb is None
    r = resolve("blue-2", "shadow-4", "shadow-9", "rainbow-4")
    assert [(p.seat, p.cards) for p in r.pairs] == [(3, ["rainbow-4", "shadow-4"])]
    assert r.winner == 2 and captures(r) == {
        2: ["blue-2", "shadow-9"],
        3: ["rainbow-4", "shadow-4"],
    }


def test_numx_always_wins() -> None:
    """Winning the contest 1: numx wins."""
    assert resolve("shadow-12", "numx", "rainbow-11", "red-3").winner == 1


def test_highest_real_trump_wins_whatever_the_family() -> None:
    """Winning the contest 2: strength is the value, family does not matter."""
    assert resolve("red-5", "rainbow-3", "shadow-2", "rainbow-0").winner == 1
    assert resolve("red-5", "shadow-3", "rainbow-8", "red-12").winner == 2


def test_zero_level_trumps_never_win() -> None:
    """Winning the contest 3: the highest card of the colour asked wins; zero-level never."""
    r = resolve("red-3", "joker", "blue-9", "red-7")
    assert r.winner == 3 and captures(r) == {3: ["red-3", "red-7", "blue-9", "joker"]}
    assert resolve("red-3", "quantum", "joker", "red-1").winner == 0


def test_trump_asked_without_real_trump_first_classic_colour() -> None:
    """Winning the contest 4 (Ruling): the highest classic of the first classic's colour."""
    r = resolve("rainbow-6", "shadow-6", "blue-4", "red-9")
    assert r.winner == 2 and captures(r) == {1: ["rainbow-6", "shadow-6"], 2: ["red-9", "blue-4"]}
    assert resolve("joker", "red-4", "red-8", "blue-10").winner == 2


def test_trump_asked_nothing_left_the_leader_wins() -> None:
    """Winning the contest 4 (Ruling): no classic card either: the leader wins."""
    r = resolve("rainbow-6", "shadow-6", "joker", "quantum", leader=2)
    assert (r.winner, r.next_leader) == (2, 2)
    assert captures(r) == {2: ["joker", "quantum"], 3: ["rainbow-6", "shadow-6"]}


# --- The Bomb ---------------------------------------------------------------------------

#: A 5-player table: seat 0 poseur, 1 complice, 2 demineur, 3 agent, 4 civil.
ROLES5 = ["poseur", "complice", "demineur", "agent", "civil"]


def bomb5(*cards: str, neutralize: bool = True) -> Any:
    """A 5-player trick led by seat 0 (the poseur's seat plays `cards[0]`)."""
    return resolve(*cards, players=5, roles=ROLES5, neutralize=neutralize)


def fate(r: Any) -> tuple[str, int | None, str | None]:
    return (r.bomb.outcome, r.bomb.captured_by, r.bomb.neutralized)


def test_bomb_kept_without_threat() -> None:
    """Fate of the Bomb, kept: no threat (Rainbows, classics, the Joker); Bomb to the poseur."""
    r = bomb5("bomb", "joker", "red-3", "rainbow-2", "blue-4")
    assert fate(r) == ("kept", None, None)
    assert r.winner == 3
    assert captures(r) == {0: ["bomb"], 3: ["red-3", "blue-4", "rainbow-2", "joker"]}


def test_bomb_numx_capture() -> None:
    """Fate of the Bomb: numx in the trick: numx-capture; the Joker cannot neutralize numx."""
    r = bomb5("bomb", "joker", "shadow-3", "numx", "shadow-9")
    assert fate(r) == ("numx-capture", 3, None)
    assert captures(r) == {3: ["shadow-3", "shadow-9", "numx", "joker", "bomb"]}


def test_bomb_stolen_by_the_quantum_even_against_a_shadow() -> None:
    """Who captures the Bomb (Ruling): the Quantum beats a Shadow for the Bomb."""
    r = bomb5("bomb", "red-1", "quantum", "red-2", "shadow-5")
    assert fate(r) == ("stolen", 2, None)
    assert r.winner == 4
    assert captures(r) == {2: ["bomb"], 4: ["red-1", "red-2", "shadow-5", "quantum"]}


def test_bomb_civil_capture() -> None:
    """Fate of the Bomb: the capturing Shadow played by a civil."""
    r = bomb5("bomb", "red-1", "blue-2", "rainbow-8", "shadow-5")
    assert fate(r) == ("civil-capture", 4, None)
    assert r.winner == 3 and captures(r)[4] == ["bomb"]


def test_bomb_capture_by_the_highest_shadow() -> None:
    """Who captures the Bomb: the highest Shadow among the threats."""
    r = bomb5("bomb", "shadow-2", "shadow-7", "red-2", "shadow-5")
    assert fate(r) == ("stolen", 2, None)


def test_bomb_shadow_of_the_demineur_is_stolen() -> None:
    """Ruling: the capturing Shadow played by the demineur counts as stolen."""
    assert fate(bomb5("bomb", "red-1", "shadow-4", "red-2", "red-3")) == ("stolen", 2, None)


def test_bomb_shadow_of_the_complice() -> None:
    """Ruling: the capturing Shadow played by the complice: complice-capture."""
    assert fate(bomb5("bomb", "shadow-4", "red-1", "red-2", "red-3")) == (
        "complice-capture",
        1,
        None,
    )


def test_bomb_shadow_of_the_agent_is_numx_capture() -> None:
    """Ruling: "Num-X lui-même" is the agent, whatever the card: numx-capture."""
    assert fate(bomb5("bomb", "red-1", "red-2", "shadow-4", "red-3")) == ("numx-capture", 3, None)


def test_bomb_protected_by_the_joker() -> None:
    """Joker neutralization of the only Shadow: protected; the Shadow goes to the winner."""
    r = bomb5("bomb", "joker", "red-1", "rainbow-2", "shadow-9")
    assert fate(r) == ("protected", None, "shadow-9")
    assert r.winner == 3
    assert captures(r) == {0: ["bomb"], 3: ["red-1", "rainbow-2", "shadow-9", "joker"]}


def test_bomb_protected_from_the_quantum() -> None:
    """Joker neutralization of the Quantum: protected-quantum; the demineur takes the Joker."""
    r = bomb5("bomb", "joker", "quantum", "red-7", "red-2")
    assert fate(r) == ("protected-quantum", None, "quantum")
    assert r.winner == 3
    assert captures(r) == {0: ["bomb"], 2: ["joker"], 3: ["red-2", "red-7", "quantum"]}


def test_joker_neutralizes_only_the_strongest_threat() -> None:
    """Joker neutralization: only the strongest; the remaining threat takes the Bomb."""
    r = bomb5("bomb", "joker", "shadow-3", "red-1", "shadow-8")
    assert fate(r) == ("stolen", 2, "shadow-8")
    assert r.winner == 2, "the neutralized Shadow no longer wins"
    assert captures(r) == {2: ["red-1", "shadow-3", "shadow-8", "joker", "bomb"]}
    r = bomb5("bomb", "joker", "quantum", "red-1", "shadow-8")
    assert fate(r) == ("stolen", 2, "shadow-8")


def test_joker_choice_not_to_neutralize() -> None:
    """Joker neutralization is a choice (joker_neutralizes=false)."""
    r = bomb5("bomb", "joker", "red-1", "rainbow-2", "shadow-9", neutralize=False)
    assert fate(r) == ("civil-capture", 4, None)
    assert r.winner == 4


def test_shadow_taken_in_a_pair_is_no_threat() -> None:
    """Trump pairs / Threats: a Shadow taken in a pair is no threat."""
    r = bomb5("bomb", "red-1", "rainbow-5", "shadow-5", "red-2")
    assert fate(r) == ("kept", None, None)
    assert [(p.seat, p.cards) for p in r.pairs] == [(3, ["rainbow-5", "shadow-5"])]
    r = bomb5("bomb", "joker", "shadow-5", "rainbow-5", "red-2")
    assert fate(r) == ("kept", None, None), "nothing to neutralize"


def test_bomb_lead_and_poseur_elsewhere() -> None:
    """The Bomb goes back to the poseur's pile whoever led the trick."""
    roles = ["civil", "complice", "demineur", "agent", "poseur"]
    r = resolve("red-9", "red-1", "red-2", "red-3", "bomb", players=5, roles=roles)
    assert fate(r) == ("kept", None, None) and captures(r) == {
        0: ["red-1", "red-2", "red-3", "red-9"],
        4: ["bomb"],
    }


def test_roles_required_and_checked_with_the_bomb() -> None:
    """resolve-trick: roles are needed when the trick holds the Bomb, one of each role."""
    cards = ("bomb", "red-1", "red-2", "red-3", "red-4")
    for roles, field in [
        (None, "roles"),
        (ROLES5[:4], "roles"),
        (["poseur", "complice", "demineur", "agent", "spy"], "roles[4]"),
        (["poseur", "complice", "demineur", "agent", "poseur"], "roles"),
        (["civil", "complice", "demineur", "agent", "poseur"], "roles[0]"),
    ]:
        err = error(resolve, *cards, players=5, roles=roles)
        assert (err.code, err.errors[0].field) == ("bad-request", field), roles
    err = error(resolve, "bomb", "red-1", "red-2", players=3, roles=["poseur", "demineur", "civil"])
    assert err.code == "bad-request"
    assert resolve("red-1", "red-2", "red-3", "red-4").bomb is None


@given(st.integers(3, 8), st.integers(0, 2**32), st.booleans())
@settings(max_examples=150, deadline=None)
def test_resolve_conserves_the_trick(players: int, seed: int, neutralize: bool) -> None:
    """captures hold every card of the trick exactly once; pairs are captured; winner leads."""
    rng = Rng(seed)
    deal = RULES.deal(RoundSetup(players=players, seed=seed))
    cards = [rng.choice(h) for h in deal.hands]
    leader = rng.below(players)
    t = [
        TrickCard(seat=(leader + i) % players, card=cards[(leader + i) % players])
        for i in range(players)
    ]
    assert isinstance(deal.roles, list)
    r = RULES.resolve_trick(players, t, deal.roles, neutralize)
    taken = [c for cap in r.captures for c in cap.cards]
    assert Counter(taken) == Counter(cards)
    assert [c.seat for c in r.captures] == sorted({c.seat for c in r.captures})
    assert r.winner == r.next_leader
    for p in r.pairs:
        assert set(p.cards) <= set(captures(r)[p.seat])
    assert (r.bomb is None) == ("bomb" not in cards)
    if r.bomb is not None:
        assert r.bomb.outcome in BOMB_OUTCOMES


# --- Scoring ----------------------------------------------------------------------------


def pile(role: str, *captured: str, pairs: list[list[str]] | None = None) -> NumWarsPile:
    return NumWarsPile(captured=list(captured), pairs=pairs or [], role=role)


def table(*first: NumWarsPile, players: int = 5) -> list[NumWarsPile]:
    """Fill the other seats with empty piles and the missing roles."""
    want = Counter(["poseur", "demineur", "agent"])
    if players >= 4:
        want["complice"] = 1
        want["civil"] = players - 4
    want.subtract(p.role for p in first)
    rest = [role for role, n in sorted(want.items()) for _ in range(n)]
    return [*first, *(pile(r) for r in rest)]


def bombed(piles: list[NumWarsPile], outcome: str) -> list[NumWarsPile]:
    """The piles with the Bomb where `outcome` sends it (the first seat of that role), unless
    a pile holds it already or no seat has that role."""
    holders = [s for s, p in enumerate(piles) if p.role == BOMB_HOLDER[outcome]]
    if not holders or any("bomb" in p.captured for p in piles):
        return piles
    seat = holders[0]
    held = pile(piles[seat].role, *piles[seat].captured, "bomb", pairs=piles[seat].pairs)
    return [*piles[:seat], held, *piles[seat + 1 :]]


def score(piles: list[NumWarsPile], outcome: str) -> RoundScore:
    """score-round with the Bomb in the pile the outcome sends it to (it scores 0)."""
    return RULES.score_round(bombed(piles, outcome), outcome)


def test_value_groups() -> None:
    """Scoring: 1 card = value; 2 = 0; 3 = value + 30; 4 = value + 50."""
    p = pile(
        "civil",
        "red-7",
        "blue-5",
        "green-5",
        "red-3",
        "blue-3",
        "green-3",
        "red-9",
        "blue-9",
        "green-9",
        "yellow-9",
    )
    s = score(table(p), "kept").players[0]
    assert [(line.label, line.points) for line in s.breakdown] == [
        ("3 × value 3", 33),
        ("2 × value 5", 0),
        ("1 × value 7", 7),
        ("4 × value 9", 59),
        ("role bonus (civil, kept)", 0),
    ]
    assert s.score == 99


def test_captured_pairs_score_their_value() -> None:
    """Scoring: each captured pair scores X for the player who completed it."""
    p = pile("civil", "red-2", pairs=[["shadow-7", "rainbow-7"], ["rainbow-0", "shadow-0"]])
    s = score(table(p), "kept").players[0]
    assert [(line.label, line.cards, line.points) for line in s.breakdown] == [
        ("1 × value 2", ["red-2"], 2),
        ("pair rainbow-0 + shadow-0", ["rainbow-0", "shadow-0"], 0),
        ("pair rainbow-7 + shadow-7", ["rainbow-7", "shadow-7"], 7),
        ("role bonus (civil, kept)", [], 0),
    ]
    assert s.score == 9


def test_rainbow_and_shadow_from_different_tricks_score_zero() -> None:
    """Scoring: rainbow-X + shadow-X not captured as a pair score 0 (unlike numwars-classic)."""
    p = pile("civil", "rainbow-11", "shadow-11", "numx", "joker", "bomb", "quantum")
    s = RULES.score_round(table(p), "civil-capture").players[0]
    assert s.score == 15 and [line.points for line in s.breakdown] == [15]


BONUS_TABLE = {
    "numx-capture": {"agent": -10},
    "stolen": {"demineur": 50, "agent": 30},
    "civil-capture": {"civil": 15},
    "complice-capture": {"agent": 30},
    "protected": {"poseur": 30, "complice": 20, "agent": 30},
    "protected-quantum": {"poseur": 30, "complice": 20, "demineur": 20, "agent": 30},
    "kept": {"poseur": 50, "agent": 30},
}


@pytest.mark.parametrize("outcome", BOMB_OUTCOMES)
def test_role_bonuses_of_each_outcome(outcome: str) -> None:
    """Fate of the Bomb: the bonus table, one row per outcome; every civil gets the civil's."""
    roles = ["civil", "agent", "poseur", "civil", "complice", "demineur", "civil"]
    piles = [pile(r, f"red-{s}") for s, r in enumerate(roles)]
    result = score(piles, outcome)
    for s, p in enumerate(result.players):
        bonus = BONUS_TABLE[outcome].get(roles[s], 0)
        assert p.score == s + bonus
        assert p.breakdown[-1].label == f"role bonus ({roles[s]}, {outcome})"
        assert p.breakdown[-1].points == bonus
    best = max(p.score for p in result.players)
    assert result.winners == [p.seat for p in result.players if p.score == best]


def test_no_civils_with_three_or_four_players() -> None:
    """Fate of the Bomb: with 3 or 4 players there are no civils; absent roles get nothing.
    An outcome the table's roles cannot give (a civil's capture without civils, the
    complice's capture or protection without the Joker at 3) is refused, naming it."""
    four = table(players=4)
    result = score(four, "kept")
    assert [(p.score, q.role) for p, q in zip(result.players, four, strict=True)] == [
        (30, "agent"),
        (0, "complice"),
        (0, "demineur"),
        (50, "poseur"),
    ]
    impossible = [(3, "civil-capture"), (4, "civil-capture")] + [
        (3, o) for o in ("complice-capture", "protected", "protected-quantum")
    ]
    for players, outcome in impossible:
        e = error(RULES.score_round, table(players=players), outcome)
        assert e.code == "bomb-mismatch"
        assert [f.field for f in e.errors] == ["bomb_outcome"], (players, outcome)
        assert f"{players}-player round has no" in e.message
    for players, outcome in [(3, "numx-capture"), (3, "stolen"), (4, "protected-quantum")]:
        score(table(players=players), outcome)


@pytest.mark.parametrize("outcome", BOMB_OUTCOMES)
def test_the_bomb_is_in_the_pile_its_outcome_sends_it_to(outcome: str) -> None:
    """Fate of the Bomb: "The Bomb card goes to the pile of whoever captured it, or back to
    the poseur's pile when kept or protected": in any other pile, or in none (it is the
    poseur's role card, always played), the outcome contradicts the piles (422 naming
    `bomb_outcome` and the piles concerned)."""
    roles = ["civil", "agent", "poseur", "civil", "complice", "demineur"]
    holder = BOMB_HOLDER[outcome]
    for seat, role in enumerate(roles):
        piles = [pile(r, *(["bomb"] if s == seat else [])) for s, r in enumerate(roles)]
        if role == holder:
            held = RULES.score_round(piles, outcome).players[seat]
            assert held.breakdown[-1].points == BONUS_TABLE[outcome].get(role, 0)
            continue
        e = error(RULES.score_round, piles, outcome)
        assert e.code == "bomb-mismatch"
        assert [f.field for f in e.errors] == ["bomb_outcome", f"players[{seat}].captured"]
        assert (
            f"the Bomb is in the {holder}'s pile, not in player {seat}'s (the {role})" in e.message
        )
    nobody = error(RULES.score_round, [pile(r) for r in roles], outcome)
    assert nobody.code == "bomb-mismatch"
    holders = [f"players[{s}].captured" for s, r in enumerate(roles) if r == holder]
    assert [f.field for f in nobody.errors] == ["bomb_outcome", *holders]
    assert "no pile holds it" in nobody.message


#: Role and outcome codes that a French message says in the game's words, never as codes.
_CODES_IN_FRENCH = re.compile(
    r"\b(?:poseur|complice|demineur|agent|civil|kept|stolen|protected|[a-z]+-capture)\b"
)


def test_a_bomb_mismatch_says_roles_and_outcomes_in_the_games_words() -> None:
    """A French front-end shows the refusal as it is: « Bombe gardée », « Poseur »,
    « Complice », « Démineur », never `kept`, `complice-capture` or `poseur`; English keeps
    the codes (the English rules' words)."""
    wrong = error(
        RULES.score_round,
        [pile("poseur"), pile("complice", "bomb"), pile("demineur"), pile("agent")],
        "kept",
    )
    french = wrong.render("fr")
    assert "«\u00a0Bombe gardée\u00a0»" in french and "rôle Poseur" in french, french
    assert "(rôle Complice)" in french and not _CODES_IN_FRENCH.search(french), french
    assert [f.render("fr") for f in wrong.errors] == [french, french]
    assert "after kept the Bomb is in the poseur's pile" in wrong.render("en")
    missing = error(RULES.score_round, [pile(r) for r in ("poseur", "demineur", "agent")], "stolen")
    assert "rôle Démineur" in missing.render(
        "fr"
    ) and "«\u00a0Bombe volée\u00a0»" in missing.render("fr")
    assert not _CODES_IN_FRENCH.search(missing.render("fr"))
    table3 = error(RULES.score_round, table(players=3), "complice-capture")
    assert "rôle Complice" in table3.render("fr"), table3.render("fr")
    assert "«\u00a0le Complice capture la Bombe\u00a0»" in table3.render("fr")
    assert not _CODES_IN_FRENCH.search(table3.render("fr"))


def test_a_duplicate_role_says_the_roles_in_the_games_words_with_plurals() -> None:
    """Two poseurs at a table: the refusal names the roles in the game's words with their
    counts and plurals (« 2 Poseurs », « 1 Agent double »), never `2 poseur` or a raw code in
    French; English says "2 poseurs"."""
    roles = ["poseur", "complice", "demineur", "agent", "poseur", "civil"]
    err = error(resolve, "bomb", *[f"red-{v}" for v in range(1, 6)], players=6, roles=roles)
    french, english = err.render("fr"), err.render("en")
    assert "1 Agent double, 1 Civil, 1 Complice, 1 Démineur, 2 Poseurs" in french, french
    assert "exactement 1 Agent double, 2 Civils, 1 Complice" in french, french
    assert not _CODES_IN_FRENCH.search(french), french
    assert "2 poseur," not in english and "2 poseurs" in english, english
    assert "2 civils" in english and "1 demineur" in english, english


def test_winners_share_ties() -> None:
    """Scoring: the round's winners are the highest scores; ties share."""
    piles = table(pile("civil", "red-9"), pile("complice", "blue-9"), pile("poseur", "green-1"))
    result = score(piles, "numx-capture")
    assert [p.score for p in result.players] == [9, 9, 1, -10, 0]
    assert result.winners == [0, 1]


def test_score_round_errors() -> None:
    """score-round: the whole table (3–8), each card once, deck, pairs, roles, outcome."""

    def err(piles: list[NumWarsPile], outcome: str = "kept") -> tuple[str, str | None]:
        placed = bombed(piles, outcome) if outcome in BOMB_HOLDER else piles
        e = error(RULES.score_round, placed, outcome)
        return e.code, e.errors[0].field if e.errors else None

    assert err(table(players=3)[:2])[0] == "bad-player-count"
    assert err([pile("civil")] * 9)[0] == "bad-player-count"
    assert err(table(pile("civil", "red-1"), pile("agent", "red-1"))) == (
        "duplicate-card",
        "players[1].captured[0]",
    )
    assert err(
        table(pile("civil", "red-1", pairs=[["rainbow-1", "shadow-1"]]), pile("agent", "shadow-1"))
    ) == ("duplicate-card", "players[1].captured[0]")
    assert err(table(pile("poseur", "joker"), players=3)) == (
        "card-not-in-deck",
        "players[0].captured[0]",
    )
    assert err(table(pile("civil", "red-13"))) == ("card-not-in-deck", "players[0].captured[0]")
    assert err(table(pile("civil", pairs=[["rainbow-1", "shadow-2"]]))) == (
        "bad-request",
        "players[0].pairs[0]",
    )
    assert err(table(pile("civil", pairs=[["rainbow-1"]]))) == (
        "bad-request",
        "players[0].pairs[0]",
    )
    assert err(table(pile("civil", pairs=[["red-1", "blue-1"]]))) == (
        "bad-request",
        "players[0].pairs[0]",
    )
    assert err(table(pile("spy"))) == ("bad-request", "players[0].role")
    assert err(table(pile("poseur"), pile("poseur")))[0] == "bad-request"
    assert err([pile("poseur"), pile("demineur"), pile("civil")])[0] == "bad-request"
    assert err(table(), "exploded") == ("bad-request", "bomb_outcome")
    score(table(pile("civil", "red-16"), players=6), "kept")


# --- Match ------------------------------------------------------------------------------


def round_of(*scores: int) -> RoundScore:
    """A 4-player round without bonuses (scored as civil-capture, which has no civil to pay
    at 4 players: an outcome score_round refuses at that table, good for the match's sums)."""
    roles = ["poseur", "complice", "demineur", "agent"]
    piles = [pile(r, *([f"red-{v}"] if v else [])) for r, v in zip(roles, scores, strict=True)]
    return score_piles(piles, "civil-capture")


def test_match_totals_and_winner() -> None:
    """Match: totals add up; highest total wins."""
    m = RULES.score_match([round_of(1, 2, 3, 4), round_of(9, 0, 0, 0)])
    assert m.totals == [10, 2, 3, 4]
    assert m.winners == [0] and not m.tiebreak_needed


def test_match_tie_is_a_tie_unless_tiebreak() -> None:
    """Match, Ruling: a tied total is reported as a tie; with tiebreak, a tie-break is due."""
    rounds = [round_of(5, 0, 0, 0), round_of(0, 5, 0, 0)]
    m = RULES.score_match(rounds)
    assert (m.totals, m.winners, m.tiebreak_needed) == ([5, 5, 0, 0], [0, 1], False)
    m = NumWars(NumWarsOptions(tiebreak=True)).score_match(rounds)
    assert (m.winners, m.tiebreak_needed) == ([0, 1], True)
    assert error(RULES.score_match, []).code == "bad-request"


# --- Conformance ------------------------------------------------------------------------


def conformance_cases() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(CONFORMANCE.glob("numwars*.json")):
        for case in json.loads(path.read_text()):
            if "/rulesets/numwars/" in case["path"]:
                cases.append(case)
    return cases


def call(case: dict[str, Any]) -> Any:
    """The engine call behind one stateless endpoint of the API contract."""
    path, _, query = case["path"].partition("?")
    endpoint = path.rsplit("/", 1)[-1]
    body = case["request"] or {}
    params = dict(kv.split("=") for kv in query.split("&") if kv)
    rules = NumWars(msgspec.convert(body.get("options", {}), NumWarsOptions))
    tricks = msgspec.convert(body.get("trick", []), list[TrickCard])
    if endpoint == "deck":
        return rules.deck(int(params["players"]))
    if endpoint == "deal":
        return rules.deal(RoundSetup(players=body["players"], seed=body["seed"]))
    if endpoint == "legal-moves":
        return rules.legal_moves(body["players"], body["hand"], tricks)
    if endpoint == "validate-move":
        return rules.validate_move(body["players"], body["hand"], tricks, body["card"])
    if endpoint == "resolve-trick":
        return rules.resolve_trick(
            body["players"], tricks, body.get("roles"), body.get("joker_neutralizes", True)
        )
    if endpoint == "score-round":
        piles = msgspec.convert(body["players"], list[NumWarsPile])
        return rules.score_round(piles, body["bomb_outcome"])
    raise AssertionError(f"no engine call for {endpoint}")


def subset(expect: Any, got: Any) -> None:
    if isinstance(expect, dict):
        assert isinstance(got, dict)
        for key, value in expect.items():
            assert key in got, key
            subset(value, got[key])
    elif isinstance(expect, list):
        assert isinstance(got, list) and len(got) == len(expect), (expect, got)
        for e, g in zip(expect, got, strict=True):
            subset(e, g)
    else:
        assert expect == got


def test_conformance_cases_exist() -> None:
    assert len(conformance_cases()) >= 6


@pytest.mark.parametrize("case", conformance_cases(), ids=lambda c: c["name"])
def test_conformance(case: dict[str, Any]) -> None:
    """shared/conformance: each numwars case, at the engine level."""
    if case["status"] == 200:
        subset(case["expect"], msgspec.to_builtins(call(case)))
    else:
        with pytest.raises(InvalidInput):
            call(case)


def test_roles_constant() -> None:
    assert set(ROLES) == {"poseur", "complice", "demineur", "agent", "civil"}


def test_a_role_card_refusal_says_roles_in_the_games_words() -> None:
    """resolve-trick with roles that give a role card to another seat: in French the roles
    are « Démineur », « Agent double », never `demineur`, `agent`."""
    roles = ["poseur", "complice", "agent", "demineur"]  # quantum is the demineur's card
    e = error(RULES.resolve_trick, 4, trick("red-2", "red-3", "quantum", "red-5"), roles)
    french = e.render("fr")
    assert "la carte du Démineur, mais roles la nomme Agent double" in french, french
    assert not _CODES_IN_FRENCH.search(french), french
    assert "the demineur's card, but roles names it agent" in e.render("en")
