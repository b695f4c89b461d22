"""The web app in a real headless Chromium (issue 24), served for real on PostgreSQL.

The journey of seed 002 on a phone-sized viewport (390×844), in French: sign up → "Bienvenue !"
→ a new Num Wars sheet → two rounds entered by card type, each round's live score checked
against `score-round` → the totals and the leader → log out → log in by pseudo. The same
screens in English; an API problem shown next to its field in French; axe-core on every
screen in both languages (no serious or critical violation); the shell opening offline.

The browser and its launch are tests/api/test_docs_browser.py's (Debian's
chromium-headless-shell; never skipped under deploy/test.sh). The app is deploy/ensure-app.sh's
build; axe-core is the npm package (app/node_modules/axe-core).
"""

from __future__ import annotations

import os
import re
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.web.routes import DIST
from tests.api.serving import serve
from tests.api.test_docs_browser import CHROMIUM_ARGS, browser_path  # noqa: F401
from tests.api.test_typescript import CLIENT
from tests.pg import FAST_HASHES

AXE = CLIENT / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}
PASSWORD = "correct horse battery"
#: The first page's load (Navigation Timing's `loadEventEnd`) from the local server.
FIRST_LOAD_BUDGET_MS = 2000


@pytest.fixture(scope="module")
def served(pg_head: str) -> Iterator[str]:
    """The app on the run's PostgreSQL database, behind uvicorn on a free local port."""
    from api.app import create_app
    from api.ops.settings import Settings

    if not (DIST / "index.html").is_file():
        pytest.fail("the web app is not built: run `bash deploy/ensure-app.sh`")
    # The run's database is shared: the accounts suites' failed log-ins from 127.0.0.1 count
    # against the per-network throttle (50 in 15 min by default), so this server raises it;
    # the throttle itself is tested in tests/accounts.
    settings = Settings(
        database_url=pg_head,
        check_db_on_start=True,
        login_max_failures_per_address=100_000,
        **FAST_HASHES,
    )
    application = create_app(settings)
    with serve(application) as (host, port):
        yield f"http://{host}:{port}"


@pytest.fixture(scope="module")
def browser(browser_path: str) -> Iterator[Any]:  # noqa: F811
    from playwright.sync_api import sync_playwright

    if not AXE.is_file():
        pytest.fail("axe-core is not installed: run `bash deploy/setup.sh dev`")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


#: The sign-up's pseudo rule, shown under the field before any refusal.
PSEUDO_RULE = "3 à 24 caractères : lettres sans accent, chiffres, tiret bas (_), point (.) ou trait d’union (-)"


class Screen:
    """A page of one browser context, in one language, with its console errors and axe."""

    def __init__(self, browser: Any, served: str, locale: str, bypass_csp: bool = True) -> None:
        # bypass_csp: axe is injected as a script tag, which the app's CSP would refuse
        self.context = browser.new_context(
            locale=locale,
            viewport=PHONE,
            is_mobile=True,
            has_touch=True,
            bypass_csp=bypass_csp,
            extra_http_headers={"Accept-Language": locale},
        )
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.served = served
        self.locale = locale
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        #: the page's last API requests and answers (with their ETag), for a failed wait
        self.traffic: deque[str] = deque(maxlen=30)
        self.page.on("request", lambda r: self._note(f"> {r.method} {r.url}"))
        self.page.on(
            "response", lambda r: self._note(f"< {r.status} {r.url} {r.headers.get('etag')}")
        )
        self.page.on("requestfailed", lambda r: self._note(f"! {r.method} {r.url} {r.failure}"))

    def _note(self, line: str) -> None:
        if "/v1/" in line:
            self.traffic.append(f"{time.monotonic():.3f} {line}")

    def shown(self) -> str:
        """What the page shows (its version, its first lines) and its last API traffic: the
        message of a wait that failed."""
        version = self.page.evaluate(
            "document.querySelector('section[data-version]')?.dataset.version"
        )
        text = self.page.evaluate("document.body.innerText")[:600]
        return f"version shown: {version}\n{text}\n" + "\n".join(self.traffic)

    def goto(self, path: str) -> None:
        self.page.goto(self.served + path)

    def shown_heading(self, name: str, level: int = 1) -> None:
        """The screen's heading `name` shown (wherever the focus is)."""
        from playwright.sync_api import expect

        heading = self.page.get_by_role("heading", level=level, name=name, exact=True)
        expect(heading).to_be_visible()

    def heading(self, name: str, level: int = 1) -> None:
        """The screen's heading `name` shown and focused: an h1, or (`level` 2) the sheet's
        part that opens under the sheet's own h1 (its round, its totals)."""
        from playwright.sync_api import expect

        heading = self.page.get_by_role("heading", level=level, name=name, exact=True)
        expect(heading).to_be_visible()
        expect(heading).to_be_focused()

    def axe(self, where: str) -> None:
        """No serious or critical axe-core violation on the screen shown (and, with
        NUMRULES_APP_SCREENSHOTS=<folder>, its screenshot written there, the whole page)."""
        folder = os.environ.get("NUMRULES_APP_SCREENSHOTS")
        if folder:
            plain = unicodedata.normalize("NFKD", f"{self.locale} {where}").encode(
                "ascii", "ignore"
            )
            name = re.sub(r"[^a-z0-9]+", "-", plain.decode().lower()).strip("-")
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
        if not self.page.evaluate("typeof window.axe === 'object'"):
            self.page.add_script_tag(path=str(AXE))
        found = self.page.evaluate(
            """async () => {
              const result = await axe.run(document, { resultTypes: ["violations"] });
              return result.violations
                .filter((v) => v.impact === "serious" || v.impact === "critical")
                .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
            }"""
        )
        assert found == [], f"{where}: {found}"

    def close(self) -> None:
        # a route handler still running for a request of the closing page (its answer
        # disposed under it) must not raise into the next test's first Playwright call
        for page in self.context.pages:
            page.unroute_all(behavior="ignoreErrors")
        self.context.unroute_all(behavior="ignoreErrors")
        self.context.close()
        assert self.errors == [], self.errors


def sentence(message: str) -> str:
    """An API message as the app shows it (ui.tsx `sentence`): each `; `-joined clause with a
    capital first letter and a final full stop."""
    parts = [p.strip() for p in message.split("; ") if p.strip()]
    made = [p[0].upper() + p[1:] for p in parts]
    return " ".join(p if p[-1] in ".!?…:" else f"{p}." for p in made)


def pts(points: int) -> str:
    """The French unit: « 0 pt », « 1 pt », « 2 pts », « −3 pts » (the minus sign U+2212)."""
    shown = f"\u2212{-points}" if points < 0 else f"{points}"
    return f"{shown} pt" if abs(points) < 2 else f"{shown} pts"


def score_round(served: str, body: dict[str, Any], language: str) -> dict[str, Any]:
    answer = httpx.post(
        f"{served}/v1/rulesets/numwars/score-round",
        json=body,
        headers={"Accept-Language": language},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def check_rules(screen: Screen, link: str, language: str) -> None:
    """The banner's « Règles de Calcul » opens the Num Wars rules summary the API serves, in
    the app's language."""
    from playwright.sync_api import expect

    summary = httpx.get(
        f"{screen.served}/v1/rulesets/numwars", headers={"Accept-Language": language}, timeout=10
    ).json()
    assert summary["language"] == language
    screen.page.get_by_role("navigation").get_by_role("link", name=link, exact=True).click()
    screen.heading(link)
    expect(screen.page.get_by_role("heading", level=2)).to_have_text("Num Wars")
    for text in summary["summary"].values():
        expect(screen.page.locator("dl.rules")).to_contain_text(text)
    screen.axe(link)


def open_cards(group: Any) -> None:
    """Open a player's cards (the round shows one player's at a time: a disclosure each)."""
    toggle = group.locator("button.disclosure")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


def add_cards(
    page: Any, player: str, kind: str, value: int | None = None, count: int | None = None
) -> None:
    group = page.get_by_role("group", name=player, exact=True)
    open_cards(group)
    group.get_by_label("TYPE DE CARTE").select_option(kind)
    if value is not None:
        group.get_by_label("Valeur", exact=True).select_option(str(value))
    if count is not None:
        group.get_by_label("Nombre", exact=True).select_option(str(count))
    group.get_by_role("button", name="Ajouter", exact=True).click()


#: Two rounds of three players (poseur, demineur, agent), entered by card type, and the same
#: rounds as `score-round` bodies (the colours are the test's: they do not change a score).
ROUNDS: list[dict[str, Any]] = [
    {
        "entries": {
            "Ada": [("classic", 5, 3), ("pair", 7, None)],
            "Bo": [("classic", 12, 1), ("rainbow", 4, None)],
            "Cy": [("classic", 1, 2)],
        },
        "bomb": "Bo",
        "body": {
            "bomb_outcome": "stolen",
            "players": [
                {
                    "captured": ["red-5", "blue-5", "green-5"],
                    "pairs": [["rainbow-7", "shadow-7"]],
                    "role": "poseur",
                },
                {"captured": ["red-12", "rainbow-4", "bomb"], "role": "demineur"},
                {"captured": ["red-1", "blue-1"], "role": "agent"},
            ],
        },
    },
    {
        "entries": {
            "Ada": [("classic", 9, 1), ("shadow", 3, None)],
            "Bo": [("classic", 8, 4)],
            "Cy": [("classic", 11, 1), ("classic", 2, 3), ("numx", None, None)],
        },
        "bomb": "Ada",
        "body": {
            "bomb_outcome": "kept",
            "players": [
                {"captured": ["red-9", "shadow-3", "bomb"], "role": "poseur"},
                {"captured": ["red-8", "blue-8", "green-8", "yellow-8"], "role": "demineur"},
                {"captured": ["red-11", "red-2", "blue-2", "green-2", "numx"], "role": "agent"},
            ],
        },
    },
]
PLAYERS = ["Ada", "Bo", "Cy"]


def test_the_seed_002_journey_in_french(browser: Any, served: str) -> None:
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    pseudo = f"ada_{secrets.token_hex(3)}"
    screen.goto("/")
    assert page.evaluate("document.documentElement.lang") == "fr"
    screen.heading("Rejoins la communauté des joueurs !")
    screen.axe("accueil")

    page.get_by_role("button", name="Créer mon compte", exact=True).click()
    screen.heading("Créer mon compte")
    page.get_by_label("Pseudo", exact=True).fill(pseudo)
    page.get_by_label("Mot de passe", exact=True).fill(PASSWORD)
    page.get_by_label("Ta tranche d'âge").select_option("25-34")
    page.get_by_role("checkbox", name="conditions d'utilisation").check()
    page.get_by_text("Lire les conditions d'utilisation").click()
    expect(page.locator(".terms-text")).not_to_be_empty()
    screen.axe("inscription")
    page.get_by_role("button", name="Créer mon compte", exact=True).click()

    screen.heading("Bienvenue !")
    expect(page.get_by_text("Ton compte est créé. Prêt à jouer ?")).to_be_visible()
    screen.axe("bienvenue")
    page.get_by_role("button", name="Nouvelle feuille de score", exact=True).click()

    screen.heading("Nouvelle feuille de score")
    for i, name in enumerate(PLAYERS, start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    screen.axe("nouvelle feuille")
    page.get_by_role("button", name="Créer la feuille", exact=True).click()

    totals = [0, 0, 0]
    for n, round_ in enumerate(ROUNDS, start=1):
        screen.heading(f"Manche {n}", level=2)
        expect(page.get_by_text(f"Donneur : {PLAYERS[(n - 1) % 3]}")).to_be_visible()
        for player, entries in round_["entries"].items():
            for kind, value, count in entries:
                add_cards(page, player, kind, value, count)
        expect(page.get_by_text("Choisis qui a eu la Bombe pour voir le score.")).to_be_visible()
        page.get_by_label("Qui a eu la Bombe ?").select_option(label=round_["bomb"])
        expected = score_round(served, round_["body"], "fr")
        for line in expected["players"]:
            seat = line["seat"]
            shown = page.locator(f'.scores li[data-seat="{seat}"] .score')
            expect(shown).to_have_text(f"{PLAYERS[seat]} : {pts(line['score'])}")
            for part in line["breakdown"]:  # the breakdown, in French, as the API words it
                expect(page.locator(f'.scores li[data-seat="{seat}"] .breakdown')).to_contain_text(
                    f"{part['label']} : {pts(part['points'])}"
                )
            totals[seat] += line["score"]
        screen.axe(f"manche {n}")
        page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
        expect(
            page.get_by_role("status").filter(has_text=f"Manche {n} enregistrée.")
        ).to_be_visible()

    screen.heading("Manche 3", level=2)
    for seat, total in enumerate(totals):
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))
    leader = PLAYERS[max(range(3), key=lambda s: (totals[s], -s))]
    expect(page.locator(".leader")).to_have_text(f"En tête : {leader}")
    expect(page.get_by_text("2 manches sur 3")).to_be_visible()
    screen.axe("totaux")
    check_rules(screen, "Règles de Calcul", "fr")

    page.get_by_role("button", name="Déconnexion", exact=True).click()
    screen.heading("Rejoins la communauté des joueurs !")
    page.get_by_role("main").get_by_role("button", name="Connexion", exact=True).click()
    screen.heading("Connexion")
    screen.axe("connexion")
    page.get_by_role("link", name="Mot de passe oublié ?").click()
    screen.heading("Mot de passe oublié")
    page.get_by_label("Email ou pseudo", exact=True).fill(pseudo)
    page.get_by_role("button", name="Envoyer le lien", exact=True).click()
    accepted = httpx.post(
        f"{served}/v1/password-resets",
        json={"login": pseudo},
        headers={"Accept-Language": "fr"},
        timeout=10,
    )
    assert accepted.status_code == 202, accepted.text
    # the app's own words (issue 24), never the API's detail
    expect(page.get_by_role("status")).to_contain_text("Si ce compte a un email vérifié")
    expect(page.get_by_role("status")).not_to_contain_text(accepted.json()["detail"])
    screen.axe("mot de passe oublié")
    page.go_back()
    screen.heading("Connexion")
    page.get_by_label("Email ou pseudo", exact=True).fill(pseudo)
    page.get_by_label("Mot de passe", exact=True).fill(PASSWORD)
    page.get_by_role("main").get_by_role("button", name="Connexion", exact=True).click()
    screen.heading(f"Connecté : {pseudo}")
    screen.close()


def test_the_same_screens_in_english(browser: Any, served: str) -> None:
    from playwright.sync_api import expect

    screen = Screen(browser, served, "en-US")
    page = screen.page
    screen.goto("/")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.title() == "Num Project — score sheets"
    screen.heading("Join the players' community!")
    screen.axe("welcome")
    check_rules(screen, "Scoring rules", "en")
    page.go_back()
    screen.heading("Join the players' community!")
    page.get_by_role("main").get_by_role("button", name="Log in", exact=True).click()
    screen.heading("Log in")
    expect(page.get_by_label("Email or pseudo", exact=True)).to_be_visible()
    screen.axe("log-in")
    page.get_by_role("link", name="Forgot your password?").click()
    screen.heading("Forgotten password")
    screen.axe("forgotten password")
    page.go_back()
    page.go_back()
    screen.heading("Join the players' community!")
    page.get_by_role("button", name="Create my account", exact=True).click()
    screen.heading("Create my account")
    page.get_by_label("Pseudo", exact=True).fill(f"bo_{secrets.token_hex(3)}")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Your age range").select_option("35-49")
    page.get_by_role("checkbox", name="terms of use").check()
    screen.axe("sign-up")
    page.get_by_role("button", name="Create my account", exact=True).click()
    screen.heading("Welcome!")
    screen.axe("welcome, signed up")
    page.get_by_role("button", name="New score sheet", exact=True).click()
    screen.heading("New score sheet")
    screen.axe("new sheet")
    for i, name in enumerate(PLAYERS, start=1):
        page.get_by_label(f"Player {i}", exact=True).fill(name)
    page.get_by_role("button", name="Create the sheet", exact=True).click()
    screen.heading("Round 1", level=2)
    group = page.get_by_role("group", name="Ada", exact=True)
    group.get_by_label("CARD TYPE").select_option("classic")
    group.get_by_label("Value", exact=True).select_option("6")
    group.get_by_label("Count", exact=True).select_option("3")
    group.get_by_role("button", name="Add", exact=True).click()
    page.get_by_label("Who had the Bomb?").select_option(label="Bo")
    body = {
        "bomb_outcome": "stolen",
        "players": [
            {"captured": ["red-6", "blue-6", "green-6"], "role": "poseur"},
            {"captured": ["bomb"], "role": "demineur"},
            {"captured": [], "role": "agent"},
        ],
    }
    expected = score_round(served, body, "en")["players"][0]
    expect(page.locator('.scores li[data-seat="0"] .score')).to_have_text(
        f"Ada: {expected['score']} pts"
    )
    label = expected["breakdown"][0]["label"]
    assert "value" in label  # the API's English label
    expect(page.locator('.scores li[data-seat="0"] .breakdown')).to_contain_text(label)
    screen.axe("round 1")
    page.get_by_role("button", name="Français").click()
    screen.page.get_by_role("heading", level=2, name="Score de la manche").wait_for()
    assert page.evaluate("document.documentElement.lang") == "fr"
    page.reload()  # the choice is remembered over the browser's English
    screen.heading("Manche 1", level=2)
    assert page.evaluate("document.documentElement.lang") == "fr"
    # the screen's part names the page, in the app's language (issue 24)
    expect(page).to_have_title("Manche 1 — Num Project")
    screen.close()


def test_an_api_problem_is_shown_next_to_its_field_in_french(browser: Any, served: str) -> None:
    from playwright.sync_api import expect

    # a pseudo already taken (case-insensitively): a refusal only the server can make (the
    # app checks the pseudo's characters itself, issue 24)
    body = {
        "pseudo": "zoe_prise",
        "password": PASSWORD,
        "age_range": "18-24",
        "accept_terms": True,
        "locale": "fr",
    }
    first = httpx.post(f"{served}/v1/accounts", json=body, timeout=10)
    assert first.status_code == 201, first.text
    body["pseudo"] = "Zoe_Prise"
    answer = httpx.post(
        f"{served}/v1/accounts", json=body, headers={"Accept-Language": "fr"}, timeout=10
    )
    assert answer.status_code == 409, answer.text
    (message,) = [e["message"] for e in answer.json()["errors"] if e["field"] == "pseudo"]
    assert answer.headers["content-language"] == "fr"

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/inscription")
    screen.heading("Créer mon compte")
    page.get_by_label("Pseudo", exact=True).fill("Zoe_Prise")
    page.get_by_label("Mot de passe", exact=True).fill(PASSWORD)
    page.get_by_label("Ta tranche d'âge").select_option("18-24")
    page.get_by_role("checkbox", name="conditions d'utilisation").check()
    page.get_by_role("button", name="Créer mon compte", exact=True).click()
    field = page.get_by_label("Pseudo", exact=True)
    expect(field).to_have_attribute("aria-invalid", "true")
    # the rule said before any refusal (app_polish's test), then what broke it
    expect(field).to_have_accessible_description(f"{PSEUDO_RULE} {sentence(message)}")
    # the detail says only what is under the field: not repeated, never under a raw field name
    assert message in answer.json()["detail"]
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("pseudo :")
    screen.axe("inscription refusée")
    refused = "the server responded with a status of 409"
    assert any(refused in e for e in screen.errors)  # Chromium logs the refusal it received
    screen.errors = [e for e in screen.errors if refused not in e]
    screen.close()


def controlled(page: Any, shown: Callable[[], None]) -> None:
    """Wait until the app's service worker controls `page`. It claims the pages open when it
    activates; a page whose navigation was under way then was no client yet and stays
    uncontrolled until its next load: after 10 s without control the page is reloaded once
    (`shown` waits for it), which the active worker controls from its start. Polled by hand:
    wait_for_function's polling evaluates a string, which the app's CSP (no 'unsafe-eval')
    refuses whenever the first look finds no controller yet."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    for attempt in range(2):
        for _ in range(100 if attempt == 0 else 200):  # installing fetches the shell
            if page.evaluate("navigator.serviceWorker.controller !== null"):
                return
            page.wait_for_timeout(100)
        if attempt == 0:
            page.reload()
            shown()
    raise AssertionError("the service worker never took control of the page")


def test_the_shell_opens_offline(browser: Any, served: str) -> None:
    """The service worker keeps the shell: offline, the page still opens and says so. Without
    bypassing the CSP: the app itself breaks none of it (no console error)."""
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR", bypass_csp=False)
    page = screen.page
    screen.goto("/")
    screen.heading("Rejoins la communauté des joueurs !")
    loaded = page.evaluate(
        "performance.getEntriesByType('navigation')[0].loadEventEnd"
    )  # a first visit: nothing cached yet
    assert 0 < loaded < FIRST_LOAD_BUDGET_MS, loaded
    print(f"first page load: {loaded:.0f} ms")
    controlled(page, lambda: screen.shown_heading("Rejoins la communauté des joueurs !"))
    # a navigation to the API's own pages is never kept as the shell (the app opened offline
    # as the spec's JSON once a link had led there)
    page.goto(served + "/openapi.json")
    page.goto(served + "/v1/rulesets")
    screen.context.set_offline(True)
    try:
        page.goto(served + "/")
        screen.heading("Rejoins la communauté des joueurs !")
        expect(page.get_by_role("status")).to_contain_text("Hors ligne")
    finally:
        screen.context.set_offline(False)
    screen.errors = [e for e in screen.errors if "ERR_INTERNET_DISCONNECTED" not in e]
    screen.close()


def test_the_emailed_reset_link_opens_the_reset_page(browser: Any, served: str) -> None:
    """`/reset-password?token=…` and `/verify-email?token=…` (the links of
    api/accounts/texts.py PAGES) open their screens, which send the token: an unknown one is
    refused in French, as the API words it."""
    from playwright.sync_api import expect

    body = {"token": "not-a-token", "password": "a brand new password"}
    answer = httpx.post(
        f"{served}/v1/password-resets/confirm",
        json=body,
        headers={"Accept-Language": "fr"},
        timeout=10,
    )
    assert answer.status_code == 422, answer.text
    # the token is no field of the page: its message is said, without the raw field name
    (detail,) = [e["message"] for e in answer.json()["errors"] if e["field"] == "token"]

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/reset-password?token=not-a-token")
    screen.heading("Nouveau mot de passe")
    page.get_by_label("Nouveau mot de passe", exact=True).fill(body["password"])
    page.get_by_role("button", name="Changer le mot de passe", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text(sentence(detail))
    expect(page.get_by_role("alert")).not_to_contain_text("token")
    screen.axe("réinitialisation")

    refused = httpx.post(
        f"{served}/v1/email-verifications/confirm",
        json={"token": "not-a-token"},
        headers={"Accept-Language": "fr"},
        timeout=10,
    )
    assert refused.status_code == 422, refused.text
    screen.goto("/verify-email?token=not-a-token")  # the verification email's link
    screen.heading("Vérification de l’email")
    (message,) = [e["message"] for e in refused.json()["errors"] if e["field"] == "token"]
    expect(page.get_by_role("alert")).to_contain_text(sentence(message))
    expect(page.get_by_role("alert")).not_to_contain_text("token")
    screen.axe("vérification de l'email")
    screen.errors = [e for e in screen.errors if "status of 422" not in e]
    screen.close()


def test_an_anonymous_sheet_is_kept_on_the_device(browser: Any, served: str) -> None:
    """Without an account, a Num Wars sheet works at once (opened by keyboard); choosing a
    role another player holds swaps the two; its secret
    token (answered once) stays on the device, so the sheet opens again after a reload; its
    one planned round played, the match is over and the app names the winners the API does."""
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/")
    screen.heading("Rejoins la communauté des joueurs !")
    page.keyboard.press("Tab")  # from the focused heading, by keyboard only
    expect(page.get_by_role("button", name="Nouvelle feuille de score")).to_be_focused()
    page.keyboard.press("Enter")
    screen.heading("Nouvelle feuille de score")
    page.get_by_role("button", name="Ajouter un joueur", exact=True).click()
    for i, name in enumerate(["Ana", "Ben", "Cid", "Dom"], start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    page.get_by_label("Manches prévues", exact=True).fill("1")
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    assert page.url.startswith(f"{served}/feuilles/")
    # a role another player holds is swapped with them, never held twice (a refusal)
    role = {
        n: page.get_by_role("group", name=n, exact=True).get_by_label("Rôle")
        for n in ["Ana", "Cid"]
    }
    role["Cid"].select_option(label="Poseur (Bombe)")
    expect(role["Cid"]).to_have_value("poseur")
    expect(role["Ana"]).to_have_value("agent")
    role["Ana"].select_option(label="Poseur (Bombe)")
    expect(role["Ana"]).to_have_value("poseur")
    expect(role["Cid"]).to_have_value("agent")
    add_cards(page, "Dom", "joker")
    page.get_by_label("Qui a eu la Bombe ?").select_option(label="Ana")
    page.get_by_label("Comment le poseur l’a-t-il gardée ?").select_option("protected")
    body = {
        "bomb_outcome": "protected",
        "players": [
            {"captured": ["bomb"], "role": "poseur"},
            {"captured": [], "role": "demineur"},
            {"captured": [], "role": "agent"},
            {"captured": ["joker"], "role": "complice"},
        ],
    }
    scores = [p["score"] for p in score_round(served, body, "fr")["players"]]
    assert scores == [30, 0, 30, 20]  # poseur +30, complice +20, agent +30 (the rule book)
    expect(page.locator('.scores li[data-seat="3"] .score')).to_have_text("Dom : 20 pts")
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    screen.heading("Totaux", level=2)  # the one planned round: the match is over
    sheet_id = page.url.rsplit("/", 1)[1]
    token = page.evaluate("JSON.parse(localStorage.getItem('numrules.sheets'))")[sheet_id]
    sheet = httpx.get(
        f"{served}/v1/scoresheets/{sheet_id}",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    ).json()
    assert sheet["finished"] is True and sheet["totals"] == scores
    winners = ", ".join(["Ana", "Ben", "Cid", "Dom"][seat] for seat in sheet["winners"])
    assert winners == "Ana, Cid"  # tied, and numwars breaks no tie by default
    page.reload()
    screen.heading("Totaux", level=2)
    expect(page.locator("#totals-title")).to_have_text(f"Vainqueur : {winners}")
    for seat, total in enumerate(scores):
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))
    expect(page.get_by_text("1 manche sur 1")).to_be_visible()
    screen.axe("feuille terminée")
    screen.close()
