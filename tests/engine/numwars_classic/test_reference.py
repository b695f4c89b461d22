"""numwars-classic: the fast engine functions against slow, obviously-correct references.

The references are the first, straightforward implementations of the rules (kept here only):
legality by one pass over the hand, the duel with sets of pairs and singles, scoring with
`value_groups` and a scan of the 17 trump values, the deal one card at a time. Hypothesis
compares them with the table-driven versions in engine/, and with the round state's own
legal plays and trick resolution.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec
from hypothesis import given, settings, strategies as st

from engine.core.actions import Play
from engine.core.base import (
    Capture,
    PlayerScore,
    RoundScore,
    RoundSetup,
    ScoreLine,
    TeamScore,
    TrickResult,
)
from engine.core.cards import CARDS, canonical
from engine.core.rng import Rng
from engine.core.scoring import value_groups
from engine.numwars_classic.cards import (
    ALLIANCE_PLAYERS,
    DECK,
    JOKER,
    KIND,
    PARTNER_CARD,
    PILE_BIT,
    RAINBOW,
    SHADOW,
    TRUMP_ASKED,
    VALUE,
)
from engine.numwars_classic.round import ClassicRound
from engine.numwars_classic.rules import ClassicOptions, NumWarsClassic
from engine.numwars_classic.scoring import ClassicPile, held_points, score_pile
from engine.numwars_classic.tricks import duel, legal_cards, trick_result
from engine.simulate import pick

DISTINCT = sorted(set(DECK), key=lambda c: CARDS[c].order)


def ref_asked(trick_cards: Iterable[str]) -> int | None:
    for card in trick_cards:
        k = KIND[card]
        if k != JOKER:
            return TRUMP_ASKED if k >= RAINBOW else k
    return None


def ref_legal(hand: Iterable[str], trick_cards: Sequence[str]) -> list[str]:
    """Playing a card, one pass over the distinct cards held (the original implementation)."""
    cards = canonical(set(hand))
    asked = ref_asked(trick_cards)
    if asked is None:
        return cards
    kinds = [KIND[c] for c in cards]
    has_trump = RAINBOW in kinds or SHADOW in kinds
    if asked == TRUMP_ASKED:
        if not has_trump:
            return cards
    elif not has_trump and asked not in kinds:
        return cards
    top = -1
    completes: list[str] = []
    for card in trick_cards:
        if RAINBOW <= KIND[card] <= SHADOW:
            top = max(top, VALUE[card])
            completes.append(PARTNER_CARD[card])
    binds = top >= 0 and any(
        RAINBOW <= k <= SHADOW and (VALUE[c] > top or c in completes)
        for c, k in zip(cards, kinds, strict=True)
    )
    out = []
    for c, k in zip(cards, kinds, strict=True):
        if RAINBOW <= k <= SHADOW:
            if not binds or VALUE[c] > top or c in completes:
                out.append(c)
        elif k in (asked, JOKER):
            out.append(c)
    return out


def ref_highest_of_asked(trick: Sequence[tuple[int, str]]) -> int | None:
    asked = ref_asked(card for _, card in trick)
    if asked is None or asked == TRUMP_ASKED:
        return None
    best_seat, best_value = None, -1
    for seat, card in trick:
        if KIND[card] == asked and VALUE[card] > best_value:
            best_seat, best_value = seat, VALUE[card]
    return best_seat


def ref_duel(trick: Sequence[tuple[int, str]]) -> TrickResult:
    """Resolving the trick, rules 1–5 (the original implementation), in its public shape."""
    rainbow: dict[int, int] = {}
    shadow: dict[int, int] = {}
    for seat, card in trick:
        if KIND[card] == RAINBOW:
            rainbow[VALUE[card]] = seat
        elif KIND[card] == SHADOW:
            shadow[VALUE[card]] = seat
    everything = [card for _, card in trick]
    takes: dict[int, list[str]] = {}
    pairs: list[tuple[int, list[str]]] = []
    pair_values = sorted(rainbow.keys() & shadow.keys(), reverse=True)
    singles = [(v, s) for v, s in rainbow.items() if v not in shadow]
    singles += [(v, s) for v, s in shadow.items() if v not in rainbow]
    top_single = max(singles) if singles else None
    if not rainbow and not shadow:
        best = ref_highest_of_asked(trick)
        assert best is not None
        takes, owner = {best: everything}, best
    elif top_single is not None and (not pair_values or top_single[0] > pair_values[0]):
        takes, owner = {top_single[1]: everything}, top_single[1]
    else:
        winning = [v for v in pair_values if top_single is None or v > top_single[0]]
        taken = {f"rainbow-{v}" for v in winning} | {f"shadow-{v}" for v in winning}
        for v in winning:
            takes[shadow[v]] = [f"rainbow-{v}", f"shadow-{v}"]
            pairs.append((shadow[v], [f"rainbow-{v}", f"shadow-{v}"]))
        rest = [card for card in everything if card not in taken]
        if top_single is not None:
            owner = top_single[1]
        else:
            best = ref_highest_of_asked(trick)
            owner = best if best is not None else shadow[winning[0]]
        if rest:
            takes.setdefault(owner, []).extend(rest)
        else:
            owner = shadow[winning[0]]
        pairs.sort()
    return TrickResult(
        winner=owner,
        annulled=False,
        captures=[Capture(seat=s, cards=canonical(takes[s])) for s in sorted(takes)],
        pairs=[Capture(seat=s, cards=canonical(cards)) for s, cards in pairs],
        next_leader=owner,
    )


def ref_score_pile(cards: Sequence[str]) -> tuple[int, list[ScoreLine]]:
    """Scoring a round (the original implementation): value groups, then the 17 trump values."""
    lines = value_groups(cards)
    held = set(cards)
    lone: list[str] = []
    for v in range(17):
        r, s = f"rainbow-{v}", f"shadow-{v}"
        if r in held and s in held:
            lines.append(
                ScoreLine(
                    label=f"trump pair {v}",
                    cards=[r, s],
                    points=v,
                    kind="trump-pair",
                    params={"value": v},
                )
            )
        elif r in held or s in held:
            lone.append(r if r in held else s)
    if lone:
        lines.append(
            ScoreLine(
                label="lone trumps", cards=canonical(lone), points=0, kind="lone-trumps", params={}
            )
        )
    jokers = [c for c in cards if c == "joker"]
    if jokers:
        lines.append(ScoreLine(label="jokers", cards=jokers, points=0, kind="jokers", params={}))
    return sum(line.points for line in lines), lines


def ref_deal(rules: NumWarsClassic, setup: RoundSetup) -> tuple[list[list[str]], list[str]]:
    """Set-up: shuffle, then one card at a time clockwise from the dealer's left, from the
    cards the shuffle drew (the last n x k of the deck)."""
    n, k = setup.players, rules.hand_size(setup.players)
    cards = list(DECK)
    Rng(setup.seed).shuffle(cards, last=n * k)
    dealt = cards[len(cards) - n * k :]
    hands: list[list[str]] = [[] for _ in range(n)]
    for i in range(n * k):
        hands[(setup.dealer + 1 + i) % n].append(dealt[i])
    return [canonical(h) for h in hands], canonical(cards[: len(cards) - n * k])


@st.composite
def positions(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A hand and a trick in progress, disjoint (the two Jokers may be split or together)."""
    cards = draw(st.permutations(list(DECK)))
    size = draw(st.integers(0, 16))
    played = draw(st.integers(0, 7))
    trumpy = draw(st.booleans())
    if trumpy:  # trump-heavy positions exercise the Raise obligation and the pairs
        cards = sorted(cards, key=lambda c: not RAINBOW <= KIND[c] <= SHADOW)[:40]
        cards = draw(st.permutations(cards))
    return list(cards[:size]), list(cards[size : size + played])


@settings(max_examples=300, deadline=None)
@given(position=positions())
def test_legal_cards_match_the_reference(position: tuple[list[str], list[str]]) -> None:
    hand, trick_cards = position
    assert legal_cards(hand, trick_cards) == ref_legal(hand, trick_cards)


@st.composite
def full_tricks(draw: st.DrawFn) -> list[tuple[int, str]]:
    n = draw(st.integers(3, 8))
    pool = list(DISTINCT) if draw(st.booleans()) else [c for c in DISTINCT if KIND[c] != 0]
    if draw(st.booleans()):
        pool = [c for c in pool if KIND[c] >= RAINBOW] + ["red-3", "red-9", "blue-4", "joker"]
    cards = draw(st.permutations(pool))[:n]
    if all(c == "joker" for c in cards):
        cards = [*cards[:-1], "red-1"]
    leader = draw(st.integers(0, n - 1))
    return [((leader + i) % n, c) for i, c in enumerate(cards)]


@settings(max_examples=300, deadline=None)
@given(trick=full_tricks())
def test_duel_matches_the_reference(trick: list[tuple[int, str]]) -> None:
    assert trick_result(duel(trick)) == ref_duel(trick)


@settings(max_examples=200, deadline=None)
@given(cards=st.permutations(list(DECK)), size=st.integers(0, 60))
def test_score_pile_matches_the_reference(cards: list[str], size: int) -> None:
    pile = cards[:size]
    assert score_pile(pile) == ref_score_pile(pile)
    # the totals a played round's end computes without the breakdown
    assert held_points(sum(PILE_BIT[card] for card in pile)) == ref_score_pile(pile)[0]


def ref_score_round(piles: list[list[str]], alliance: bool) -> RoundScore:
    """Scoring a round (the original implementation): each pile by `ref_score_pile`, the best
    score wins; under `alliance` partners sit opposite and the best team total wins."""
    players = []
    for seat, pile in enumerate(piles):
        points, lines = ref_score_pile(pile)
        players.append(PlayerScore(seat=seat, score=points, breakdown=lines))
    if not alliance:
        best = max(p.score for p in players)
        return RoundScore(players=players, winners=[p.seat for p in players if p.score == best])
    half = len(piles) // 2
    teams = [TeamScore(seats=[s, s + half], score=0) for s in range(half)]
    teams = [TeamScore(seats=t.seats, score=sum(players[s].score for s in t.seats)) for t in teams]
    best = max(t.score for t in teams)
    winners = sorted(s for t in teams if t.score == best for s in t.seats)
    return RoundScore(players=players, winners=winners, teams=teams)


@settings(max_examples=200, deadline=None)
@given(
    cards=st.permutations(list(DECK)),
    sizes=st.lists(st.integers(0, 26), min_size=1, max_size=8),
    alliance=st.booleans(),
)
def test_score_round_matches_the_reference(
    cards: list[str], sizes: list[int], alliance: bool
) -> None:
    """The whole answer, as the API encodes it, byte for byte."""
    if alliance and len(sizes) not in ALLIANCE_PLAYERS:
        sizes = (sizes * 4)[:4]
    piles, start = [], 0
    for size in sizes:
        piles.append(cards[start : start + size])
        start += size
    rules = NumWarsClassic(ClassicOptions(alliance=alliance))
    score = rules.score_round([ClassicPile(captured=p) for p in piles])
    expected = ref_score_round(piles, alliance)
    assert msgspec.json.encode(score) == msgspec.json.encode(expected)


@settings(max_examples=100, deadline=None)
@given(
    players=st.integers(3, 8),
    seed=st.integers(0, 2**64 - 1),
    dealer=st.integers(0, 7),
    speed=st.booleans(),
)
def test_deal_matches_the_reference(players: int, seed: int, dealer: int, speed: bool) -> None:
    rules = NumWarsClassic(ClassicOptions(speed=speed))
    setup = RoundSetup(players=players, seed=seed, dealer=dealer % players)
    hands, set_aside = ref_deal(rules, setup)
    deal = rules.deal(setup)
    assert (deal.hands, deal.set_aside, deal.leader) == (hands, set_aside, setup.dealer)
    state = rules.new_round(setup)
    assert (state.hands, state.set_aside) == (hands, set_aside)


@settings(max_examples=60, deadline=None)
@given(players=st.integers(3, 8), seed=st.integers(0, 2**64 - 1), speed=st.booleans())
def test_round_state_plays_and_tricks_match_the_references(
    players: int, seed: int, speed: bool
) -> None:
    """Every turn's legal plays, and every trick record, as the references compute them."""
    rules = NumWarsClassic(ClassicOptions(speed=speed))
    state = rules.new_round(RoundSetup(players=players, seed=seed, dealer=seed % players))
    assert isinstance(state, ClassicRound)
    rng = Rng(seed)
    while not state.is_over:
        seat, action = pick(state, rng)
        if state.current_player is not None:
            plays = [a.card for a in state.legal_actions(seat) if isinstance(a, Play)]
            assert plays == ref_legal(state.hands[seat], state.trick_cards)
            assert isinstance(action, Play)
            trick = [*state.trick, (seat, action.card)]
        events = state.apply(seat, action)
        if any(e.kind == "trick" for e in events):
            record = state.tricks[-1]
            expected = msgspec.to_builtins(ref_duel(trick))
            assert {k: record[k] for k in expected} == expected
            assert record["cards"] == [{"seat": s, "card": c} for s, c in trick]
    score = state.scores()
    assert score is not None
    for player, pile in zip(score.players, state.piles, strict=True):
        assert (player.score, player.breakdown) == ref_score_pile(pile)
