"""Shared engine pieces: card codes, canonical order, the portable RNG, deck checks."""

import struct
from collections import Counter

import pytest
from hypothesis import given, strategies as st

import engine.core.rng as rng_module
from engine.core import cards
from engine.core.errors import InvalidInput
from engine.core.rng import Rng
from engine.core.scoring import value_group_points, value_groups


def test_canonical_order_follows_cards_md() -> None:
    mixed = ["malus-2", "joker", "shadow-3", "red-10", "yellow-0", "rainbow-16", "numx", "red-2"]
    assert cards.canonical(mixed) == [
        "red-2",
        "red-10",
        "yellow-0",
        "rainbow-16",
        "shadow-3",
        "numx",
        "joker",
        "malus-2",
    ]


def test_specials_fixed_order() -> None:
    assert cards.canonical(reversed(cards.SPECIALS)) == list(cards.SPECIALS)


@pytest.mark.parametrize("code", ["red-01", "Red-1", "purple-3", "red", "", "joker2", "-1"])
def test_malformed_codes_are_refused_with_their_name(code: str) -> None:
    with pytest.raises(InvalidInput) as err:
        cards.info(code)
    assert err.value.code == "unknown-card"
    assert repr(code) in err.value.message


def test_well_formed_but_nonexistent_value() -> None:
    assert cards.is_well_formed("red-17")
    with pytest.raises(InvalidInput, match="does not exist"):
        cards.info("red-17")


def test_complement() -> None:
    assert cards.complement("rainbow-7") == "shadow-7"
    assert cards.complement("shadow-0") == "rainbow-0"
    assert cards.complement("red-7") is None
    assert cards.complement("numx") is None


def test_check_cards_names_the_bad_card() -> None:
    deck = Counter(["red-1", "red-2", "joker", "joker"])
    cards.check_cards(deck, [("hand", ["joker", "red-1"]), ("trick", ["joker"])], deck_name="d")
    with pytest.raises(InvalidInput) as err:
        cards.check_cards(deck, [("hand", ["red-1"]), ("trick", ["red-1"])], deck_name="d")
    assert err.value.code == "duplicate-card" and err.value.errors[0].field == "trick[0]"
    with pytest.raises(InvalidInput) as err:
        cards.check_cards(deck, [("hand", ["red-3"])], deck_name="the test deck")
    assert err.value.code == "card-not-in-deck" and "'red-3'" in err.value.message
    with pytest.raises(InvalidInput) as err:
        cards.check_cards(deck, [("hand", ["joker", "joker", "joker"])], deck_name="d")
    assert err.value.code == "duplicate-card"


def test_rng_reference_sequence_is_splitmix64() -> None:
    # Reference values of SplitMix64 seeded with 0 (published test vector).
    g = Rng(0)
    assert [g.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


@given(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=1, max_value=200))
def test_rng_below_in_range_and_shuffle_is_permutation(seed: int, n: int) -> None:
    g = Rng(seed)
    assert all(0 <= g.below(n) < n for _ in range(20))
    items = list(range(n))
    g.shuffle(items)
    assert sorted(items) == list(range(n))
    again = list(range(n))
    Rng(seed).shuffle(again)
    g2 = Rng(seed)
    for _ in range(20):
        g2.below(n)
    g2.shuffle(again2 := list(range(n)))
    assert again2 == items
    part = list(range(n))  # a partial shuffle is a permutation too
    Rng(seed).shuffle(part, last=seed % (n + 1))
    assert sorted(part) == list(range(n))
    g3, cut = Rng(seed), seed % 7  # its state, taken anywhere, draws on as it does
    for _ in range(cut):
        g3.below(n)
    resumed = Rng(g3.state)
    assert [resumed.below(n) for _ in range(5)] == [g3.below(n) for _ in range(5)]


def test_shuffle_rejects_biased_words_and_reads_more_of_the_stream() -> None:
    """Rng.shuffle's draws: a word whose low product word falls below 2**32 mod (i + 1) is
    rejected (exact draws), and a run of rejections reads further into the stream."""
    calls: list[int] = []

    class Stream:  # a SHAKE stream's interface: its first `length` bytes
        def digest(self, length: int) -> bytes:
            calls.append(length // 4)
            words = [0 if k < 30 else 2**31 for k in range(length // 4)]  # 0 * 3 is rejected
            return struct.pack(f"<{len(words)}I", *words)

    items = [0, 1, 2]
    rng_module._fisher_yates(items, 1, Stream())
    # i = 2: words 0..29 rejected, then 2**31 * 3 >> 32 = 1; i = 1: 2**31 * 2 >> 32 = 1.
    assert items == [0, 2, 1]
    assert calls == [18, 36]


def test_value_groups_scoring() -> None:
    assert [value_group_points(7, k) for k in (1, 2, 3, 4)] == [7, 0, 37, 57]
    lines = value_groups(["red-5", "blue-5", "green-5", "rainbow-5", "red-9"])
    assert [(line.cards, line.points) for line in lines] == [
        (["red-5", "blue-5", "green-5"], 35),
        (["red-9"], 9),
    ]


def test_match_totals_add_up_and_check_seats() -> None:
    from engine.core.base import PlayerScore, RoundScore
    from engine.core.scoring import match_totals

    def rnd(*scores: int) -> RoundScore:
        players = [PlayerScore(seat=s, score=v, breakdown=[]) for s, v in enumerate(scores)]
        return RoundScore(players=players, winners=[])

    assert match_totals([rnd(3, -1, 7), rnd(0, 5, -7)]) == [3, 4, 0]
    with pytest.raises(InvalidInput, match="at least one round"):
        match_totals([])
    with pytest.raises(InvalidInput) as err:
        match_totals([rnd(1, 2), rnd(1, 2, 3)])
    assert err.value.errors[0].field == "rounds[1].players"
