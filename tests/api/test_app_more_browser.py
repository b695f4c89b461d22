"""The app's remaining gaps of issue 24, in headless Chromium on PostgreSQL.

A round of every ruleset corrected (each entry starts from the round as stored: a Num King
round's tricks changed, its totals the API's; Num Wars classic and Num Win rounds saved again
unchanged), the « Manche N enregistrée » status cleared when a correction starts; « Jouer en
ligne » for every ruleset the API stores (🔒 without an account, Num King with its options):
a Num King round 1 played by buttons and highlighted cards, a Num Win game's first turns
played from the view's legal actions in French words; the seats' links shown again from
« Mes parties » and on the game's screen. axe-core on the new screens in both languages. The
fixtures are tests/api/test_app_browser.py's.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from tests.api.test_app_browser import Screen, browser, pts, served  # noqa: F401
from tests.api.test_app_play_browser import NAMES, act, at_version, game_as, label, token_of
from tests.api.test_app_sheets_browser import (
    api_call,
    bid_and_take,
    de,
    expect_scores,
    logged_in,
    new_sheet,
    scored,
    screen_in,
    sheet_of,
    shown,
    switch,
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

    screen.heading("Manche 1", level=2)
    bid_and_take(screen, names, [1, 0, 0], [1, 0, 0])
    expect(page.locator(".scores .score").first).to_be_visible()
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    screen.heading("Manche 2", level=2)
    bid_and_take(screen, names, [1, 1, 0], [1, 1, 0])
    expect(page.locator(".scores .score").first).to_be_visible()
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    saved = page.get_by_role("status").filter(has_text="Manche 2 enregistrée.")
    expect(saved).to_be_visible()
    screen.heading("Manche 3", level=2)
    before = sheet_of(screen, token)

    # round 1 corrected: Ada's trick was Cy's
    page.get_by_role("button", name="Corriger la manche 1", exact=True).click()
    screen.heading("Correction de la manche 1", level=2)
    expect(saved).to_have_count(0)  # the last save's status is gone
    for name, bid in zip(names, [1, 0, 0], strict=True):  # the stored bids, already done
        expect(page.get_by_text(f"{name} annonce {bid} pli", exact=True)).to_be_visible()
    for name, taken in zip(names, [1, 0, 0], strict=True):
        expect(page.get_by_label(f"Plis {de(name)}", exact=True)).to_have_value(str(taken))
    page.get_by_label("Plis d’Ada", exact=True).select_option("0")
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
    screen.heading("Manche 3", level=2)

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
        screen.heading("Manche 2", level=2)
        page.get_by_role("button", name="Corriger la manche 1", exact=True).click()
        screen.heading("Correction de la manche 1", level=2)
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


def num_king_bid(n: int) -> str:
    return f"Annoncer {n} {'pli' if n < 2 else 'plis'}"


def test_a_num_king_game_created_and_played_in_the_app(browser: Any, served: str) -> None:  # noqa: F811
    """« Jouer en ligne » offers every ruleset the API stores (Num King with its sheet's
    options, 🔒 without an account); Ada plays round 1 through her link — her bid by a button,
    her card by the highlighted one — the three other seats over HTTP; the table's totals are
    the API's. « Mes parties » shows the seats' links again, and the game's screen too."""
    from playwright.sync_api import expect

    anonymous = screen_in(browser, served, "fr-FR")
    anonymous.goto("/parties/nouvelle")
    anonymous.heading("Nouvelle partie en ligne")
    locked = anonymous.page.locator('select option[value="numking"]')
    expect(locked).to_be_disabled()
    expect(locked).to_have_text("Num King 🔒\u00a0(compte requis)")
    anonymous.close()

    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    logged_in(screen, "kingplay")
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    page.get_by_label("Jeu", exact=True).select_option("numking")
    page.get_by_label("Cartes de la dernière manche", exact=True).fill("2")
    for i, name in enumerate(NAMES):
        page.get_by_label(f"Joueur {i + 1}", exact=True).fill(name)
    screen.axe("nouvelle partie num king")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    screen.heading("Les liens des places")
    links = {
        seat: page.get_by_label(f"Lien {de(name)}", exact=True).input_value()
        for seat, name in enumerate(NAMES)
    }
    tokens = {seat: token_of(link) for seat, link in links.items()}
    game_id = urlsplit(links[0]).path.rsplit("/", 1)[1]
    created = game_as(served, game_id, None)
    assert created["ruleset"] == "numking" and created["options"]["max_cards"] == 2

    # « Mes parties »: the links again, from the device only
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    expect(page.get_by_role("heading", level=2, name="Mes parties")).to_be_visible()
    page.get_by_role(
        "button", name=re.compile(r"^Revoir les liens de la partie de Num King")
    ).click()
    screen.heading("Les liens des places")
    assert page.get_by_label("Lien de Cy", exact=True).input_value() == links[2]
    screen.axe("liens revus")
    switch(screen, "English")
    screen.goto("/parties/nouvelle")
    shown(screen, "New online game")
    expect(page.get_by_role("heading", level=2, name="My games")).to_be_visible()
    screen.axe("my games")
    switch(screen, "Français")
    page.get_by_role(
        "button", name=re.compile(r"^Revoir les liens de la partie de Num King")
    ).click()
    screen.heading("Les liens des places")

    page.get_by_role("link", name="Jouer la place d’Ada", exact=True).click()
    screen.heading("Partie en ligne — manche 1")
    expect(page.get_by_text("Num King · Annonces")).to_be_visible()
    page.get_by_text("Les liens des places, gardés sur cet appareil").click()
    assert page.get_by_label("Lien de Dee", exact=True).input_value() == links[3]
    screen.axe("partie num king")

    state = game_as(served, game_id, None)
    steps = 0
    while state["view"]["round"] == 1 and state["status"] == "active":
        steps += 1
        assert steps < 40, state
        (seat,) = state["view"]["actors"]
        own = game_as(served, game_id, tokens[seat])["view"]
        action = own["legal_actions"][0]
        if seat != 0:
            answer = act(served, game_id, tokens[seat], action)
            assert answer.status_code == 200, answer.text
        else:
            at_version(screen, state["version"])
            expect(page.get_by_role("status").filter(has_text="À toi de jouer !")).to_be_visible()
            if own["phase"] == "bid":
                bids = page.locator("fieldset.choices button")
                expect(bids).to_have_text([num_king_bid(a["tricks"]) for a in own["legal_actions"]])
                page.get_by_role("button", name=num_king_bid(action["tricks"]), exact=True).click()
            else:
                playable = [a["card"] for a in own["legal_actions"]]
                expect(page.locator("ul.hand button.legal")).to_have_text(
                    [label(c, "fr") for c in own["hand"] if c in playable]
                )
                page.locator("ul.hand button.legal").first.click()
            page.wait_for_function(
                "(v) => Number(document.querySelector('section.play')?.dataset.version) > v",
                arg=state["version"],
            )
        state = game_as(served, game_id, None)
    assert state["view"]["round"] == 2  # round 1 was played through
    at_version(screen, state["version"])
    rows = page.locator("section.play table tbody tr")
    for seat, score in enumerate(state["view"]["scores"]):
        # the total is the last column (Num King shows each bid and tricks before it)
        expect(rows.nth(seat).locator("td").last).to_have_text(pts(score))
    assert any(state["view"]["scores"])
    screen.close()


def num_win_label(action: dict[str, Any], names: list[str], me: int) -> str:
    words = {
        "draw": "Piocher",
        "take": "Prendre la carte de la défausse",
        "discard": "Défausser",
        "add": "Ajouter à la combinaison",
        "call": "Annoncer « Num Win »",
    }
    kind = action["type"]
    if kind == "swap":
        text = f"Échanger avec la carte {action['position'] + 1} de la combinaison"
    elif kind == "snap":
        owner = action.get("owner")
        position = action["position"] + 1
        if owner is None or owner == me:  # one's own card (issue 24): « ta carte 1 »
            text = f"Récupération instantanée : ta carte {position}"
        else:
            text = f"Récupération instantanée : carte {position} {de(names[owner])}"
    elif kind == "target":
        text = f"Viser la carte {action['position'] + 1} {de(names[action['seat']])}"
    else:
        text = words[kind]
    return f"{text} et annoncer « Num Win »" if action.get("call") else text


def test_a_num_win_game_first_turns_in_the_app(browser: Any, served: str) -> None:  # noqa: F811
    """A Num Win game (an account's session: the community lock): Ada's first turns through her
    link — each legal action of her view a button in French (draw, take, discard, swap, the
    snaps), her combination and the discard pile shown — the two other seats over HTTP."""
    from playwright.sync_api import expect

    names = NAMES[:3]
    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    session = logged_in(screen, "winplay")
    made = api_call(
        served,
        "POST",
        "/v1/games",
        token=session,
        json={"ruleset": "numwin", "players": [{"name": n} for n in names], "seed": 7},
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    tokens = {s["seat"]: s["token"] for s in made.json()["seats"]}
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading("Partie en ligne — manche 1")
    expect(page.get_by_text("Num Win · Pioche")).to_be_visible()
    screen.axe("partie num win")

    state = game_as(served, game_id, None)
    app_turns = 0
    for _ in range(12):
        view = state["view"]
        seat = view["current_player"]
        assert seat is not None, view
        own = game_as(served, game_id, tokens[seat])["view"]
        moves = [a for a in own["legal_actions"] if a["type"] not in ("snap", "call")]
        action = next((a for a in moves if not a.get("call")), moves[0])
        if seat != 0:
            answer = act(served, game_id, tokens[seat], action)
            assert answer.status_code == 200, answer.text
        else:
            app_turns += 1
            at_version(screen, state["version"])
            expect(page.get_by_role("status").filter(has_text="À toi de jouer !")).to_be_visible()
            buttons = page.locator("fieldset.choices button")
            expect(buttons).to_have_text([num_win_label(a, names, 0) for a in own["legal_actions"]])
            mine = next(c for c in own["combinations"] if c["seat"] == 0)
            combination = page.locator("ol.hand li")
            expect(combination).to_have_count(mine["count"])
            for i, card in enumerate(mine["cards"]):
                expect(combination.nth(i)).to_contain_text(
                    f"Carte {i + 1} : {label(card, 'fr') if card else 'cachée'}"
                )
            if own["discard"]:
                expect(
                    page.get_by_text(f"Défausse : {label(own['discard'], 'fr')}")
                ).to_be_visible()
            if own["in_hand"] and own["in_hand"]["card"]:
                expect(
                    page.get_by_text(f"Carte en main : {label(own['in_hand']['card'], 'fr')}")
                ).to_be_visible()
            page.get_by_role("button", name=num_win_label(action, names, 0), exact=True).click()
            page.wait_for_function(
                "(v) => Number(document.querySelector('section.play')?.dataset.version) > v",
                arg=state["version"],
            )
        state = game_as(served, game_id, None)
        if state["status"] != "active":
            break
    assert app_turns >= 4
    screen.axe("partie num win en cours")
    switch(screen, "English")  # the same table in English: its actions' words too
    shown(screen, "Online game — round 1")
    expect(page.get_by_text("Num Win · ")).to_be_visible()
    expect(page.get_by_role("heading", level=2, name="Your combination")).to_be_visible()
    screen.axe("num win game")
    screen.close()
