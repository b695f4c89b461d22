"""Num King's score lines as a player reads them (texts24): « annonce » as the app says it,
no plural a number breaks (« 1 cartes », « 0 plis faits »), the precision bonus said by what
it counts, and one minus sign, the one the points are written with."""

from __future__ import annotations

import pytest

from engine.core.texts import KINDS
from engine.numking.scoring import score_rows


@pytest.mark.parametrize("cards", [1, 2, 5])
def test_every_numking_label_reads_well_in_french(cards: int) -> None:
    rows = [(b, t, s) for b in range(cards + 1) for t in range(cards + 1) for s in (0, 1, 2)]
    for player in score_rows(cards, rows).players:
        for line in player.breakdown:
            fr = KINDS[line.kind].render("fr", **line.params)
            en = KINDS[line.kind].render("en", **line.params)
            for bad in ("1 cartes", "0 plis", "1 plis", "pari", "série", "−", "streak"):
                assert bad not in fr and bad not in en, (fr, en)
            assert fr[:1].isupper() and en[:1].isupper(), (fr, en)
            if line.points < 0:  # the label writes its minus sign as the points are
                assert "-" in fr and "-" in en, (fr, en)


def test_a_missed_bid_and_the_bonus_in_french() -> None:
    (missed,) = score_rows(1, [(1, 0, 0)]).players
    said = [KINDS[line.kind].render("fr", **line.params) for line in missed.breakdown]
    assert said == [
        "Annonce 1 ratée (plis faits\u00a0: 0)\u00a0: -3×1",
        "Bonus de précision (annonces réussies d’affilée\u00a0: 0)",
    ]
    (zero,) = score_rows(1, [(0, 0, 2)]).players
    assert KINDS[zero.breakdown[0].kind].render("fr", **zero.breakdown[0].params) == (
        "Annonce 0 réussie (cartes par joueur\u00a0: 1)\u00a0: 25 + 2×1"
    )
