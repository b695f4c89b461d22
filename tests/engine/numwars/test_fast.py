"""`numwars` fast paths against plain reference implementations (rules/numwars.md).

The engine's legal moves (hand grouped by suit), trick resolution (strength table, the
no-Bomb-no-pair shortcut), value groups (label/points table, one sort) and the round state's
incremental bookkeeping (contest, suits, cached legal actions, unchecked final scoring) are
written for speed; the straightforward versions below are the reference they must match.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings, strategies as st

from engine.core.actions import Play
from engine.core.base import BombResult, Capture, RoundSetup, TrickResult
from engine.core.cards import CARDS, COLOURS
from engine.core.rng import Rng
from engine.core.scoring import value_groups
from engine.numwars.cards import canon, deck_cards, role_lot
from engine.numwars.round import NumWarsRound
from engine.numwars.rules import NumWars, NumWarsOptions
from engine.numwars.scoring import value_lines
from engine.numwars.tricks import contesting, legal_cards, resolve
from engine.simulate import pick

# --- Reference implementations -------------------------------------------------------------


def ref_kind(card: str) -> str:
    c = CARDS[card]
    if c.is_classic:
        return "classic"
    if c.is_real_trump:
        return "real"
    return card  # numx, joker, quantum, bomb


def ref_strength(card: str) -> int:
    """Card classes: numx > real trumps by value > joker = quantum > bomb; classics -1."""
    kind = ref_kind(card)
    if kind == "classic":
        return -1
    if kind == "real":
        return 2 + (CARDS[card].value or 0)
    return {"numx": 1000, "joker": 1, "quantum": 1, "bomb": 0}[card]


def ref_colour(card: str) -> str | None:
    family = CARDS[card].family
    return family if family in COLOURS else None


def ref_complement(card: str) -> str | None:
    c = CARDS[card]
    if c.family == "rainbow":
        return f"shadow-{c.value}"
    if c.family == "shadow":
        return f"rainbow-{c.value}"
    return None


def by_suit(hand: Sequence[str]) -> dict[str, list[str]]:
    """The hand by suit (each colour, then "trump" for every trump), in the hand's order."""
    suits: dict[str, list[str]] = {colour: [] for colour in COLOURS}
    suits["trump"] = []
    for card in hand:
        suits[ref_colour(card) or "trump"].append(card)
    return suits


def ref_legal_cards(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    """Leading and Following 0-3, one comprehension per obligation."""
    if not cards:
        normal = [c for c in hand if ref_kind(c) in ("classic", "real")]
        return normal or list(hand)
    contest = contesting(cards)
    asked = ref_colour(cards[0])
    base: list[str] = []
    if asked is not None:
        base = [c for c in hand if ref_colour(c) == asked]
    if not base:
        trumps = [c for c in hand if ref_kind(c) != "classic"]
        if not trumps:
            return list(hand)
        top = max([ref_strength(c) for c in contest], default=-1)
        raising = [c for c in trumps if ref_strength(c) > top] if top >= 0 else trumps
        base = raising or trumps
    steal = [ref_complement(c) for c in contest if ref_complement(c) in hand]
    legal = set(base).union(c for c in steal if c is not None)
    return [c for c in hand if c in legal]


def ref_contest_winner(contest: Sequence[tuple[int, str]], asked: str | None, leader: int) -> int:
    """Winning the contest 1-4: numx, else the highest real trump, else the colour."""
    for seat, card in contest:
        if card == "numx":
            return seat
    reals = [(CARDS[c].value or 0, s) for s, c in contest if ref_kind(c) == "real"]
    if reals:
        return max(reals)[1]
    colour = asked
    if colour is None:
        classics = [ref_colour(c) for _, c in contest if ref_kind(c) == "classic"]
        if not classics:
            return leader
        colour = classics[0]
    followers = [(CARDS[c].value or 0, s) for s, c in contest if ref_colour(c) == colour]
    return max(followers)[1] if followers else leader


def ref_bomb(
    contest: Sequence[tuple[int, str]], seat_of: dict[str, int], roles: Sequence[str], joker: bool
) -> tuple[BombResult, tuple[int, str] | None]:
    """The Bomb and the four roles, as in the spec's table."""
    if "numx" in seat_of:
        numx = BombResult(outcome="numx-capture", captured_by=seat_of["numx"], neutralized=None)
        return numx, None
    quantum = "quantum" in seat_of
    shadows = sorted(
        [(s, c) for s, c in contest if c.startswith("shadow-")],
        key=lambda sc: -(CARDS[sc[1]].value or 0),
    )
    neutralized = None
    if "joker" in seat_of and joker and (quantum or shadows):
        if shadows:
            neutralized = shadows.pop(0)
        else:
            neutralized = (seat_of["quantum"], "quantum")
            quantum = False
    gone = None if neutralized is None else neutralized[1]
    if quantum:
        return BombResult(
            outcome="stolen", captured_by=seat_of["quantum"], neutralized=gone
        ), neutralized
    if shadows:
        seat = shadows[0][0]
        outcome = {
            "civil": "civil-capture",
            "demineur": "stolen",
            "complice": "complice-capture",
            "agent": "numx-capture",
        }[roles[seat]]
        return BombResult(outcome=outcome, captured_by=seat, neutralized=gone), neutralized
    if gone == "quantum":
        outcome = "protected-quantum"
    elif gone is not None:
        outcome = "protected"
    else:
        outcome = "kept"
    return BombResult(outcome=outcome, captured_by=None, neutralized=gone), neutralized


def ref_resolve(trick: Sequence[tuple[int, str]], roles: Sequence[str], joker: bool) -> TrickResult:
    """Trump pairs, the Bomb, the contest winner, every capture."""
    leader = trick[0][0]
    contest: list[tuple[int, str]] = []
    pairs: list[tuple[int, list[str]]] = []
    for seat, card in trick:
        comp = ref_complement(card)
        held = [i for i, (_, c) in enumerate(contest) if c == comp]
        if held:
            del contest[held[0]]
            pairs.append((seat, canon([card, comp or ""])))
        else:
            contest.append((seat, card))
    seat_of = {card: seat for seat, card in trick}
    bomb = None
    goes_to: dict[str, int] = {}
    neutralized = None
    if "bomb" in seat_of:
        bomb, neutralized = ref_bomb(contest, seat_of, roles, joker)
        if neutralized is not None:
            contest.remove(neutralized)
            if neutralized[1] == "quantum":
                goes_to["joker"] = neutralized[0]
        goes_to["bomb"] = seat_of["bomb"] if bomb.captured_by is None else bomb.captured_by
    winner = ref_contest_winner(contest, ref_colour(trick[0][1]), leader)
    taken: dict[int, list[str]] = {}
    for _, card in contest:
        taken.setdefault(goes_to.get(card, winner), []).append(card)
    if neutralized is not None:
        taken.setdefault(winner, []).append(neutralized[1])
    for seat, pair in pairs:
        taken.setdefault(seat, []).extend(pair)
    return TrickResult(
        winner=winner,
        annulled=False,
        captures=[Capture(seat=s, cards=canon(taken[s])) for s in sorted(taken)],
        pairs=[Capture(seat=s, cards=p) for s, p in sorted(pairs)],
        next_leader=winner,
        bomb=bomb,
    )


# --- Properties ----------------------------------------------------------------------------


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, list[str], list[str]]:
    """(players, canonical hand, trick cards so far) drawn from one shuffled deck."""
    players = draw(st.integers(3, 8))
    deck = deck_cards(players)
    Rng(draw(st.integers(0, 2**64 - 1))).shuffle(deck)
    played = draw(st.integers(0, players - 1))
    held = draw(st.integers(1, 27))
    return players, canon(deck[played : played + held]), deck[:played]


@given(positions())
@settings(max_examples=600, deadline=None)
def test_legal_cards_match_the_reference(position: tuple[int, list[str], list[str]]) -> None:
    """Leading and Following 0-3: the suit-grouped legal moves equal the plain ones."""
    _, hand, cards = position
    assert legal_cards(hand, cards) == ref_legal_cards(hand, cards)


@given(st.integers(3, 8), st.integers(0, 2**64 - 1), st.booleans())
@settings(max_examples=600, deadline=None)
def test_resolve_matches_the_reference(players: int, seed: int, joker: bool) -> None:
    """Trump pairs, the contest and the Bomb: the fast resolution equals the plain one."""
    rng = Rng(seed)
    deck = deck_cards(players)
    if players == 3:
        deck.remove("joker")
    lot = role_lot(players)
    rng.shuffle(lot)
    role_of = {"bomb": "poseur", "joker": "complice", "quantum": "demineur", "numx": "agent"}
    roles = [role_of.get(c, "civil") for c in lot]
    rng.shuffle(deck)
    leader = rng.below(players)
    trick = [((leader + i) % players, deck[i]) for i in range(players)]
    for seat, card in trick:  # the role cards' players hold the matching roles
        if card in role_of and roles[seat] != role_of[card]:
            other = roles.index(role_of[card])
            roles[seat], roles[other] = roles[other], roles[seat]
    assert resolve(trick, roles, joker) == ref_resolve(trick, roles, joker)


@given(st.lists(st.sampled_from(deck_cards(8)), max_size=40, unique=True))
@settings(max_examples=300, deadline=None)
def test_value_lines_match_value_groups(cards: list[str]) -> None:
    """Scoring a round: the table-driven value groups equal engine.core.scoring's."""
    assert value_lines(cards) == value_groups(cards)


@given(
    players=st.integers(3, 8),
    exchange=st.sampled_from([0, 3]),
    seed=st.integers(0, 2**64 - 1),
)
@settings(max_examples=60, deadline=None)
def test_round_bookkeeping_matches_the_stateless_rules(
    players: int, exchange: int, seed: int
) -> None:
    """At every step of a play-out the round's incremental contest (cards, top strength,
    the seat winning a plain trick), suits and cached legal actions equal what the reference
    functions derive from its hands and trick, and its final scores equal score_round on its
    piles."""
    rules = NumWars(NumWarsOptions(exchange=exchange))
    state = rules.new_round(RoundSetup(players=players, seed=seed, dealer=seed % players))
    assert isinstance(state, NumWarsRound)
    rng = Rng(seed)
    while not state.is_over:
        for seat in range(players):
            suits = by_suit(state.hands[seat])
            assert state.hands[seat] == canon(state.hands[seat])
            assert [[p.card for p in ps] for ps in state._suits[seat]] == list(suits.values())
        if state.phase == "play":
            turn = state.current_player
            assert turn == (state.leader + len(state.trick)) % players
            cards = [c for _, c in state.trick]
            contest = contesting(cards)
            assert state._contest() == contest
            assert state._top == max([ref_strength(c) for c in contest], default=-1)
            if state.trick and not state._special:
                asked = ref_colour(cards[0])
                assert state._winner == ref_contest_winner(state.trick, asked, state.leader)
            expected = [Play(card=c) for c in ref_legal_cards(state.hands[turn], cards)]
            assert state.legal_actions(turn) == expected
            assert state.legal_actions(turn) is state.legal_actions(turn), "cached"
        seat, action = pick(state, rng)
        events = state.apply(seat, action)
    assert state.bomb is not None
    scores = state.scores()
    assert scores == rules.score_round(state.final_piles(), state.bomb.outcome)
    over = events[-1]
    assert over.kind == "round-over" and over.data.roles == state.roles
    assert over.data.scores == [p.score for p in scores.players]
    assert over.data.winners == scores.winners
