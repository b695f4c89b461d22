"""`numking` — Num King (rules/numking.md): rounds of growing hands, exact bids, cancellations.

The rules object answers the stateless questions (deck, deal, legal moves, trick resolution,
round scoring, match totals) and builds :class:`NumKingRound`, the state machine of one
round (bids, then play). A whole game (rounds 1 … max_cards) is a match,
``rules.new_match(players, seed)`` (:mod:`engine.core.match`): its rounds are set up by
``rules.round_setup``, which carries the streaks (``RoundSetup.carry``) and names the first
bidder by the Ruling (``RoundSetup.leader``, see :func:`next_first_bidder`).

Strength (rules "Playing a card") is one small int per card, precomputed:
``infinity``@0 = 0 < numbered X = X + 1 < ``infinity``@17 = 18 < ``numx`` = 19 < ``flash`` = 20.
Held ``infinity`` counts as 18 for the obligation. After cancellation the remaining numbered
values are distinct, so the trick winner is simply the strongest remaining card.

Choices where the spec is silent (documented here and in the API docs):
- A ``declared`` value other than 17 or 0 on ``infinity`` is reported like a missing one
  (``missing-declared``); ``declared`` on any other card is ``bad-request``.
- ``legal`` lists each legal card code once (two Flashes in hand: ``flash`` once). In a
  round, ``legal_actions`` lists the plays strongest first, ``Play("infinity", 17)`` then
  ``Play("infinity", 0)`` when both declarations are legal, ``Play("flash")`` once.
- Cancelled cards of a won trick, and every card of an annulled trick, are discarded.
- ``score-round`` takes ``cards`` in 1 … ⌊deck / 2⌋ (the largest hand of any table size),
  since a front-end may score one player at a time. The tricks of the players are NOT
  required to sum to at most ``cards``: the conformance case "numking: exact bids" (the
  seed's three examples in one 6-card request, 10 tricks) must be accepted.
- Each score has two breakdown lines: the bid result, then the precision bonus (0 included).
- Deal: only the n·k dealt cards are drawn (``Rng.shuffle(…, last=n·k)``): they are the last
  n·k of the shuffled deck, seat s taking the s-th block of k; the cards before them are the
  reserve (a round of 1 card with 4 players draws 4 cards, not the whole deck).
- In a match, round r's seed is :func:`engine.core.match.round_seed` of the match seed;
  the dealer moves one seat clockwise each round (rules/README.md), with no effect on play.

Speed (the play-out benchmark): legal actions are slices of a strength-ordered hand, cached
until the next action; the `play` and `bid` events that `apply` returns are shared,
precomputed values (treat every event as immutable).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from functools import cache
from typing import Any, ClassVar, NamedTuple

import msgspec

from engine.actions import Action, Bid, Play
from engine.base import (
    Capture,
    Deal,
    DeckInfo,
    Event,
    LegalMoves,
    MatchResult,
    MoveCheck,
    PlayerScore,
    RoundScore,
    RoundSetup,
    RoundState,
    ScoreLine,
    TrickCard,
    TrickResult,
)
from engine.cards import CARDS, canonical, check_cards, info, numbered_deck
from engine.core.match import Match, TiebreakDecision, check_rules_version
from engine.errors import IllegalMove, InvalidInput
from engine.rng import Rng
from engine.scoring import best_seats, match_totals
from engine.tricks import check_players, check_seat, check_trick

MIN_PLAYERS = 2
MAX_PLAYERS = 8
INFINITY = "infinity"
FLASH = "flash"
NUMX = "numx"
DECLARATIONS = (17, 0)

#: Strength of a played card (rules "Strength"); infinity's depends on its declaration.
INF0, INF17, NUMX_STRENGTH, FLASH_STRENGTH = 0, 18, 19, 20


def _tables() -> tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, int]]:
    """Per-card strength when held, value bit, Rainbow bit and Shadow bit (0 if none)."""
    held: dict[str, int] = {NUMX: NUMX_STRENGTH, INFINITY: INF17, FLASH: FLASH_STRENGTH}
    vbit: dict[str, int] = {NUMX: 0, INFINITY: 0, FLASH: 0}
    rbit = dict(vbit)
    sbit = dict(vbit)
    for v in range(17):
        for family in ("rainbow", "shadow"):
            code = f"{family}-{v}"
            held[code] = v + 1
            vbit[code] = 1 << v
            rbit[code] = (1 << v) if family == "rainbow" else 0
            sbit[code] = (1 << v) if family == "shadow" else 0
    return held, vbit, rbit, sbit


_HELD, _VBIT, _RBIT, _SBIT = _tables()
#: Strengths with infinity played at 0 (rules "Strength").
_HELD_INF0 = {**_HELD, INFINITY: INF0}
#: Rainbow-X sets bit X, Shadow-X bit X + 17: one int tracks both families of a trick.
_FBIT: dict[str, int] = {code: _RBIT[code] | (_SBIT[code] << 17) for code in _HELD}
_LOW17 = (1 << 17) - 1
_ORDER: dict[str, int] = {code: CARDS[code].order for code in _HELD}
_SORT_KEY = _ORDER.__getitem__

#: Shared, immutable action instances: legal_actions never builds a struct.
_PLAY: dict[str, Play] = {code: Play(card=code) for code in _HELD}
_PLAY_INF17 = Play(card=INFINITY, declared=17)
_PLAY_INF0 = Play(card=INFINITY, declared=0)
_PLAY[INFINITY] = _PLAY_INF17
_BIDS: list[Action] = [Bid(tricks=t) for t in range(40)]
#: Play and bid events by seat: values shared by every round, never to be mutated (one
#: msgspec struct built per action was the largest single cost of a play-out step).
_PLAY_EVENTS: list[dict[str, Event]] = [
    {c: Event(kind="play", seat=s, cards=[c]) for c in _HELD if c != INFINITY}
    for s in range(MAX_PLAYERS)
]
_INF_EVENTS: list[dict[int, Event]] = [
    {d: Event(kind="play", seat=s, cards=[INFINITY], data={"declared": d}) for d in DECLARATIONS}
    for s in range(MAX_PLAYERS)
]
_BID_EVENTS: list[list[Event]] = [
    [Event(kind="bid", seat=s, data={"tricks": t}) for t in range(len(_BIDS))]
    for s in range(MAX_PLAYERS)
]
#: The Play of the Rainbow/Shadow card of each single bit of a hand's family bits.
_BIT_PLAY: dict[int, Play] = {_FBIT[code]: _PLAY[code] for code in _HELD if _FBIT[code]}


class Phase(StrEnum):
    """The phases of a round (STYLE 3)."""

    BID = "bid"
    PLAY = "play"
    OVER = "over"


#: Module constants: an Enum member lookup (`Phase.PLAY`) costs ~100 ns on the hot path.
_BID, _PLAYING, _OVER = Phase.BID, Phase.PLAY, Phase.OVER


class NumKingOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    zeros: bool = False  # add rainbow-0 and shadow-0 (38 cards, the seed's total)
    max_cards: int | None = None  # last round's hand size, 1..k_max (default k_max)
    first_bidder: int = 0  # first bidder (and leader) of round 1


class NumKingBid(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's round for score-round: bid, tricks taken, streak before the round."""

    bid: int
    tricks: int
    streak: int = 0


# --------------------------------------------------------------------------- pure rules


def strength(card: str, declared: int | None = None) -> int:
    """A played card's strength (rules "Strength"): infinity by its declaration."""
    if card == INFINITY:
        return INF17 if declared == 17 else INF0
    return _HELD[card]


def legal_cards(hand: Sequence[str], top: int, mask: int) -> tuple[list[str], list[int]]:
    """Legal card codes (hand order, each once) and infinity's allowed declarations.

    `top` is the strongest strength in the trick (-1 when leading), `mask` the value bits
    of its numbered cards (rules "Obligation", "Equal-value exception").
    """
    if top >= 0:
        held = _HELD
        if any(held[c] > top for c in hand):
            vbit = _VBIT
            cards = list(dict.fromkeys(c for c in hand if held[c] > top or vbit[c] & mask))
            return cards, [17] if INFINITY in cards else []
    cards = list(dict.fromkeys(hand))
    return cards, [17, 0] if INFINITY in cards else []


def resolve(entries: Sequence[tuple[int, str, int]]) -> tuple[int | None, list[str], list[str]]:
    """Winner (None: annulled), cancelled cards and the winner's cards of a full trick.

    `entries` are (seat, card, strength) in play order (rules "Resolving the trick").
    """
    rmask = smask = 0
    for _, card, s in entries:
        if s == FLASH_STRENGTH:
            return None, [], []
        rmask |= _RBIT[card]
        smask |= _SBIT[card]
    gone = rmask & smask
    if gone:
        vbit = _VBIT
        cancelled = [c for _, c, _ in entries if vbit[c] & gone]
        rest = [e for e in entries if not vbit[e[1]] & gone]
    else:
        cancelled = []
        rest = list(entries)
    if not rest:
        return None, cancelled, []
    best = max(rest, key=_strength_of)
    return best[0], cancelled, [c for _, c, _ in rest]


def _strength_of(entry: tuple[int, str, int]) -> int:
    return entry[2]


def round_points(cards: int, bid: int, tricks: int) -> int:
    """Points of one bid result (rules "Scoring a round", the table)."""
    if bid > 0:
        return 10 + 3 * bid if tricks == bid else -3 * abs(tricks - bid)
    return 25 + 2 * cards if tricks == 0 else -(10 + 5 * tricks)


def _result_label(cards: int, bid: int, tricks: int) -> str:
    """The breakdown line of a bid result, with the table's formula."""
    if bid > 0:
        if tricks == bid:
            return f"bid {bid} met: 10 + 3×{bid}"
        return f"bid {bid}, took {tricks}: −3×{abs(tricks - bid)}"
    if tricks == 0:
        return f"bid 0 met in a {cards}-card round: 25 + 2×{cards}"
    return f"bid 0, took {tricks}: −(10 + 5×{tricks})"


def precision_bonus(streak_after: int) -> int:
    """+5 at a streak of 2, +10 at 3 or more, every round while it lasts (Ruling "+10")."""
    if streak_after >= 3:
        return 10
    return 5 if streak_after == 2 else 0


def next_first_bidder(previous_first_bidder: int, tricks_by_seat: Sequence[int]) -> int:
    """The seat with the most tricks; a tie goes to the tied seat first met clockwise from
    the previous first bidder, that seat included (rules "Bids", Ruling)."""
    n = len(tricks_by_seat)
    most = max(tricks_by_seat)
    for i in range(n):
        seat = (previous_first_bidder + i) % n
        if tricks_by_seat[seat] == most:
            return seat
    raise AssertionError("unreachable")


def declaration_error(card: str, declared: int | None) -> InvalidInput | None:
    """`infinity` needs `declared` 17 or 0; no other card takes one ("Playing a card")."""
    if card == INFINITY:
        if declared not in DECLARATIONS:
            return _bad(
                f"infinity is played with 'declared' 17 or 0, not {declared!r}",
                "declared",
                "missing-declared",
            )
    elif declared is not None:
        return _bad(f"only infinity takes a declared value, not {card!r}", "declared")
    return None


def _bad(message: str, field: str, code: str = "bad-request") -> InvalidInput:
    return InvalidInput(message, code=code, field=field)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_declared(trick: Sequence[TrickCard]) -> None:
    """`infinity` carries 17 or 0 (API contract); no other card carries a declaration."""
    for i, t in enumerate(trick):
        if t.card == INFINITY:
            if t.declared not in DECLARATIONS:
                raise _bad(
                    f"trick[{i}] is infinity: it needs 'declared' 17 or 0, not {t.declared!r}",
                    f"trick[{i}].declared",
                    "missing-declared",
                )
        elif t.declared is not None:
            raise _bad(
                f"trick[{i}] is {t.card!r}: only infinity takes a declared value",
                f"trick[{i}].declared",
            )


def _trick_state(trick: Sequence[TrickCard]) -> tuple[int, int]:
    """(top strength, numbered value bits) of a partial trick; top = -1 when empty."""
    top = -1
    mask = 0
    for t in trick:
        s = strength(t.card, t.declared)
        if s > top:
            top = s
        mask |= _VBIT[t.card]
    return top, mask


class _DeckTables(NamedTuple):
    """Per-deck facts the round state indexes by strength rank (strongest first, then
    canonical): deck index i → rank `srank[i]`; per rank the Play, family bit and card; the
    first rank of each card; `cut[t]` = how many ranks are stronger than strength t."""

    cards: tuple[str, ...]
    counts: Counter[str]
    srank: list[int]
    rank_play: list[Action]
    rank_fbit: list[int]
    rank_card: list[str]
    first_rank: dict[str, int]
    cut: list[int]


@cache
def _deck_tables(zeros: bool) -> _DeckTables:
    """The deck (rules "Deck": 36 cards, 38 with zeros) and its tables, built once."""
    cards = (
        *numbered_deck(("rainbow", "shadow"), 0 if zeros else 1, 16),
        NUMX,
        INFINITY,
        FLASH,
        FLASH,
    )
    by_strength = sorted(range(len(cards)), key=lambda i: -_HELD[cards[i]])
    srank = [0] * len(cards)
    for r, i in enumerate(by_strength):
        srank[i] = r
    ranked = [cards[i] for i in by_strength]
    first_rank: dict[str, int] = {}
    for r, c in enumerate(ranked):
        first_rank.setdefault(c, r)
    return _DeckTables(
        cards=cards,
        counts=Counter(cards),
        srank=srank,
        rank_play=[_PLAY[c] for c in ranked],
        rank_fbit=[_FBIT[c] for c in ranked],
        rank_card=ranked,
        first_rank=first_rank,
        cut=[sum(1 for c in ranked if _HELD[c] > t) for t in range(FLASH_STRENGTH + 1)],
    )


# --------------------------------------------------------------------------- rules object


class NumKing:
    """Num King rules: the stateless answers and round states (module docstring)."""

    id: ClassVar[str] = "numking"
    name: ClassVar[str] = "Num King"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    Options: ClassVar[type[NumKingOptions]] = NumKingOptions
    next_first_bidder = staticmethod(next_first_bidder)

    def __init__(self, options: NumKingOptions | None = None) -> None:
        self.options = options or NumKingOptions()
        tables = _deck_tables(self.options.zeros)
        self._cards = tables.cards
        self._counts = tables.counts
        self._srank = tables.srank
        self._rank_play = tables.rank_play
        self._rank_fbit = tables.rank_fbit
        self._rank_card = tables.rank_card
        self._first_rank = tables.first_rank
        self._cut = tables.cut
        self._last: dict[int, int] = {}  # max_cards by player count, once checked
        self._deck_name = "the numking deck" + (" with zeros" if self.options.zeros else "")
        mc = self.options.max_cards
        if mc is not None and (not _is_int(mc) or not 1 <= mc <= len(self._cards) // MIN_PLAYERS):
            raise _bad(
                f"max_cards must be 1 … k_max (at most {len(self._cards) // MIN_PLAYERS}), "
                f"not {mc!r}",
                "options.max_cards",
                "bad-option",
            )
        fb = self.options.first_bidder
        if not _is_int(fb) or not 0 <= fb < MAX_PLAYERS:
            raise _bad(
                f"first_bidder must be a seat, not {fb!r}", "options.first_bidder", "bad-option"
            )

    # -- deck and deal ------------------------------------------------------------------

    def k_max(self, players: int) -> int:
        """floor(deck size / players) (rules "Deck")."""
        return len(self._cards) // players

    def max_cards(self, players: int) -> int:
        """The last round's hand size: option `max_cards` (1 … k_max) or k_max; also checks
        `first_bidder` against the table size."""
        last = self._last.get(players) if type(players) is int else None
        if last is not None:
            return last
        check_players(players, MIN_PLAYERS, MAX_PLAYERS, self.id)
        k_max = len(self._cards) // players
        mc = self.options.max_cards
        if mc is not None and mc > k_max:
            raise _bad(
                f"max_cards must be 1 … {k_max} for {players} players (k_max = "
                f"⌊{len(self._cards)}/{players}⌋), not {mc}",
                "options.max_cards",
                "bad-option",
            )
        if self.options.first_bidder >= players:
            raise _bad(
                f"first_bidder {self.options.first_bidder} is not a seat of a {players}-player "
                f"table (0 … {players - 1})",
                "options.first_bidder",
                "bad-option",
            )
        last = k_max if mc is None else mc
        self._last[players] = last
        return last

    def deck(self, players: int) -> DeckInfo:
        hand = self.max_cards(players)
        return DeckInfo(
            players=players,
            cards=list(self._cards),
            hand_size=hand,
            set_aside=len(self._cards) - hand * players,
        )

    def _check_setup(self, setup: RoundSetup) -> int:
        """Check a round's setup (rules "Rounds", "Bids"); return its first bidder."""
        n = setup.players
        last = self.max_cards(n)
        k = setup.round
        if type(k) is not int or not 1 <= k <= last:
            raise _bad(f"round must be 1 … {last} (cards per player), not {k!r}", "round")
        leader = self.options.first_bidder if setup.leader is None else setup.leader
        if type(leader) is not int or not 0 <= leader < n:
            raise _bad(f"first_bidder must be a seat 0 … {n - 1}, not {leader!r}", "first_bidder")
        check_seat(setup.dealer, n, "dealer")
        if setup.carry is not None and (
            len(setup.carry) != n or not all(_is_int(s) and s >= 0 for s in setup.carry)
        ):
            raise _bad(f"carry holds one streak ≥ 0 per seat ({n}), not {setup.carry!r}", "carry")
        return leader

    def _deal_lists(self, setup: RoundSetup) -> tuple[list[list[str]], list[str], int]:
        """Hands (canonical), reserve (canonical) and first bidder of round `setup.round`."""
        leader = self._check_setup(setup)
        n = setup.players
        k = setup.round
        cards = list(self._cards)
        Rng(setup.seed).shuffle(cards, last=n * k)
        base = len(cards) - n * k
        key = _SORT_KEY
        hands = [sorted(cards[base + s * k : base + s * k + k], key=key) for s in range(n)]
        return hands, sorted(cards[:base], key=key), leader

    def _order_of(self, players: int, k: int, hands: Sequence[Sequence[str]]) -> list[int]:
        """Deck indices dealing exactly `hands` (k cards each): the reserve, then the hands."""
        if len(hands) != players or any(len(h) != k for h in hands):
            raise _bad(f"hands: {players} hands of {k} cards", "hands")
        check_cards(
            self._counts,
            [(f"hands[{s}]", h) for s, h in enumerate(hands)],
            deck_name=self._deck_name,
        )
        free: dict[str, list[int]] = {}
        for i, c in enumerate(self._cards):
            free.setdefault(c, []).append(i)
        order = [free[c].pop(0) for h in hands for c in h]
        return sorted(i for left in free.values() for i in left) + order

    def deal(self, setup: RoundSetup) -> Deal:
        hands, reserve, leader = self._deal_lists(setup)
        return Deal(hands=hands, set_aside=reserve, dealer=setup.dealer, leader=leader)

    # -- legality -----------------------------------------------------------------------

    def _check_position(
        self, players: int, hand: Sequence[str], trick: Sequence[TrickCard]
    ) -> None:
        check_players(players, MIN_PLAYERS, MAX_PLAYERS, self.id)
        check_trick(trick, players, complete=False, declarations=True)
        check_cards(
            self._counts,
            [("hand", hand), ("trick", [t.card for t in trick])],
            deck_name=self._deck_name,
        )
        _check_declared(trick)

    def legal_moves(self, players: int, hand: list[str], trick: list[TrickCard]) -> LegalMoves:
        self._check_position(players, hand, trick)
        top, mask = _trick_state(trick)
        cards, declarations = legal_cards(canonical(hand), top, mask)
        return LegalMoves(legal=cards, infinity=declarations)

    def validate_move(
        self,
        players: int,
        hand: list[str],
        trick: list[TrickCard],
        card: str,
        declared: int | None = None,
    ) -> MoveCheck:
        self._check_position(players, hand, trick)
        info(card)
        if card not in self._counts:
            raise _bad(f"card {card!r} is not in {self._deck_name}", "card", "card-not-in-deck")
        if (error := declaration_error(card, declared)) is not None:
            raise error
        top, mask = _trick_state(trick)
        cards, declarations = legal_cards(canonical(hand), top, mask)
        if card not in hand:
            return MoveCheck(
                legal=False,
                reason="card-not-in-hand",
                message=f"card {card!r} is not in the hand",
                legal_moves=cards,
            )
        if card not in cards:
            stronger = [c for c in cards if _HELD[c] > top]
            return MoveCheck(
                legal=False,
                reason="must-beat",
                message=f"{card!r} does not beat the trick while the hand holds a stronger "
                f"card ({', '.join(stronger)}): play one of them (rules, Obligation)",
                legal_moves=cards,
            )
        if card == INFINITY and declared not in declarations:
            return MoveCheck(
                legal=False,
                reason="must-beat",
                message="infinity is needed to beat the trick: it must be declared 17 "
                "(rules, Obligation)",
                legal_moves=cards,
            )
        return MoveCheck(legal=True, reason=None, message="legal move", legal_moves=cards)

    # -- trick and scores -----------------------------------------------------------------

    def resolve_trick(self, players: int, trick: list[TrickCard]) -> TrickResult:
        check_players(players, MIN_PLAYERS, MAX_PLAYERS, self.id)
        check_trick(trick, players, complete=True, declarations=True)
        check_cards(
            self._counts,
            [("trick", [t.card for t in trick])],
            deck_name=self._deck_name,
        )
        _check_declared(trick)
        leader = trick[0].seat
        winner, cancelled, rest = resolve(
            [(t.seat, t.card, strength(t.card, t.declared)) for t in trick]
        )
        return TrickResult(
            winner=winner,
            annulled=winner is None,
            captures=[] if winner is None else [Capture(seat=winner, cards=canonical(rest))],
            pairs=[],
            next_leader=leader if winner is None else winner,
            cancelled=canonical(cancelled),
        )

    def score_round(self, cards: int, bids: list[NumKingBid]) -> RoundScore:
        """Round scores by the table, plus the precision bonus (rules "Scoring a round")."""
        top = len(self._cards) // MIN_PLAYERS
        if not _is_int(cards) or not 1 <= cards <= top:
            raise _bad(f"cards (per player this round) must be 1 … {top}, not {cards!r}", "cards")
        if not 1 <= len(bids) <= MAX_PLAYERS:
            raise _bad(
                f"score-round takes 1 … {MAX_PLAYERS} players, not {len(bids)}",
                "players",
                "bad-player-count",
            )
        for i, b in enumerate(bids):
            for name in ("bid", "tricks"):
                x = getattr(b, name)
                if not _is_int(x) or not 0 <= x <= cards:
                    raise _bad(f"{name} must be 0 … {cards}, not {x!r}", f"players[{i}].{name}")
            if not _is_int(b.streak) or b.streak < 0:
                raise _bad(f"streak must be ≥ 0, not {b.streak!r}", f"players[{i}].streak")
        return _score(cards, [(b.bid, b.tricks, b.streak) for b in bids])

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        """Totals of every round; the highest total wins, ties share (rules "Game end")."""
        totals = match_totals(rounds)
        return MatchResult(totals=totals, winners=best_seats(totals))

    # -- rounds and games -----------------------------------------------------------------

    def new_round(
        self, setup: RoundSetup, hands: Sequence[Sequence[str]] | None = None
    ) -> NumKingRound:
        """A round state; `hands` replaces the seeded deal (tests, puzzles)."""
        return NumKingRound(self, setup, hands)

    # -- match policy (engine.core.match) --------------------------------------------------
    #: Rules version (engine.core.match, "Rules versions"): bumped by any change that would
    #: replay a recorded match differently; `rules_versions` lists every version still replayed.
    rules_version: ClassVar[int] = 1
    rules_versions: ClassVar[tuple[int, ...]] = (1,)

    def for_version(self, version: int) -> NumKing:
        """The rules object playing `version`: version 1 is the only one, played by `self`."""
        check_rules_version(self, version)
        return self

    def new_match(self, players: int, seed: int, rules_version: int | None = None) -> Match:
        """A whole game (rules "Rounds", "Game end") of `players`, seeded `seed`."""
        return Match(self, players, seed, rules_version)

    def match_rounds(self, players: int) -> int:
        """Rounds 1 … max_cards (rules "Rounds"; checks the player count and the options)."""
        return self.max_cards(players)

    def round_setup(
        self, players: int, index: int, seed: int, previous: RoundState | None
    ) -> RoundSetup:
        """Round `index + 1`: that many cards each (rules "Rounds"), the dealer moving one seat
        clockwise (no effect on play), the streaks after `previous` carried ("Precision bonus")
        and its first bidder by the Ruling of "Bids" (:func:`next_first_bidder`); round 1's
        first bidder is option `first_bidder`."""
        if previous is None:
            return RoundSetup(
                players=players, seed=seed, dealer=0, round=1, leader=self.options.first_bidder
            )
        if not isinstance(previous, NumKingRound) or not previous.is_over:
            raise _bad("the previous round is a numking round that is over", "previous")
        return RoundSetup(
            players=players,
            seed=seed,
            dealer=index % players,
            round=index + 1,
            leader=next_first_bidder(previous.first_bidder, previous.tricks_taken),
            carry=previous.streaks_after(),
        )

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakDecision | None:
        """No tie-break: ties share the win (rules "Game end")."""
        return None

    # -- end of match policy ----------------------------------------------------------------


def _score(cards: int, rows: Sequence[tuple[int, int, int]]) -> RoundScore:
    players = []
    for seat, (bid, tricks, streak) in enumerate(rows):
        points = round_points(cards, bid, tricks)
        label = _result_label(cards, bid, tricks)
        after = streak + 1 if tricks == bid else 0
        bonus = precision_bonus(after)
        players.append(
            PlayerScore(
                seat=seat,
                score=points + bonus,
                breakdown=[
                    ScoreLine(label=label, cards=[], points=points),
                    ScoreLine(label=f"precision bonus (streak {after})", cards=[], points=bonus),
                ],
                streak=after,
                bonus=bonus,
            )
        )
    return RoundScore(players=players, winners=best_seats([p.score for p in players]))


# --------------------------------------------------------------------------- round state


class NumKingRound:
    """One round: bids from the first bidder clockwise, then k tricks (rules "Rounds").

    Hot-path data are plain lists and ints. Each hand is kept strongest first as two
    parallel lists, its Play actions and their ranks in the deck's strength order, so that
    the cards that beat the trick are a prefix found by bisection (and a played card's place
    too); an int of Rainbow/Shadow bits per
    hand finds the equal-value twins. The current trick is its list of cards, with its top
    strength, top seat and family bits kept up to date; the legal actions are cached until
    the next action; play and bid events are shared values. `hands`, `reserve`, `trick` and
    `tricks` are derived views (canonical lists; (seat, card, strength) entries).

    `hands` (optional) replaces the seeded deal, for tests and puzzles: such a round is not
    rebuilt by its setup alone.
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
        "rules",
        "setup",
        "streaks_before",
        "tricks_taken",
        "won",
    )

    def __init__(
        self, rules: NumKing, setup: RoundSetup, hands: Sequence[Sequence[str]] | None = None
    ) -> None:
        n = setup.players
        k = setup.round
        first = rules._check_setup(setup)
        # The deck is shuffled in canonical order, as `NumKing.deal` does, but as strength
        # ranks: a hand is then its sorted slice.
        if hands is None:
            order = rules._srank[:]
            Rng(setup.seed).shuffle(order, last=n * k)
        else:
            order = [rules._srank[i] for i in rules._order_of(n, k, hands)]
        plays = rules._rank_play
        fbit = rules._rank_fbit
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
        self._first_rank = rules._first_rank
        self._cut = rules._cut
        self.rules = rules
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
            sorted([p.card for p in plays], key=_SORT_KEY)  # type: ignore[union-attr, misc]
            for plays in self._plays
        ]

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
        ranked = self.rules._rank_card
        return sorted([ranked[r] for r in self._reserve], key=_SORT_KEY)

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
            acts: list[Action] = _BIDS[: self.k + 1]
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
                    twins = self._hf[seat] & (((t & _LOW17) << 17) | (t >> 17))
                    while twins:
                        bit = twins & -twins
                        acts.append(_BIT_PLAY[bit])
                        twins ^= bit
                    self._legal = acts
                    return acts
            acts = self._plays[seat][:]
            inf = self._first_rank[INFINITY]
            if inf in ranks:
                acts.insert(ranks.index(inf) + 1, _PLAY_INF0)
            if len(ranks) > 1 and ranks[1] == 1:
                del acts[0]
        self._legal = acts
        return acts

    def apply(self, seat: object, action: Action) -> list[Event]:
        if seat != self.current_player or type(seat) is not int:
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
        fbit = _FBIT[card]
        self._hf[seat] ^= fbit
        if card == INFINITY:
            declared = play.declared
            s = INF17 if declared == 17 else INF0
            events = [_INF_EVENTS[seat][declared]]  # type: ignore[index]
            self._tdecl = declared
        else:
            s = _HELD[card]
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
            return IllegalMove("wrong-phase", "the round is over", ())
        if seat != self.current_player:
            return IllegalMove(
                "not-your-turn", f"it is seat {self.current_player}'s turn, not seat {seat!r}'s", ()
            )
        if self.phase is _BID:
            if not isinstance(action, Bid):
                return IllegalMove(
                    "wrong-phase", f"the round is in its bid phase: bid 0 … {self.k}", legal
                )
            return IllegalMove(
                "bad-bid", f"a bid is 0 … {self.k} tricks, not {action.tricks!r}", legal
            )
        if not isinstance(action, Play):
            return IllegalMove(
                "wrong-phase", f"the round is in its play phase: play a card ({action!r})", legal
            )
        card, declared = action.card, action.declared
        if card not in _HELD:
            info(card)
            return _bad(f"card {card!r} is not in the numking deck", "card", "card-not-in-deck")
        if (error := declaration_error(card, declared)) is not None:
            return error
        if card not in self.hands[seat]:
            return IllegalMove(
                "card-not-in-hand", f"card {card!r} is not in seat {seat}'s hand", legal
            )
        if card == INFINITY and declared == 0 and _PLAY_INF17 in self.legal_actions(seat):
            return IllegalMove(
                "must-beat",
                "infinity is needed to beat the trick: it must be declared 17 (rules, Obligation)",
                legal,
            )
        return IllegalMove(
            "must-beat",
            f"{card!r} does not beat the trick while a stronger card is held: play one of "
            f"{', '.join(legal)} (rules, Obligation)",
            legal,
        )

    def _apply_bid(self, seat: int, action: Bid) -> list[Event]:
        """Bids go clockwise from the first bidder; the first bidder then leads (Ruling)."""
        self.bids[seat] = action.tricks
        nxt = (seat + 1) % self.n
        if nxt == self.first_bidder:
            self.phase = _PLAYING
        self.current_player = nxt
        return [_BID_EVENTS[seat][action.tricks]]

    def _end_trick(self) -> list[Event]:
        """Resolve the full trick (rules "Resolving the trick" 1–4, as :func:`resolve`).

        A Flash annuls; without a Rainbow/Shadow pair the strongest card, tracked as played,
        wins; else the pairs go and the strongest remaining card wins (the remaining values
        are distinct), or nobody. An annulled trick is led again by its leader (Ruling).
        """
        leader = self._trick_leader
        cards = self._tcards
        m = self._fmask
        gone = m & (m >> 17) & _LOW17
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
            vbit = _VBIT
            cancelled = [c for c in cards if vbit[c] & gone]
            self.discarded.extend(cancelled)
            rest = [c for c in cards if not vbit[c] & gone]
            if rest:
                held = _HELD_INF0 if self._tdecl == 0 else _HELD
                best = max(rest, key=held.__getitem__)
                winner = nxt = (leader + cards.index(best)) % self.n
                self.tricks_taken[winner] += 1
                self.won[winner].extend(rest)
            else:
                winner = None
                nxt = leader
            cancelled.sort(key=_SORT_KEY)
        self._records.append((leader, cards, self._tdecl, winner, cancelled))
        self._tcards = []
        self._tdecl = None
        self._top = -1
        self._fmask = 0
        self._trick_leader = nxt
        self._done += 1
        events = [
            Event(
                kind="trick",
                seat=winner,
                cards=sorted(cards, key=_SORT_KEY),
                data={
                    "winner": winner,
                    "annulled": winner is None,
                    "cancelled": list(cancelled),
                    "next_leader": nxt,
                },
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
            Event(
                kind="round-over",
                data={
                    "bids": list(self.bids),
                    "tricks": list(self.tricks_taken),
                    "scores": scores,
                    "streaks": streaks,
                },
            )
        )
        return events

    def scores(self) -> RoundScore | None:
        if self.phase is not _OVER:
            return None
        if self._scores is None:
            bids = self.bids
            self._scores = _score(
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
            raise _bad("the round is not over", "state")
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

    def view(self, seat: object) -> dict[str, Any]:
        """Public data plus `seat`'s own hand; never another hand nor the reserve."""
        seat = None if seat is None else check_seat(seat, self.n)
        data = self._public()
        data["seat"] = seat
        if seat is not None:
            data["hand"] = list(self.hands[seat])
            data["legal_actions"] = msgspec.to_builtins(self.legal_actions(seat))
        return data

    def snapshot(self) -> dict[str, Any]:
        data = self._public()
        data.update(
            hands=[list(h) for h in self.hands],
            reserve=list(self.reserve),
            won=[sorted(w, key=_SORT_KEY) for w in self.won],
            discarded=sorted(self.discarded, key=_SORT_KEY),
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
