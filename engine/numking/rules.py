"""`numking` — Num King (rules/numking.md): rounds of growing hands, exact bids, cancellations.

The rules object answers the stateless questions (deck, deal, legal moves, trick resolution,
round scoring, match totals) and builds :class:`engine.numking.round.NumKingRound`, one round
(bids, then play) over its state machine, :class:`engine.numking.kernel.NumKingKernel`. A whole
game (rounds 1 … max_cards) is a match, ``rules.new_match(players, seed)`` (:mod:`engine.core.match`): its rounds are set up by
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
from engine.core.errors import FieldError
from engine.core.match import VersionedRules
from engine.core.rng import Rng
from engine.core.scoring import best_seats, match_totals
from engine.core.texts import DEFAULT_LANGUAGE, say, text
from engine.core.tiebreak import TiebreakOutcome
from engine.core.tricks import check_players, check_trick
from engine.numking import texts as T
from engine.numking.cards import (
    HELD,
    INFINITY,
    MAX_PLAYERS,
    MAX_STREAK,
    MIN_PLAYERS,
    RULESET_ID,
    SORT_KEY,
    bad_input,
    check_setup,
    deck_name,
    deck_tables,
    is_int,
    max_cards,
)
from engine.numking.options import NumKingOptions as NumKingOptions
from engine.numking.round import NumKingRound
from engine.numking.scoring import NumKingBid, next_first_bidder, score_rows
from engine.numking.tricks import (
    check_declared,
    declaration_error,
    legal_cards,
    resolve,
    strength,
    trick_state,
)

TOO_MANY_TRICKS = text(
    "too-many-tricks",
    "the players took {total} tricks in all, more than the round's {cards} (a round of k cards "
    "has k tricks, fewer when some are annulled)",
    "les joueurs ont fait {total} plis en tout, plus que les {cards} de la manche (une manche "
    "de k cartes a k plis, moins quand certains sont annulés)",
)


def check_tricks(cards: int, tricks: Sequence[int]) -> None:
    """The tricks of one round of the whole table add up to at most its `cards` (a round of k
    cards plays k tricks; Resolving the trick 1 and 4, Ruling: an annulled trick counts for
    nobody, so fewer is a round with annulled tricks): more is refused (`too-many-tricks`),
    naming each player's `tricks` that counted."""
    total = sum(tricks)
    if total > cards:
        message = say(TOO_MANY_TRICKS, total=total, cards=cards)
        error = bad_input(message, "players", "too-many-tricks")
        error.errors = [
            FieldError(f"players[{i}].tricks", message) for i, t in enumerate(tricks) if t
        ]
        raise error


class NumKing(VersionedRules):
    """Num King rules: the stateless answers and round states (module docstring)."""

    id: ClassVar[str] = RULESET_ID
    name: ClassVar[str] = "Num King"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    Options: ClassVar[type[NumKingOptions]] = NumKingOptions
    #: Every card code the ruleset can ever use, any player count and option, canonical order
    #: (data for the HTTP layer's spec: rules/cards.md codes); players: min … max_players.
    card_codes: ClassVar[tuple[str, ...]] = tuple(
        canonical({*deck_tables(True).cards, *deck_tables(False).cards})
    )
    next_first_bidder = staticmethod(next_first_bidder)

    def __init__(self, options: NumKingOptions | None = None) -> None:
        self.options = options or NumKingOptions()
        tables = deck_tables(self.options.zeros)
        self._cards = tables.cards
        self._counts = tables.counts
        self._last: dict[int, int] = {}  # max_cards by player count, once checked
        self._deck_name = deck_name(self.options.zeros)
        mc = self.options.max_cards
        if mc is not None and (not is_int(mc) or not 1 <= mc <= len(self._cards) // MIN_PLAYERS):
            raise bad_input(
                say(T.MAX_CARDS, high=len(self._cards) // MIN_PLAYERS),
                "options.max_cards",
                "bad-option",
            )
        fb = self.options.first_bidder
        if not is_int(fb) or not 0 <= fb < MAX_PLAYERS:
            raise bad_input(
                say(T.FIRST_BIDDER_SEAT, last=MAX_PLAYERS - 1),
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
        last = max_cards(players, self.options, len(self._cards))
        self._last[players] = last
        return last

    def deck(self, players: int) -> DeckInfo:
        hand = self.max_cards(players)
        return DeckInfo(
            players=players,
            cards=list(self._cards),
            hand_size=hand,
            set_aside=len(self._cards) - hand * players,
            out_of_play=[],
        )

    def _check_setup(self, setup: RoundSetup) -> int:
        """Check a round's setup (rules "Rounds", "Bids"); return its first bidder."""
        return check_setup(setup, self.options, len(self._cards))

    def _deal_lists(self, setup: RoundSetup) -> tuple[list[list[str]], list[str], int]:
        """Hands (canonical), reserve (canonical) and first bidder of round `setup.round`."""
        leader = self._check_setup(setup)
        n = setup.players
        k = setup.round
        cards = list(self._cards)
        Rng(setup.seed).shuffle(cards, last=n * k)
        base = len(cards) - n * k
        key = SORT_KEY
        hands = [sorted(cards[base + s * k : base + s * k + k], key=key) for s in range(n)]
        return hands, sorted(cards[:base], key=key), leader

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
        check_declared(trick)

    def legal_moves(self, players: int, hand: list[str], trick: list[TrickCard]) -> LegalMoves:
        self._check_position(players, hand, trick)
        top, mask = trick_state(trick)
        cards, declarations = legal_cards(canonical(hand), top, mask)
        return LegalMoves(legal=cards, infinity=declarations)

    def validate_move(
        self,
        players: int,
        hand: list[str],
        trick: list[TrickCard],
        card: str,
        declared: int | None = None,
        language: str = DEFAULT_LANGUAGE,
    ) -> MoveCheck:
        self._check_position(players, hand, trick)
        info(card)
        if card not in self._counts:
            raise bad_input(
                say(T.NOT_IN_DECK, card=card, deck=self._deck_name), "card", "card-not-in-deck"
            )
        if (error := declaration_error(card, declared)) is not None:
            raise error
        top, mask = trick_state(trick)
        cards, declarations = legal_cards(canonical(hand), top, mask)
        if card not in hand:
            return MoveCheck(
                legal=False,
                reason="card-not-in-hand",
                message=say(T.NOT_IN_HAND, card=card).render(language),
                legal_moves=cards,
            )
        if card not in cards:
            stronger = [c for c in cards if HELD[c] > top]
            return MoveCheck(
                legal=False,
                reason="must-beat",
                message=say(T.MUST_BEAT, card=card, stronger=stronger).render(language),
                legal_moves=cards,
            )
        if card == INFINITY and declared not in declarations:
            return MoveCheck(
                legal=False,
                reason="must-beat",
                message=say(T.INFINITY_17).render(language),
                legal_moves=cards,
            )
        return MoveCheck(
            legal=True, reason=None, message=say(T.LEGAL).render(language), legal_moves=cards
        )

    # -- trick and scores -----------------------------------------------------------------

    def resolve_trick(self, players: int, trick: list[TrickCard]) -> TrickResult:
        check_players(players, MIN_PLAYERS, MAX_PLAYERS, self.id)
        check_trick(trick, players, complete=True, declarations=True)
        check_cards(
            self._counts,
            [("trick", [t.card for t in trick])],
            deck_name=self._deck_name,
        )
        check_declared(trick)
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
        """Round scores by the table, plus the precision bonus (rules "Scoring a round"). Each
        line scores alone: the rule book's own example scores bids of 1, 3 and 6 made in a
        6-card round, so the tricks are not added up here (a score sheet's round, one real
        round of the whole table, is held to :func:`check_tricks`)."""
        top = len(self._cards) // MIN_PLAYERS
        if not is_int(cards) or not 1 <= cards <= top:
            raise bad_input(say(T.CARDS_RANGE, high=top), "cards")
        if not 1 <= len(bids) <= MAX_PLAYERS:
            raise bad_input(
                say(T.PLAYERS_RANGE, high=MAX_PLAYERS, count=len(bids)),
                "players",
                "bad-player-count",
            )
        for i, b in enumerate(bids):
            for name in ("bid", "tricks"):
                x = getattr(b, name)
                if not is_int(x) or not 0 <= x <= cards:
                    raise bad_input(say(T.BETWEEN, name=name, high=cards), f"players[{i}].{name}")
            if not is_int(b.streak) or not 0 <= b.streak <= MAX_STREAK:
                raise bad_input(
                    say(T.STREAK_RANGE, high=MAX_STREAK, rounds=MAX_STREAK + 1),
                    f"players[{i}].streak",
                )
        return score_rows(cards, [(b.bid, b.tricks, b.streak) for b in bids])

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
            raise bad_input(say(T.PREVIOUS_OVER), "previous")
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
