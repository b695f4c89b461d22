"""Num Wars classic's bots (issue 25): the sampler of worlds a seat cannot tell apart, and the
basic heuristic. Both read the seat's `View` only (engine.core.bots).

Sampler (after the exchange): the seat knows its hand, the cards it passed (now in its right
neighbour's hand, unless played) and received, its partner's shown card (alliance), and every
card played. The cards it has not seen are dealt among the other hands (their counts are
public) and the set-aside cards, except that a seat never holds a card that would have made
one of its past plays illegal (a void shown by not following the colour, no trump when trump
was asked, no higher trump when it did not raise). The world is the round dealt so: each
other seat's dealt hand is what it holds now plus what it played, less what it received plus
what it passed; a pass between two other seats, which the seat never saw, is drawn at random
from the receiver's cards. The passes, shows and plays are replayed in order. During the
exchange, the other hands and the cards already passed (on their way, unseen) are dealt from
the cards it has not seen, and those passes replayed.

Basic heuristic:
- **Exchange**: pass the weakest card: the lowest classic card, then a Joker, keeping the
  trumps (they win tricks and make pairs).
- **Show** (alliance): show the highest trump, else skip.
- **Play**: complete a trump pair when it can (a pair scores however it is captured); take a
  trick worth points (classic cards' values, 8 or more, or any when it plays last) with the
  cheapest card that wins it, a classic card before a trump; otherwise follow cheaply: the
  lowest classic card, then a Joker, a trump last (trumps are kept for pairs). It leads a
  classic card of 13 or more, else its lowest classic card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.core.actions import Action, Pass, Play, Show
from engine.core.base import RoundSetup
from engine.core.bots import (
    BotSupport,
    World,
    deal_unseen,
    excluded_by_plays,
    margin,
    retry,
    unseen_cards,
)
from engine.core.cards import CARDS, COMPLEMENT
from engine.core.events import EventBase
from engine.core.rng import Rng
from engine.numwars_classic.cards import DECK
from engine.numwars_classic.round import scripted_round
from engine.numwars_classic.tricks import legal_cards, sort_cards
from engine.numwars_classic.view import View

if TYPE_CHECKING:
    from engine.numwars_classic.rules import NumWarsClassic


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


def sample(rules: NumWarsClassic, view: View, events: Sequence[EventBase], rng: Rng) -> World:
    """A world consistent with the seat's view (module docstring)."""
    seat = view.seat
    assert seat is not None and view.hand is not None
    if view.phase == "exchange":
        return _sample_exchange(rules, view, rng)
    n = view.players
    k = view.exchange_size
    right = (seat - 1) % n
    partner = (seat + n // 2) % n if view.teams else None
    plays = _plays(view)
    by_seat: dict[int, list[str]] = {s: [] for s in range(n)}
    for s, card, _ in plays:
        by_seat[s].append(card)
    known: dict[int, list[str]] = {s: [] for s in range(n)}
    known[right] = _less(list(view.passed or []), by_seat[right])
    shown = view.partner_shown
    if partner is not None and shown is not None and shown not in by_seat[partner]:
        known[partner].append(shown)
    seen = [*view.hand, *(c for _, c, _ in plays), *known[right]]
    if partner is not None and partner != right:
        seen.extend(known[partner])
    unseen = unseen_cards(DECK, seen)
    others = [s for s in range(n) if s != seat]
    sizes = [view.hand_counts[s] - len(known[s]) for s in others] + [view.set_aside_count]
    gone = excluded_by_plays(
        [p for p in plays if p[0] != seat], set(unseen), lambda h, t: legal_cards(h, t)
    )

    def allowed(card: str, place: int) -> bool:
        return place == len(others) or card not in gone.get(others[place], ())

    setup = RoundSetup(players=n, seed=0, dealer=view.dealer, round=view.round)
    received_me = list(view.received or [])
    passed_me = list(view.passed or [])

    hand = list(view.hand)

    def build(rng: Rng) -> World:
        dealt = deal_unseen(unseen, sizes, rng, allowed)
        post: list[list[str]] = [[] for _ in range(n)]
        post[seat] = [*hand, *by_seat[seat]]
        for i, s in enumerate(others):
            post[s] = [*dealt[i], *known[s], *by_seat[s]]
        received: list[list[str]] = [[] for _ in range(n)]
        received[seat] = received_me
        received[right] = passed_me
        for t in range(n):
            if t not in (seat, right):
                pool = sorted(post[t])
                rng.shuffle(pool)
                received[t] = sorted(pool[:k])
        passed = [received[(s - 1) % n] for s in range(n)]
        hands = [sort_cards(_less(post[s], received[s]) + passed[s]) for s in range(n)]
        undealt = dealt[-1]
        actions: list[tuple[int, Action]] = []
        for s in range(n):
            actions.extend((s, Pass(card=c)) for c in passed[s])
        if view.teams and view.has_shown:
            for s in range(n):
                if view.has_shown[s]:
                    card = view.shown if s == seat else None
                    if s == partner:
                        card = view.partner_shown
                    actions.append((s, Show(card=card)))
        for trick in [*(t.cards for t in view.tricks), view.trick]:
            actions.extend((tc.seat, Play(card=tc.card)) for tc in trick)

        def world() -> Any:
            state = scripted_round(rules, setup, hands, undealt)
            for s, action in actions:
                state.apply(s, action)
            return state

        return world

    return retry(build, rng)


def _sample_exchange(rules: NumWarsClassic, view: View, rng: Rng) -> World:
    """A world during the exchange: the seat knows its hand and the cards it passed so far;
    the other seats' hands and the cards they passed so far (still on their way) are dealt
    from the cards it has not seen."""
    seat = view.seat
    assert seat is not None and view.hand is not None
    n = view.players
    passed = list(view.passed or [])
    unseen = unseen_cards(DECK, [*view.hand, *passed])
    others = [s for s in range(n) if s != seat]
    sizes = [view.hand_counts[s] + view.passed_counts[s] for s in others]
    sizes.append(view.set_aside_count)
    setup = RoundSetup(players=n, seed=0, dealer=view.dealer, round=view.round)
    hand = list(view.hand)

    def build(rng: Rng) -> World:
        dealt = deal_unseen(unseen, sizes, rng)
        hands: list[list[str]] = [[] for _ in range(n)]
        hands[seat] = [*hand, *passed]
        actions: list[tuple[int, Action]] = [(seat, Pass(card=c)) for c in passed]
        for i, s in enumerate(others):
            hands[s] = sorted(dealt[i])
            cards = list(hands[s])
            rng.shuffle(cards)
            actions.extend((s, Pass(card=c)) for c in cards[: view.passed_counts[s]])

        def world() -> Any:
            state = scripted_round(rules, setup, hands, dealt[-1])
            for s, action in actions:
                state.apply(s, action)
            return state

        return world

    return retry(build, rng)


# -- the basic heuristic ---------------------------------------------------------------------


def _trump(card: str) -> bool:
    return CARDS[card].family in ("rainbow", "shadow")


def _value(card: str) -> int:
    return CARDS[card].value or 0


def _keep(card: str) -> tuple[int, int]:
    """How much a card is worth keeping (lowest first): classic by value, Joker, trumps."""
    if card == "joker":
        return (1, 0)
    if _trump(card):
        return (2, _value(card))
    return (0, _value(card))


def _asked(trick: list[str]) -> str | None:
    for card in trick:
        if card != "joker":
            return "trump" if _trump(card) else CARDS[card].family
    return None


def _wins(card: str, trick: list[str]) -> bool:
    """Whether `card` would top the trick as it stands (a pair aside)."""
    if card == "joker":
        return False
    trumps = [_value(c) for c in trick if _trump(c)]
    if _trump(card):
        return not trumps or _value(card) > max(trumps)
    asked = _asked(trick)
    if trumps or (asked is not None and CARDS[card].family != asked):
        return False
    same = [_value(c) for c in trick if c != "joker" and CARDS[c].family == CARDS[card].family]
    return not same or _value(card) > max(same)


def basic(rules: NumWarsClassic, view: View, rng: Rng) -> Action:
    """The basic heuristic (module docstring)."""
    legal = view.legal_actions
    assert legal and view.hand is not None
    if view.phase == "exchange":
        passes = [a for a in legal if isinstance(a, Pass)]
        return min(passes, key=lambda a: (_keep(a.card), a.card))
    if view.phase == "show":
        trumps = [a for a in legal if isinstance(a, Show) and a.card and _trump(a.card)]
        if trumps:
            return max(trumps, key=lambda a: _value(a.card or ""))
        return Show(card=None)
    plays = [a for a in legal if isinstance(a, Play)]
    trick = [tc.card for tc in view.trick]
    if not trick:
        classic = [a for a in plays if not _trump(a.card) and a.card != "joker"]
        if classic:
            best = max(classic, key=lambda a: _value(a.card))
            if _value(best.card) >= 13:
                return best
            return min(classic, key=lambda a: _value(a.card))
        return min(plays, key=lambda a: (_keep(a.card), a.card))
    for a in plays:
        if _trump(a.card) and COMPLEMENT[a.card] in trick:
            return a
    worth = sum(_value(c) for c in trick if c != "joker" and not _trump(c))
    last = len(trick) == view.players - 1
    if worth >= 8 or (last and worth > 0):
        winners = [a for a in plays if _wins(a.card, trick)]
        if winners:
            return min(winners, key=lambda a: (_keep(a.card), a.card))
    losers = [a for a in plays if not _wins(a.card, trick)] or plays
    return min(losers, key=lambda a: (_keep(a.card), a.card))


def value(state: Any, seat: int) -> float:
    """The expert's value of a played-out world: the seat's round score less the others'
    mean (`margin`; under `alliance`, its team's less the other team's). A trick the seat
    lets go is not lost alike to whoever takes it: the match is won on the difference, and
    the scoring is far from a sum shared out (two cards of a value score 0, three or four
    add 30 or 50, a trump pair its value), so the seat's own score alone let the search feed
    an opponent's group for a few points of its own."""
    scores = state.scores()
    assert scores is not None
    return margin(scores, seat)


#: `expert` searches the play only: the exchange (five single passes, up to fifteen cards each)
#: and the show are the basic rules'. A search of a pass compares fifteen noisy means and
#: keeps the luckiest, and plays out the rest of the exchange and the whole round for a world
#: drawn before any card was received: in duplicate rounds (the same deals, the expert's seats
#: against all-basic ones) searching the exchange cost the expert most of its gain, and most
#: of its time (bench/README.md, issue 25). A show changes nothing a basic play-out reads.
SEARCH_PHASES = frozenset({"play"})

BOTS = BotSupport(sample=sample, basic=basic, search_phases=SEARCH_PHASES, value=value)
