"""`numwars-classic` — Num Wars, classic edition (rules/numwars-classic.md).

3 to 8 players, 104 cards (four colours and the two trump families Rainbow and Shadow, 0–16,
plus two Jokers), an exchange to the right before play, and the *trump duel*: a trick holding
a trump pair (`rainbow-X` + `shadow-X`) above every single trump splits in two.

The stateless answers live here as small pure functions (`legal_cards`, `broken_obligation`,
`duel`, `decide_tiebreak`); the deck's tables and the pile scorer (`score_pile`) are in
:mod:`engine.numwars_classic_cards` (compiled with mypyc, re-exported here), the round state
machine in :mod:`engine.numwars_classic_state`.

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
  (by teams under `alliance`) and `tiebreak` is on; :func:`decide_tiebreak` (also
  `NumWarsClassic.tiebreak`) applies the tie-break Ruling to the tie-break rounds played so
  far and says whether another one is due or the win is shared. The match layer deals them
  (the next dealer in rotation) and keeps their scores out of the totals.
- Exchange: `Pass` moves one card; `Exchange(cards)` passes 1 up to the cards still owed at
  once. Passed cards leave the hand at once and arrive when every seat has passed them all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from engine.base import (
    Capture,
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
from engine.cards import CARDS
from engine.core.match import Match, TiebreakDecision, check_rules_version
from engine.errors import InvalidInput
from engine.numwars_classic_cards import (
    BLUE as BLUE,
    DECK as DECK,
    DECK_COUNTS as DECK_COUNTS,
    DECK_NAME as DECK_NAME,
    GREEN as GREEN,
    JOKER as JOKER,
    KIND as KIND,
    ORDER as ORDER,
    ORDER_KEY as ORDER_KEY,
    PARTNER_CARD as PARTNER_CARD,
    PILE_BIT as PILE_BIT,
    RAINBOW as RAINBOW,
    RAINBOW_CARD as RAINBOW_CARD,
    RED as RED,
    SHADOW as SHADOW,
    SHADOW_CARD as SHADOW_CARD,
    TRUMP_ASKED as TRUMP_ASKED,
    VALUE as VALUE,
    YELLOW as YELLOW,
    held_piles as held_piles,
    score_held as score_held,
    score_helds as score_helds,
    score_pile as score_pile,
    sums_are_valid,
)
from engine.rng import Rng
from engine.scoring import (
    best_seats,
    match_totals,
    opposite_teams,
    winning_team_seats,
)
from engine.tricks import check_hand_and_trick, check_players, check_seat, check_trick

if TYPE_CHECKING:
    from engine.numwars_classic_state import ClassicRound

RULESET_ID = "numwars-classic"
MIN_PLAYERS = 3
MAX_PLAYERS = 8
ALLIANCE_PLAYERS = (4, 6, 8)
MAX_TIEBREAK_ROUNDS = 3


class ClassicOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    speed: bool = False  # "Speed Wars": 10 cards each, exchange 2
    alliance: bool = False  # 4, 6 or 8 players; partners opposite, team scores
    tiebreak: bool = True  # a tied match total calls for tie-break rounds (at most 3)


class ClassicPile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's captured cards for score-round."""

    captured: list[str]


class TiebreakOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """Where the tie-break of a tied match stands after the tie-break rounds played so far.

    `winners`: the seats still in contention (the match winners once `decided`);
    `another_round`: one more tie-break round is due; `shared`: three rounds left a tie.
    """

    winners: list[int]
    decided: bool
    another_round: bool
    shared: bool
    rounds_used: int


# ---------------------------------------------------------------------------------------------
# Pure rule functions


def asked_of(trick_cards: Iterable[str]) -> int | None:
    """What the trick asks: a colour kind, TRUMP_ASKED, or None (no card, or Jokers only).

    Ruling "Lead": a trump asks for trump (either family); a Joker asks nothing and the first
    non-Joker card sets what is asked.
    """
    for card in trick_cards:
        k = KIND[card]
        if k != JOKER:
            return TRUMP_ASKED if k >= RAINBOW else k
    return None


def undealt_cards(ranks: Iterable[int]) -> list[str]:
    """Cards given as ranks in DECK (which is canonical), in canonical order."""
    return list(map(DECK.__getitem__, sorted(ranks)))


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Canonical order (rules/cards.md) of cards of this deck, without a Python key call."""
    return sorted(cards, key=ORDER_KEY)


def distinct_in_order(hand: Iterable[str]) -> list[str]:
    """The distinct cards of `hand` in canonical order (two Jokers are one choice)."""
    return sort_cards(set(hand))


def legal_cards(hand: Iterable[str], trick_cards: Sequence[str]) -> list[str]:
    """Every distinct card of `hand` that may be played to the trick, in canonical order."""
    return legal_in_order(distinct_in_order(hand), trick_cards)


def legal_in_order(cards: list[str], trick_cards: Sequence[str]) -> list[str]:
    """`legal_cards` for distinct cards already in canonical order.

    Playing a card: Joker always; colour asked -> that colour or a trump, holding neither any
    card; trump asked -> a trump, holding none any card; Raise obligation on the trumps. The
    canonical order puts the colour asked, then the trumps, then the Joker, so the answer is
    those three groups concatenated.
    """
    asked = asked_of(trick_cards)
    if asked is None:
        return cards
    follow: list[str] = []
    trumps: list[str] = []
    joker: list[str] = []
    for card in cards:
        k = KIND[card]
        if k == JOKER:
            joker.append(card)
        elif k >= RAINBOW:
            trumps.append(card)
        elif k == asked:
            follow.append(card)
    if not follow and not trumps:
        return cards
    if trumps:
        trumps = raised_trumps(trumps, trick_cards)
    return follow + trumps + joker


def raised_trumps(trumps: list[str], trick_cards: Iterable[str]) -> list[str]:
    """The trumps held that the Raise obligation allows ("Playing a card").

    With a trump in the trick, only those higher than every trump in it or completing a pair
    (the other family, same value as one played); holding none of those, any trump.
    """
    top = -1
    completes: list[str] = []
    for card in trick_cards:
        if RAINBOW <= KIND[card] <= SHADOW:
            if VALUE[card] > top:
                top = VALUE[card]
            completes.append(PARTNER_CARD[card])
    if top < 0:
        return trumps
    raised = [c for c in trumps if VALUE[c] > top or c in completes]
    return raised or trumps


def broken_obligation(hand: Sequence[str], trick_cards: Sequence[str], card: str) -> str:
    """Which obligation a held but illegal `card` breaks (contract reason order)."""
    if RAINBOW <= KIND[card] <= SHADOW:
        return "must-raise"
    asked = asked_of(trick_cards)
    if asked != TRUMP_ASKED and any(KIND[c] == asked for c in hand):
        return "must-follow-color"
    return "must-play-trump"


_REASON_TEXT = {
    "card-not-in-hand": "{card!r} is not in the hand",
    "must-follow-color": "{card!r} does not follow the colour asked: play that colour, a trump "
    "or a Joker (Playing a card: Colour asked)",
    "must-play-trump": "{card!r} is not a trump: holding a trump you must play one, or a Joker "
    "(Playing a card: Trump asked / Colour asked)",
    "must-raise": "{card!r} neither beats every trump in the trick nor completes a pair, and "
    "you hold a trump that does (Playing a card: Raise obligation)",
}


def check_card(card: object, field: str) -> None:
    """A code of this deck, else the contract's `unknown-card` / `card-not-in-deck`."""
    if isinstance(card, str) and card in KIND:
        return
    if isinstance(card, str) and card in CARDS:
        raise InvalidInput(
            f"card {card!r} is not in the numwars-classic deck",
            code="card-not-in-deck",
            field=field,
        )
    raise InvalidInput(f"{card!r} is not a card code", code="unknown-card", field=field)


def reason_message(reason: str, card: str) -> str:
    return _REASON_TEXT[reason].format(card=card)


class DuelResult(msgspec.Struct, frozen=True):
    """Who takes what from one complete trick (seat -> cards), the split pairs, the winner."""

    takes: dict[int, list[str]]
    pairs: list[tuple[int, list[str]]]
    winner: int


def duel(trick: Sequence[tuple[int, str]]) -> DuelResult:
    """Resolve a complete trick by the trump duel ("Resolving the trick", rules 1–5)."""
    rainbow: dict[int, int] = {}
    shadow: dict[int, int] = {}
    for seat, card in trick:
        k = KIND[card]
        if k == RAINBOW:
            rainbow[VALUE[card]] = seat
        elif k == SHADOW:
            shadow[VALUE[card]] = seat
    everything = [card for _, card in trick]
    if not rainbow and not shadow:
        best = _highest_of_asked(trick)
        assert best is not None, "a complete trick holds a non-Joker card"
        return DuelResult({best: everything}, [], best)
    pair_values = sorted(rainbow.keys() & shadow.keys(), reverse=True)
    singles = [(v, s) for v, s in rainbow.items() if v not in shadow]
    singles += [(v, s) for v, s in shadow.items() if v not in rainbow]
    top_single = max(singles) if singles else None
    if top_single is not None and (not pair_values or top_single[0] > pair_values[0]):
        # Rule 2 (no pair) and rule 3 (S above every pair: the pairs do not split).
        return DuelResult({top_single[1]: everything}, [], top_single[1])
    # Rule 3 and its Ruling: only the pairs above S split, lower pairs stay with the rest.
    winning = [v for v in pair_values if top_single is None or v > top_single[0]]
    taken = {RAINBOW_CARD[v] for v in winning} | {SHADOW_CARD[v] for v in winning}
    takes: dict[int, list[str]] = {}
    pairs: list[tuple[int, list[str]]] = []
    for v in winning:
        pair = [RAINBOW_CARD[v], SHADOW_CARD[v]]
        takes[shadow[v]] = list(pair)
        pairs.append((shadow[v], pair))
    rest = [card for card in everything if card not in taken]
    # Rule 4: the rest to S, else the highest of the colour asked, else the top pair's Shadow.
    if top_single is not None:
        owner = top_single[1]
    else:
        best = _highest_of_asked(trick)
        owner = best if best is not None else shadow[winning[0]]
    if rest:
        takes.setdefault(owner, []).extend(rest)
    else:
        # Rule 5: nothing left, the Shadow player of the highest pair leads.
        owner = shadow[winning[0]]
    pairs.sort()
    return DuelResult(takes, pairs, owner)


def _highest_of_asked(trick: Sequence[tuple[int, str]]) -> int | None:
    """Seat of the highest card of the colour asked; None when a trump (or nothing) is asked."""
    asked = asked_of(card for _, card in trick)
    if asked is None or asked == TRUMP_ASKED:
        return None
    best_seat, best_value = None, -1
    for seat, card in trick:
        if KIND[card] == asked and VALUE[card] > best_value:
            best_seat, best_value = seat, VALUE[card]
    return best_seat


def decide_tiebreak(
    tied: Sequence[int],
    rounds: Sequence[RoundScore],
    *,
    alliance: bool = False,
) -> TiebreakOutcome:
    """Settle a tied match total by tie-break rounds ("Match and variants", Ruling).

    `tied`: the seats sharing the best total (under `alliance`, the seats of the tied teams);
    `rounds`: the tie-break rounds played so far, in order (all players play each one, the
    next dealer in rotation deals; their scores are not added to the match totals). Each round
    keeps, among those still tied, the highest round score (team totals under `alliance`);
    while more than one player (team) remains another round is due, at most 3, after which the
    win is shared. Rounds beyond the third are ignored.
    """
    if not tied:
        raise InvalidInput("a tie-break needs the tied seats", code="bad-request", field="tied")
    alive = sorted(set(tied))
    used = 0
    for score in rounds[:MAX_TIEBREAK_ROUNDS]:
        if _entrants(alive, alliance) <= 1:
            break
        used += 1
        by_seat = {p.seat: p.score for p in score.players}
        missing = [s for s in alive if s not in by_seat]
        if missing:
            raise InvalidInput(
                f"tie-break round {used} has no score for seat {missing[0]}",
                code="bad-request",
                field=f"rounds[{used - 1}].players",
            )
        if alliance:
            half = len(score.players) // 2
            key = {s: by_seat[s % half] + by_seat[s % half + half] for s in alive}
        else:
            key = by_seat
        best = max(key[s] for s in alive)
        alive = [s for s in alive if key[s] == best]
    decided = _entrants(alive, alliance) <= 1
    shared = not decided and used >= MAX_TIEBREAK_ROUNDS
    return TiebreakOutcome(
        winners=alive,
        decided=decided or shared,
        another_round=not decided and not shared,
        shared=shared,
        rounds_used=used,
    )


def _entrants(seats: Sequence[int], alliance: bool) -> int:
    """How many players (teams, under `alliance`: partners count once) are still in contention."""
    return (len(seats) + 1) // 2 if alliance else len(seats)


# ---------------------------------------------------------------------------------------------
# The rules object


class NumWarsClassic:
    """Num Wars, classic edition: the stateless answers and the round state factory."""

    id: ClassVar[str] = RULESET_ID
    name: ClassVar[str] = "Num Wars (classic edition)"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    Options: ClassVar[type[ClassicOptions]] = ClassicOptions

    def __init__(self, options: ClassicOptions | None = None) -> None:
        self.options = options or ClassicOptions()

    # -- formats -------------------------------------------------------------------------------

    def check_players(self, players: int) -> None:
        """Player count in 3–8; `alliance` only with 4, 6 or 8 ("Match and variants")."""
        check_players(players, MIN_PLAYERS, MAX_PLAYERS, RULESET_ID)
        self._check_alliance(players)

    def _check_alliance(self, players: int) -> None:
        if self.options.alliance and players not in ALLIANCE_PLAYERS:
            raise InvalidInput(
                f"the alliance variant needs 4, 6 or 8 players (partners opposite), not {players}",
                code="bad-option",
                field="options.alliance",
            )

    def hand_size(self, players: int) -> int:
        """15 cards for 3–5 players, 13 for 6–8; 10 with `speed` ("Deck and hands")."""
        if self.options.speed:
            return 10
        return 15 if players <= 5 else 13

    def exchange_size(self, players: int) -> int:
        """5 cards for 3–5 players, 3 for 6–8; 2 with `speed` ("Deck and hands")."""
        if self.options.speed:
            return 2
        return 5 if players <= 5 else 3

    def deck(self, players: int) -> DeckInfo:
        self.check_players(players)
        hand = self.hand_size(players)
        return DeckInfo(
            players=players, cards=list(DECK), hand_size=hand, set_aside=len(DECK) - players * hand
        )

    def deal(self, setup: RoundSetup) -> Deal:
        """Shuffle with the setup's seed, deal one at a time from the dealer's left ("Set-up")."""
        hands, rest = self.deal_hands(setup)
        return Deal(
            hands=hands, set_aside=undealt_cards(rest), dealer=setup.dealer, leader=setup.dealer
        )

    def deal_hands(self, setup: RoundSetup) -> tuple[list[list[str]], list[int]]:
        """The checked setup's hands, each in canonical order, and the undealt rest as ranks in
        DECK (`undealt_cards` names them: only a view or a deal shows them).

        The last n x hand size cards of the shuffled deck are dealt (only they are drawn: see
        `Rng.shuffle`): the i-th of them goes to seat (dealer + 1 + i) mod n, so a seat's hand
        is every n-th card from its first one.
        """
        self.check_setup(setup)
        n = setup.players
        dealt = n * self.hand_size(n)
        ranks = list(range(len(DECK)))  # DECK is canonical: a hand of ranks sorts plainly
        Rng(setup.seed).shuffle(ranks, last=dealt)  # the dealt cards: the last `dealt` ranks
        undealt = len(DECK) - dealt
        first = setup.dealer + 1
        card = DECK.__getitem__
        hands = [list(map(card, sorted(ranks[undealt + (s - first) % n :: n]))) for s in range(n)]
        return hands, ranks[:undealt]

    def check_setup(self, setup: RoundSetup) -> None:
        self.check_players(setup.players)
        check_seat(setup.dealer, setup.players, "dealer")

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
        self, players: int, hand: list[str], trick: list[TrickCard], card: str
    ) -> MoveCheck:
        trick_cards = self._checked_trick(players, hand, trick, complete=False)
        check_card(card, "card")
        legal = legal_cards(hand, trick_cards)
        if card in legal:
            return MoveCheck(
                legal=True, reason=None, message=f"{card!r} may be played", legal_moves=legal
            )
        if card not in hand:
            reason = "card-not-in-hand"
        else:
            reason = broken_obligation(hand, trick_cards, card)
        return MoveCheck(
            legal=False, reason=reason, message=reason_message(reason, card), legal_moves=legal
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
                f"score-round takes 1 to {MAX_PLAYERS} players' piles, not {n}",
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

    def for_version(self, version: int) -> NumWarsClassic:
        """The rules object playing `version`: version 1 is the only one, played by `self`."""
        check_rules_version(self, version)
        return self

    def new_match(self, players: int, seed: int, rules_version: int | None = None) -> Match:
        """A whole match (rules "Match and variants") of `players`, seeded `seed` (engine.core.match)."""
        return Match(self, players, seed, rules_version)

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

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakDecision | None:
        """With `tiebreak` (default on), the tie-break Ruling (:meth:`tiebreak`); else None."""
        return self.tiebreak(tied, rounds) if self.options.tiebreak else None

    # -- end of match policy ----------------------------------------------------------------

    # -- rounds --------------------------------------------------------------------------------

    def new_round(self, setup: RoundSetup) -> ClassicRound:
        from engine.numwars_classic_state import ClassicRound

        return ClassicRound(self, setup)

    def _deck_name(self) -> str:
        return DECK_NAME


def trick_result(result: DuelResult) -> TrickResult:
    """The public shape of a duel: per-seat captures and pairs in canonical order."""
    return TrickResult(
        winner=result.winner,
        annulled=False,
        captures=[Capture(seat=s, cards=sort_cards(result.takes[s])) for s in sorted(result.takes)],
        pairs=[Capture(seat=s, cards=sort_cards(cards)) for s, cards in result.pairs],
        next_leader=result.winner,
    )
