"""`numwars-classic` — Num Wars, classic edition (rules/numwars-classic.md).

3 to 8 players, 104 cards (four colours and the two trump families Rainbow and Shadow, 0–16,
plus two Jokers), an exchange to the right before play, and the *trump duel*: a trick holding
a trump pair (`rainbow-X` + `shadow-X`) above every single trump splits in two.

The stateless answers live here as small pure functions (`legal_cards`, `broken_obligation`,
`duel`); the deck's tables and the pile scorer (`score_pile`) are in
:mod:`engine.numwars_classic.cards` and :mod:`engine.numwars_classic.scoring`, the round state
machine in :mod:`engine.numwars_classic.round`.

Choices where the spec leaves room (documented for the API docs too):

- Dealing: one card at a time, clockwise from the dealer's left neighbour (rules/README.md
  seat order); the rest is set aside unseen. `RoundSetup.leader` is ignored: the dealer leads
  the first trick ("Set-up").
- Reason codes: a colour asked while holding no card of it but a trump, and an off-colour
  card played, breaks `must-play-trump`; holding the colour, `must-follow-color`.
- `alliance` with a player count other than 4, 6 or 8 is refused (`bad-option`) by every
  call that knows the player count, stateless ones included.
- `score_round` breakdown: the value groups, then one line per trump pair, then a 0-point line
  for the lone trumps and one for the Jokers, so that every card of the pile is listed once.
- Match: `score_match` sums the rounds and sets `tiebreak_needed` when the best total is shared
  (by teams under `alliance`) and `tiebreak` is on; :func:`engine.core.tiebreak.decide_tiebreak`
  (also `NumWarsClassic.tiebreak`) applies the tie-break Ruling to the tie-break rounds played so
  far and says whether another one is due or the win is shared. The match layer deals them
  (the next dealer in rotation) and keeps their scores out of the totals.
- Exchange: `Pass` moves one card; `Exchange(cards)` passes 1 up to the cards still owed at
  once. Passed cards leave the hand at once and arrive when every seat has passed them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from engine.core.base import (
    Deal,
    DeckInfo,
    LegalMoves,
    MatchResult,
    MoveCheck,
    RoundScore,
    RoundSetup,
    RoundState,
    TeamScore,
    TrickCard,
    TrickResult,
)
from engine.core.cards import canonical
from engine.core.errors import InvalidInput
from engine.core.match import VersionedRules
from engine.core.scoring import (
    best_seats,
    match_totals,
    opposite_teams,
    winning_team_seats,
)
from engine.core.texts import DEFAULT_LANGUAGE, Message, say
from engine.core.tiebreak import TiebreakOutcome, decide_tiebreak
from engine.core.tricks import check_hand_and_trick, check_trick
from engine.numwars_classic import texts as T
from engine.numwars_classic.cards import (
    ALLIANCE_PLAYERS,
    DECK,
    DECK_COUNTS,
    DECK_NAME,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PILE_BIT,
    RULESET_ID,
    check_alliance,
    check_setup,
    check_table,
    deal_hands,
    exchange_size,
    hand_size,
)
from engine.numwars_classic.options import ClassicOptions as ClassicOptions
from engine.numwars_classic.round import ClassicRound
from engine.numwars_classic.scoring import (
    ClassicPile,
    held_piles,
    score_helds,
    sums_are_valid,
)
from engine.numwars_classic.tricks import (
    MAY_BE_PLAYED,
    broken_obligation,
    check_card,
    duel,
    legal_cards,
    reason_message,
    trick_result,
    undealt_cards,
)

# ---------------------------------------------------------------------------------------------
# The rules object


class NumWarsClassic(VersionedRules):
    """Num Wars, classic edition: the stateless answers and the round state factory."""

    id: ClassVar[str] = RULESET_ID
    name: ClassVar[str] = "Num Wars (classic edition)"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    Options: ClassVar[type[ClassicOptions]] = ClassicOptions
    #: Every card code the ruleset can ever use, any player count and option, canonical order
    #: (data for the HTTP layer's spec: rules/cards.md codes); players: min … max_players.
    card_codes: ClassVar[tuple[str, ...]] = tuple(canonical(set(DECK)))

    def __init__(self, options: ClassicOptions | None = None) -> None:
        self.options = options or ClassicOptions()

    # -- formats -------------------------------------------------------------------------------

    def check_players(self, players: int) -> None:
        """Player count in 3–8; `alliance` only with 4, 6 or 8 ("Match and variants")."""
        check_table(players, alliance=self.options.alliance)

    def _check_alliance(self, players: int) -> None:
        check_alliance(players, alliance=self.options.alliance)

    def hand_size(self, players: int) -> int:
        """15 cards for 3–5 players, 13 for 6–8; 10 with `speed` ("Deck and hands")."""
        return hand_size(players, speed=self.options.speed)

    def exchange_size(self, players: int) -> int:
        """5 cards for 3–5 players, 3 for 6–8; 2 with `speed` ("Deck and hands")."""
        return exchange_size(players, speed=self.options.speed)

    def deck(self, players: int) -> DeckInfo:
        self.check_players(players)
        hand = self.hand_size(players)
        return DeckInfo(
            players=players,
            cards=list(DECK),
            hand_size=hand,
            set_aside=len(DECK) - players * hand,
            out_of_play=[],
        )

    def deal(self, setup: RoundSetup) -> Deal:
        """Shuffle with the setup's seed, deal one at a time from the dealer's left ("Set-up")."""
        hands, rest = self.deal_hands(setup)
        return Deal(
            hands=hands, set_aside=undealt_cards(rest), dealer=setup.dealer, leader=setup.dealer
        )

    def deal_hands(self, setup: RoundSetup) -> tuple[list[list[str]], list[int]]:
        """The checked setup's hands, each in canonical order, and the undealt rest as ranks in
        DECK (:func:`engine.numwars_classic.cards.deal_hands`)."""
        self.check_setup(setup)
        return deal_hands(setup, self.hand_size(setup.players))

    def check_setup(self, setup: RoundSetup) -> None:
        check_setup(setup, alliance=self.options.alliance)

    # -- playing a card ------------------------------------------------------------------------

    def _checked_trick(
        self, players: int, hand: list[str], trick: list[TrickCard], *, complete: bool
    ) -> list[str]:
        """The trick's cards, once the player count, the trick and the cards are known valid.

        The checks are the shared ones (`check_players`, `check_trick`, `check_hand_and_trick`)
        in that order; a request that `_position_is_valid` accepts passes all of them, so they
        run only for the others, to raise the first error exactly as they word it.
        """
        cards = [t.card for t in trick]
        if not self._position_is_valid(players, hand, trick, cards, complete):
            self.check_players(players)
            check_trick(trick, players, complete=complete)
            check_hand_and_trick(DECK_COUNTS, DECK_NAME, hand, trick)
        return cards

    def _position_is_valid(
        self,
        players: object,
        hand: list[str],
        trick: list[TrickCard],
        cards: list[str],
        complete: bool,
    ) -> bool:
        """True only if the shared checks would accept the request (False when unsure).

        The cards go by their pile-bit sums (`sums_are_valid`), as in `held_piles`: a card held
        twice more than the deck allows carries, and the unique bits plus the Jokers count short.
        """
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            return False
        if self.options.alliance and players not in ALLIANCE_PLAYERS:
            return False
        if (len(trick) != players) if complete else (len(trick) >= players):
            return False
        if trick:
            leader = trick[0].seat
            if type(leader) is not int or not 0 <= leader < players:
                return False
            for i, entry in enumerate(trick):
                if entry.seat != (leader + i) % players or entry.declared is not None:
                    return False
        try:
            total = sum(map(PILE_BIT.__getitem__, hand)) + sum(map(PILE_BIT.__getitem__, cards))
            count = len(hand) + len(cards)
        except (KeyError, TypeError):  # not a card code, not of this deck, or not hashable
            return False
        return sums_are_valid(total, count)

    def legal_moves(self, players: int, hand: list[str], trick: list[TrickCard]) -> LegalMoves:
        return LegalMoves(
            legal=legal_cards(hand, self._checked_trick(players, hand, trick, complete=False))
        )

    def validate_move(
        self,
        players: int,
        hand: list[str],
        trick: list[TrickCard],
        card: str,
        language: str = DEFAULT_LANGUAGE,
    ) -> MoveCheck:
        """Legal, or the first broken obligation (the message in `language`)."""
        trick_cards = self._checked_trick(players, hand, trick, complete=False)
        check_card(card, "card")
        legal = legal_cards(hand, trick_cards)
        if card in legal:
            message = say(MAY_BE_PLAYED, card=card).render(language)
            return MoveCheck(legal=True, reason=None, message=message, legal_moves=legal)
        if card not in hand:
            reason = "card-not-in-hand"
        else:
            reason = broken_obligation(hand, trick_cards, card)
        return MoveCheck(
            legal=False,
            reason=reason,
            message=reason_message(reason, card).render(language),
            legal_moves=legal,
        )

    def resolve_trick(self, players: int, trick: list[TrickCard]) -> TrickResult:
        self._checked_trick(players, [], trick, complete=True)
        return trick_result(duel([(t.seat, t.card) for t in trick]))

    # -- scoring -------------------------------------------------------------------------------

    def score_round(self, piles: list[ClassicPile]) -> RoundScore:
        """Score 1 to 8 piles ("Scoring a round"); team scores and winners under `alliance`."""
        n = len(piles)
        if not 1 <= n <= MAX_PLAYERS:
            raise InvalidInput(
                say(T.PILES, high=MAX_PLAYERS, count=n),
                code="bad-player-count",
                field="players",
            )
        self._check_alliance(n)
        return self.score_helds(held_piles([pile.captured for pile in piles]))

    def score_helds(self, helds: Sequence[int]) -> RoundScore:
        """Score valid piles, each summed into one integer (see `score_held`)."""
        return score_helds(helds, alliance=self.options.alliance)

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        """Totals of the rounds ("Match and variants"): highest total wins; a tie on it calls
        for tie-break rounds when `tiebreak` is on (see :meth:`tiebreak`)."""
        totals = match_totals(rounds)
        n = len(totals)
        self._check_alliance(n)
        teams: list[TeamScore] | None = None
        if self.options.alliance:
            teams = [TeamScore(seats=t, score=sum(totals[s] for s in t)) for t in opposite_teams(n)]
            winners = winning_team_seats(teams)
            tied = len(winners) > 2
        else:
            winners = best_seats(totals)
            tied = len(winners) > 1
        if teams is None:
            return MatchResult(
                totals=totals, winners=winners, tiebreak_needed=tied and self.options.tiebreak
            )
        return MatchResult(
            totals=totals,
            winners=winners,
            teams=teams,
            tiebreak_needed=tied and self.options.tiebreak,
        )

    def tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakOutcome:
        """The tie-break Ruling for this ruleset's options (see :func:`decide_tiebreak`)."""
        return decide_tiebreak(tied, rounds, alliance=self.options.alliance)

    # -- match policy (engine.core.match) --------------------------------------------------
    #: Rules version (engine.core.match, "Rules versions"): bumped by any change that would
    #: replay a recorded match differently; `rules_versions` lists every version still replayed.
    rules_version: ClassVar[int] = 1
    rules_versions: ClassVar[tuple[int, ...]] = (1,)

    def match_rounds(self, players: int) -> int:
        """As many rounds as players, each dealing once (rules "Match and variants")."""
        self.check_players(players)
        return players

    def round_setup(
        self, players: int, index: int, seed: int, previous: RoundState | None
    ) -> RoundSetup:
        """Round `index` is dealt by seat `index mod n`; a tie-break round (index ≥ n) by "the
        next dealer in rotation" (rules "Match and variants", Ruling)."""
        return RoundSetup(players=players, seed=seed, dealer=index % players, round=index + 1)

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakOutcome | None:
        """With `tiebreak` (default on), the tie-break Ruling (:meth:`tiebreak`); else None."""
        return self.tiebreak(tied, rounds) if self.options.tiebreak else None

    # -- end of match policy ----------------------------------------------------------------

    # -- rounds --------------------------------------------------------------------------------

    def new_round(self, setup: RoundSetup) -> ClassicRound:
        """The round of `setup` (:class:`ClassicRound` reads this object's options)."""
        return ClassicRound(self, setup)

    def _deck_name(self) -> Message:
        return DECK_NAME
