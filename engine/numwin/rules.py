"""`numwin` — Num Win (rules/numwin.md): the lowest combination of 5 face-down cards.

The rules object answers the stateless questions (deck, deal, round scoring, match totals)
and builds :class:`engine.numwin.round.NumWinRound`, one round over its state machine,
:class:`engine.numwin.kernel.NumWinKernel`.

Scoring (rules "Scoring") is exact and closed-form: pairs only form between cards of one
value, and the 111-card deck holds one `rainbow-X` and one `shadow-X` per value, so each value
is settled on its own except for one global choice (see :func:`_settle`).

Choices where the spec is silent (documented here and in the API docs):
- Deal: the deck is shuffled from canonical order with ``Rng(seed)``; the top of the pile is
  the list's end; two rounds of one card each, clockwise from the dealer's left; then the
  next card is turned up as the discard. Hands are returned (and laid out) canonically.
- ``score-round`` refuses a combination longer than 40 cards (``bad-request``), far above
  any real round, and with ``teams`` needs exactly 4 players (``bad-option``). The scoring
  itself is linear, so a round state scores combinations of any length.
- Breakdown lines, each only when it has cards: ``locked pairs`` (0), ``pairs removed`` (0),
  ``remaining cards`` (classic and Shadow values), ``Rainbow`` (its value, or 0 when alone),
  ``action cards`` (+5 each), ``caller penalty`` (+15).
- When keeping a Rainbow alone saves nothing (value 0), it is paired instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from engine.core.base import (
    Deal,
    DeckInfo,
    MatchResult,
    RoundScore,
    RoundSetup,
    RoundState,
    TeamScore,
)
from engine.core.cards import canonical, check_cards, quoted_cards
from engine.core.errors import InvalidInput
from engine.core.match import VersionedRules, check_rules_version
from engine.core.rng import Rng
from engine.core.scoring import (
    best_seats,
    match_totals,
    opposite_teams,
    winning_team_seats,
)
from engine.core.texts import say
from engine.core.tiebreak import TiebreakOutcome
from engine.numwin import texts as T
from engine.numwin.cards import (
    DECK,
    DECK_COUNTS,
    DECK_NAME,
    HAND_SIZE,
    MAX_COMBINATION,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULESET_ID,
    TARGET_SIZE,
    check_setup,
    check_table,
    check_teams,
    may_pair,
    shuffled,
)
from engine.numwin.options import NumWinOptions as NumWinOptions
from engine.numwin.round import NumWinRound
from engine.numwin.scoring import NumWinHand, score_hands

#: The largest `max_turns` option: a safety valve for simulations, far above any real round.
MAX_TURNS = 10_000


class NumWin(VersionedRules):
    """Num Win rules: deck, deal, round and match scoring, and the round state machine."""

    id: ClassVar[str] = RULESET_ID
    name: ClassVar[str] = "Num Win"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    Options: ClassVar[type[NumWinOptions]] = NumWinOptions
    #: Every card code the ruleset can ever use, any player count and option, canonical order
    #: (data for the HTTP layer's spec: rules/cards.md codes); players: min … max_players.
    card_codes: ClassVar[tuple[str, ...]] = tuple(canonical(set(DECK)))

    def __init__(self, options: NumWinOptions | None = None, *, version: int | None = None) -> None:
        self.options = options or NumWinOptions()
        #: The rules version this object plays (engine.core.match "Rules versions"): 1 offers
        #: `flip` and `quantum` face-up cards and, under teams, `swipe` and `quantum` the
        #: partner's cards; 2 follows the Rulings on targets (engine/numwin/kernel.py).
        self.version: int = (
            self.rules_version if version is None else check_rules_version(self, version)
        )
        turns = self.options.max_turns
        if type(turns) is not int or not 0 <= turns <= MAX_TURNS:
            raise InvalidInput(
                say(T.MAX_TURNS, high=MAX_TURNS),
                code="bad-option",
                field="options.max_turns",
            )

    def check_players(self, players: int) -> None:
        """2 to 8 players (ruling); `teams` only at 4 (rules "Match and variant")."""
        check_table(players, teams=self.options.teams)

    def _check_teams(self, players: int) -> None:
        check_teams(players, teams=self.options.teams)

    def deck(self, players: int) -> DeckInfo:
        self.check_players(players)
        return DeckInfo(
            players=players, cards=list(DECK), hand_size=HAND_SIZE, set_aside=0, out_of_play=[]
        )

    def shuffled(self, setup: RoundSetup) -> tuple[list[int], list[list[int]], int, Rng]:
        """The checked deal as card indices into DECK: (draw pile, hands, starter, the round's
        Rng) (:func:`engine.numwin.cards.shuffled`)."""
        check_setup(setup, teams=self.options.teams)
        return shuffled(setup)

    def deal(self, setup: RoundSetup) -> Deal:
        pile, hands, starter, _ = self.shuffled(setup)
        return Deal(
            hands=[[DECK[i] for i in hand] for hand in hands],
            set_aside=[],
            dealer=setup.dealer,
            leader=setup.dealer,
            discard=[DECK[starter]],
            draw_pile_count=len(pile),
        )

    def new_round(self, setup: RoundSetup) -> NumWinRound:
        """The round of `setup` (:class:`NumWinRound` reads this object's options and version)."""
        return NumWinRound(self, setup)

    def score_round(self, hands: list[NumWinHand], caller: int | None) -> RoundScore:
        """Score final combinations; each player holds at least 5 cards (api-contract)."""
        self._check_hands(hands, caller)
        for i, hand in enumerate(hands):
            if len(hand.combination) > MAX_COMBINATION:
                raise InvalidInput(
                    say(T.COMBINATION_SIZE, i=i, count=len(hand.combination), high=MAX_COMBINATION),
                    code="bad-request",
                    field=f"players[{i}].combination",
                )
            held = len(hand.combination) + 2 * len(hand.locked)
            if held < TARGET_SIZE:
                raise InvalidInput(
                    say(T.TOO_FEW, i=i, held=held, low=TARGET_SIZE),
                    code="bad-request",
                    field=f"players[{i}]",
                )
        return self.score_hands(hands, caller)

    def _check_hands(self, hands: Sequence[NumWinHand], caller: int | None) -> None:
        if not 1 <= len(hands) <= self.max_players:
            raise InvalidInput(
                say(T.PLAYERS, high=self.max_players, count=len(hands)),
                code="bad-player-count",
                field="players",
            )
        self._check_teams(len(hands))
        groups: list[tuple[str, Sequence[object]]] = []
        for i, hand in enumerate(hands):
            groups.append((f"players[{i}].combination", hand.combination))
            for j, pair in enumerate(hand.locked):
                groups.append((f"players[{i}].locked[{j}]", pair))
        check_cards(DECK_COUNTS, groups, deck_name=DECK_NAME)
        for i, hand in enumerate(hands):
            for j, pair in enumerate(hand.locked):
                if len(pair) != 2 or not may_pair(pair[0], pair[1]):
                    raise InvalidInput(
                        say(T.NOT_A_PAIR, i=i, j=j, cards=quoted_cards(pair)),
                        code="bad-request",
                        field=f"players[{i}].locked[{j}]",
                    )
        if caller is not None and (
            not isinstance(caller, int) or isinstance(caller, bool) or not 0 <= caller < len(hands)
        ):
            raise InvalidInput(
                say(T.CALLER, caller=caller, last=len(hands) - 1),
                code="bad-request",
                field="caller",
            )

    def score_hands(self, hands: Sequence[NumWinHand], caller: int | None) -> RoundScore:
        """Score combinations of any size (a round ended by exhausted piles or `max_turns`).

        Same checks and scoring as :meth:`score_round` except the 5-card minimum.
        """
        self._check_hands(hands, caller)
        return score_hands(hands, caller, teams=self.options.teams)

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        """Totals add up, the lowest total wins, ties share (rules "Match and variant")."""
        totals = match_totals(rounds)
        n = len(totals)
        self._check_teams(n)
        if self.options.teams:
            teams = [
                TeamScore(seats=list(t), score=sum(totals[s] for s in t)) for t in opposite_teams(n)
            ]
            return MatchResult(
                totals=totals, winners=winning_team_seats(teams, lowest=True), teams=teams
            )
        return MatchResult(totals=totals, winners=best_seats(totals, lowest=True))

    # -- match policy (engine.core.match) --------------------------------------------------
    #: Rules version (engine.core.match, "Rules versions"): bumped by any change that would
    #: replay a recorded match differently; `rules_versions` lists every version still replayed.
    #: Version 2 (issue 21): the Rulings on targets — an action targets only face-down cards
    #: (`flip` and `quantum` never a locked or revealed card), and under `teams` `swipe` and
    #: `quantum` never the partner's cards. Version 1 replays the records made before.
    rules_version: ClassVar[int] = 2
    rules_versions: ClassVar[tuple[int, ...]] = (1, 2)

    def for_version(self, version: int) -> NumWin:
        """The rules object playing `version`: `self` when it plays it, else a copy with the
        same options playing it (engine.core.match "Rules versions")."""
        check_rules_version(self, version)
        return self if version == self.version else NumWin(self.options, version=version)

    def match_rounds(self, players: int) -> int:
        """As many rounds as players, each dealing once (rules "Match and variant")."""
        self.check_players(players)
        return players

    def round_setup(
        self, players: int, index: int, seed: int, previous: RoundState | None
    ) -> RoundSetup:
        """Round `index` is dealt by seat `index mod n` (rules/README.md, "Seats")."""
        return RoundSetup(players=players, seed=seed, dealer=index % players, round=index + 1)

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakOutcome | None:
        """No tie-break: the lowest total wins and a tie is shared (rules "Match and variant")."""
        return None

    # -- end of match policy ----------------------------------------------------------------
