"""The app's remaining gaps of issue 24, in headless Chromium on PostgreSQL: a round of every
ruleset corrected (each entry starts from the round as stored), the « Manche N enregistrée »
status cleared when a correction starts. The fixtures are tests/api/test_app_browser.py's.
"""

from __future__ import annotations

from typing import Any

from tests.api.test_app_browser import Screen, browser, pts, served  # noqa: F401
from tests.api.test_app_sheets_browser import (
    api_call,
    bid_and_take,
    expect_scores,
    logged_in,
    new_sheet,
    scored,
    screen_in,
    sheet_of,
)
from tests.api.test_docs_browser import browser_path  # noqa: F401


def test_a_num_king_round_corrected(browser: Any, served: str) -> None:  # noqa: F811
    """Two Num King rounds entered, then round 1 corrected: the entry starts from its stored
    bids and tricks, a trick moved changes the live score as `score-round` says, and the
    totals after the save are the API's (round 2's streak bonus recomputed by the sheet)."""
    from playwright.sync_api import expect

    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    token = logged_in(screen, "fixking")
    names = ["Ada", "Bo", "Cy"]
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    new_sheet(screen, "Num King", names, 3)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()

    screen.heading("Manche 1")
    bid_and_take(screen, names, [1, 0, 0], [1, 0, 0])
    expect(page.locator(".scores .score").first).to_be_visible()
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    screen.heading("Manche 2")
    bid_and_take(screen, names, [1, 1, 0], [1, 1, 0])
    expect(page.locator(".scores .score").first).to_be_visible()
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    saved = page.get_by_role("status").filter(has_text="Manche 2 enregistrée.")
    expect(saved).to_be_visible()
    screen.heading("Manche 3")
    before = sheet_of(screen, token)

    # round 1 corrected: Ada's trick was Cy's
    page.get_by_role("button", name="Corriger la manche 1", exact=True).click()
    screen.heading("Correction de la manche 1")
    expect(saved).to_have_count(0)  # the last save's status is gone
    for name, bid in zip(names, [1, 0, 0], strict=True):  # the stored bids, already done
        expect(page.get_by_text(f"{name} annonce {bid} pli", exact=True)).to_be_visible()
    for name, taken in zip(names, [1, 0, 0], strict=True):
        expect(page.get_by_label(f"Plis de {name}", exact=True)).to_have_value(str(taken))
    page.get_by_label("Plis de Ada", exact=True).select_option("0")
    page.get_by_label("Plis de Cy", exact=True).select_option("1")
    corrected = scored(
        served,
        "numking",
        {
            "cards": 1,
            "players": [
                {"bid": 1, "tricks": 0, "streak": 0},
                {"bid": 0, "tricks": 0, "streak": 0},
                {"bid": 0, "tricks": 1, "streak": 0},
            ],
        },
        "fr",
    )
    expect_scores(screen, names, corrected, pts)
    screen.axe("num king correction")
    page.get_by_role("button", name="Enregistrer la correction", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Manche 1 corrigée.")).to_be_visible()
    screen.heading("Manche 3")

    after = sheet_of(screen, token)
    assert after["version"] != before["version"]
    assert [(p["bid"], p["tricks"]) for p in after["rounds"][0]["input"]["players"]] == [
        (1, 0),
        (0, 0),
        (0, 1),
    ]
    assert [p["score"] for p in after["rounds"][0]["scores"]["players"]] == [
        p["score"] for p in corrected["players"]
    ]
    assert after["totals"] != before["totals"]
    for seat, total in enumerate(after["totals"]):
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))
    screen.close()


def test_classic_and_num_win_rounds_corrected(browser: Any, served: str) -> None:  # noqa: F811
    """A Num Wars classic round and a Num Win round, saved through the API, open for
    correction with their stored cards: saved again unchanged, each scores as before."""
    from playwright.sync_api import expect

    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    token = logged_in(screen, "fixmore")
    names = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]
    classic_round = {
        "players": [
            {"captured": ["red-5", "blue-5", "rainbow-7", "shadow-7", "joker"]},
            {"captured": ["green-9", "rainbow-3"]},
            {"captured": ["yellow-12"]},
        ]
    }
    numwin_round = {
        "players": [
            {"combination": ["red-1", "blue-1", "swipe"], "locked": [["rainbow-4", "green-4"]]},
            {"combination": ["red-2", "blue-3", "green-5", "yellow-6", "malus-1"]},
            {"combination": ["shadow-8", "red-9", "blue-10", "green-11", "flip"]},
        ],
        "caller": 0,
    }
    for ruleset, body in [("numwars-classic", classic_round), ("numwin", numwin_round)]:
        made = api_call(
            served,
            "POST",
            "/v1/scoresheets",
            token=token,
            json={"ruleset": ruleset, "players": names, "planned_rounds": 3},
        )
        assert made.status_code == 201, made.text
        sheet_id = made.json()["id"]
        first = api_call(
            served, "POST", f"/v1/scoresheets/{sheet_id}/rounds", token=token, json=body
        )
        assert first.status_code == 201, first.text
        stored = api_call(served, "GET", f"/v1/scoresheets/{sheet_id}", token=token).json()
        screen.goto(f"/feuilles/{sheet_id}")
        screen.heading("Manche 2")
        page.get_by_role("button", name="Corriger la manche 1", exact=True).click()
        screen.heading("Correction de la manche 1")
        scores = stored["rounds"][0]["scores"]
        expect_scores(screen, ["Ada", "Bo", "Cy"], scores, pts)  # the stored cards, scored
        if ruleset == "numwin":
            expect(page.get_by_label("Qui a annoncé « Num Win » ?", exact=True)).to_have_value("0")
        page.get_by_role("button", name="Enregistrer la correction", exact=True).click()
        expect(page.get_by_role("status").filter(has_text="Manche 1 corrigée.")).to_be_visible()
        again = api_call(served, "GET", f"/v1/scoresheets/{sheet_id}", token=token).json()
        assert again["version"] != stored["version"]
        # the same score line by line (the app gives classic cards colours of its own)
        assert again["rounds"][0]["scores"]["winners"] == scores["winners"]
        for line, old in zip(
            again["rounds"][0]["scores"]["players"], scores["players"], strict=True
        ):
            assert line["score"] == old["score"]
            assert [(p["label"], p["points"]) for p in line["breakdown"]] == [
                (p["label"], p["points"]) for p in old["breakdown"]
            ]
        assert again["totals"] == stored["totals"]
    screen.close()
