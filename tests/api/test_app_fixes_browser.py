"""What a French player found on a phone (issue 24), in headless Chromium on PostgreSQL.

The creator, logged in, plays from « Mes parties »: « Ouvrir la partie » opens their own seat
(playable, bound to their account: the game is in their history), the game's screen offers
« Jouer la place » for each seat it keeps, and a seat link followed on that very screen
(only the fragment changes) opens the seat without a reload. Another account sees no join
button for a bot's seat, and a refusal says the seat as the player reads it (« La place 1 »),
as a sentence. Num King shows each player's bid and tricks; a trick finished by the others
stays in sight under « Dernier pli » while the next one is played, and a round that ends
leaves its summary (« Fin de la manche 1 ») until dismissed. The fixtures are
tests/api/test_app_browser.py's.
"""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from tests.api.test_app_browser import PHONE, Screen, browser, controlled, pts, served  # noqa: F401
from tests.api.test_app_play_browser import act, at_version, game_as, new_game, token_of
from tests.api.test_app_sheets_browser import (
    api_call,
    bid_and_take,
    logged_in,
    new_sheet,
    screen_in,
)
from tests.api.test_docs_browser import browser_path  # noqa: F401


def _mine(base: str, session: str) -> list[dict[str, Any]]:
    answer = api_call(base, "GET", "/v1/me/history", token=session)
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


def test_the_creator_plays_their_own_seat_from_my_games(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    session = logged_in(screen, "mine")
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    page.get_by_label("Joueur 1", exact=True).fill("Zoé")
    page.get_by_label("Joueur 2", exact=True).fill("Léo")
    page.get_by_label("Place 3 : qui joue ?", exact=True).select_option("random")
    page.get_by_label("Place 4 : qui joue ?", exact=True).select_option("random")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    screen.heading("Les liens des places")
    link = page.get_by_label("Lien de Zoé", exact=True).input_value()
    leo = page.get_by_label("Lien de Léo", exact=True).input_value()
    game_id = urlsplit(link).path.rsplit("/", 1)[1]
    # the creator's seat is bound to their account at once: the game is in their history
    assert [i["id"] for i in _mine(served, session) if i["kind"] == "game"] == [game_id]

    # « Mes parties » opens the creator's own seat, playable
    assert page.evaluate("localStorage.getItem('numrules.games')") is None  # never opened
    screen.goto("/parties/nouvelle")
    page.get_by_role("link", name=re.compile(r"^Ouvrir la partie de Num Wars")).click()
    screen.heading("Partie en ligne — manche 1")
    expect(page.get_by_text("Tu joues la place de Zoé.", exact=True)).to_be_visible()
    expect(page.locator("ul.hand button").first).to_be_visible()
    expect(page.get_by_role("group", name="Rejoindre avec mon compte")).to_have_count(0)
    # on a phone the banner is two short rows (the account and language, then the menu that
    # scrolls sideways), and the hand starts within the first screen
    page.evaluate("window.scrollTo(0, 0)")
    banner = page.locator("header.bar").bounding_box()
    assert banner is not None and banner["height"] <= 96, banner
    card = page.locator("ul.hand button").first.bounding_box()
    assert card is not None and card["y"] + card["height"] <= PHONE["height"], card
    # the game's screen keeps every seat's link, each playable from here (the fragment only)
    page.get_by_text("Les liens des places, gardés sur cet appareil").click()
    page.get_by_role("link", name="Jouer la place de Léo", exact=True).click()
    expect(page.get_by_text("Tu joues la place de Léo.", exact=True)).to_be_visible()
    # a seat link pasted in the address bar on the same page: only the hash changes
    page.evaluate("(hash) => { location.hash = hash }", f"#jeton={token_of(link).strip()}")
    expect(page.get_by_text("Tu joues la place de Zoé.", exact=True)).to_be_visible()
    screen.axe("place du créateur")
    assert token_of(leo) not in page.locator("main").inner_text()
    # the history lists the game, its link a 44 px touch target
    screen.goto("/historique")
    screen.heading("Historique")
    opened = page.locator("ol.history a").first
    expect(opened).to_be_visible()
    box = opened.bounding_box()
    assert box is not None and box["height"] >= 44, box
    screen.close()

    # another account: no join button for the bots' seats, a refusal in the player's numbers
    other = screen_in(browser, served, "fr-FR")
    logged_in(other, "autre")
    other.goto(f"/parties/{game_id}")
    other.heading("Partie en ligne — manche 1")
    joining = other.page.get_by_role("group", name="Rejoindre avec mon compte")
    expect(joining.get_by_role("button")).to_have_text(
        ["Rejoindre la place de Zoé", "Rejoindre la place de Léo"]
    )
    joining.get_by_role("button", name="Rejoindre la place de Léo", exact=True).click()
    expect(other.page.get_by_role("alert")).to_have_text(
        "La place 2 (Léo) n’est pas liée à ton compte : seul le compte nommé pour une place "
        "à sa création peut la rejoindre."
    )
    other.axe("place refusée")
    # the session probed for a seat (401: it holds none), then the join refused (403)
    other.errors = [e for e in other.errors if not re.search("status of 40[13]", e)]
    other.close()


def _num_king(base: str, session: str, names: list[str]) -> tuple[str, list[str]]:
    made = httpx.post(
        f"{base}/v1/games",
        json={
            "ruleset": "numking",
            "players": [{"name": n} for n in names],
            "options": {"max_cards": 2},
            "seed": 5,
        },
        headers={"Authorization": f"Bearer {session}"},
        timeout=10,
    )
    assert made.status_code == 201, made.text
    return made.json()["id"], [s["token"] for s in made.json()["seats"]]


def test_num_king_shows_bids_tricks_and_the_round_summary(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    names = ["Ada", "Bo", "Cy"]
    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    session = logged_in(screen, "king")
    game_id, tokens = _num_king(served, session, names)
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading("Partie en ligne — manche 1")
    table = page.locator("section.play table")
    expect(table.locator("thead th")).to_have_text(
        ["Joueur", "Cartes en main", "Annonce", "Plis", "Total"]
    )
    # a hint in words continues its sentence: « Conseil : annoncer 1 pli. », lower case
    state = game_as(served, game_id, None)
    assert state["view"]["actors"] == [0], state["view"]
    # bidding: no card can be played, so no word of playable cards
    expect(page.get_by_role("button", name="Annoncer 0 pli", exact=True)).to_be_visible()
    expect(page.get_by_text("Les cartes jouables sont entourées", exact=False)).to_have_count(0)
    page.get_by_role("button", name="Conseil", exact=True).click()
    expect(page.locator(".hint-box")).to_have_text(
        re.compile(r"^Conseil\s:\sannoncer \d+ plis?\.$")
    )
    # everyone bids, over HTTP: each bid shows in the table, the page's own seat's too
    while state["view"]["phase"] == "bid":
        (seat,) = state["view"]["actors"]
        own = game_as(served, game_id, tokens[seat])["view"]
        answer = act(served, game_id, tokens[seat], own["legal_actions"][0])
        assert answer.status_code == 200, answer.text
        state = game_as(served, game_id, None)
    at_version(screen, state["version"])
    bids = state["view"]["bids"]
    for i in range(len(names)):
        row = table.locator("tbody tr").nth(i)
        expect(row.locator("td").nth(1)).to_have_text(str(bids[i]))
        expect(row.locator("td").nth(2)).to_have_text("0")
    screen.axe("num king, annonces")

    # the round's trick played: round 2 starts, round 1's summary stays until dismissed
    before = state["view"]["scores"]
    while state["view"]["round"] == 1:
        (seat,) = state["view"]["actors"]
        own = game_as(served, game_id, tokens[seat])["view"]
        answer = act(served, game_id, tokens[seat], own["legal_actions"][0])
        assert answer.status_code == 200, answer.text
        state = game_as(served, game_id, None)
    at_version(screen, state["version"])
    summary = page.get_by_role("region", name="Fin de la manche 1")
    expect(summary).to_be_visible()
    for i, name in enumerate(names):
        points = state["view"]["scores"][i] - before[i]
        expect(summary.locator("li").nth(i)).to_have_text(f"{name} : {pts(points)}")
    screen.axe("fin de manche")
    summary.get_by_role("button", name="Continuer", exact=True).click()
    expect(summary).to_have_count(0)
    screen.close()


def test_the_last_trick_stays_in_sight_while_the_next_is_played(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    names = ["Ada", "Bo", "Cy"]
    game_id, tokens = new_game(served, "numwars-classic", names, 7)
    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading("Partie en ligne — manche 1")
    # every seat plays over HTTP (as bots would, at once) until a trick is done and the next
    # one has its first card
    for _ in range(300):
        view = game_as(served, game_id, tokens[0])["view"]
        if view["phase"] == "play" and view["tricks"] and len(view["trick"]) == 1:
            break
        for seat in view["actors"]:
            own = game_as(served, game_id, tokens[seat])["view"]
            answer = act(served, game_id, tokens[seat], own["legal_actions"][0])
            assert answer.status_code in (200, 201), answer.text
    else:
        raise AssertionError("no trick finished")
    at_version(screen, game_as(served, game_id, None)["version"])
    last = view["tricks"][-1]
    held = page.locator(".last-trick.held")
    expect(page.get_by_role("heading", name="Pli en cours", exact=True)).to_be_visible()
    expect(held.get_by_role("heading", name="Dernier pli", exact=True)).to_be_visible()
    expect(held).to_contain_text(f"Remporté par {names[last['winner']]}")
    screen.axe("dernier pli gardé")
    expect(held).to_have_count(0)  # then it goes (2.5 s): the trick in play is the one shown
    screen.close()


def test_a_round_being_typed_survives_a_reload_and_the_network_coming_back(
    browser: Any,  # noqa: F811
    served: str,  # noqa: F811
) -> None:
    """A Num King round typed but not saved is there again after a reload (kept in
    sessionStorage per sheet and round), gone once saved; its live score asked offline is
    asked again when the network comes back, and « Enregistrer la manche » works again with
    nothing changed."""
    from playwright.sync_api import expect

    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    logged_in(screen, "draft")
    names = ["Ada", "Bo", "Cy"]
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    new_sheet(screen, "Num King", names, 2)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    bid_and_take(screen, names, [1, 0, 0], [1, 0, 0])
    expect(page.locator(".scores .score").first).to_be_visible()

    page.reload()
    screen.heading("Manche 1", level=2)
    expect(page.get_by_label("Plis d’Ada", exact=True)).to_have_value("1")
    expect(page.get_by_label("Plis de Bo", exact=True)).to_have_value("0")
    expect(page.locator(".scores .score").first).to_be_visible()

    # offline, a change cannot be scored; back online, it is scored without another change
    save = page.get_by_role("button", name="Enregistrer la manche", exact=True)
    screen.context.set_offline(True)
    try:
        page.get_by_label("Plis d’Ada", exact=True).select_option("0")
        page.get_by_label("Plis de Bo", exact=True).select_option("1")
        expect(page.get_by_text("Le service ne répond pas", exact=False).first).to_be_visible()
    finally:
        screen.context.set_offline(False)
    expect(page.get_by_text("Le service ne répond pas", exact=False)).to_have_count(0)
    expect(save).to_be_enabled()
    save.click()
    screen.heading("Manche 2", level=2)
    kept = page.evaluate("Object.keys(sessionStorage).filter(k => k.startsWith('numrules.draft.'))")
    assert not [key for key in kept if ".1." in key], kept  # round 1's draft dropped once saved
    page.reload()
    screen.heading("Manche 2", level=2)
    expect(page.get_by_role("button", name="Valider les annonces", exact=True)).to_be_visible()
    screen.errors = [e for e in screen.errors if "ERR_INTERNET_DISCONNECTED" not in e]
    screen.close()


def test_a_game_created_logged_in_counts_in_stats_once_over(browser: Any, served: str) -> None:  # noqa: F811
    """A Num King game created in the app while logged in, against three bots, played to its
    end over HTTP with the creator's seat link: « Stats » counts it (the creator's seat was
    bound to the account at creation)."""
    from playwright.sync_api import expect

    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    session = logged_in(screen, "stats")
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    page.get_by_label("Jeu", exact=True).select_option("numking")
    page.get_by_label("Cartes de la dernière manche", exact=True).fill("1")
    page.get_by_label("Joueur 1", exact=True).fill("Zoé")
    page.get_by_label("Place 2 : qui joue ?", exact=True).select_option("random")
    page.get_by_label("Place 3 : qui joue ?", exact=True).select_option("random")
    page.get_by_label("Place 4 : qui joue ?", exact=True).select_option("random")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    screen.heading("Ta partie est prête")
    # every other seat a bot's: no link list, only « Jouer en ligne » (the creator's seat)
    own = page.get_by_role("main").get_by_role("link", name="Jouer en ligne", exact=True)
    link = served + own.get_attribute("href")
    game_id, token = urlsplit(link).path.rsplit("/", 1)[1], token_of(link)
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the game did not end"
        game = game_as(served, game_id, token)
        if game["status"] != "active":
            break
        if 0 in game["view"]["actors"] and game["view"]["legal_actions"]:
            answer = act(served, game_id, token, game["view"]["legal_actions"][0])
            assert answer.status_code in (200, 409, 412), answer.text
        else:
            time.sleep(0.05)  # the server's bots play
    assert game["status"] == "over", game["status"]
    stats = api_call(served, "GET", "/v1/me/stats", token=session).json()
    assert stats["vs_bots"]["numking"]["played"] == 1, stats  # a game with bots counts apart
    screen.goto("/stats")
    screen.heading("Stats")
    bots = page.get_by_role("region", name="Parties contre des robots").locator("table")
    expect(bots.locator('tr[data-ruleset="numking"] td[data-stat="played"]')).to_have_text("1")
    screen.axe("stats contre des robots")
    screen.close()


def test_a_sheet_opened_offline_loads_when_the_network_is_back(browser: Any, served: str) -> None:  # noqa: F811
    """A sheet reloaded offline (the service worker's shell) says « Erreur », then loads by
    itself on the `online` event: no reload by hand."""

    screen = Screen(browser, served, "fr-FR", bypass_csp=False)
    screen.context.set_extra_http_headers({})
    page = screen.page
    logged_in(screen, "offline")
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    new_sheet(screen, "Num King", ["Ada", "Bo", "Cy"], 2)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    controlled(page, lambda: screen.shown_heading("Manche 1", level=2))
    screen.context.set_offline(True)
    try:
        page.reload()
        screen.heading("Erreur")
    finally:
        screen.context.set_offline(False)
    screen.heading("Manche 1", level=2)
    screen.errors = [e for e in screen.errors if "ERR_INTERNET_DISCONNECTED" not in e]
    screen.close()
