"""Num Wars' bots (issue 25): the sampler of worlds a seat cannot tell apart, and the basic
heuristic. Both read the seat's `View` only, and the exchange event it was shown (the view
no longer lists the cards it passed and received once play starts) (engine.core.bots).

Sampler (after the exchange): the seat knows its hand and role, the roles revealed so far, every
card played and the complice's choices, and from its exchange event (option `exchange`) the
cards it passed (in its right neighbour's hand, unless played) and received. The cards it has
not seen are dealt among the other hands (their counts are public) and the set-aside cards:
each role card not yet seen goes to a different seat whose role is still unknown (one role
card per hand, never set aside; the Joker is set aside at 3 players, rules "Set-up" 1), and a
seat never holds a card that would have made one of its past plays illegal (a void shown by
not following the colour, no trump when it had to play one, no raising trump when it did not
raise). Roles follow the role cards dealt. The world is the round dealt so, the exchange
(passes the seat never saw drawn at random among the receiver's cards, never a role card)
and the plays and the complice's choices replayed in order. During the exchange, the other
hands and the cards already passed (on their way, unseen) are dealt from the cards it has not
seen, and those passes replayed.

Basic heuristic:
- **Exchange**: pass the weakest card that may be passed: the lowest classic card, then the
  lowest real trump.
- **Neutralize**: the complice always neutralizes (it protects the Bomb: bonuses for its side).
- **Play**: complete a trump pair when it can (the second card of a pair takes both, and
  scores its value); take a trick worth points (its classic cards' values, 8 or more, or any
  when it plays last) with the cheapest card that tops it, a classic card before a trump;
  otherwise follow cheaply: the lowest classic card, a zero-level trump, a real trump last
  (kept for pairs), `numx` only when forced. It leads a classic card of 11 or more, else its
  lowest classic card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.core.actions import Action, Neutralize, Pass, Play
from engine.core.base import Deal, RoundSetup
from engine.core.bots import (
    BotSupport,
    SampleError,
    World,
    deal_unseen,
    excluded_by_plays,
    retry,
    unseen_cards,
)
from engine.core.cards import CARDS, COMPLEMENT
from engine.core.events import EventBase, ExchangeEvent
from engine.core.rng import Rng
from engine.numwars.cards import ROLE_CARDS, ROLE_OF_CARD, deck_cards
from engine.numwars.round import NumWarsRound
from engine.numwars.tricks import legal_cards
from engine.numwars.view import View

if TYPE_CHECKING:
    from engine.numwars.rules import NumWars


def _plays(view: View) -> list[tuple[int, str, list[str]]]:
    out: list[tuple[int, str, list[str]]] = []
    tricks = [[(tc.seat, tc.card) for tc in t.cards] for t in view.tricks]
    for trick in [*tricks, [(tc.seat, tc.card) for tc in view.trick]]:
        for i, (s, card) in enumerate(trick):
            out.append((s, card, [c for _, c in trick[:i]]))
    return out


def _less(cards: list[str], gone: Sequence[str]) -> list[str]:
    left = Counter(cards)
    left.subtract(Counter(gone))
    return sorted(left.elements())


def place_roles(
    cards: Sequence[str], seats: Sequence[int], gone: dict[int, set[str]], rng: Rng
) -> list[tuple[str, int]]:
    """Each of `cards` (the role cards unseen) to a different one of `seats` (of unknown
    role) that its plays allow to hold it: each card in random order to a seat drawn among
    those left, backtracking from a dead end. Drawing the holders blindly and starting over
    when one was excluded missed the few placements that fit, at 6 players late in a round
    (every world refused: a bench run's crash). Raises :class:`SampleError` when none fits."""
    order = list(cards)
    rng.shuffle(order)

    def place(i: int, used: frozenset[int]) -> list[tuple[str, int]] | None:
        if i == len(order):
            return []
        card = order[i]
        options = [s for s in seats if s not in used and card not in gone.get(s, ())]
        rng.shuffle(options)
        for s in options:
            rest = place(i + 1, used | {s})
            if rest is not None:
                return [(card, s), *rest]
        return None

    placed = place(0, frozenset())
    if placed is None:
        raise SampleError("no seat of unknown role may hold the unseen role cards")
    return placed


def _exchange(seat: int, events: Sequence[EventBase]) -> tuple[list[str], list[str]] | None:
    """(passed, received) from the seat's own exchange event, if it was given."""
    for event in events:
        if isinstance(event, ExchangeEvent) and event.seat == seat and event.to == [seat]:
            data = event.data
            if isinstance(data.passed, list):
                return list(data.passed), list(event.cards)
    return None


def sample(rules: NumWars, view: View, events: Sequence[EventBase], rng: Rng) -> World:
    """A world consistent with the seat's view, in the play phase (module docstring)."""
    seat = view.seat
    assert seat is not None and view.hand is not None
    if view.phase == "exchange":
        return _sample_exchange(rules, view, rng)
    n = view.players
    k = view.exchange_size
    right = (seat - 1) % n
    plays = _plays(view)
    by_seat: dict[int, list[str]] = {s: [] for s in range(n)}
    for s, card, _ in plays:
        by_seat[s].append(card)
    swap = _exchange(seat, events) if k else None
    known: dict[int, list[str]] = {s: [] for s in range(n)}
    if swap is not None:
        known[right] = _less(swap[0], by_seat[right])
    aside_known = ["joker"] if n == 3 else []
    seen = [*view.hand, *(c for _, c, _ in plays), *known[right], *aside_known]
    unseen = unseen_cards(deck_cards(n), seen)
    specials = [c for c in unseen if c in ROLE_CARDS]
    rest = [c for c in unseen if c not in ROLE_CARDS]
    others = [s for s in range(n) if s != seat]
    open_roles = [s for s in others if view.roles[s] is None]
    gone = excluded_by_plays(
        [p for p in plays if p[0] != seat], set(unseen), lambda h, t: legal_cards(h, t)
    )
    aside_count = len(deck_cards(n)) - sum(view.hand_counts) - len(plays)
    setup = RoundSetup(players=n, seed=0, dealer=view.dealer, round=view.round)
    neutralized = [t.neutralize for t in view.tricks]

    hand = list(view.hand)

    def build(rng: Rng) -> World:
        placed: dict[int, list[str]] = {s: [] for s in range(n)}
        for card, s in place_roles(specials, open_roles, gone, rng):
            placed[s].append(card)
        sizes = [view.hand_counts[s] - len(known[s]) - len(placed[s]) for s in others]
        sizes.append(aside_count - len(aside_known))

        def allowed(card: str, place: int) -> bool:
            return place == len(others) or card not in gone.get(others[place], ())

        dealt = deal_unseen(rest, sizes, rng, allowed)
        post: list[list[str]] = [[] for _ in range(n)]
        post[seat] = [*hand, *by_seat[seat]]
        for i, s in enumerate(others):
            post[s] = [*dealt[i], *placed[s], *known[s], *by_seat[s]]
        received: list[list[str]] = [[] for _ in range(n)]
        if k:
            if swap is not None:
                received[seat], received[right] = swap[1], swap[0]
            for t in range(n):
                if swap is None or t not in (seat, right):
                    pool = sorted(c for c in post[t] if c not in ROLE_CARDS)
                    rng.shuffle(pool)
                    received[t] = sorted(pool[:k])
        passed = [received[(s - 1) % n] for s in range(n)]
        hands = [_less(post[s], received[s]) + passed[s] for s in range(n)]
        roles = [
            next((ROLE_OF_CARD[c] for c in hands[s] if c in ROLE_CARDS), "civil") for s in range(n)
        ]
        deal = Deal(
            hands=hands,
            set_aside=[*dealt[-1], *aside_known],
            dealer=view.dealer,
            leader=view.dealer,
            roles=roles,
        )
        actions: list[tuple[int, Action]] = []
        for s in range(n):
            actions.extend((s, Pass(card=c)) for c in passed[s])
        for i, trick in enumerate([*(t.cards for t in view.tricks), view.trick]):
            actions.extend((tc.seat, Play(card=tc.card)) for tc in trick)
            if i < len(neutralized) and neutralized[i] is not None:
                complice = roles.index("complice")
                actions.append((complice, Neutralize(neutralize=bool(neutralized[i]))))

        def world() -> Any:
            state = NumWarsRound(rules, setup, deal=deal)
            for s, action in actions:
                state.apply(s, action)
            return state

        return world

    return retry(build, rng)


def _sample_exchange(rules: NumWars, view: View, rng: Rng) -> World:
    """A world during the exchange: the seat knows its hand and role and the cards it passed
    so far; the other hands and the cards they passed so far (on their way, unseen; never a
    role card) are dealt from the cards it has not seen, a role card to each other seat at
    most (the Joker set aside at 3 players)."""
    seat = view.seat
    assert seat is not None and view.hand is not None
    n = view.players
    passed = list(view.passed or [])
    aside_known = ["joker"] if n == 3 else []
    unseen = unseen_cards(deck_cards(n), [*view.hand, *passed, *aside_known])
    specials = [c for c in unseen if c in ROLE_CARDS]
    rest = [c for c in unseen if c not in ROLE_CARDS]
    others = [s for s in range(n) if s != seat]
    aside = len(deck_cards(n)) - sum(view.hand_counts) - sum(view.passed_counts)
    setup = RoundSetup(players=n, seed=0, dealer=view.dealer, round=view.round)
    hand = list(view.hand)

    def build(rng: Rng) -> World:
        holders = list(others)
        rng.shuffle(holders)
        placed: dict[int, list[str]] = {s: [] for s in range(n)}
        for card, s in zip(specials, holders, strict=False):
            placed[s].append(card)
        sizes = [view.hand_counts[s] + view.passed_counts[s] - len(placed[s]) for s in others]
        sizes.append(aside - len(aside_known))
        dealt = deal_unseen(rest, sizes, rng)
        hands: list[list[str]] = [[] for _ in range(n)]
        hands[seat] = [*hand, *passed]
        actions: list[tuple[int, Action]] = [(seat, Pass(card=c)) for c in passed]
        for i, s in enumerate(others):
            hands[s] = sorted([*dealt[i], *placed[s]])
            cards = sorted(dealt[i])
            rng.shuffle(cards)
            actions.extend((s, Pass(card=c)) for c in cards[: view.passed_counts[s]])
        roles = [
            next((ROLE_OF_CARD[c] for c in hands[s] if c in ROLE_CARDS), "civil") for s in range(n)
        ]
        deal = Deal(
            hands=hands,
            set_aside=[*dealt[-1], *aside_known],
            dealer=view.dealer,
            leader=view.dealer,
            roles=roles,
        )

        def world() -> Any:
            state = NumWarsRound(rules, setup, deal=deal)
            for s, action in actions:
                state.apply(s, action)
            return state

        return world

    return retry(build, rng)


# -- the basic heuristic ---------------------------------------------------------------------


def _real(card: str) -> bool:
    return CARDS[card].family in ("rainbow", "shadow")


def _value(card: str) -> int:
    return CARDS[card].value or 0


def _keep(card: str) -> tuple[int, int]:
    """How much a card is worth keeping (lowest first)."""
    if card == "numx":
        return (3, 0)
    if _real(card):
        return (2, _value(card))
    if card in ROLE_CARDS:
        return (1, 0)
    return (0, _value(card))


def _strength(card: str) -> int:
    if card == "numx":
        return 100
    if _real(card):
        return 10 + _value(card)
    if card in ("joker", "quantum"):
        return 1
    if card == "bomb":
        return 0
    return -1


def _wins(card: str, trick: list[str]) -> bool:
    """Whether `card` would top the trick as it stands (pairs and the Bomb aside)."""
    top = max((_strength(c) for c in trick), default=-1)
    if _strength(card) >= 0:
        return _strength(card) > max(top, 9) or (top < 0 and _real(card))
    if top >= 0 or card in ROLE_CARDS:
        return False
    asked = CARDS[trick[0]].family if trick else None
    if asked is not None and CARDS[card].family != asked:
        return False
    same = [_value(c) for c in trick if CARDS[c].family == CARDS[card].family]
    return not same or _value(card) > max(same)


def basic(rules: NumWars, view: View, rng: Rng) -> Action:
    """The basic heuristic (module docstring)."""
    legal = view.legal_actions
    assert legal
    if view.phase == "neutralize":
        for a in legal:
            if isinstance(a, Neutralize) and a.neutralize:
                return a
        return legal[0]
    if view.phase == "exchange":
        passes = [a for a in legal if isinstance(a, Pass)]
        if passes:
            return min(passes, key=lambda a: (_keep(a.card), a.card))
        return legal[0]
    plays = [a for a in legal if isinstance(a, Play)]
    if not plays:
        return legal[0]
    trick = [tc.card for tc in view.trick]
    if not trick:
        classic = [a for a in plays if _strength(a.card) < 0]
        if classic:
            best = max(classic, key=lambda a: _value(a.card))
            if _value(best.card) >= 11:
                return best
            return min(classic, key=lambda a: _value(a.card))
        return min(plays, key=lambda a: (_keep(a.card), a.card))
    for a in plays:
        if _real(a.card) and COMPLEMENT[a.card] in trick:
            return a
    worth = sum(_value(c) for c in trick if _strength(c) < 0)
    last = len(trick) == view.players - 1
    if worth >= 8 or (last and worth > 0):
        winners = [a for a in plays if _wins(a.card, trick)]
        if winners:
            return min(winners, key=lambda a: (_keep(a.card), a.card))
    losers = [a for a in plays if not _wins(a.card, trick)] or plays
    return min(losers, key=lambda a: (_keep(a.card), a.card))


BOTS = BotSupport(sample=sample, basic=basic)
