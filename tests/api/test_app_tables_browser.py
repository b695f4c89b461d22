"""Open tables, turn clocks and rematch in the app (issue 26), in a real headless Chromium on
PostgreSQL, two accounts in two browser contexts: Ada in French, Bo in English.

Ada's new game form offers an open seat (with a session only: logged out, the form says an
account is needed) and a turn clock; her game waits (« En attente de joueurs », the table's
link, « Lancer avec des robots », « Annuler la table »); Bo finds it in "Open tables", joins
the open seat, and the game starts for both (Ada's page turns into the play screen by itself);
the acting seat's countdown shows on both pages, by the server's clock. A second table, with a
2 s clock that abandons, is joined from its waiting screen; the clock runs out and both pages
say so; then « Revanche » on Ada's page and "Rematch" on Bo's land both in the same new game.
axe-core on every new screen in both languages.
"""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import urlsplit

import httpx

from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_docs_browser import browser_path  # noqa: F401

NBSP = "\u00a0"


def sign_up(base: str, prefix: str, locale: str) -> tuple[str, str]:
    """A new account: its pseudo and its session's token."""
    pseudo = f"{prefix}_{secrets.token_hex(4)}"
    answer = httpx.post(
        f"{base}/v1/accounts",
        json={
            "pseudo": pseudo,
            "password": "correct horse battery",
            "age_range": "25-34",
            "accept_terms": True,
            "locale": locale,
        },
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
    return pseudo, answer.json()["token"]


def logged_in(browser: Any, served: str, locale: str, pseudo: str, session: str) -> Screen:  # noqa: F811
    screen = Screen(browser, served, locale)
    screen.context.add_init_script(
        "localStorage.setItem('numrules.session', JSON.stringify("
        f"{{token: '{session}', pseudo: '{pseudo}'}}))"
    )
    return screen


def game_id_of(page: Any) -> str:
    path = urlsplit(page.url).path
    found = re.fullmatch(r"/parties/([0-9a-f]{32})", path)
    assert found, page.url
    return found[1]


def test_an_open_table_with_a_clock_found_and_joined(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    # logged out, the form keeps seats to people and bots and says why
    guest = Screen(browser, served, "fr-FR")
    guest.goto("/parties/nouvelle")
    guest.heading("Nouvelle partie en ligne")
    expect(
        guest.page.get_by_text("il faut être connecté pour en proposer", exact=False)
    ).to_be_visible()
    who = guest.page.get_by_label(f"Place 2{NBSP}: qui joue{NBSP}?", exact=True)
    assert "Place ouverte" not in who.locator("option").all_inner_texts()
    guest.close()

    ada_pseudo, ada_session = sign_up(served, "ada", "fr")
    bo_pseudo, bo_session = sign_up(served, "bo", "en")
    ada = logged_in(browser, served, "fr-FR", ada_pseudo, ada_session)
    page = ada.page
    ada.goto("/parties/nouvelle")
    ada.heading("Nouvelle partie en ligne")
    page.get_by_label("Joueur 1", exact=True).fill("Ada")
    page.get_by_label(f"Place 2{NBSP}: qui joue{NBSP}?", exact=True).select_option("open")
    bo_name = f"Bo-{secrets.token_hex(3)}"  # the run's database holds other tables
    page.get_by_label("Joueur 2", exact=True).fill(bo_name)
    for seat in (3, 4):
        page.get_by_label(f"Place {seat}{NBSP}: qui joue{NBSP}?", exact=True).select_option("basic")
    clock = page.get_by_label("Horloge", exact=True)
    assert clock.locator("option").all_inner_texts() == [
        "aucune",
        "30 s par tour",
        "1 min par tour",
        "2 min par tour",
        "5 min par tour",
    ]
    clock.select_option("30")
    timeout = page.get_by_label("À la fin du temps", exact=True)
    assert timeout.locator("option").all_inner_texts() == [
        "jouer automatiquement",
        "abandonner la partie",
    ]
    ada.axe("nouvelle partie, place ouverte et horloge")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    # the open seat: the creator goes straight to their seat's waiting room
    ada.heading("En attente de joueurs")
    game_id = game_id_of(page)
    expect(page.get_by_text(f"Places libres{NBSP}: {bo_name}", exact=True)).to_be_visible()
    link = page.get_by_label("Lien de la table", exact=True).input_value()
    assert link.endswith(f"/parties/{game_id}") and "#" not in link  # no token to share
    expect(page.get_by_role("button", name="Lancer avec des robots", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Annuler la table", exact=True)).to_be_visible()
    expect(page.get_by_role("timer")).to_have_count(0)  # no clock while waiting
    ada.axe("en attente de joueurs")

    bo = logged_in(browser, served, "en-GB", bo_pseudo, bo_session)
    bo.goto("/")
    bo.page.get_by_role("navigation").get_by_role("link", name="Open tables", exact=True).click()
    bo.heading("Open tables")
    join = f"Join {bo_name}'s seat"
    table = bo.page.locator("ul.links > li").filter(has=bo.page.get_by_role("button", name=join))
    expect(table).to_have_count(1)
    expect(table.get_by_text("Players: Ada, Robot 3, Robot 4", exact=True)).to_be_visible()
    bo.axe("open tables")
    table.get_by_role("button", name=join, exact=True).click()
    bo.heading("Online game — round 1")
    assert game_id_of(bo.page) == game_id
    expect(bo.page.get_by_text(f"You play {bo_name}'s seat.", exact=True)).to_be_visible()

    # Ada's page turned into the play screen by itself (no reload)
    ada.heading("Partie en ligne — manche 1")
    expect(page.get_by_text("Tu joues la place d’Ada.", exact=True)).to_be_visible()
    game = httpx.get(
        f"{served}/v1/games/{game_id}",
        headers={"Authorization": f"Bearer {bo_session}"},
        timeout=10,
    ).json()
    assert game["status"] == "active" and game["clock"]["turn_seconds"] == 30
    acting = {d["seat"] for d in game["deadlines"]}
    assert acting and acting <= {0, 1}  # never a bot's
    names = {0: "Ada", 1: bo_name}
    # « Temps restant pour Ada : 0:29 » (the accessible name reads the no-break space as a space)
    for screen, words in ((ada, "Temps restant pour {}"), (bo, "Time left for {}")):
        for seat in acting:
            named = re.compile(re.escape(words.format(names[seat])) + r"\s?:\s0:[0-3]\d$")
            expect(screen.page.get_by_role("timer", name=named)).to_be_visible()
            expect(screen.page.get_by_role("timer", name=named)).not_to_have_class(
                re.compile("urgent")
            )
    ada.axe("partie avec horloge")
    bo.axe("game with a clock")

    # the table is no longer listed once full
    bo.goto("/tables")
    bo.heading("Open tables")
    expect(bo.page.get_by_role("button", name=join)).to_have_count(0)
    ada.goto("/tables")
    ada.heading("Tables ouvertes")
    ada.axe("tables ouvertes")
    ada.close()
    bo.close()


def test_a_clock_runs_out_then_a_rematch_from_both_sides(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    ada_pseudo, ada_session = sign_up(served, "ada", "fr")
    bo_pseudo, bo_session = sign_up(served, "bo", "en")
    created = httpx.post(
        f"{served}/v1/games",
        json={
            "ruleset": "numwars",
            "players": [
                {"name": "Ada"},
                {"open": True, "name": "Bo"},
                {"name": "Cy", "bot": "basic"},
                {"name": "Dee", "bot": "basic"},
            ],
            "clock": {"turn_seconds": 2, "on_timeout": "abandon"},
        },
        headers={"Authorization": f"Bearer {ada_session}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    ada_token = created.json()["seats"][0]["token"]

    ada = logged_in(browser, served, "fr-FR", ada_pseudo, ada_session)
    ada.goto(f"/parties/{game_id}#jeton={ada_token}")
    ada.heading("En attente de joueurs")
    bo = logged_in(browser, served, "en-GB", bo_pseudo, bo_session)
    bo.goto(f"/parties/{game_id}")  # the table's link: no token
    bo.heading("Waiting for players")
    expect(bo.page.get_by_text("Free seats: Bo", exact=True)).to_be_visible()
    expect(bo.page.get_by_role("button", name="Leave the table")).to_have_count(0)
    bo.axe("waiting for players")
    bo.page.get_by_role("button", name="Join Bo's seat", exact=True).click()
    bo.heading("Online game — round 1")

    # the first seat to act runs out of time: the game is abandoned, both pages say so
    said = re.compile(r"Temps écoulé pour (Ada|Bo)\u00a0: partie abandonnée")
    expect(ada.page.get_by_role("status").filter(has_text=said)).to_be_visible(timeout=15_000)
    ada.heading("Partie abandonnée")
    expect(
        bo.page.get_by_role("status").filter(
            has_text=re.compile(r"Time is up for (Ada|Bo): game abandoned")
        )
    ).to_be_visible(timeout=15_000)
    bo.heading("Game abandoned")
    over = httpx.get(f"{served}/v1/games/{game_id}", timeout=10).json()
    assert over["status"] == "abandoned"
    ada.axe("partie abandonnée, revanche")
    bo.axe("game abandoned, rematch")

    # the rematch keeps the 2 s clock that abandons: its screen may be the play screen or,
    # a few seconds on, its end; either way both pages are on the same new game, each with
    # its own new seat's token kept on the device
    ada.page.get_by_role("button", name="Revanche", exact=True).click()
    ada.page.wait_for_url(re.compile(r"/parties/(?!" + game_id + r")[0-9a-f]{32}$"))
    rematch_id = game_id_of(ada.page)
    assert httpx.get(f"{served}/v1/games/{game_id}", timeout=10).json()["rematch"] == rematch_id
    # Bo's page, read again, knows the rematch exists: « Join the rematch » (200, his token)
    bo.page.reload()
    bo.heading("Game abandoned")
    bo.page.get_by_role("button", name="Join the rematch", exact=True).click()
    bo.page.wait_for_url(re.compile(r"/parties/" + rematch_id + "$"))
    expect(bo.page.get_by_role("heading", level=1)).to_have_text(
        re.compile("^(Online game — round 1|Game abandoned)$")
    )
    expect(ada.page.get_by_role("heading", level=1)).to_have_text(
        re.compile("^(Partie en ligne — manche 1|Partie abandonnée)$")
    )
    # seats rotated by one: Bo sits first now, Ada last
    seats = {}
    for screen in (ada, bo):
        kept = screen.page.evaluate("() => JSON.parse(localStorage.getItem('numrules.games'))")
        token = kept[rematch_id]
        seats[screen.locale] = httpx.get(
            f"{served}/v1/games/{rematch_id}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        ).json()
    assert [p["name"] for p in seats["en-GB"]["players"]] == ["Bo", "Cy", "Dee", "Ada"]
    assert (seats["en-GB"]["seat"], seats["fr-FR"]["seat"]) == (0, 3)
    ada.close()
    # the page probed the table with Bo's session before he held a seat there: 401, expected
    bo.errors = [e for e in bo.errors if "status of 401" not in e]
    bo.close()


def open_table(
    base: str, session: str, ruleset: str, players: list[dict[str, Any]]
) -> dict[str, Any]:
    answer = httpx.post(
        f"{base}/v1/games",
        json={"ruleset": ruleset, "players": players},
        headers={"Authorization": f"Bearer {session}"},
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def test_a_seat_taken_first_a_seat_left_and_a_start_with_bots(browser: Any, served: str) -> None:  # noqa: F811
    """In French: a seat someone else claimed first is refused in the app's words; Bo sits,
    then leaves the table (his seat open again); Ada, the creator, starts it with bots."""
    from playwright.sync_api import expect

    ada_pseudo, ada_session = sign_up(served, "ada", "fr")
    bo_pseudo, bo_session = sign_up(served, "bo", "fr")
    _, zed_session = sign_up(served, "zed", "fr")
    mark = secrets.token_hex(3)
    bo_name, cy_name, eve_name = f"Bo-{mark}", f"Cy-{mark}", f"Eve-{mark}"
    # Ada opens the table in the app: this device keeps it as hers (« Lancer avec des robots »)
    ada = logged_in(browser, served, "fr-FR", ada_pseudo, ada_session)
    ada.goto("/parties/nouvelle")
    ada.heading("Nouvelle partie en ligne")
    ada.page.get_by_label("Joueur 1", exact=True).fill("Ada")
    for seat, name in enumerate((bo_name, cy_name, eve_name), start=2):
        ada.page.get_by_label(f"Place {seat}{NBSP}: qui joue{NBSP}?", exact=True).select_option(
            "open"
        )
        ada.page.get_by_label(f"Joueur {seat}", exact=True).fill(name)
    ada.page.get_by_role("button", name="Créer la partie", exact=True).click()
    ada.heading("En attente de joueurs")
    game_id = game_id_of(ada.page)

    bo = logged_in(browser, served, "fr-FR", bo_pseudo, bo_session)
    page = bo.page
    bo.goto("/tables")
    bo.heading("Tables ouvertes")
    page.get_by_label("Jeu", exact=True).select_option("numwars")
    table = page.locator("ul.links > li").filter(
        has=page.get_by_role("button", name=f"Rejoindre la place de {cy_name}", exact=True)
    )
    expect(table).to_have_count(1)
    expect(
        table.get_by_text(f"Places libres{NBSP}: {bo_name}, {cy_name}, {eve_name}")
    ).to_be_visible()
    taken = httpx.post(
        f"{served}/v1/games/{game_id}/seats/2/claim",
        headers={"Authorization": f"Bearer {zed_session}"},
        timeout=10,
    )
    assert taken.status_code == 201, taken.text
    table.get_by_role("button", name=f"Rejoindre la place de {cy_name}", exact=True).click()
    expect(page.get_by_role("alert")).to_have_text(
        f"Quelqu’un vient de prendre cette place{NBSP}: choisis-en une autre."
    )
    bo.axe("tables ouvertes, place prise")
    table.get_by_role("button", name=f"Rejoindre la place de {bo_name}", exact=True).click()
    bo.heading("En attente de joueurs")
    expect(page.get_by_text(f"Places libres{NBSP}: {eve_name}", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Lancer avec des robots")).to_have_count(0)  # not his
    page.get_by_role("button", name="Quitter la table", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Tu as quitté la table.")).to_be_visible()
    expect(
        page.get_by_text(f"Places libres{NBSP}: {bo_name}, {eve_name}", exact=True)
    ).to_be_visible()
    bo.axe("table quittée")
    seen = httpx.get(f"{served}/v1/games/{game_id}", timeout=10).json()
    assert seen["status"] == "waiting" and seen["open_seats"] == [1, 3]

    ada.page.get_by_label("Niveau des robots", exact=True).select_option("random")
    ada.page.get_by_role("button", name="Lancer avec des robots", exact=True).click()
    ada.heading("Partie en ligne — manche 1")
    started = httpx.get(f"{served}/v1/games/{game_id}", timeout=10).json()
    assert started["status"] == "active"
    assert [(p["name"], p.get("bot")) for p in started["players"]] == [
        ("Ada", None),
        (bo_name, "random"),
        (cy_name, None),
        (eve_name, "random"),
    ]
    # Bo's page, a spectator's now, follows the start by itself
    bo.heading("Partie en ligne — manche 1")
    ada.close()
    bo.errors = [e for e in bo.errors if not re.search(r"status of 40[139]", e)]
    bo.close()


def test_more_tables_page_on(browser: Any, served: str) -> None:  # noqa: F811
    """« Plus de tables » follows `next_cursor`: the oldest of 21 fresh tables (a page holds
    20) shows only on the second page."""
    from playwright.sync_api import expect

    pseudo, session = sign_up(served, "host", "fr")
    mark = secrets.token_hex(3)
    for n in range(21):
        open_table(
            served,
            session,
            "numking",
            [
                {"name": f"Hôte-{mark}"},
                {"open": True, "name": f"Siège-{mark}-{n:02}"},
                {"open": True},
            ],
        )
    screen = logged_in(browser, served, "fr-FR", pseudo, session)
    page = screen.page
    screen.goto("/tables")
    screen.heading("Tables ouvertes")
    page.get_by_label("Jeu", exact=True).select_option("numking")
    newest = page.get_by_role("button", name=f"Rejoindre la place de Siège-{mark}-20", exact=True)
    oldest = page.get_by_role("button", name=f"Rejoindre la place de Siège-{mark}-00", exact=True)
    expect(newest).to_be_visible()
    expect(oldest).to_have_count(0)
    page.get_by_role("button", name="Plus de tables", exact=True).click()
    expect(oldest).to_be_visible()
    expect(newest).to_have_count(1)  # the first page kept
    screen.axe("plus de tables")
    screen.close()


def test_the_creator_cancels_a_table(browser: Any, served: str) -> None:  # noqa: F811
    """« Annuler la table »: the waiting game is abandoned, its screen says so, and it leaves
    the open tables."""
    pseudo, session = sign_up(served, "ada", "fr")
    screen = logged_in(browser, served, "fr-FR", pseudo, session)
    page = screen.page
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    page.get_by_label("Joueur 1", exact=True).fill("Ada")
    page.get_by_label(f"Place 2{NBSP}: qui joue{NBSP}?", exact=True).select_option("open")
    lone = f"Solo-{secrets.token_hex(3)}"
    page.get_by_label("Joueur 2", exact=True).fill(lone)
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    screen.heading("En attente de joueurs")
    game_id = game_id_of(page)
    page.get_by_role("button", name="Annuler la table", exact=True).click()
    screen.heading("Partie abandonnée")
    screen.axe("table annulée")
    assert httpx.get(f"{served}/v1/games/{game_id}", timeout=10).json()["status"] == "abandoned"
    listed = httpx.get(f"{served}/v1/games", params={"status": "open", "limit": 100}, timeout=10)
    assert game_id not in {table["id"] for table in listed.json()["items"]}
    screen.close()
