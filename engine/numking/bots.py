"""Num King's bots (issue 25): the sampler of worlds a seat cannot tell apart, and the basic
heuristic. Both read the seat's `View` only (engine.core.bots).

Sampler: the seat knows its hand, every bid and every card played (the view's tricks and
current trick). The cards it has not seen are dealt among the other hands (their counts are
public) and the reserve, except that a seat never holds a card that would have made one of
its past plays illegal (rules "Obligation": a seat that did not beat the trick held nothing
stronger, bar the "Equal-value exception"). The world is the round dealt so (each hand: what
it holds now plus what it played), the bids and plays replayed in order.

Basic heuristic:
- **Bid from hand strength** (rules "Bids"): each card counts its rough chance to take a
  trick at this table: `numx` 0.95, `infinity` 0.8 (declared 17), a Flash 0 (it annuls), a
  numbered card ``(value / 17) ** (players - 1)``; the bid is that sum rounded, at most k.
- **Play to the bid**: while the seat still needs tricks it plays its strongest legal card
  when that card would top the trick (or leads its strongest), else its weakest; once its bid
  is met it ducks: the strongest legal card that stays under the trick's top, else a Flash
  (it annuls the trick), else its weakest card; `infinity` is declared 0 when ducking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.core.actions import Action, Bid, Play
from engine.core.base import RoundSetup, TrickCard
from engine.core.bots import (
    BotSupport,
    World,
    deal_unseen,
    excluded_by_plays,
    retry,
    unseen_cards,
)
from engine.core.cards import canonical
from engine.core.events import EventBase
from engine.core.rng import Rng
from engine.numking.cards import FLASH, INFINITY, NUMX, deck_tables
from engine.numking.tricks import legal_cards, strength, trick_state
from engine.numking.view import View

if TYPE_CHECKING:
    from engine.numking.rules import NumKing


def _legal(hand: list[str], trick: list[TrickCard]) -> list[str]:
    top, mask = trick_state(trick)
    return legal_cards(canonical(hand), top, mask)[0]


def _plays(view: View) -> list[tuple[int, str, list[TrickCard]]]:
    out: list[tuple[int, str, list[TrickCard]]] = []
    for trick in [*(t.cards for t in view.tricks), view.trick]:
        for i, tc in enumerate(trick):
            out.append((tc.seat, tc.card, list(trick[:i])))
    return out


def sample(rules: NumKing, view: View, events: Sequence[EventBase], rng: Rng) -> World:
    """A world consistent with the seat's view (module docstring)."""
    seat = view.seat
    assert seat is not None and view.hand is not None
    n = view.players
    plays = _plays(view)
    played = [card for _, card, _ in plays]
    unseen = unseen_cards(deck_tables(rules.options.zeros).cards, [*view.hand, *played])
    others = [s for s in range(n) if s != seat]
    sizes = [view.hand_counts[s] for s in others] + [view.reserve_count]
    gone = excluded_by_plays(
        [p for p in plays if p[0] != seat], set(unseen), lambda h, t: _legal(h, t)
    )

    def allowed(card: str, place: int) -> bool:
        return place == len(others) or card not in gone.get(others[place], ())

    by_seat: dict[int, list[str]] = {s: [] for s in range(n)}
    for s, card, _ in plays:
        by_seat[s].append(card)
    k = view.hand_counts[seat] + len(by_seat[seat])
    setup = RoundSetup(
        players=n,
        seed=0,
        dealer=view.dealer,
        round=k,
        leader=view.first_bidder,
        carry=list(view.streaks_before),
    )
    actions: list[tuple[int, Action]] = []
    for i in range(n):
        s = (view.first_bidder + i) % n
        bid = view.bids[s]
        if bid is not None:
            actions.append((s, Bid(tricks=bid)))
    for trick in [*(t.cards for t in view.tricks), view.trick]:
        for tc in trick:
            if tc.declared is None:
                actions.append((tc.seat, Play(card=tc.card)))
            else:
                actions.append((tc.seat, Play(card=tc.card, declared=17 if tc.declared else 0)))

    hand = list(view.hand)

    def build(rng: Rng) -> World:
        dealt = deal_unseen(unseen, sizes, rng, allowed)
        hands: list[list[str]] = [[] for _ in range(n)]
        hands[seat] = [*hand, *by_seat[seat]]
        for i, s in enumerate(others):
            hands[s] = [*dealt[i], *by_seat[s]]

        def world() -> Any:
            state = rules.new_round(setup, hands)
            for s, action in actions:
                state.apply(s, action)
            return state

        return world

    return retry(build, rng)


def _chance(card: str, players: int) -> float:
    if card == NUMX:
        return 0.95
    if card == INFINITY:
        return 0.8
    if card == FLASH:
        return 0.0
    value = int(card.rsplit("-", 1)[1])
    return float((value / 17) ** (players - 1))


def basic(rules: NumKing, view: View, rng: Rng) -> Action:
    """The basic heuristic (module docstring)."""
    seat = view.seat
    legal = view.legal_actions
    assert seat is not None and legal and view.hand is not None
    if view.phase == "bid":
        k = view.hand_counts[seat]
        want = round(sum(_chance(c, view.players) for c in view.hand))
        return Bid(tricks=max(0, min(k, want)))
    plays = [a for a in legal if isinstance(a, Play)]
    top = max((strength(t.card, t.declared) for t in view.trick), default=-1)
    bid = view.bids[seat] or 0
    need = bid - view.tricks_taken[seat]

    def power(a: Play) -> int:
        return -1 if a.card == FLASH else strength(a.card, a.declared)

    by_power = sorted(plays, key=lambda a: (power(a), a.card))
    if need > 0:
        best = by_power[-1]
        if not view.trick or power(best) > top:
            return best
        return by_power[0]
    under = [a for a in by_power if power(a) < top and a.card != FLASH]
    if under:
        return under[-1]
    for a in plays:
        if a.card == FLASH and view.trick:
            return a
    return by_power[0]


BOTS = BotSupport(sample=sample, basic=basic, search_phases=None)
