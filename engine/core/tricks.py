"""Trick bookkeeping shared by the trick games: checking a trick's seats and cards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.core.base import TrickCard
from engine.core.cards import check_cards
from engine.core.errors import InvalidInput
from engine.core.texts import BY_RULESET, Message, say, text

PLAYER_COUNT = text(
    "bad-player-count",
    "{ruleset} is played by {low} to {high} players",
    "{ruleset} se joue de {low} à {high} joueurs",
    BY_RULESET,
)
NOT_A_SEAT = text(
    "not-a-seat",
    "{field} {seat!r} is not a seat of {players} players",
    "{field} {seat!r} n’est pas une place d’une table de {players} joueurs",
)
TRICK_TO_RESOLVE = text(
    "trick-to-resolve",
    "a trick to resolve holds exactly one card per player ({players}), not {count}",
    "un pli à résoudre contient exactement une carte par joueur ({players}), pas {count}",
)
TRICK_FULL = text(
    "trick-full",
    "the trick already holds {count} cards for {players} players: nobody can play",
    "le pli contient déjà {count} cartes pour {players} joueurs\u00a0: personne ne peut jouer",
)
ONLY_INFINITY_DECLARES = text(
    "declared-not-infinity",
    "trick[{i}] has 'declared', which only numking's infinity carries",
    "trick[{i}] porte «\u00a0declared\u00a0», que seule l’infinity de numking porte",
)
SEAT_OUT_OF_RANGE = text(
    "trick-seat-out-of-range",
    "seat {seat} is out of range for {players} players (0..{last})",
    "la place {seat} est hors des places d’une table de {players} joueurs (0..{last})",
)
NOT_CLOCKWISE = text(
    "trick-not-clockwise",
    "trick[{i}] is seat {seat}, but play goes clockwise from the leader (seat {leader}): "
    "seat {expected} plays card {nth}",
    "trick[{i}] est la place {seat}, mais on joue dans le sens horaire depuis l’entameur "
    "(place {leader})\u00a0: la place {expected} joue la carte {nth}",
)


def check_players(players: int, low: int, high: int, ruleset: str) -> None:
    if not isinstance(players, int) or isinstance(players, bool) or not low <= players <= high:
        raise InvalidInput(
            say(PLAYER_COUNT, ruleset=ruleset, low=low, high=high),
            code="bad-player-count",
            field="players",
        )


def check_seat(seat: object, players: int, field: str = "seat") -> int:
    """`seat` as a seat of `players` (an int, not a bool, in 0 … players-1), or InvalidInput
    on `field` (a round's `seat` argument, a setup's `dealer`).

    The round states take their `seat` arguments as `object` and check them here, so that a
    wrongly typed seat gets this error in the mypyc-compiled build too (compiled code would
    take `True` for seat 1, or raise TypeError, at an `int` parameter).
    """
    if type(seat) is not int or not 0 <= seat < players:
        raise InvalidInput(
            say(NOT_A_SEAT, field=field, seat=seat, players=players),
            code="bad-request",
            field=field,
        )
    return seat


def check_trick(
    trick: Sequence[TrickCard], players: int, *, complete: bool, declarations: bool = False
) -> None:
    """Seats in range, each at most once, clockwise from the leader; length as required.

    `complete`: exactly one card per player (resolve-trick); otherwise fewer than `players`
    cards, so that a card can still be played (legal-moves, validate-move).
    `declarations`: whether `declared` may appear at all (only numking's `infinity` has one).
    """
    if complete and len(trick) != players:
        raise InvalidInput(
            say(TRICK_TO_RESOLVE, players=players, count=len(trick)),
            code="bad-trick",
            field="trick",
        )
    if not complete and len(trick) >= players:
        raise InvalidInput(
            say(TRICK_FULL, count=len(trick), players=players),
            code="bad-trick",
            field="trick",
        )
    if not trick:
        return
    leader = trick[0].seat
    for i, entry in enumerate(trick):
        if entry.declared is not None and not declarations:
            raise InvalidInput(
                say(ONLY_INFINITY_DECLARES, i=i),
                code="bad-request",
                field=f"trick[{i}].declared",
            )
        if not 0 <= entry.seat < players:
            raise InvalidInput(
                say(SEAT_OUT_OF_RANGE, seat=entry.seat, players=players, last=players - 1),
                code="bad-trick",
                field=f"trick[{i}].seat",
            )
        expected = (leader + i) % players
        if entry.seat != expected:
            raise InvalidInput(
                say(
                    NOT_CLOCKWISE,
                    i=i,
                    seat=entry.seat,
                    leader=leader,
                    expected=expected,
                    nth=i + 1,
                ),
                code="bad-trick",
                field=f"trick[{i}].seat",
            )


def check_hand_and_trick(
    deck: Mapping[str, int],
    deck_name: Message,
    hand: Sequence[str],
    trick: Sequence[TrickCard],
) -> None:
    """Every card in the deck, and no card more often across hand and trick than the deck holds."""
    check_cards(deck, [("hand", hand), ("trick", [t.card for t in trick])], deck_name=deck_name)
