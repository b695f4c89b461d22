"""`numking` — Num King (rules/numking.md): rounds of growing hands, exact bids, cancellations.

The rules object answers the stateless questions (deck, deal, legal moves, trick resolution,
round scoring, match totals) and builds :class:`engine.numking.round.NumKingRound`, the state machine of one
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

from collections.abc import Sequence
from typing import ClassVar

import msgspec

from engine.core.base import (
    Capture,
    Deal,
    DeckInfo,
    LegalMoves,
    MatchResult,
    MoveCheck,
    RoundScore,
    RoundSetup,
    RoundState,
    TrickCard,
    TrickResult,
)
from engine.core.cards import canonical, check_cards, info
from engine.core.match import VersionedRules
from engine.core.rng import Rng
from engine.core.scoring import best_seats, match_totals
from engine.core.tiebreak import TiebreakOutcome
from engine.core.tricks import check_players, check_seat, check_trick
from engine.numking.cards import (
    _HELD,
    _SORT_KEY,
    INFINITY,
    MAX_PLAYERS,
    MAX_STREAK,
    MIN_PLAYERS,
    _deck_tables,
)
from engine.numking.round import NumKingRound
from engine.numking.scoring import NumKingBid, _score, next_first_bidder
from engine.numking.tricks import (
    _bad,
    _check_declared,
    _is_int,
    _trick_state,
    declaration_error,
    legal_cards,
    resolve,
    strength,
)


class NumKingOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    zeros: bool = False  # add rainbow-0 and shadow-0 (38 cards, the seed's total)
    max_cards: int | None = None  # last round's hand size, 1..k_max (default k_max)
    first_bidder: int = 0  # first bidder (and leader) of round 1


class NumKing(VersionedRules):
    """Num King rules: the stateless answers and round states (module docstring)."""

    id: ClassVar[str] = "numking"
    name: ClassVar[str] = "Num King"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    Options: ClassVar[type[NumKingOptions]] = NumKingOptions
    #: Every card code the ruleset can ever use, any player count and option, canonical order
    #: (data for the HTTP layer's spec: rules/cards.md codes); players: min … max_players.
    card_codes: ClassVar[tuple[str, ...]] = tuple(
        canonical({*_deck_tables(True).cards, *_deck_tables(False).cards})
    )
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
                f"max_cards must be between 1 and {len(self._cards) // MIN_PLAYERS}",
                "options.max_cards",
                "bad-option",
            )
        fb = self.options.first_bidder
        if not _is_int(fb) or not 0 <= fb < MAX_PLAYERS:
            raise _bad(
                f"first_bidder must be a seat between 0 and {MAX_PLAYERS - 1}",
                "options.first_bidder",
                "bad-option",
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
                f"max_cards must be between 1 and {k_max} for {players} players "
                f"({len(self._cards)} cards shared out), not {mc}",
                "options.max_cards",
                "bad-option",
            )
        if self.options.first_bidder >= players:
            raise _bad(
                f"first_bidder {self.options.first_bidder} is not a seat of a {players}-player "
                f"table (seats 0 to {players - 1})",
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
            raise _bad(f"round must be between 1 and {last} (cards per player)", "round")
        leader = self.options.first_bidder if setup.leader is None else setup.leader
        if type(leader) is not int or not 0 <= leader < n:
            raise _bad(f"first_bidder must be a seat between 0 and {n - 1}", "first_bidder")
        check_seat(setup.dealer, n, "dealer")
        if setup.carry is not None and (
            len(setup.carry) != n
            or not all(_is_int(s) and 0 <= s <= MAX_STREAK for s in setup.carry)
        ):
            raise _bad(f"carry holds one streak between 0 and {MAX_STREAK} per seat ({n})", "carry")
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
            raise _bad(f"cards (per player this round) must be between 1 and {top}", "cards")
        if not 1 <= len(bids) <= MAX_PLAYERS:
            raise _bad(
                f"score-round takes between 1 and {MAX_PLAYERS} players, not {len(bids)}",
                "players",
                "bad-player-count",
            )
        for i, b in enumerate(bids):
            for name in ("bid", "tricks"):
                x = getattr(b, name)
                if not _is_int(x) or not 0 <= x <= cards:
                    raise _bad(f"{name} must be between 0 and {cards}", f"players[{i}].{name}")
            if not _is_int(b.streak) or not 0 <= b.streak <= MAX_STREAK:
                raise _bad(
                    f"streak must be between 0 and {MAX_STREAK} (a match has at most "
                    f"{MAX_STREAK + 1} rounds)",
                    f"players[{i}].streak",
                )
        return _score(cards, [(b.bid, b.tricks, b.streak) for b in bids])

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        """Totals of every round; the highest total wins, ties share (rules "Game end")."""
        totals = match_totals(rounds)
        return MatchResult(totals=totals, winners=best_seats(totals))

    # -- rounds -----------------------------------------------------------------

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

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakOutcome | None:
        """No tie-break: ties share the win (rules "Game end")."""
        return None

    # -- end of match policy ----------------------------------------------------------------
