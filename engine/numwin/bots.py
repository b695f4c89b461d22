"""Num Win's bots (issue 25): the sampler of worlds a seat cannot tell apart, and the basic
heuristic. Both read the seat's `View` only (engine.core.bots).

Sampler: the seat's view shows exactly the cards it has seen where they are now (rules
"Knowledge": its own cards, what it drew, flipped, peeked at, what was revealed, the uncovered
discard; knowledge follows the card through swaps). Every other place (a combination position
it has not seen, the card held by the seat on turn, the discards under the top, the draw
pile, the cards set aside by a malus) gets one of the cards it has not seen, uniformly. The
world is a round in that position: the combinations, locked pairs, face-up cards, piles and
the turn's state as the view shows them. What the other seats know in it is approximated
(each knows its own combination and the public cards), and a world ends `TURNS_AHEAD` turns
per seat after the sampled position at the latest (option `max_turns`; see `value`).

Basic heuristic (the lowest total):
- **Snap** a discard that pairs (rules "Instant recovery") with one of its own unlocked cards
  it knows; never guess.
- **Draw or take**: take the uncovered discard when it pairs with a known card of its own,
  is worth 4 or less, or when the combination still needs cards (fewer than 5) and it is
  worth 8 or less; else draw.
- **With a card in hand**: swap it for its highest unlocked card (an unseen one counts 8)
  when it is lower; add a taken card while under 5 cards; else discard it (an action card
  then acts).
- **Targets**: `flip` its own unseen card; `swipe` gives its highest card for an opponent's
  card; `quantum` and a malus aim at the opponent, its own highest card for a malus never.
- **Call** "Num Win" when it holds exactly 5 cards worth (by its estimate) 15 or less.

Expert (engine.bots): it searches the turn's draw and play and the targets of an action it
discarded (`action`: which opponent a malus, swipe or quantum aims at), plays each world out
`TURNS_AHEAD` turns a seat, and values it by the seat's round score *less the mean of the
others'* (`value`): a malus or a swipe changes an opponent's score as much as its own, and the
match is won on the difference; by its own score alone every target of a malus on an
opponent looked the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.core.actions import Action, Add, Call, Discard, Draw, Snap, Swap, Take, Target
from engine.core.base import RoundSetup
from engine.core.bots import BotSupport, World, margin, retry
from engine.core.cards import CARDS
from engine.core.events import EventBase
from engine.core.rng import Rng
from engine.numwin.cards import DECK, TARGET_SIZE, is_action, may_pair
from engine.numwin.round import NumWinRound
from engine.numwin.view import View

if TYPE_CHECKING:
    from engine.numwin.rules import NumWin

#: A play-out's horizon: turns per seat after the sampled position (`TURNS_AHEAD` × players).
#: A round cut there is scored as it stands and each combination short of 5 cards is charged
#: `FILL` a missing card (`value`), as the fill-up after a call would: a short horizon keeps a
#: move's value from drowning in the noise of the whole round's remaining draws (the round
#: played to its end gave the expert no edge over basic), and costs a fraction of the time.
TURNS_AHEAD = 3
#: What a card that fills a combination up to 5 is reckoned to cost (a numbered card's mean
#: value is 8, some pair off).
FILL = 7.0
#: What an unseen card of a combination is reckoned to be worth.
UNSEEN = 8


def sample(rules: NumWin, view: View, events: Sequence[EventBase], rng: Rng) -> World:
    """A world consistent with the seat's view (module docstring)."""
    seat = view.seat
    assert seat is not None
    n = view.players
    free: dict[str, list[int]] = {}
    for i, code in enumerate(DECK):
        free.setdefault(code, []).append(i)

    def take(code: str) -> int:
        return free[code].pop()

    combs: list[list[int | None]] = []
    for comb in view.combinations:
        combs.append([None if c is None else take(c) for c in comb.cards])
    held: int | None = None
    if view.in_hand is not None and view.in_hand.card is not None:
        held = take(view.in_hand.card)
    top = take(view.discard) if view.discard is not None else None
    unseen_ids = sorted(i for ids in free.values() for i in ids)
    setup = RoundSetup(players=n, seed=0, dealer=view.dealer, round=view.round)
    turn = view.current_player if view.current_player is not None else view.dealer
    if view.in_hand is not None:
        turn = view.in_hand.seat
    if view.pending is not None:
        turn = view.pending.seat

    def build(rng: Rng) -> World:
        pool = list(unseen_ids)
        rng.shuffle(pool)
        filled = [[pool.pop() if c is None else c for c in comb] for comb in combs]
        hand = -1
        if view.in_hand is not None:
            hand = held if held is not None else pool.pop()
        under = [pool.pop() for _ in range(max(0, view.discard_count - (top is not None)))]
        aside = [pool.pop() for _ in range(view.set_aside_count)]
        pile = pool[: view.draw_pile_count]
        world_seed = rng.next_u64()

        def world() -> Any:
            state = NumWinRound(rules, setup)
            k = state.kernel
            k.pile = list(pile)
            k.discard = [*under, *([top] if top is not None else [])]
            k.aside = list(aside)
            k.comb = [list(c) for c in filled]
            k.rng = Rng(world_seed)
            known = [0] * len(DECK)
            faceup = [False] * len(DECK)
            locked = [False] * len(DECK)
            pairs: list[list[tuple[int, int]]] = [[] for _ in range(n)]
            for s, comb in enumerate(view.combinations):
                waiting: int | None = None
                for p, card in enumerate(filled[s]):
                    known[card] = 1 << s
                    if comb.cards[p] is not None:
                        known[card] |= 1 << seat
                    if comb.face_up[p] or comb.locked[p]:
                        known[card] = k.public
                        faceup[card] = comb.face_up[p] and not comb.locked[p]
                    if comb.locked[p]:
                        locked[card] = True
                        if waiting is None:
                            waiting = card
                        else:
                            pairs[s].append((waiting, card))
                            waiting = None
            for card in k.discard:
                known[card] = k.public
            if hand >= 0:
                known[hand] = 1 << turn
            k.known, k.faceup, k.locked, k.pairs = known, faceup, locked, pairs
            k.hand = hand
            k.hand_src = view.in_hand.from_ if view.in_hand is not None else ""
            k.turn = turn
            k.pending = view.pending.action if view.pending is not None else ""
            k.swipe_from = 0 if view.pending is not None and view.pending.step else -1
            k.snap_open = view.snap_open
            k.tried = 0
            k.call_seat = view.call_open if view.call_open is not None else -1
            k.resume_after = -1
            k.deferred_call = False
            k.caller = view.caller
            k.last_turns = list(view.last_turns) if view.last_turns is not None else None
            k.turns = view.turns
            k.shown = sum(1 << s for s in view.shown or [])
            k.end = view.end or ""
            k.max_turns = view.turns + TURNS_AHEAD * n
            k.resume_in(view.phase)
            k._scores = None
            return state

        return world

    return retry(build, rng)


# -- the basic heuristic ---------------------------------------------------------------------


def _worth(card: str | None) -> int:
    if card is None:
        return UNSEEN
    if is_action(card):
        return 5
    return CARDS[card].value or 0


def _estimate(view: View, seat: int) -> int:
    comb = view.combinations[seat]
    return sum(_worth(c) for c, lock in zip(comb.cards, comb.locked, strict=True) if not lock)


def _with_call(legal: list[Action], action: Action, call: bool) -> Action:
    """`action`, flagged as a call when `call` and the flagged action is legal."""
    if call:
        for a in legal:
            same = type(a) is type(action) and all(
                getattr(a, f) == getattr(action, f) for f in action.__struct_fields__ if f != "call"
            )
            if same and getattr(a, "call", False):
                return a
    return action if action in legal else legal[0]


def basic(rules: NumWin, view: View, rng: Rng) -> Action:
    """The basic heuristic (module docstring)."""
    seat = view.seat
    legal = view.legal_actions
    assert seat is not None and legal
    mine = view.combinations[seat]
    top = view.discard
    if top is not None and view.snap_open:
        for a in legal:
            if isinstance(a, Snap) and a.owner is None:
                card = mine.cards[a.position] if a.position < len(mine.cards) else None
                if card is not None and may_pair(card, top):
                    return a
    estimate = _estimate(view, seat)
    calls = estimate <= 15
    for a in legal:
        if isinstance(a, Call) and calls and mine.count == TARGET_SIZE:
            return a
    unlocked = [p for p in range(mine.count) if not mine.locked[p]]
    if any(isinstance(a, Draw) for a in legal):
        take = any(isinstance(a, Take) for a in legal) and top is not None
        if take and top is not None:
            v = _worth(top)
            pairs = any(c is not None and may_pair(c, top) for c in mine.cards)
            if not is_action(top) and (pairs or v <= 4 or (mine.count < TARGET_SIZE and v <= 8)):
                return Take()
        return Draw()
    if view.in_hand is not None and view.in_hand.seat == seat and view.hand:
        card = view.hand[0]
        v = _worth(card)
        after = mine.count
        if unlocked:
            worst = max(unlocked, key=lambda p: (_worth(mine.cards[p]), p))
            if v < _worth(mine.cards[worst]) and not is_action(card):
                final = estimate - _worth(mine.cards[worst]) + v
                old = mine.cards[worst]
                safe = old is not None and not is_action(old)  # no action acts before it
                swap = _with_call(
                    legal, Swap(position=worst), safe and after == TARGET_SIZE and final <= 15
                )
                if isinstance(swap, Swap):
                    return swap
        if any(isinstance(a, Add) for a in legal) and mine.count < TARGET_SIZE:
            return _with_call(legal, Add(), after + 1 == TARGET_SIZE and estimate + v <= 15)
        if any(isinstance(a, Discard) for a in legal):
            return _with_call(
                legal, Discard(), not is_action(card) and after == TARGET_SIZE and calls
            )
    targets = [a for a in legal if isinstance(a, Target)]
    if targets and view.pending is not None:
        kind = view.pending.action
        own = [a for a in targets if a.seat == seat]
        theirs = [a for a in targets if a.seat != seat]
        if kind == "flip":
            unseen = [a for a in own if mine.cards[a.position] is None]
            return (unseen or own or targets)[0]
        if kind == "swipe" and view.pending.step == 0 and own:
            return max(own, key=lambda a: (_worth(mine.cards[a.position]), -a.position))
        if theirs:
            return theirs[rng.below(len(theirs))]
        return targets[0]
    plain = [a for a in legal if not isinstance(a, Snap | Call)]
    return (plain or legal)[0]


def value(state: Any, seat: int) -> float:
    """The expert's value of a played-out world: the seat's round score less the others'
    mean (`margin`), each combination short of 5 cards charged `FILL` a missing card (a
    round cut at the horizon; a called round was filled up already)."""
    scores = state.scores()
    assert scores is not None
    short = [max(0, TARGET_SIZE - len(comb)) * FILL for comb in state.kernel.comb]
    return margin(scores, seat, short)


BOTS = BotSupport(
    sample=sample, basic=basic, search_phases=frozenset({"draw", "play", "action"}), value=value
)
