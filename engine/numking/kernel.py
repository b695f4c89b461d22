"""The state machine of one Num King round (rules/numking.md "Rounds"): bids from the first
bidder clockwise, then the tricks. Built from values (the deck's tables, the deal as strength
ranks, the first bidder) by :class:`engine.numking.round.NumKingRound`, its public round.

Compiled by the mypyc build like the other games' kernels (setup.py); it checks a seat
itself (`apply` refuses a bad seat through `check_seat`, its type before its value).

Speed (the play-out benchmark): legal actions are slices of a strength-ordered hand, cached
until the next action; the `play` and `bid` events that `apply` returns are shared,
precomputed values (treat every event as immutable).
"""

from __future__ import annotations

from bisect import bisect_left
from enum import StrEnum
from typing import Any

import msgspec

from engine.core.actions import Action, Bid, Play
from engine.core.base import (
    RoundScore,
    RoundSetup,
)
from engine.core.cards import canonical, info
from engine.core.errors import IllegalMove, InvalidInput
from engine.core.events import (
    BidData,
    BidEvent,
    EventBase,
    PlayData,
    PlayEvent,
    RoundOverData,
    RoundOverEvent,
    TrickData,
    TrickEvent,
)
from engine.core.texts import say
from engine.core.tricks import check_seat
from engine.numking import texts as T
from engine.numking.cards import (
    BIDS,
    BIT_PLAY,
    DECLARATIONS,
    FBIT,
    FLASH_STRENGTH,
    HELD,
    HELD_INF0,
    INF0,
    INF17,
    INFINITY,
    LOW17,
    MAX_PLAYERS,
    PLAY_INF0,
    PLAY_INF17,
    SORT_KEY,
    VBIT,
    DeckTables,
    bad_input,
)
from engine.numking.scoring import precision_bonus, round_points, score_rows
from engine.numking.tricks import declaration_error, strength

#: Play and bid events by seat: values shared by every round, never to be mutated (one
#: msgspec struct built per action was the largest single cost of a play-out step).
_PLAY_EVENTS: list[dict[str, EventBase]] = [
    {c: PlayEvent(seat=s, cards=[c]) for c in HELD if c != INFINITY} for s in range(MAX_PLAYERS)
]
_INF_EVENTS: list[dict[int, EventBase]] = [
    {d: PlayEvent(seat=s, cards=[INFINITY], data=PlayData(declared=d)) for d in DECLARATIONS}
    for s in range(MAX_PLAYERS)
]
_BID_EVENTS: list[list[EventBase]] = [
    [BidEvent(seat=s, data=BidData(tricks=t)) for t in range(len(BIDS))] for s in range(MAX_PLAYERS)
]


class Phase(StrEnum):
    """The phases of a round (STYLE 3)."""

    BID = "bid"
    PLAY = "play"
    OVER = "over"


#: Module constants: an Enum member lookup (`Phase.PLAY`) costs ~100 ns on the hot path.
_BID, _PLAYING, _OVER = Phase.BID, Phase.PLAY, Phase.OVER


class NumKingKernel:
    """One round: bids from the first bidder clockwise, then k tricks (rules "Rounds").

    Hot-path data are plain lists and ints. Each hand is kept strongest first as two
    parallel lists, its Play actions and their ranks in the deck's strength order, so that
    the cards that beat the trick are a prefix found by bisection (and a played card's place
    too); an int of Rainbow/Shadow bits per
    hand finds the equal-value twins. The current trick is its list of cards, with its top
    strength, top seat and family bits kept up to date; the legal actions are cached until
    the next action; play and bid events are shared values. `hands`, `reserve`, `trick` and
    `tricks` are derived views (canonical lists; (seat, card, strength) entries).

    `order` is the deal as strength ranks, the reserve then the hands (see
    :func:`engine.numking.cards.dealt_ranks`); a scripted one (tests, puzzles) makes a round
    that its setup alone does not rebuild.
    """

    __slots__ = (
        "_best",
        "_cut",
        "_done",
        "_first_rank",
        "_fmask",
        "_hf",
        "_legal",
        "_plays",
        "_rank_card",
        "_ranks",
        "_records",
        "_reserve",
        "_scores",
        "_tcards",
        "_tdecl",
        "_top",
        "_trick_leader",
        "bids",
        "current_player",
        "discarded",
        "first_bidder",
        "history",
        "is_over",
        "k",
        "n",
        "phase",
        "setup",
        "streaks_before",
        "tricks_taken",
        "won",
    )

    def __init__(
        self, setup: RoundSetup, tables: DeckTables, order: list[int], *, first_bidder: int
    ) -> None:
        """The round of a checked `setup` over the deck of `tables`, dealt as `order`
        (strength ranks: the reserve, then seat s's k cards at s·k), bids from
        `first_bidder`."""
        n = setup.players
        k = setup.round
        first = first_bidder
        plays = tables.rank_play
        fbit = tables.rank_fbit
        self._plays: list[list[Action]] = []
        self._ranks: list[list[int]] = []
        self._hf: list[int] = []
        base = len(order) - n * k  # the reserve, then the dealt cards (see `NumKing.deal`)
        for s in range(n):
            ranks = sorted(order[base + s * k : base + s * k + k])
            self._plays.append(list(map(plays.__getitem__, ranks)))
            self._ranks.append(ranks)
            self._hf.append(sum(map(fbit.__getitem__, ranks)))
        self._reserve = order[:base]
        self._first_rank = tables.first_rank
        self._cut = tables.cut
        self._rank_card = tables.rank_card
        self.setup = setup
        self.history: list[tuple[int, Action]] = []
        self.n = n
        self.k = k
        self.first_bidder = first
        self.streaks_before: list[int] = list(setup.carry) if setup.carry is not None else [0] * n
        self.bids: list[int | None] = [None] * n
        self.tricks_taken = [0] * n
        self.won: list[list[str]] = [[] for _ in range(n)]
        self.discarded: list[str] = []
        self._tcards: list[str] = []  # the current trick's cards, in play order
        self._tdecl: int | None = None  # infinity's declaration in the current trick
        #: Finished tricks: (leader, cards in play order, infinity's declaration, winner,
        #: cancelled cards).
        self._records: list[tuple[int, list[str], int | None, int | None, list[str]]] = []
        #: Plain attributes rather than properties: simulate reads them at every step.
        self.phase: Phase = _BID
        self.current_player: int | None = first
        self.is_over = False
        self._trick_leader = first
        self._top = -1
        self._best = first
        self._fmask = 0
        self._done = 0
        self._legal: list[Action] | None = None
        self._scores: RoundScore | None = None

    @property
    def hands(self) -> list[list[str]]:
        """Each seat's hand in canonical order."""
        return [
            sorted([p.card for p in plays], key=SORT_KEY)  # type: ignore[union-attr, misc]
            for plays in self._plays
        ]

    @property
    def trick_leader(self) -> int:
        """Who leads the current trick."""
        return self._trick_leader

    @property
    def trick(self) -> list[tuple[int, str, int]]:
        """The current trick as (seat, card, strength) in play order."""
        return _entries(self._trick_leader, self.n, self._tcards, self._tdecl)

    @property
    def tricks(self) -> list[tuple[int, list[tuple[int, str, int]], int | None, list[str]]]:
        """Finished tricks: (leader, (seat, card, strength) entries, winner, cancelled)."""
        return [
            (leader, _entries(leader, self.n, cards, declared), winner, cancelled)
            for leader, cards, declared, winner, cancelled in self._records
        ]

    @property
    def reserve(self) -> list[str]:
        """The undealt cards, canonical (never shown in a view)."""
        ranked = self._rank_card
        return sorted([ranked[r] for r in self._reserve], key=SORT_KEY)

    # -- protocol -----------------------------------------------------------------------

    def actors(self) -> list[int]:
        """Exactly the seat whose turn it is: Num King has no out-of-turn action."""
        turn = self.current_player
        return [] if turn is None else [turn]

    def legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions, strongest first, cached until the next action.

        rules "Obligation": the cards held stronger than the trick's top are a prefix of the
        hand, plus the "Equal-value exception" twins; else (and on the "Lead") every card,
        infinity at both values. Two Flashes are one action.
        """
        if seat != self.current_player:
            return []
        legal = self._legal
        if legal is not None:
            return legal
        if self.phase is _BID:
            acts: list[Action] = BIDS[: self.k + 1]
        else:
            ranks = self._ranks[seat]
            top = self._top
            if top >= 0:
                count = bisect_left(ranks, self._cut[top])
                if count:
                    acts = self._plays[seat][:count]
                    if count > 1 and ranks[1] == 1:
                        del acts[0]
                    t = self._fmask
                    twins = self._hf[seat] & (((t & LOW17) << 17) | (t >> 17))
                    while twins:
                        bit = twins & -twins
                        acts.append(BIT_PLAY[bit])
                        twins ^= bit
                    self._legal = acts
                    return acts
            acts = self._plays[seat][:]
            inf = self._first_rank[INFINITY]
            if inf in ranks:
                acts.insert(ranks.index(inf) + 1, PLAY_INF0)
            if len(ranks) > 1 and ranks[1] == 1:
                del acts[0]
        self._legal = acts
        return acts

    def checked_legal_actions(self, seat: object) -> list[Action]:
        """`legal_actions` of any `seat` argument: none but for the seat on turn."""
        return self.legal_actions(seat)  # type: ignore[arg-type]

    def checked_apply(self, seat: object, action: Action) -> list[EventBase]:
        """`apply` of any `seat` argument (it checks the seat itself)."""
        return self.apply(seat, action)

    def apply(self, seat: object, action: Action) -> list[EventBase]:
        if type(seat) is not int or seat != self.current_player:
            raise self._refusal(check_seat(seat, self.n), action)
        legal = self._legal
        if legal is None:
            legal = self.legal_actions(seat)
        if action not in legal:
            raise self._refusal(seat, action)
        self.history.append((seat, action))
        self._legal = None
        if self.phase is not _PLAYING:
            return self._apply_bid(seat, action)  # type: ignore[arg-type]
        play: Play = action  # type: ignore[assignment]
        card = play.card
        ranks = self._ranks[seat]
        i = bisect_left(ranks, self._first_rank[card])
        del ranks[i]
        del self._plays[seat][i]
        fbit = FBIT[card]
        self._hf[seat] ^= fbit
        if card == INFINITY:
            declared = play.declared
            s = INF17 if declared == 17 else INF0
            events = [_INF_EVENTS[seat][declared]]  # type: ignore[index]
            self._tdecl = declared
        else:
            s = HELD[card]
            events = [_PLAY_EVENTS[seat][card]]
        cards = self._tcards
        cards.append(card)
        if s > self._top:
            self._top = s
            self._best = seat
        self._fmask |= fbit
        if len(cards) < self.n:
            self.current_player = (seat + 1) % self.n
            return events
        events.extend(self._end_trick())
        return events

    def _refusal(self, seat: int, action: Action) -> EngineErrorLike:
        """Why `action` is refused (nothing is changed): the first broken rule."""
        legal = list(dict.fromkeys(_action_label(a) for a in self.legal_actions(seat)))
        if self.phase is _PLAYING:
            legal = canonical(legal)
        if self.phase is _OVER:
            return IllegalMove("wrong-phase", say(T.ROUND_OVER), ())
        if seat != self.current_player:
            return IllegalMove(
                "not-your-turn", say(T.NOT_YOUR_TURN, turn=self.current_player, seat=seat), ()
            )
        if self.phase is _BID:
            if not isinstance(action, Bid):
                return IllegalMove("wrong-phase", say(T.BID_PHASE, k=self.k), legal)
            return IllegalMove("bad-bid", say(T.BAD_BID, k=self.k, tricks=action.tricks), legal)
        if not isinstance(action, Play):
            return IllegalMove(
                "wrong-phase", say(T.PLAY_PHASE, kind=action.__struct_config__.tag), legal
            )
        card, declared = action.card, action.declared
        if card not in HELD:
            info(card)
            return bad_input(
                say(T.NOT_IN_DECK, card=card, deck=say(T.DECK)), "card", "card-not-in-deck"
            )
        if (error := declaration_error(card, declared)) is not None:
            return error
        if card not in self.hands[seat]:
            return IllegalMove(
                "card-not-in-hand", say(T.NOT_IN_SEAT_HAND, card=card, seat=seat), legal
            )
        if card == INFINITY and declared == 0 and PLAY_INF17 in self.legal_actions(seat):
            return IllegalMove(
                "must-beat",
                say(T.INFINITY_17),
                legal,
            )
        return IllegalMove(
            "must-beat",
            say(T.MUST_BEAT_HELD, card=card, legal=legal),
            legal,
        )

    def _apply_bid(self, seat: int, action: Bid) -> list[EventBase]:
        """Bids go clockwise from the first bidder; the first bidder then leads (Ruling)."""
        self.bids[seat] = action.tricks
        nxt = (seat + 1) % self.n
        if nxt == self.first_bidder:
            self.phase = _PLAYING
        self.current_player = nxt
        return [_BID_EVENTS[seat][action.tricks]]

    def _end_trick(self) -> list[EventBase]:
        """Resolve the full trick (rules "Resolving the trick" 1–4, as :func:`resolve`).

        A Flash annuls; without a Rainbow/Shadow pair the strongest card, tracked as played,
        wins; else the pairs go and the strongest remaining card wins (the remaining values
        are distinct), or nobody. An annulled trick is led again by its leader (Ruling).
        """
        leader = self._trick_leader
        cards = self._tcards
        m = self._fmask
        gone = m & (m >> 17) & LOW17
        winner: int | None
        cancelled: list[str]
        if self._top == FLASH_STRENGTH:
            winner = None
            cancelled = []
            self.discarded.extend(cards)
            nxt = leader
        elif not gone:
            winner = nxt = self._best
            cancelled = []
            self.tricks_taken[winner] += 1
            self.won[winner].extend(cards)
        else:
            vbit = VBIT
            cancelled = [c for c in cards if vbit[c] & gone]
            self.discarded.extend(cancelled)
            rest = [c for c in cards if not vbit[c] & gone]
            if rest:
                held = HELD_INF0 if self._tdecl == 0 else HELD
                best = max(rest, key=held.__getitem__)
                winner = nxt = (leader + cards.index(best)) % self.n
                self.tricks_taken[winner] += 1
                self.won[winner].extend(rest)
            else:
                winner = None
                nxt = leader
            cancelled.sort(key=SORT_KEY)
        self._records.append((leader, cards, self._tdecl, winner, cancelled))
        self._tcards = []
        self._tdecl = None
        self._top = -1
        self._fmask = 0
        self._trick_leader = nxt
        self._done += 1
        events: list[EventBase] = [
            TrickEvent(
                seat=winner,
                cards=sorted(cards, key=SORT_KEY),
                data=TrickData(
                    winner=winner,
                    annulled=winner is None,
                    cancelled=list(cancelled),
                    next_leader=nxt,
                ),
            )
        ]
        if self._done < self.k:
            self.current_player = nxt
            return events
        self.phase = _OVER
        self.current_player = None
        self.is_over = True
        # The round-over event carries the points; the RoundScore is built on demand.
        k = self.k
        scores = []
        streaks = []
        for bid, took, streak in zip(
            self.bids, self.tricks_taken, self.streaks_before, strict=True
        ):
            after = streak + 1 if bid == took else 0
            scores.append(round_points(k, bid, took) + precision_bonus(after))  # type: ignore[arg-type]
            streaks.append(after)
        events.append(
            RoundOverEvent(
                data=RoundOverData(
                    bids=[bid or 0 for bid in self.bids],  # every seat has bid by now
                    tricks=list(self.tricks_taken),
                    scores=scores,
                    streaks=streaks,
                ),
            )
        )
        return events

    def scores(self) -> RoundScore | None:
        if self.phase is not _OVER:
            return None
        if self._scores is None:
            bids = self.bids
            self._scores = score_rows(
                self.k,
                [
                    (bids[s] or 0, self.tricks_taken[s], self.streaks_before[s])
                    for s in range(self.n)
                ],
            )
        return self._scores

    def streaks_after(self) -> list[int]:
        """Each seat's streak once the round is over (rules "Precision bonus")."""
        scores = self.scores()
        if scores is None:
            raise bad_input(say(T.NOT_OVER), "state")
        return [p.streak for p in scores.players]  # type: ignore[misc]

    # -- projections ----------------------------------------------------------------------

    def _public(self) -> dict[str, Any]:
        scores = self.scores()
        return {
            "ruleset": "numking",
            "players": self.n,
            "round": self.k,
            "phase": str(self.phase),
            "turn": self.current_player,
            "dealer": self.setup.dealer,
            "first_bidder": self.first_bidder,
            "leader": self._trick_leader,
            "bids": list(self.bids),
            "tricks_taken": list(self.tricks_taken),
            "streaks_before": list(self.streaks_before),
            "hand_counts": [len(p) for p in self._plays],
            "reserve_count": len(self._reserve),
            "trick": [_entry_json(e) for e in self.trick],
            "tricks": [
                {
                    "leader": leader,
                    "cards": [_entry_json(e) for e in cards],
                    "winner": winner,
                    "cancelled": list(cancelled),
                }
                for leader, cards, winner, cancelled in self.tricks
            ],
            "scores": None if scores is None else msgspec.to_builtins(scores),
        }

    def snapshot(self) -> dict[str, Any]:
        data = self._public()
        data.update(
            hands=[list(h) for h in self.hands],
            reserve=list(self.reserve),
            won=[sorted(w, key=SORT_KEY) for w in self.won],
            discarded=sorted(self.discarded, key=SORT_KEY),
            history=[[s, msgspec.to_builtins(a)] for s, a in self.history],
            setup=msgspec.to_builtins(self.setup),
        )
        return data


EngineErrorLike = IllegalMove | InvalidInput


def _entries(
    leader: int, n: int, cards: list[str], declared: int | None
) -> list[tuple[int, str, int]]:
    """(seat, card, strength) of a trick's cards, played clockwise from `leader`."""
    return [((leader + i) % n, c, strength(c, declared)) for i, c in enumerate(cards)]


def _entry_json(entry: tuple[int, str, int]) -> dict[str, Any]:
    seat, card, s = entry
    if card == INFINITY:
        return {"seat": seat, "card": card, "declared": 17 if s == INF17 else 0}
    return {"seat": seat, "card": card}


def _action_label(action: Action) -> str:
    """How IllegalMove.legal names an action: a card code, or bid-N."""
    if isinstance(action, Play):
        return action.card
    if isinstance(action, Bid):
        return f"bid-{action.tricks}"
    return type(action).__name__.lower()
