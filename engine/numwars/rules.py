"""`numwars` — Num Wars, secret-roles edition (rules/numwars.md).

The stateless answers (deck, deal, legal moves, trick resolution, scoring) live here as pure
functions over card codes; the round state machine is in :mod:`engine.numwars.kernel`, under
the public round of :mod:`engine.numwars.round`.

Points the spec leaves to the implementation, and the choice made:
- The role draw shuffles the lot with the round's :class:`Rng` and gives ``lot[s]`` to seat
  ``s``; the rest of the deck is then shuffled and dealt in blocks, seat 0 first.
- ``RoundSetup.leader`` is ignored: the dealer leads the first trick (Set-up 4, Ruling).
- ``resolve_trick`` also checks that the roles agree with the role cards of the trick (the
  Bomb's player is the poseur, …): role cards never change hands, so any other pairing is an
  impossible request (``bad-request``).
- A score-round breakdown always ends with the role line, even at 0 points, so the table
  sees every role at the end of the round.
- A stored round passes exchange cards one at a time (``Pass``; ``Exchange`` applies several)
  and asks the complice (``Neutralize``) only when the choice can change something: Bomb +
  Joker + a threat and no ``numx`` in the complete trick.

Speed (the play-out benchmark and the stateless endpoints): facts about a card are looked up
in per-code tables (kind, trump strength, colour asked, complement, value); legal moves are
comprehensions over the hand (the trumps listed only when the colour asked is missing), sorted
once at the end; a trick without the Bomb and without a pair is resolved by
:func:`plain_result`, the others with the contest kept as card -> seat and the captures
dealt out in canonical order; value groups come from one sort by (value, canonical order)
and a label/points table; the endpoints run the shared checks (check_players, check_trick,
check_cards) only when :func:`valid_play` cannot show the request valid in one pass, and
check the roles with one sort in the valid case. The plain versions these replace are kept
as references in tests/engine/numwars/test_fast.py and test_checks.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from engine.core.base import (
    BOMB_OUTCOMES,
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
from engine.core.cards import CARDS, COMPLEMENT, NOT_IN_DECK, check_cards, quoted_cards
from engine.core.errors import InvalidInput
from engine.core.match import VersionedRules
from engine.core.scoring import best_seats, match_totals
from engine.core.texts import DEFAULT_LANGUAGE, say
from engine.core.tiebreak import TiebreakOutcome, decide_tiebreak
from engine.core.tricks import check_players, check_trick
from engine.numwars import texts as T
from engine.numwars.cards import (
    FORMATS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAYABLE_SETS,
    ROLE_OF_CARD,
    RULESET_ID,
    canon,
    check_bomb,
    check_roles,
    deal_round,
    deck_cards,
    deck_name,
    playable_deck,
)
from engine.numwars.options import NumWarsOptions as NumWarsOptions
from engine.numwars.round import NumWarsRound
from engine.numwars.scoring import NumWarsPile, score_piles
from engine.numwars.tricks import (
    MAY_BE_PLAYED,
    NOT_IN_HAND,
    check_role_cards,
    illegal_reason,
    legal_cards,
    resolve,
    valid_play,
)


class NumWars(VersionedRules):
    """Num Wars, secret-roles edition: the rules object (rules/numwars.md)."""

    id: ClassVar[str] = RULESET_ID
    name: ClassVar[str] = "Num Wars"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    Options: ClassVar[type[NumWarsOptions]] = NumWarsOptions
    #: Every card code the ruleset can ever use, any player count and option, canonical order
    #: (data for the HTTP layer's spec: rules/cards.md codes); players: min … max_players.
    card_codes: ClassVar[tuple[str, ...]] = tuple(
        canon(set().union(*(deck_cards(n) for n in FORMATS)))
    )

    def __init__(self, options: NumWarsOptions | None = None) -> None:
        self.options = options or NumWarsOptions()
        k = self.options.exchange
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= 5:
            raise InvalidInput(
                say(T.EXCHANGE),
                code="bad-option",
                field="options.exchange",
            )

    def _players(self, players: int) -> None:
        check_players(players, self.min_players, self.max_players, self.id)

    def deck(self, players: int) -> DeckInfo:
        """Deck table: the whole deck of the format; 3 players: the Joker is the set-aside,
        out of play (Set-up 1)."""
        self._players(players)
        _, hand, aside = FORMATS[players]
        cards = deck_cards(players)
        playable = PLAYABLE_SETS[players]
        return DeckInfo(
            players=players,
            cards=cards,
            hand_size=hand,
            set_aside=aside,
            out_of_play=[c for c in cards if c not in playable],
        )

    def deal(self, setup: RoundSetup) -> Deal:
        """Set-up 1-2: the role draw, then the rest dealt up to the hand size; Ruling 4
        (:func:`engine.numwars.cards.deal_round`)."""
        return deal_round(setup)

    def new_round(self, setup: RoundSetup) -> NumWarsRound:
        """The round of `setup` (:class:`NumWarsRound` reads this object's options)."""
        return NumWarsRound(self, setup)

    def _check(self, players: int, hand: list[str], trick: list[TrickCard]) -> list[str]:
        """The checks of legal-moves and validate-move (check_players, check_trick and
        check_hand_and_trick, whose check_cards is called here with the trick's cards listed
        once), run only when :func:`valid_play` is unsure; returns the trick's cards in play
        order."""
        valid = valid_play(players, hand, trick, complete=False)
        if valid is not None:
            return valid[1]
        check_players(players, self.min_players, self.max_players, self.id)
        check_trick(trick, players, complete=False)
        cards = [t.card for t in trick]
        check_cards(
            playable_deck(players), [("hand", hand), ("trick", cards)], deck_name=deck_name(players)
        )
        return cards

    def legal_moves(self, players: int, hand: list[str], trick: list[TrickCard]) -> LegalMoves:
        """Leading (with the special-lead Ruling) and Following 0-3."""
        cards = self._check(players, hand, trick)
        return LegalMoves(legal=canon(legal_cards(hand, cards)))

    def validate_move(
        self,
        players: int,
        hand: list[str],
        trick: list[TrickCard],
        card: str,
        language: str = DEFAULT_LANGUAGE,
    ) -> MoveCheck:
        """Legal or the first broken obligation: card-not-in-hand, special-lead,
        must-follow-color, must-play-trump, must-raise (the message in `language`)."""
        cards = self._check(players, hand, trick)
        if card not in PLAYABLE_SETS[players]:
            if card not in CARDS:
                raise InvalidInput(say(T.NOT_A_CARD, card=card), code="unknown-card", field="card")
            raise InvalidInput(
                say(NOT_IN_DECK, card=card, deck=deck_name(players)),
                code="card-not-in-deck",
                field="card",
            )
        legal = canon(legal_cards(hand, cards))
        if card in legal:
            message = say(MAY_BE_PLAYED, card=card).render(language)
            return MoveCheck(legal=True, reason=None, message=message, legal_moves=legal)
        if card not in hand:
            reason, said = "card-not-in-hand", say(NOT_IN_HAND, card=card)
        else:
            reason, said = illegal_reason(hand, cards, card, legal)
        return MoveCheck(
            legal=False, reason=reason, message=said.render(language), legal_moves=legal
        )

    def resolve_trick(
        self,
        players: int,
        trick: list[TrickCard],
        roles: list[str] | None = None,
        joker_neutralizes: bool = True,
    ) -> TrickResult:
        """Trump pairs, the contest winner and the Bomb; `roles` needed when the Bomb is in."""
        valid = valid_play(players, [], trick, complete=True)
        if valid is None:
            check_players(players, self.min_players, self.max_players, self.id)
            check_trick(trick, players, complete=True)
            cards = [t.card for t in trick]
            check_cards(
                playable_deck(players),
                [("hand", []), ("trick", cards)],
                deck_name=deck_name(players),
            )
            played = [(t.seat, t.card) for t in trick]
        else:
            played, cards = valid
        if roles is None:
            if "bomb" in cards:
                raise InvalidInput(
                    say(T.BOMB_NEEDS_ROLES),
                    code="bad-request",
                    field="roles",
                )
        else:
            check_roles(roles, players, "roles")
            for seat, card in played:
                role = ROLE_OF_CARD.get(card)
                if role is not None and roles[seat] != role:
                    check_role_cards(played, roles)
        return resolve(played, roles, joker_neutralizes)

    def score_round(self, piles: list[NumWarsPile], bomb_outcome: str) -> RoundScore:
        """Scoring a round: value groups, pairs captured as pairs, the Bomb's role bonuses.
        The outcome must fit the piles: one the table's roles allow, with the Bomb in the pile
        it sends the Bomb to (:func:`engine.numwars.cards.check_bomb`)."""
        n = len(piles)
        self._players(n)
        groups: list[tuple[str, Sequence[object]]] = []
        for i, pile in enumerate(piles):
            groups.append((f"players[{i}].captured", pile.captured))
            for j, pair in enumerate(pile.pairs):
                groups.append((f"players[{i}].pairs[{j}]", pair))
        check_cards(playable_deck(n), groups, deck_name=deck_name(n))
        for i, pile in enumerate(piles):
            for j, pair in enumerate(pile.pairs):
                cards = canon(pair)
                if (
                    len(cards) != 2
                    or COMPLEMENT.get(cards[0]) != cards[1]
                    or not cards[0].startswith("rainbow-")
                ):
                    raise InvalidInput(
                        say(T.NOT_A_PAIR, cards=quoted_cards(pair)),
                        code="bad-request",
                        field=f"players[{i}].pairs[{j}]",
                    )
        check_roles([p.role for p in piles], n, "players", per_seat="players[{}].role")
        if bomb_outcome not in BOMB_OUTCOMES:
            raise InvalidInput(
                say(T.NOT_AN_OUTCOME, outcome=bomb_outcome, outcomes=", ".join(BOMB_OUTCOMES)),
                code="bad-request",
                field="bomb_outcome",
            )
        bombs = [i for i, pile in enumerate(piles) if "bomb" in pile.captured]
        check_bomb([p.role for p in piles], bombs, bomb_outcome)
        return score_piles(piles, bomb_outcome)

    def score_match(self, rounds: list[RoundScore]) -> MatchResult:
        """Match: totals add up; a tied total is a tie unless `tiebreak` (Ruling)."""
        totals = match_totals(rounds)
        winners = best_seats(totals)
        return MatchResult(
            totals=totals,
            winners=winners,
            tiebreak_needed=self.options.tiebreak and len(winners) > 1,
        )

    # -- match policy (engine.core.match) --------------------------------------------------
    #: Rules version (engine.core.match, "Rules versions"): bumped by any change that would
    #: replay a recorded match differently; `rules_versions` lists every version still replayed.
    rules_version: ClassVar[int] = 1
    rules_versions: ClassVar[tuple[int, ...]] = (1,)

    def match_rounds(self, players: int) -> int:
        """As many rounds as players, each dealing once (rules "Match")."""
        self._players(players)
        return players

    def round_setup(
        self, players: int, index: int, seed: int, previous: RoundState | None
    ) -> RoundSetup:
        """Round `index` is dealt by seat `index mod n` (rules/README.md, "Seats")."""
        return RoundSetup(players=players, seed=seed, dealer=index % players, round=index + 1)

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakOutcome | None:
        """With `tiebreak`, the tie-break of numwars-classic (rules "Match", Ruling;
        :mod:`engine.core.tiebreak`); else the tie stands (None)."""
        return decide_tiebreak(tied, rounds) if self.options.tiebreak else None

    # -- end of match policy ----------------------------------------------------------------
