"""Trick bookkeeping shared by the trick games: checking a trick's seats and cards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.core.base import TrickCard
from engine.core.cards import check_cards
from engine.core.errors import InvalidInput


def check_players(players: int, low: int, high: int, ruleset: str) -> None:
    if not isinstance(players, int) or isinstance(players, bool) or not low <= players <= high:
        raise InvalidInput(
            f"{ruleset} is played by {low} to {high} players",
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
            f"{field} {seat!r} is not a seat of {players} players", code="bad-request", field=field
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
            f"a trick to resolve holds exactly one card per player ({players}), not {len(trick)}",
            code="bad-trick",
            field="trick",
        )
    if not complete and len(trick) >= players:
        raise InvalidInput(
            f"the trick already holds {len(trick)} cards for {players} players: nobody can play",
            code="bad-trick",
            field="trick",
        )
    if not trick:
        return
    leader = trick[0].seat
    for i, entry in enumerate(trick):
        if entry.declared is not None and not declarations:
            raise InvalidInput(
                f"trick[{i}] has 'declared', which only numking's infinity carries",
                code="bad-request",
                field=f"trick[{i}].declared",
            )
        if not 0 <= entry.seat < players:
            raise InvalidInput(
                f"seat {entry.seat} is out of range for {players} players (0..{players - 1})",
                code="bad-trick",
                field=f"trick[{i}].seat",
            )
        expected = (leader + i) % players
        if entry.seat != expected:
            raise InvalidInput(
                f"trick[{i}] is seat {entry.seat}, but play goes clockwise from the leader "
                f"(seat {leader}): seat {expected} plays card {i + 1}",
                code="bad-trick",
                field=f"trick[{i}].seat",
            )


def check_hand_and_trick(
    deck: Mapping[str, int],
    deck_name: str,
    hand: Sequence[str],
    trick: Sequence[TrickCard],
) -> None:
    """Every card in the deck, and no card more often across hand and trick than the deck holds."""
    check_cards(deck, [("hand", hand), ("trick", [t.card for t in trick])], deck_name=deck_name)
