"""The Num Win round state machine (rules/numwin.md).

Card instances are indices into :data:`engine.numwin.DECK` (0 … 110), so the two copies of
`swipe`, `flip` and `quantum` stay apart and knowledge can follow each card (Ruling
"knowledge follows the card"): ``known[card]`` is a bit mask of the seats that have seen it.

Phases: ``show`` (teams only, simultaneous), ``draw`` (the turn player draws or takes),
``play`` (holding a card: discard, swap or add), ``action`` (the discarder chooses the target
of an action card), ``over``. Snaps are open to every seat in ``draw`` and ``play`` while the
discard top was just discarded and is not an action card.

Choices where the spec is silent (documented here and in the API docs):
- Both piles are exhausted when the draw pile is empty and the discard holds nothing under
  its top. The round then ends at once, with no caller, when a turn would start that way, or
  when a forced draw (penalty, malus, fill-up) finds no card (Ruling "A turn" 4). With
  `max_turns`, the round ends the same way after that many finished turns.
- A reshuffle is a shuffle: nobody can follow a card through it, so the reshuffled cards
  become unseen by every seat.
- A call flag belongs to the turn's last action: on the `Target` that finishes an action
  card's effect, else on the discard, swap or add; it needs exactly 5 cards after it.
- A snap pair: the claimant's named card keeps its position, the snapped card goes last;
  under teams a partner's named card leaves the partner's combination (the gap closes) and
  both cards go last in the claimant's.
- Targets (rules version 2, the Rulings on targets): `swipe` names one of your unlocked cards
  then an unlocked card of an opponent; `flip` one of your face-down cards; `quantum` a
  face-down card of yours or of an opponent; `malus-K` an unlocked card of any player, you
  and, under teams, your partner included. An opponent is any other player, under teams a
  player of the other team (never the partner). Face up are a locked pair ("no action can
  touch them") and a card revealed by `quantum`. Reading of "an action targets only
  face-down cards": it forbids the face-up cards to `flip` and `quantum`, the two actions it
  names; `swipe` and `malus` "already need unlocked cards", and a revealed card stays
  unlocked ("it stays face up … but can be swapped or discarded as usual"), so they may
  still choose it (a swiped revealed card stays face up where it goes). A target outside
  these is refused with `not-your-decision` (a locked one with `card-locked`).
  Rules version 1 (records made before): `swipe` any other player's unlocked card (the
  partner's too), `flip` any of your unlocked cards and `quantum` any unlocked card (a
  revealed one too, the partner's too).
- Every card drawn (a turn's draw, a penalty, a malus, the fill-up) comes from
  :meth:`NumWinKernel._draw_card`: the draw pile, refilled from the discard but its top when
  empty (rules "A turn" 4, and the Ruling on an empty pile); a forced draw that finds no card
  ends the round at once, scored as it stands, with no caller.
- The call after a right snap is open only as the very next action: any other action
  (anyone's) lets it lapse. A wrong claim gives no call right (it bans no later call).
- A right claim before the turn player has drawn moves play to the claimant's left at once,
  even when the claimant is that player (rules: "play resumes with the player after").
- A `quantum` card stays face up while it moves between combinations (swap-in by swipe);
  once discarded it is an ordinary discard.
- The teams show step is mandatory (Ruling), before the first turn: until each of the four
  has shown one card of their own two, a show is the only legal action (a show of nothing,
  `card` null, is refused with `card-not-in-hand`; anything else with `wrong-phase` or
  `not-your-turn`).
- `view(None)` (a spectator) shows the cards every seat has seen; once the round is over
  every combination is revealed (rules "All cards are revealed"), the set-aside never.
- Ending "with no caller" on exhausted piles holds during the last turns and the fill-up too.
- The round ends when the last of the last turns is over (snaps on that final discard come
  too late); cards still in hand at an early end are not scored.
- A card a seat has not seen never changes what that seat may do (rules: cards moved in
  unseen stay unknown). So the call flag is offered on a swap of any unseen card, and when
  the card swapped out turns out to be an action card with a target, the call is made at the
  end of the turn, after the action, if the seat then holds exactly 5 cards (else it lapses);
  a seen action card with a target still takes its call on the target, the turn's last action.
- A claim naming a card that is not yours (nor, under teams, your partner's) is refused with
  `not-your-decision`; other refusals use `wrong-phase`, `card-locked`, `combination-full`,
  `cannot-call`, `not-your-turn`; a position out of range is `bad-request`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

import msgspec

from engine.core.actions import (
    Action,
    Add,
    Call,
    Discard,
    Draw,
    Show,
    Snap,
    Swap,
    Take,
    Target,
    check_fields,
)
from engine.core.base import RoundScore, RoundSetup
from engine.core.errors import IllegalMove, InvalidInput
from engine.core.events import (
    ActionData,
    ActionEvent,
    AddEvent,
    CallEvent,
    DiscardEvent,
    DrawEvent,
    EventBase,
    FillUpEvent,
    FlipEvent,
    MalusData,
    MalusEvent,
    PenaltyEvent,
    QuantumData,
    QuantumEvent,
    ReshuffleData,
    ReshuffleEvent,
    RoundOverData,
    RoundOverEvent,
    ShowEvent,
    SnapData,
    SnapEvent,
    SwapData,
    SwapEvent,
    TakeEvent,
    TargetData,
    TargetEvent,
    TurnEvent,
    WrongClaimData,
    WrongClaimEvent,
)
from engine.core.rng import Rng
from engine.core.texts import Said, say
from engine.core.tricks import check_seat
from engine.numwin import texts as T
from engine.numwin.cards import DECK, TARGET_SIZE, is_action, may_pair
from engine.numwin.scoring import NumWinHand, score_hands

_IS_ACTION: tuple[bool, ...] = tuple(is_action(c) for c in DECK)


#: The type of a view the kernel builds (its game's `view` module's `View`).
V = TypeVar("V")


class Phase(StrEnum):
    SHOW = "show"
    DRAW = "draw"
    PLAY = "play"
    ACTION = "action"
    OVER = "over"


class NumWinKernel:
    """One round of Num Win, rebuilt exactly from its setup and its ordered actions."""

    def __init__(
        self,
        setup: RoundSetup,
        pile: list[int],
        hands: list[list[int]],
        starter: int,
        rng: Rng,
        *,
        teams: bool,
        rulings: bool,
        max_turns: int,
    ) -> None:
        """The round of `setup` from its deal (card indices into DECK: the draw pile, the
        hands, the starter) and `rng`, the round's generator past the deal; options `teams`
        and `max_turns`, and `rulings`: rules version 2's Rulings on targets."""
        self.setup = setup
        self.history: list[tuple[int, Action]] = []
        self.n = n = setup.players
        self.all = (1 << n) - 1
        #: bit n marks a card shown to everyone at once (public): only those reach a spectator,
        #: not a card that every seat happens to have seen privately.
        self.public = self.all | (1 << n)
        self.teams = teams
        #: Rules version 2's Rulings on targets (module docstring); False replays version 1.
        self.rulings = rulings
        self.max_turns = max_turns
        self.rng = rng
        self.pile = pile
        self.discard = [starter]
        self.aside: list[int] = []
        self.comb = hands
        self.pairs: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.known = [0] * len(DECK)
        self.faceup = [False] * len(DECK)
        self.locked = [False] * len(DECK)
        for seat, hand in enumerate(hands):
            for card in hand:
                self.known[card] = 1 << seat
        self.known[starter] = self.public
        self.hand = -1
        self.hand_src = ""
        self.turn = setup.dealer
        self.pending = ""
        self.swipe_from = -1
        self.snap_open = False
        self.tried = 0
        self.call_seat = -1
        self.resume_after = -1
        #: A call flagged on a swap whose discarded card, unseen by the player, activated an
        #: action: made at the end of the turn if the player then holds exactly 5 (Ruling).
        self.deferred_call = False
        self.caller: int | None = None
        self.last_turns: list[int] | None = None
        self.turns = 0
        self.shown = 0
        self.end = ""
        self.score_caller: int | None = None
        self._scores: RoundScore | None = None
        self._phase = Phase.SHOW if self.teams else Phase.DRAW
        if not self.teams:
            self._start_turn(setup.dealer, [])

    def view(
        self,
        seat: int | None,
        view_type: Callable[..., V],
        combination_type: Callable[..., Any],
        in_hand_type: Callable[..., Any],
        pending_type: Callable[..., Any],
    ) -> V:
        """What `seat` has seen (None: what every seat has seen), as
        :func:`engine.numwin.view.view` shows it with its types (its `View`, `Combination`,
        `InHand` and `Pending`), built here, compiled with the state it reads (issue 27);
        `seat` is already checked."""
        visible = self.visible
        held = self.hand
        in_hand = None
        if held >= 0:
            in_hand = in_hand_type(
                seat=self.turn,
                card=DECK[held] if visible(seat, held) else None,
                from_=self.hand_src,
            )
        hand: list[str] | None = None
        if seat is not None:  # the seat's own hand: the card it holds on its turn
            hand = [DECK[held]] if held >= 0 and self.turn == seat and visible(seat, held) else []
        n = self.n
        return view_type(
            ruleset="numwin",
            phase=self.phase,
            round=self.setup.round,
            dealer=self.setup.dealer,
            players=n,
            seat=seat,
            current_player=self.current_player,
            actors=list(self.actors()),
            hand=hand,
            legal_actions=list(self.legal_actions(seat)) if seat is not None else None,
            scores=[0] * n,
            turns=self.turns,
            combinations=[
                combination_type(
                    seat=s,
                    count=len(comb),
                    cards=[DECK[c] if visible(seat, c) else None for c in comb],
                    locked=[self.locked[c] for c in comb],
                    face_up=[self.faceup[c] or self.locked[c] for c in comb],
                )
                for s, comb in enumerate(self.comb)
            ],
            in_hand=in_hand,
            discard=DECK[self.discard[-1]] if self.discard else None,
            discard_count=len(self.discard),
            draw_pile_count=len(self.pile),
            set_aside_count=len(self.aside),
            snap_open=self.snap_open,
            pending=(
                pending_type(seat=self.turn, action=self.pending, step=int(self.swipe_from >= 0))
                if self.pending
                else None
            ),
            call_open=self.call_seat if self.call_seat >= 0 else None,
            caller=self.caller,
            last_turns=list(self.last_turns) if self.last_turns is not None else None,
            end=self.end or None,
            shown=[s for s in range(n) if self.shown >> s & 1] if self.teams else None,
            round_score=self.scores(),
        )

    def resume_in(self, phase: str) -> None:
        """Set the phase by its name: a position rebuilt from a view (a bot's sampled world,
        engine.numwin.bots) resumes in the phase that view shows."""
        self._phase = Phase(phase)

    # -- protocol -------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self._phase.value

    @property
    def current_player(self) -> int | None:
        if self._phase is Phase.SHOW or self._phase is Phase.OVER:
            return None
        return self.turn

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    def actors(self) -> list[int]:
        phase = self._phase
        if phase is Phase.OVER:
            return []
        if phase is Phase.SHOW:
            return [s for s in range(self.n) if not self.shown >> s & 1]
        seats = {self.turn}
        if self.call_seat >= 0:
            seats.add(self.call_seat)
        if self.snap_open:
            seats.update(s for s in range(self.n) if self._snap_owners(s))
        return sorted(seats)

    # -- the checked entry points (the round object's methods: engine.core.boundary) -------

    def checked_legal_actions(self, seat: object) -> list[Action]:
        """`legal_actions` of any `seat` argument: a bad one is `check_seat`'s error."""
        return self.legal_actions(_seat(seat, self.n))

    def checked_apply(self, seat: object, action: Action) -> list[EventBase]:
        """`apply` once the seat (`check_seat`) and the action's field types (`check_fields`)
        are checked: a bad one is their error."""
        checked = _seat(seat, self.n)
        check_fields(action)
        return self.apply(checked, action)

    def legal_actions(self, seat: int) -> list[Action]:
        phase = self._phase
        if phase is Phase.OVER or not 0 <= seat < self.n:
            return []
        if phase is Phase.SHOW:
            if self.shown >> seat & 1:
                return []
            return [Show(card=c) for c in dict.fromkeys(DECK[i] for i in self.comb[seat])]
        out: list[Action] = []
        if seat == self.call_seat:
            out.append(Call())
        if seat == self.turn:
            out += self._turn_actions(seat)
        if self.snap_open:
            for owner in self._snap_owners(seat):
                tag = None if owner == seat else owner
                out += [Snap(position=p, owner=tag) for p in self._unlocked(owner)]
        return out

    def apply(self, seat: int, action: Action) -> list[EventBase]:
        if self._phase is Phase.OVER:
            raise self._illegal(seat, "wrong-phase", say(T.ROUND_OVER))
        events: list[EventBase] = []
        if isinstance(action, Snap):
            self._snap(seat, action, events)
        elif isinstance(action, Call):
            self._call(seat, events)
        elif isinstance(action, Show):
            self._show(seat, action, events)
        elif isinstance(action, Target):
            self._target(seat, action, events)
        elif isinstance(action, Draw | Take | Discard | Swap | Add):
            self._turn(seat, action, events)
        else:
            raise self._illegal(
                seat, "wrong-phase", say(T.NOT_AN_ACTION, action=action.__struct_config__.tag)
            )
        self.history.append((seat, action))
        return events

    def scores(self) -> RoundScore | None:
        if self._phase is not Phase.OVER:
            return None
        if self._scores is None:
            self._scores = score_hands(self.final_hands(), self.score_caller, teams=self.teams)
        return self._scores

    def final_hands(self) -> list[NumWinHand]:
        """Each seat's combination as score-round takes it (locked pairs apart)."""
        return [
            NumWinHand(
                combination=[DECK[c] for c in comb if not self.locked[c]],
                locked=[[DECK[a], DECK[b]] for a, b in self.pairs[s]],
            )
            for s, comb in enumerate(self.comb)
        ]

    # -- helpers --------------------------------------------------------------------------

    def _illegal(self, seat: int, reason: str, message: Said) -> IllegalMove:
        tags = sorted({msgspec.to_builtins(a)["type"] for a in self.legal_actions(seat)})
        return IllegalMove(reason, message, tags)

    def _unlocked(self, seat: int) -> list[int]:
        locked = self.locked
        return [p for p, c in enumerate(self.comb[seat]) if not locked[c]]

    def _has_unlocked(self, seat: int) -> bool:
        locked = self.locked
        return any(not locked[c] for c in self.comb[seat])

    def _partner(self, seat: int) -> int:
        return (seat + 2) % 4

    def _snap_owners(self, seat: int) -> list[int]:
        """Whose cards `seat` may name in a claim now (rules "Instant recovery", teams)."""
        if not self.snap_open or self.tried >> seat & 1:
            return []
        owners = [seat] if self._has_unlocked(seat) else []
        if self.teams and self._has_unlocked(self._partner(seat)):
            owners.append(self._partner(seat))
        return owners

    def _can_draw(self) -> bool:
        return bool(self.pile) or len(self.discard) > 1

    def _can_take(self, seat: int) -> bool:
        """Ruling "A turn" 1: take only when you could then swap or add."""
        return bool(self.discard) and (
            len(self.comb[seat]) < TARGET_SIZE or self._has_unlocked(seat)
        )

    def _draw_card(self, events: list[EventBase]) -> int:
        """The top of the draw pile, reshuffling the discard but its top when empty; -1: none."""
        if not self.pile:
            if len(self.discard) <= 1:
                return -1
            self.pile = self.discard[:-1]
            self.discard = self.discard[-1:]
            for c in self.pile:
                self.known[c] = 0
                self.faceup[c] = False
            self.rng.shuffle(self.pile)
            events.append(ReshuffleEvent(data=ReshuffleData(draw_pile_count=len(self.pile))))
        return self.pile.pop()

    def _finish(self, reason: str, events: list[EventBase], *, keep_caller: bool = False) -> None:
        """End the round; exhausted piles and `max_turns` score with no caller (Ruling)."""
        self._phase = Phase.OVER
        self.end = reason
        self.score_caller = self.caller if keep_caller else None
        self.call_seat = -1
        self.snap_open = False
        self.pending = ""
        events.append(RoundOverEvent(data=RoundOverData(reason=reason)))

    def _start_turn(self, seat: int, events: list[EventBase]) -> None:
        self._phase = Phase.DRAW
        self.turn = seat
        self.hand = -1
        self.hand_src = ""
        if not self._can_draw():
            self._finish("exhausted", events)
        else:
            events.append(TurnEvent(seat=seat))

    def _end_turn(self, seat: int, call: bool, events: list[EventBase]) -> None:
        """After a turn: call, `max_turns`, last turns, or the next player."""
        self.turns += 1
        self.hand = -1
        self.hand_src = ""
        self.pending = ""
        self.swipe_from = -1
        if call:
            self.caller = seat
            self.last_turns = [(seat + k) % self.n for k in range(1, self.n)]
            events.append(CallEvent(seat=seat))
        if self.max_turns and self.turns >= self.max_turns:
            self._finish("max-turns", events)
            return
        if self.last_turns is not None:
            if not self.last_turns:
                self._fill_up(events)
                return
            nxt = self.last_turns.pop(0)
        elif self.resume_after >= 0:
            nxt = (self.resume_after + 1) % self.n
        else:
            nxt = (seat + 1) % self.n
        self.resume_after = -1
        self._start_turn(nxt, events)

    def _fill_up(self, events: list[EventBase]) -> None:
        """Rules "Calling": after the last turns, fewer than 5 cards draw up to 5."""
        assert self.caller is not None
        for k in range(1, self.n + 1):
            seat = (self.caller + k) % self.n
            while len(self.comb[seat]) < TARGET_SIZE:
                card = self._draw_card(events)
                if card < 0:
                    self._finish("exhausted", events)
                    return
                self.comb[seat].append(card)
                self.known[card] |= 1 << seat
                events.append(FillUpEvent(seat=seat))
                events.append(FillUpEvent(seat=seat, cards=[DECK[card]], to=[seat]))
        self._finish("called", events, keep_caller=True)

    def _position(self, owner: int, position: int) -> int:
        if not isinstance(position, int) or not 0 <= position < len(self.comb[owner]):
            raise InvalidInput(
                say(T.POSITION_NOT_IN, position=position, owner=owner, count=len(self.comb[owner])),
                code="bad-request",
                field="position",
            )
        return self.comb[owner][position]

    def _put_on_discard(self, card: int) -> bool:
        """A card goes face up on the discard; True when it is an action card (activates)."""
        self.discard.append(card)
        self.known[card] = self.public
        self.faceup[card] = False
        if _IS_ACTION[card]:
            self.snap_open = False
            return True
        self.snap_open = True
        self.tried = 0
        return False

    # -- action targets -------------------------------------------------------------------

    def _face_down(self, seat: int) -> list[int]:
        """Positions of `seat`'s face-down cards: neither locked nor revealed by `quantum`."""
        faceup = self.faceup
        locked = self.locked
        return [p for p, c in enumerate(self.comb[seat]) if not (faceup[c] or locked[c])]

    def _has_face_down(self, seat: int) -> bool:
        faceup = self.faceup
        locked = self.locked
        return any(not (faceup[c] or locked[c]) for c in self.comb[seat])

    def _opponent(self, seat: int, other: int) -> bool:
        """Rules "Actions": another player; under teams (version 2) one of the other team."""
        if other == seat:
            return False
        return not (self.teams and self.rulings and other == self._partner(seat))

    def _targets(self, seat: int, kind: str, step: int) -> list[tuple[int, int]]:
        """Rules "Actions": the (seat, position) choices of an action card's effect now."""
        n = self.n
        if kind == "swipe":
            if step == 0:
                return [(seat, p) for p in self._unlocked(seat)]
            return [(o, p) for o in range(n) if self._opponent(seat, o) for p in self._unlocked(o)]
        if not self.rulings:  # version 1
            if kind == "flip":
                return [(seat, p) for p in self._unlocked(seat)]
            return [(o, p) for o in range(n) for p in self._unlocked(o)]
        if kind == "flip":
            return [(seat, p) for p in self._face_down(seat)]
        if kind == "quantum":
            return [
                (o, p)
                for o in range(n)
                if o == seat or self._opponent(seat, o)
                for p in self._face_down(o)
            ]
        return [(o, p) for o in range(n) for p in self._unlocked(o)]

    def _has_target(self, seat: int, kind: str) -> bool:
        """Ruling: an action is mandatory with a valid target, without effect otherwise."""
        n = self.n
        if kind == "swipe":
            return self._has_unlocked(seat) and any(
                self._has_unlocked(o) for o in range(n) if self._opponent(seat, o)
            )
        if not self.rulings:  # version 1
            if kind == "flip":
                return self._has_unlocked(seat)
            return any(self._has_unlocked(o) for o in range(n))
        if kind == "flip":
            return self._has_face_down(seat)
        if kind == "quantum":
            return any(
                self._has_face_down(o) for o in range(n) if o == seat or self._opponent(seat, o)
            )
        return any(self._has_unlocked(o) for o in range(n))

    def _count_after_target(self, seat: int, kind: str, target: int) -> int:
        count = len(self.comb[seat])
        if kind.startswith("malus") and target == seat:
            count += int(kind[-1]) - 1
        return count

    def _may_call(self, seat: int, count_after: int) -> bool:
        return self.caller is None and count_after == TARGET_SIZE

    # -- turn -----------------------------------------------------------------------------

    def _turn_actions(self, seat: int) -> list[Action]:
        phase = self._phase
        if phase is Phase.DRAW:
            out: list[Action] = [Draw()] if self._can_draw() else []
            if self._can_take(seat):
                out.append(Take())
            return out
        if phase is Phase.PLAY:
            return self._play_actions(seat)
        if phase is Phase.ACTION:
            step = 1 if self.swipe_from >= 0 else 0
            last = self.pending != "swipe" or step == 1
            res: list[Action] = []
            for o, p in self._targets(seat, self.pending, step):
                res.append(Target(seat=o, position=p))
                if last and self._may_call(seat, self._count_after_target(seat, self.pending, o)):
                    res.append(Target(seat=o, position=p, call=True))
            return res
        return []

    def _play_actions(self, seat: int) -> list[Action]:
        positions = self._unlocked(seat)
        count = len(self.comb[seat])
        ends = not (_IS_ACTION[self.hand] and self._has_target(seat, DECK[self.hand]))
        out: list[Action] = []
        can_add = self.hand_src == "take" and count < TARGET_SIZE
        if self.hand_src == "draw":
            out.append(Discard())
            if ends and self._may_call(seat, count):
                out.append(Discard(call=True))
        for p in positions:
            out.append(Swap(position=p))
            old = self.comb[seat][p]
            # an unseen card's kind must not change what the seat may do (rules: it stays
            # unknown): the call is offered, and deferred if that card activates (Ruling)
            if self._may_call(seat, count) and (
                not self.visible(seat, old)
                or not (_IS_ACTION[old] and self._has_target(seat, DECK[old]))
            ):
                out.append(Swap(position=p, call=True))
        if can_add:
            out.append(Add())
            if self._may_call(seat, count + 1):
                out.append(Add(call=True))
        return out

    def _turn(
        self, seat: int, action: Draw | Take | Discard | Swap | Add, events: list[EventBase]
    ) -> None:
        if seat != self.turn:
            raise self._illegal(seat, "not-your-turn", say(T.NOT_YOUR_TURN, turn=self.turn))
        phase = self._phase
        if isinstance(action, Draw | Take):
            if phase is not Phase.DRAW:
                raise self._illegal(seat, "wrong-phase", say(T.HOLDING))
            if isinstance(action, Draw):
                self._draw(seat, events)
            else:
                self._take(seat, events)
            return
        if phase is not Phase.PLAY:
            raise self._illegal(
                seat, "wrong-phase", say(T.NEEDS_CARD, action=action.__struct_config__.tag)
            )
        if isinstance(action, Discard):
            self._discard(seat, action, events)
        elif isinstance(action, Swap):
            self._swap(seat, action, events)
        else:
            self._add(seat, action, events)

    def _draw(self, seat: int, events: list[EventBase]) -> None:
        if not self._can_draw():
            raise self._illegal(seat, "wrong-phase", say(T.PILES_EXHAUSTED))
        self.call_seat = -1
        card = self._draw_card(events)
        self.known[card] |= 1 << seat
        self.hand = card
        self.hand_src = "draw"
        self._phase = Phase.PLAY
        events.append(DrawEvent(seat=seat))
        events.append(DrawEvent(seat=seat, cards=[DECK[card]], to=[seat]))

    def _take(self, seat: int, events: list[EventBase]) -> None:
        if not self.discard:
            raise self._illegal(seat, "wrong-phase", say(T.DISCARD_EMPTY))
        if not self._can_take(seat):
            raise self._illegal(
                seat,
                "combination-full",
                say(T.TAKE_LOCKED, count=len(self.comb[seat])),
            )
        self.call_seat = -1
        card = self.discard.pop()
        self.snap_open = False
        self.hand = card
        self.hand_src = "take"
        self._phase = Phase.PLAY
        events.append(TakeEvent(seat=seat, cards=[DECK[card]]))

    def _check_call(self, seat: int, call: bool, count_after: int, ends: bool) -> None:
        if not call:
            return
        if self.caller is not None:
            raise self._illegal(seat, "cannot-call", say(T.ALREADY_CALLED, caller=self.caller))
        if not ends:
            raise self._illegal(
                seat,
                "cannot-call",
                say(T.CALL_LAST),
            )
        if count_after != TARGET_SIZE:
            raise self._illegal(
                seat,
                "cannot-call",
                say(T.CALL_SIZE, target=TARGET_SIZE, count=count_after),
            )

    def _after_discard(self, seat: int, card: int, call: bool, events: list[EventBase]) -> None:
        """Rules "Actions": a discarded action card activates; else the turn ends."""
        if self._put_on_discard(card):
            kind = DECK[card]
            if self._has_target(seat, kind):
                self._phase = Phase.ACTION
                self.pending = kind
                self.swipe_from = -1
                self.hand = -1
                events.append(ActionEvent(seat=seat, cards=[kind]))
                return
            events.append(ActionEvent(seat=seat, cards=[kind], data=ActionData(effect=False)))
        self._end_turn(seat, call, events)

    def _discard(self, seat: int, action: Discard, events: list[EventBase]) -> None:
        card = self.hand
        count = len(self.comb[seat])
        if self.hand_src == "take":
            raise self._illegal(seat, "wrong-phase", say(T.TAKEN_SWAP_ADD))
        ends = not (_IS_ACTION[card] and self._has_target(seat, DECK[card]))
        self._check_call(seat, action.call, count, ends)
        self.call_seat = -1
        events.append(DiscardEvent(seat=seat, cards=[DECK[card]]))
        self._after_discard(seat, card, action.call, events)

    def _swap(self, seat: int, action: Swap, events: list[EventBase]) -> None:
        old = self._position(seat, action.position)
        if self.locked[old]:
            raise self._illegal(
                seat, "card-locked", say(T.POSITION_LOCKED_PAIR, position=action.position)
            )
        ends = not (_IS_ACTION[old] and self._has_target(seat, DECK[old]))
        defer = action.call and not ends and not self.visible(seat, old)
        self._check_call(seat, action.call, len(self.comb[seat]), ends or defer)
        self.deferred_call = defer
        self.call_seat = -1
        card = self.hand
        self.comb[seat][action.position] = card
        self.faceup[card] = False
        events.append(
            SwapEvent(seat=seat, cards=[DECK[old]], data=SwapData(position=action.position))
        )
        self._after_discard(seat, old, action.call, events)

    def _add(self, seat: int, action: Add, events: list[EventBase]) -> None:
        if self.hand_src != "take":
            raise self._illegal(seat, "wrong-phase", say(T.ADD_TAKEN_ONLY))
        count = len(self.comb[seat])
        if count >= TARGET_SIZE:
            raise self._illegal(
                seat,
                "combination-full",
                say(T.ADD_FULL, count=count, target=TARGET_SIZE),
            )
        self._check_call(seat, action.call, count + 1, True)
        self.call_seat = -1
        card = self.hand
        self.comb[seat].append(card)
        events.append(AddEvent(seat=seat, cards=[DECK[card]]))
        self._end_turn(seat, action.call, events)

    # -- action decisions -----------------------------------------------------------------

    def _target(self, seat: int, action: Target, events: list[EventBase]) -> None:
        if self._phase is not Phase.ACTION:
            raise self._illegal(seat, "wrong-phase", say(T.NO_TARGET_WAITING))
        if seat != self.turn:
            raise self._illegal(
                seat,
                "not-your-decision",
                say(T.CHOOSES_TARGET, turn=self.turn, pending=self.pending),
            )
        kind = self.pending
        step = 1 if self.swipe_from >= 0 else 0
        if not isinstance(action.seat, int) or not 0 <= action.seat < self.n:
            raise InvalidInput(
                say(T.TARGET_NOT_SEAT, seat=action.seat), code="bad-request", field="seat"
            )
        card = self._position(action.seat, action.position)
        if self.locked[card]:
            raise self._illegal(seat, "card-locked", say(T.PAIR_UNTOUCHABLE))
        if (action.seat, action.position) not in self._targets(seat, kind, step):
            raise self._illegal(seat, "not-your-decision", self._target_rule(kind, step))
        last = kind != "swipe" or step == 1
        count_after = self._count_after_target(seat, kind, action.seat)
        self._check_call(seat, action.call, count_after, last)
        call = action.call
        if last and self.deferred_call:  # the call flagged on the swap (Ruling)
            self.deferred_call = False
            call = call or self._may_call(seat, count_after)
        self.call_seat = -1
        events.append(
            TargetEvent(
                seat=seat,
                cards=[kind],
                data=TargetData(seat=action.seat, position=action.position),
            )
        )
        if kind == "swipe" and step == 0:
            self.swipe_from = action.position
            return
        if kind == "swipe":
            mine = self.comb[seat]
            theirs = self.comb[action.seat]
            mine[self.swipe_from], theirs[action.position] = (
                theirs[action.position],
                mine[self.swipe_from],
            )
        elif kind == "flip":
            self.known[card] |= 1 << seat
            events.append(FlipEvent(seat=seat, cards=[DECK[card]], to=[seat]))
        elif kind == "quantum":
            self.known[card] = self.public
            self.faceup[card] = True
            events.append(
                QuantumEvent(
                    seat=action.seat,
                    cards=[DECK[card]],
                    data=QuantumData(position=action.position),
                )
            )
        elif not self._malus(action.seat, action.position, int(kind[-1]), events):
            return
        self._end_turn(seat, call, events)

    def _target_rule(self, kind: str, step: int) -> Said:
        """What `kind` may target (step 1: a swipe's second card), for a refusal's message."""
        if not self.rulings:
            if kind == "flip" or (kind == "swipe" and step == 0):
                return say(T.TARGETS_OWN, kind=kind)
            return say(T.TARGETS_OTHER, kind=kind)
        whose = say(T.AN_OPPONENT) if self.teams else say(T.ANOTHER_PLAYER)
        if kind == "swipe":
            if step == 0:
                return say(T.SWIPE_FIRST)
            return say(T.SWIPE_THEN, whose=whose)
        if kind == "flip":
            return say(T.FLIP_RULE)
        if kind == "quantum":
            theirs = say(T.AN_OPPONENTS) if self.teams else say(T.ANOTHER_PLAYERS)
            return say(T.QUANTUM_RULE, theirs=theirs)
        return say(T.ANY_RULE, kind=kind)

    def _malus(self, target: int, position: int, k: int, events: list[EventBase]) -> bool:
        """Rules "malus-K": the card is set aside, K pile cards join unseen; False: exhausted."""
        card = self.comb[target].pop(position)
        self.faceup[card] = False
        self.aside.append(card)
        events.append(MalusEvent(seat=target, data=MalusData(position=position, added=k)))
        for _ in range(k):
            new = self._draw_card(events)
            if new < 0:
                self._finish("exhausted", events)
                return False
            self.comb[target].append(new)
        return True

    # -- snaps, calls, show ---------------------------------------------------------------

    def _snap(self, seat: int, action: Snap, events: list[EventBase]) -> None:
        owner = seat if action.owner is None else action.owner
        if self._phase is Phase.SHOW or self._phase is Phase.ACTION:
            raise self._illegal(seat, "wrong-phase", say(T.NO_CLAIM_NOW))
        if not self.snap_open:
            shown = DECK[self.discard[-1]] if self.discard else None
            why = (
                say(T.ACTION_NEVER_PAIRS)
                if shown is not None and is_action(shown)
                else say(T.NOT_FRESH)
            )
            raise self._illegal(seat, "wrong-phase", say(T.NO_CLAIM_OPEN, why=why))
        if self.tried >> seat & 1:
            raise self._illegal(seat, "wrong-phase", say(T.CLAIMED_WRONG))
        if owner != seat and not (
            self.teams and isinstance(owner, int) and owner == self._partner(seat)
        ):
            raise self._illegal(seat, "not-your-decision", say(T.CLAIM_OWN))
        card = self._position(owner, action.position)
        if self.locked[card]:
            raise self._illegal(
                seat, "card-locked", say(T.POSITION_LOCKED, position=action.position)
            )
        self.call_seat = -1
        top = self.discard[-1]
        if may_pair(DECK[card], DECK[top]):
            self._right_claim(seat, owner, action.position, events)
        else:
            self._wrong_claim(seat, owner, action.position, events)

    def _right_claim(self, seat: int, owner: int, position: int, events: list[EventBase]) -> None:
        """Right card: the pair locks face up; play resumes after the claimant."""
        top = self.discard.pop()
        card = self.comb[owner][position]
        if owner != seat:
            self.comb[owner].pop(position)
            self.comb[seat].append(card)
        self.comb[seat].append(top)
        for c in (card, top):
            self.locked[c] = True
            self.faceup[c] = True
            self.known[c] = self.public
        self.pairs[seat].append((card, top))
        self.snap_open = False
        events.append(
            SnapEvent(
                seat=seat,
                cards=[DECK[card], DECK[top]],
                data=SnapData(owner=owner, position=position),
            )
        )
        if self.last_turns is None:
            if self._phase is Phase.PLAY:
                self.resume_after = seat
            elif (seat + 1) % self.n != self.turn:
                self._start_turn((seat + 1) % self.n, events)
                if self._phase is Phase.OVER:
                    return
        if self._phase is Phase.DRAW and not self._can_draw():
            self._finish("exhausted", events)
            return
        if self.caller is None and len(self.comb[seat]) == TARGET_SIZE:
            self.call_seat = seat

    def _wrong_claim(self, seat: int, owner: int, position: int, events: list[EventBase]) -> None:
        """Wrong card: shown to all, a penalty card, play resumes with the same player."""
        card = self.comb[owner][position]
        self.known[card] = self.public
        self.tried |= 1 << seat
        events.append(
            WrongClaimEvent(
                seat=seat,
                cards=[DECK[card]],
                data=WrongClaimData(owner=owner, position=position),
            )
        )
        penalty = self._draw_card(events)
        if penalty < 0:
            self._finish("exhausted", events)
            return
        self.comb[seat].append(penalty)
        self.known[penalty] |= 1 << seat
        events.append(PenaltyEvent(seat=seat))
        events.append(PenaltyEvent(seat=seat, cards=[DECK[penalty]], to=[seat]))
        if self._phase is Phase.DRAW and not self._can_draw():
            self._finish("exhausted", events)

    def _call(self, seat: int, events: list[EventBase]) -> None:
        """Right after a successful snap with exactly 5 cards (rules "Instant recovery")."""
        if seat != self.call_seat:
            raise self._illegal(seat, "cannot-call", say(T.CALL_AFTER_SNAP))
        self.call_seat = -1
        self.caller = seat
        queue = [(seat + k) % self.n for k in range(1, self.n)]
        if self._phase is Phase.DRAW and self.turn in queue:
            queue.remove(self.turn)
        self.last_turns = queue
        events.append(CallEvent(seat=seat))

    def _show(self, seat: int, action: Show, events: list[EventBase]) -> None:
        """Teams: each partner shows one card of their own choice to the other."""
        if self._phase is not Phase.SHOW or self.shown >> seat & 1:
            raise self._illegal(seat, "wrong-phase", say(T.NOTHING_TO_SHOW))
        codes = [DECK[c] for c in self.comb[seat]]
        if action.card is None or action.card not in codes:
            raise self._illegal(seat, "card-not-in-hand", say(T.SHOW_OWN, card=action.card))
        card = self.comb[seat][codes.index(action.card)]
        partner = self._partner(seat)
        self.known[card] |= 1 << partner
        self.shown |= 1 << seat
        events.append(ShowEvent(seat=seat))
        events.append(ShowEvent(seat=seat, cards=[action.card], to=[partner]))
        if self.shown == self.all:
            self._start_turn(self.setup.dealer, events)

    # -- the round's state within it (a stored game's progress: issue 27) -----------------

    def state_values(self) -> tuple[Any, ...]:
        """What the round's actions changed, as plain values (`engine.numwin.state` names
        them), in a round not over: :meth:`restore_values` on the round freshly dealt from the
        same setup makes it this round without applying its actions. The generator is kept as
        its state; the end (`end`, `score_caller`) and the scores' cache belong to a round
        over and are left out; the lists are the round's own, to be encoded at once."""
        return (
            self._phase.value,
            self.rng.state,
            self.pile,
            self.discard,
            self.aside,
            self.comb,
            self.pairs,
            self.known,
            self.faceup,
            self.locked,
            self.hand,
            self.hand_src,
            self.turn,
            self.pending,
            self.swipe_from,
            self.snap_open,
            self.tried,
            self.call_seat,
            self.resume_after,
            self.deferred_call,
            self.caller,
            self.last_turns,
            self.turns,
            self.shown,
        )

    def restore_values(
        self,
        phase: str,
        rng: int,
        pile: list[int],
        discard: list[int],
        aside: list[int],
        comb: list[list[int]],
        pairs: list[list[tuple[int, int]]],
        known: list[int],
        faceup: list[bool],
        locked: list[bool],
        hand: int,
        hand_src: str,
        turn: int,
        pending: str,
        swipe_from: int,
        snap_open: bool,
        tried: int,
        call_seat: int,
        resume_after: int,
        deferred_call: bool,
        caller: int | None,
        last_turns: list[int] | None,
        turns: int,
        shown: int,
        history: list[tuple[int, Action]],
    ) -> None:
        """Take the state :meth:`state_values` gave (checked by the caller) on a round freshly
        dealt from its setup (its options its own), with the actions that led there
        (`history`); the generator is rebuilt from its state. No list is shared between two
        attributes, as in a round that played its actions."""
        self._phase = Phase(phase)
        self.rng = Rng(rng)
        self.pile = pile
        self.discard = discard
        self.aside = aside
        self.comb = comb
        self.pairs = pairs
        self.known = known
        self.faceup = faceup
        self.locked = locked
        self.hand = hand
        self.hand_src = hand_src
        self.turn = turn
        self.pending = pending
        self.swipe_from = swipe_from
        self.snap_open = snap_open
        self.tried = tried
        self.call_seat = call_seat
        self.resume_after = resume_after
        self.deferred_call = deferred_call
        self.caller = caller
        self.last_turns = last_turns
        self.turns = turns
        self.shown = shown
        self.end = ""
        self.score_caller = None
        self._scores = None
        self.history = history

    # -- projections ----------------------------------------------------------------------

    def visible(self, seat: int | None, card: int) -> bool:
        """Whether `seat` (None: every seat) has seen deck card `card` (Rules "Knowledge")."""
        if self._phase is Phase.OVER:
            return True
        mask = self.known[card]
        return mask == self.public if seat is None else bool(mask >> seat & 1)

    def snapshot(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "turn": self.turn,
            "turns": self.turns,
            "comb": [list(c) for c in self.comb],
            "pairs": [[list(p) for p in ps] for ps in self.pairs],
            "known": list(self.known),
            "faceup": [i for i, f in enumerate(self.faceup) if f],
            "locked": [i for i, f in enumerate(self.locked) if f],
            "pile": list(self.pile),
            "discard": list(self.discard),
            "aside": list(self.aside),
            "hand": self.hand,
            "hand_src": self.hand_src,
            "pending": self.pending,
            "swipe_from": self.swipe_from,
            "snap_open": self.snap_open,
            "tried": self.tried,
            "call_seat": self.call_seat,
            "deferred_call": self.deferred_call,
            "resume_after": self.resume_after,
            "caller": self.caller,
            "last_turns": self.last_turns,
            "shown": self.shown,
            "end": self.end,
            "score_caller": self.score_caller,
            "history": len(self.history),
        }


def _seat(seat: object, players: int) -> int:
    """`check_seat(seat, players)`, inline for a valid seat (compiled: no Python call)."""
    if type(seat) is int and 0 <= seat < players:
        return seat
    return check_seat(seat, players)
