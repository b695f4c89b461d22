"""What every game declares for its bots (issue 25, "Honest bots"), and the pieces the games'
samplers share.

A bot decides from what its seat knows and nothing else: the seat's `View` struct and the
events it was shown (:func:`engine.core.events.visible_to`). Each game's `bots.py` gives
(:class:`BotSupport`):

- `sample(rules, view, events, rng)`: a *world*, a function building a full round state
  (every hidden card placed) consistent with what the seat knows: its hand, the cards played,
  the voids its opponents showed by failing to follow, the cards it passed, what it saw. The
  cards the seat has not seen are dealt uniformly among the places it has not seen, under
  those constraints (:func:`deal_unseen`);
- `basic(rules, view, rng)`: the game's documented heuristic, from the view alone.

`engine.bots` (above the registry) builds the three levels on them: `random`, `basic`, and
`expert`, a perfect-information Monte Carlo search over sampled worlds.

Everything here reads the view's values only: a bot cannot see a hidden card by construction,
since it is never handed one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from engine.core.actions import Action
from engine.core.base import RoundScore
from engine.core.events import EventBase
from engine.core.rng import Rng
from engine.core.view import BaseView

__all__ = [
    "BotSupport",
    "SampleError",
    "SimRound",
    "World",
    "deal_unseen",
    "excluded_by_plays",
    "margin",
    "replay",
]


class SimRound(Protocol):
    """A round a search plays out: a game's public round or its kernel behind a view."""

    @property
    def is_over(self) -> bool: ...

    @property
    def current_player(self) -> int | None: ...

    def actors(self) -> list[int]: ...

    def legal_actions(self, seat: Any) -> list[Any]: ...

    def apply(self, seat: Any, action: Any) -> list[EventBase]: ...

    def scores(self) -> RoundScore | None: ...

    def view(self, seat: Any) -> BaseView: ...


#: A sampled world: each call builds a fresh round state in the same sampled position.
World = Callable[[], SimRound]
#: `sample(rules, view, events, rng)`: a world consistent with what the view's seat knows.
Sampler = Callable[[Any, Any, Sequence[EventBase], Rng], World]
#: `basic(rules, view, rng)`: the game's heuristic action, one of `view.legal_actions`.
Heuristic = Callable[[Any, Any, Rng], Action]


class SampleError(RuntimeError):
    """No world consistent with the view was found (a bug of a sampler, or a view that no
    real round can give)."""


@dataclass(frozen=True, kw_only=True)
class BotSupport:
    """A game's bots (issue 25): its sampler of worlds and its basic heuristic; see the
    module docstring. Both are required: a spec without them fails at import."""

    sample: Sampler
    basic: Heuristic
    #: the phases in which `expert` searches; in any other phase it plays `basic`
    #: (None: every phase)
    search_phases: frozenset[str] | None = None
    #: how `expert` values a searched world once its play-out ends, `value(state, seat)`:
    #: None, the seat's round score (its team's); a game whose moves also change the others'
    #: scores gives its own (Num Win, Num Wars classic: the seat's margin over the others,
    #: `margin`)
    value: Callable[[Any, int], float] | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("sample", "basic") and not callable(value):
                raise TypeError(f"bot support: `{f.name}` is not callable")


def margin(scores: RoundScore, seat: int, extra: Sequence[float] = ()) -> float:
    """The seat's round score less the mean of the others' (its team's less the mean of the
    other teams'), each seat's score plus its `extra` (none: 0): where a move changes an
    opponent's score as much as one's own, and a match is won on the difference."""

    def own(s: int) -> float:
        return scores.players[s].score + (extra[s] if s < len(extra) else 0.0)

    teams = scores.teams
    if isinstance(teams, list) and teams:
        totals = [(seat in t.seats, sum(own(s) for s in t.seats)) for t in teams]
    else:
        totals = [(p.seat == seat, own(p.seat)) for p in scores.players]
    mine = [v for is_own, v in totals if is_own]
    others = [v for is_own, v in totals if not is_own]
    return mine[0] - (sum(others) / len(others) if others else 0.0)


def deal_unseen(
    cards: Iterable[str],
    sizes: Sequence[int],
    rng: Rng,
    allowed: Callable[[str, int], bool] | None = None,
    attempts: int = 50,
) -> list[list[str]]:
    """Deal `cards` (the cards the seat has not seen) into places of `sizes` (their counts add
    up to the number of cards), each card only to a place where `allowed(card, place)`.

    Without constraints the deal is uniform: the cards in random order, each put into a place
    with a chance proportional to the room left there, which is dealing a shuffled deck.
    With constraints the most constrained cards go first (still weighted by room), and a dead
    end starts over; the result follows the constraints, close to uniform among the deals
    that do. Raises :class:`SampleError` when no deal is found.
    """
    pool = sorted(cards)
    if len(pool) != sum(sizes):
        raise SampleError(f"{len(pool)} unseen cards for {sum(sizes)} unseen places")
    places = range(len(sizes))
    options: dict[str, list[int]] = {}
    for card in dict.fromkeys(pool):
        options[card] = [p for p in places if sizes[p] and (allowed is None or allowed(card, p))]
    for _ in range(attempts):
        order = list(pool)
        rng.shuffle(order)
        order.sort(key=lambda c: len(options[c]))  # stable: random within equal freedom
        room = list(sizes)
        dealt: list[list[str]] = [[] for _ in places]
        for card in order:
            choices = [p for p in options[card] if room[p]]
            total = sum(room[p] for p in choices)
            if not total:
                break
            r = rng.below(total)
            for p in choices:
                r -= room[p]
                if r < 0:
                    break
            room[p] -= 1
            dealt[p].append(card)
        else:
            return dealt
    by_paths = _deal_by_paths(pool, sizes, options, rng)
    if by_paths is None:
        raise SampleError("no deal of the unseen cards meets what the seat saw")
    return by_paths


def _deal_by_paths(
    pool: list[str], sizes: Sequence[int], options: dict[str, list[int]], rng: Rng
) -> list[list[str]] | None:
    """A deal that follows the constraints whenever one exists (None else), for the tight
    cases where dealing card by card kept reaching dead ends: each card, in random order,
    goes to a place with room if it may, else along an augmenting path (a card it displaces
    moves on to another place it may go to, breadth first) — a b-matching of cards to places.
    Less uniform than the main path; used only after it failed."""
    order = list(pool)
    rng.shuffle(order)
    room = list(sizes)
    dealt: list[list[str]] = [[] for _ in sizes]
    for card in order:
        # breadth first over places; `came[p]`: (the place before, the card moved from it)
        came: dict[int, tuple[int, str] | None] = {}
        frontier: list[int] = []
        for p in options[card]:
            if p not in came:
                came[p] = None
                frontier.append(p)
        end = next((p for p in frontier if room[p]), None)
        while end is None and frontier:
            following: list[int] = []
            for p in frontier:
                for moved in dealt[p]:
                    for q in options[moved]:
                        if q not in came:
                            came[q] = (p, moved)
                            following.append(q)
            frontier = following
            end = next((p for p in frontier if room[p]), None)
        if end is None:
            return None
        room[end] -= 1
        p = end
        step = came[p]
        while step is not None:  # each moved card from the place before into this one
            before, moved = step
            dealt[before].remove(moved)
            dealt[p].append(moved)
            p, step = before, came[before]
        dealt[p].append(card)
    return dealt


def excluded_by_plays(
    plays: Iterable[tuple[int, str, list[Any]]],
    candidates: Iterable[str],
    legal: Callable[[list[str], list[Any]], Iterable[str]],
) -> dict[int, set[str]]:
    """The cards each seat cannot hold now, shown by its plays (voids, rules it had to obey).

    `plays` are (seat, card, trick before it) of every card played this round (the trick in
    the game's own terms, as `legal(hand, trick)` reads it: the cards a hand may play). Hands
    only shrink during play, so a card held now was held at each earlier play of the seat;
    holding it beside the card played would have made that card illegal, so the seat does
    not hold it. The check is sound: in these games a legal card stays legal in any part of
    the hand that still holds it (an obligation is "if you hold one of these, play one").
    """
    unseen = sorted(set(candidates))
    out: dict[int, set[str]] = {}
    for seat, card, before in plays:
        gone = out.setdefault(seat, set())
        for x in unseen:
            if x in gone or x == card:
                continue
            if card not in set(legal([card, x], before)):
                gone.add(x)
    return out


def replay(state: SimRound, actions: Iterable[tuple[int, Action]]) -> SimRound:
    """Apply `actions` (seat, action) in order to `state`; an illegal one (a world that does
    not fit) raises the engine's error."""
    for seat, action in actions:
        state.apply(seat, action)
    return state


def unseen_cards(deck: Iterable[str], seen: Iterable[str]) -> list[str]:
    """The deck's cards less those seen (as multisets: two Jokers are two cards)."""
    left = Counter(deck)
    left.subtract(Counter(seen))
    if any(v < 0 for v in left.values()):
        raise SampleError("the view shows a card more often than the deck holds it")
    return sorted(left.elements())


def retry(build: Callable[[Rng], World], rng: Rng, attempts: int = 20) -> World:
    """`build(rng)` until it gives a world whose state builds (a sampled deal that a replay
    refuses is drawn again), checked once."""
    last: Exception | None = None
    for _ in range(attempts):
        try:
            world = build(rng)
            world()
            return world
        except SampleError as exc:
            last = exc
        except (ValueError, AssertionError) as exc:  # the engine refused the replay
            last = exc
    raise SampleError(f"no world fits the view: {last}")
