"""« Jouer en ligne » in a real headless Chromium (issue 24), served for real on PostgreSQL.

A stored Num Wars game for four, created in the app (« Jouer en ligne »), which shows one link
per seat (the token in the URL fragment only). Two browser contexts, on a phone-sized viewport,
play two seats through their links — Ada in French, Bo in English — to the end of the match;
the test plays the two other seats through the HTTP API, each from its own view's
`legal_actions`, as a remote player's app would. The browsers' pages are never reloaded: every
move of another seat reaches them through the event stream (`EventSource` with a stream
ticket, `view=true`: the game itself comes with each move's events, so the pages never read
it again), checked by the version each page shows, by the trick it shows and by a marker left
in the page at the start. On every browser turn the highlighted cards are exactly the legal plays
of the seat's own view; an illegal card tapped shows the API's refusal in the page's language.
The end screens show the API's result and « Donne vérifiée » / "Deal verified": the seed
commitment checked in the browser (WebCrypto), which the test checks again in Python. axe-core
on each screen in both languages (no serious or critical violation).
"""

from __future__ import annotations

import hashlib
import random
import re
import secrets
import time
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from tests.api.test_app_browser import Screen, browser, sentence, served  # noqa: F401
from tests.api.test_docs_browser import browser_path  # noqa: F401

NAMES = ["Ada", "Bo", "Cy", "Dee"]


def de(name: str) -> str:
    """The app's French « de » before a name: « d' » before a vowel (i18n.ts `de`)."""
    return f"d’{name}" if re.match(r"[aeiouàâäéèêëîïôöùûüæœ]", name, re.I) else f"de {name}"


#: A numwars match for four: four rounds of 20 cards each (and the complice's choices).
MOST_ACTIONS = 4 * 4 * 20 + 40

COLOURS = {
    "fr": {
        "red": "Rouge",
        "blue": "Bleu",
        "green": "Vert",
        "yellow": "Jaune",
        "rainbow": "Rainbow",
        "shadow": "Shadow",
    },
    "en": {
        "red": "Red",
        "blue": "Blue",
        "green": "Green",
        "yellow": "Yellow",
        "rainbow": "Rainbow",
        "shadow": "Shadow",
    },
}
SPECIALS = {
    "fr": {"numx": "Num-X", "joker": "Joker", "bomb": "Bombe", "quantum": "Quantique"}
    | {"infinity": "Infini", "flash": "Flash"},  # Num King's
    "en": {"numx": "Num-X", "joker": "Joker", "bomb": "Bomb", "quantum": "Quantum"}
    | {"infinity": "Infinity", "flash": "Flash"},
}
WORDS = {
    "fr": {
        "turn": "À toi de jouer\u202f!",
        "legal": "Carte jouable",
        "over": "Partie terminée",
        "verified": "Donne vérifiée",
        "winner": "Vainqueur : ",
        "yes": "Neutraliser la menace",
        "no": "Ne pas neutraliser",
        "played": " : ",
    },
    "en": {
        "turn": "Your turn!",
        "legal": "Playable card",
        "over": "Game over",
        "verified": "Deal verified",
        "winner": "Winner: ",
        "yes": "Neutralize the threat",
        "no": "Do not neutralize",
        "played": ": ",
    },
}


def label(card: str, lang: str) -> str:
    valued = re.fullmatch(r"([a-z]+)-(\d+)", card)
    if valued:
        return f"{COLOURS[lang][valued[1]]} {valued[2]}"
    return SPECIALS[lang][card]


def card_in_hand(page: Any, card: str, lang: str) -> Any:
    """The button of `card` in the hand shown; of a card held twice (two jokers), the first."""
    return page.locator("ul.hand").get_by_role("button", name=label(card, lang), exact=True).first


def new_game(
    base: str,
    ruleset: str,
    names: list[str],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[str, list[str]]:
    """A stored game of `names` created anonymously over HTTP (seeded, with `options`, when
    given): its id and its seats' tokens."""
    body: dict[str, Any] = {"ruleset": ruleset, "players": [{"name": n} for n in names]}
    if seed is not None:
        body["seed"] = seed
    if options is not None:
        body["options"] = options
    made = httpx.post(f"{base}/v1/games", json=body, timeout=10)
    assert made.status_code == 201, made.text
    return made.json()["id"], [s["token"] for s in made.json()["seats"]]


#: The helpers' one client, kept alive (a new client costs about 40 ms of CPU, its TLS
#: context: three a move of a match of 300); the API sets no cookie, so nothing carries over.
HTTP = httpx.Client(timeout=10)


def play_out(base: str, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """The game played to its end over HTTP (one connection), each acting seat taking its
    first legal action (who acts next: the action's answer; nobody, the match is over); the
    spectator's last read of it."""
    path = f"/v1/games/{game_id}"
    with httpx.Client(base_url=base, timeout=10) as client:
        actors = client.get(path).json()["view"]["actors"]
        while actors:
            auth = {"Authorization": f"Bearer {tokens[actors[0]]}"}
            own = client.get(path, headers=auth).json()["view"]
            answer = client.post(f"{path}/actions", json=own["legal_actions"][0], headers=auth)
            assert answer.status_code == 200, answer.text
            actors = answer.json()["view"]["actors"]
    state = game_as(base, game_id, None)
    assert state["status"] == "over", state["status"]
    return state


def game_as(base: str, game_id: str, token: str | None, lang: str = "en") -> dict[str, Any]:
    headers = {"Accept-Language": lang}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    answer = HTTP.get(f"{base}/v1/games/{game_id}", headers=headers)
    assert answer.status_code == 200, answer.text
    game: dict[str, Any] = answer.json()
    return game


def act(base: str, game_id: str, token: str, action: dict[str, Any]) -> httpx.Response:
    return HTTP.post(
        f"{base}/v1/games/{game_id}/actions",
        json=action,
        headers={"Authorization": f"Bearer {token}", "Accept-Language": "fr"},
    )


def create_in_the_app(screen: Screen) -> dict[int, str]:
    """« Jouer en ligne » → four names → « Créer la partie » → the seats' links (read from the
    page: the token in the fragment only)."""
    page = screen.page
    screen.goto("/")
    page.get_by_role("navigation").get_by_role("link", name="Jouer en ligne", exact=True).click()
    screen.heading("Nouvelle partie en ligne")
    assert page.get_by_label("Jeu", exact=True).input_value() == "numwars"
    for i, name in enumerate(NAMES):
        page.get_by_label(f"Joueur {i + 1}", exact=True).fill(name)
    screen.axe("nouvelle partie en ligne")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    screen.heading("Les liens des places")
    screen.axe("liens des places")
    links = {}
    for seat, name in enumerate(NAMES):
        links[seat] = page.get_by_label(f"Lien {de(name)}", exact=True).input_value()
    return links


def token_of(link: str) -> str:
    parts = urlsplit(link)
    assert parts.query == "" and parts.fragment.startswith("jeton="), link  # never sent
    return unquote(parts.fragment.removeprefix("jeton="))


def at_version(screen: Screen, version: int) -> None:
    """Waits until the page shows the game at `version` (checked at each animation frame): its
    play screen, or its end screen when that version ended the game (the page may get there
    before the wait starts: the action's answer, then the stream's last events)."""
    from playwright.sync_api import TimeoutError as Timeout

    try:
        screen.page.wait_for_function(
            "(v) => document.querySelector('section[data-version]')?.dataset.version === v",
            arg=str(version),
        )
    except Timeout:
        raise AssertionError(f"not at version {version}: {screen.shown()}") from None


def check_turn(screen: Screen, lang: str, view: dict[str, Any]) -> None:
    """The page, at the game's version, says it is the seat's turn and highlights exactly the
    legal plays of the seat's own view, each described « Carte jouable » (read in one call to
    the page: the match has 160 such turns)."""
    shown = screen.page.evaluate(
        """() => {
          const texts = (selector) => [...document.querySelectorAll(selector)].map((b) => b.textContent);
          const legal = [...document.querySelectorAll("ul.hand button.legal")];
          const described = legal.map((b) => document.getElementById(b.getAttribute("aria-describedby"))?.textContent);
          return {
            status: [...document.querySelectorAll('[role="status"]')].map((s) => s.textContent),
            legal: texts("ul.hand button.legal").sort(),
            hand: texts("ul.hand button").sort(),
            described: [...new Set(described)],
          };
        }"""
    )
    assert WORDS[lang]["turn"] in shown["status"], shown
    # every card of the hand that may be played, twice for a card held twice (two jokers)
    playable = {a["card"] for a in view["legal_actions"] if a["type"] == "play"}
    legal = sorted(label(c, lang) for c in view["hand"] if c in playable)
    assert shown["legal"] == legal
    assert shown["hand"] == sorted(label(c, lang) for c in view["hand"])
    assert shown["described"] == ([WORDS[lang]["legal"]] if legal else []), shown


def test_a_stored_game_played_to_the_end_through_seat_links(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    started = time.monotonic()
    ada = Screen(browser, served, "fr-FR")
    links = create_in_the_app(ada)
    tokens = {seat: token_of(link) for seat, link in links.items()}
    game_id = urlsplit(links[0]).path.rsplit("/", 1)[1]
    assert urlsplit(links[0]).path == f"/parties/{game_id}"

    # Ada follows her link in the app; Bo opens his in another browser context, in English
    ada.page.get_by_role("link", name="Jouer la place d’Ada", exact=True).click()
    ada.heading("Partie en ligne — manche 1")
    bo = Screen(browser, served, "en-US")
    bo.page.goto(links[1])
    bo.heading("Online game — round 1")
    expect(ada.page.get_by_text("Tu joues la place d’Ada.")).to_be_visible()
    expect(bo.page.get_by_text("You play Bo's seat.")).to_be_visible()
    screens = {0: (ada, "fr"), 1: (bo, "en")}
    reads: dict[int, int] = {0: 0, 1: 0}  # each page's GETs of the game from here on
    for seat, (screen, _) in screens.items():
        screen.page.evaluate("window.notReloaded = true")

        def count(request: Any, seat: int = seat) -> None:
            if request.method == "GET" and urlsplit(request.url).path == f"/v1/games/{game_id}":
                reads[seat] += 1

        screen.page.on("request", count)
    ada.axe("partie en ligne")
    bo.axe("online game")

    rng = random.Random(24)
    illegal_shown: set[str] = set()
    live_trick_seen = False
    turns = {"browser": 0, "http": 0}
    spent = {"browser": 0.0, "http": 0.0}
    state = game_as(served, game_id, None)  # the version, who acts, the public trick
    while state["status"] == "active":
        assert turns["browser"] + turns["http"] < MOST_ACTIONS, turns  # never stuck
        view = state["view"]
        (seat,) = view["actors"]  # numwars acts one seat at a time
        begun = time.monotonic()
        own_game = game_as(served, game_id, tokens[seat])
        assert own_game["version"] == state["version"]
        own = own_game["view"]
        action = rng.choice(own["legal_actions"])
        if seat not in screens:
            answer = act(served, game_id, tokens[seat], action)
            assert answer.status_code == 200, answer.text
            played = answer.json()
            state = {"status": "active", "version": played["version"], "view": played["view"]}
            if not played["view"]["actors"]:  # nobody acts: the match is over
                state = game_as(served, game_id, None)
            turns["http"] += 1
            spent["http"] += time.monotonic() - begun
            continue

        screen, lang = screens[seat]
        page = screen.page
        # the other seats' moves reached this page live: it shows the game's version
        at_version(screen, state["version"])
        if own["phase"] == "play":
            check_turn(screen, lang, own)
            if view["trick"] and not live_trick_seen:
                last = view["trick"][-1]
                line = f"{NAMES[last['seat']]}{WORDS[lang]['played']}{label(last['card'], lang)}"
                expect(page.locator("ol.trick").first).to_contain_text(line)
                live_trick_seen = last["seat"] not in screens
            playable = {a["card"] for a in own["legal_actions"] if a["type"] == "play"}
            illegal = [c for c in own["hand"] if c not in playable]
            if illegal and lang not in illegal_shown:
                card = illegal[0]
                refused = httpx.post(
                    f"{served}/v1/games/{game_id}/actions",
                    json={"type": "play", "card": card},
                    headers={"Authorization": f"Bearer {tokens[seat]}", "Accept-Language": lang},
                    timeout=10,
                )
                assert refused.status_code == 422, refused.text
                assert refused.json()["code"] == "illegal-move"
                card_in_hand(page, card, lang).click()
                expect(page.get_by_role("alert")).to_contain_text(
                    sentence(refused.json()["detail"])
                )
                assert game_as(served, game_id, None)["version"] == state["version"]
                screen.axe("coup refusé" if lang == "fr" else "move refused")
                illegal_shown.add(lang)
        if action["type"] == "play":
            button = card_in_hand(page, action["card"], lang)
            expect(button).to_have_class(re.compile(r"\blegal\b"))
            button.click()
        else:
            assert action["type"] == "neutralize", action
            name = WORDS[lang]["yes" if action["neutralize"] else "no"]
            page.get_by_role("group").get_by_role("button", name=name, exact=True).click()
        turns["browser"] += 1
        at_version(screen, state["version"] + 1)
        spent["browser"] += time.monotonic() - begun
        state = game_as(served, game_id, None)

    assert illegal_shown == {"fr", "en"}, illegal_shown
    assert live_trick_seen
    assert turns["browser"] > 100 and turns["http"] > 100, turns
    # the pages learnt every version from their streams' `game` messages (`view=true`), not
    # by reading the game after each move: a read at the end at most
    assert all(n <= 2 for n in reads.values()), reads

    # the end: the API's result, and the deal checked in the browser against its commitment
    final = game_as(served, game_id, None)
    assert final["status"] == "over"
    assert final["seed_decimal"] == str(final["seed"])
    expected = hashlib.sha256(f"{final['seed']}:{final['salt']}".encode()).hexdigest()
    assert final["seed_commitment"] == expected
    result = final["result"]
    winners = ", ".join(NAMES[s] for s in result["winners"])
    for screen, lang in screens.values():
        page = screen.page
        screen.heading(WORDS[lang]["over"])
        assert page.evaluate("window.notReloaded") is True  # every move came by the stream
        expect(page.get_by_text(WORDS[lang]["verified"], exact=True)).to_be_visible()
        expect(page.get_by_text(f"{WORDS[lang]['winner']}{winners}", exact=True)).to_be_visible()
        for i, name in enumerate(NAMES):
            row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name=name))
            expect(row.get_by_role("cell").last).to_have_text(
                re.compile(rf"^{result['totals'][i]}\spts?$")
            )
        screen.axe("partie terminée" if lang == "fr" else "game over")

    for screen, _ in screens.values():
        screen.errors = [e for e in screen.errors if "status of 422" not in e]
        screen.close()
    print(f"online game: {turns} {spent} reads {reads} in {time.monotonic() - started:.1f} s")


def test_a_forged_reveal_is_not_verified(browser: Any, served: str) -> None:  # noqa: F811
    """The check can fail: an abandoned game's end screen, its revealed salt altered on the
    way (a route rewriting the answer), says the deal is NOT verified."""
    from playwright.sync_api import expect

    created = httpx.post(
        f"{served}/v1/games",
        json={"ruleset": "numwars", "players": [{"name": n} for n in NAMES]},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game = created.json()
    token = game["seats"][0]["token"]
    abandoned = httpx.post(
        f"{served}/v1/games/{game['id']}/abandon",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert abandoned.status_code == 200, abandoned.text

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game['id']}#jeton={token}")
    screen.heading("Partie abandonnée")
    expect(page.get_by_text("Donne vérifiée", exact=True)).to_be_visible()

    def forge(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        body["salt"] = "0" * 32
        route.fulfill(response=answer, json=body)

    page.route(re.compile(rf"/v1/games/{game['id']}$"), forge)
    page.reload()
    screen.heading("Partie abandonnée")
    expect(page.get_by_role("status").filter(has_text="Donne NON vérifiée")).to_be_visible()
    expect(page.get_by_text("Donne vérifiée", exact=True)).to_have_count(0)
    screen.axe("donne non vérifiée")
    screen.close()


def test_an_account_joins_its_seat_without_a_link(browser: Any, served: str) -> None:  # noqa: F811
    """Players named by an account's pseudo in the app's new game (an unknown pseudo refused
    under its field, in French); that account, logged in, opens the game with no link (a
    spectator), joins its seat (another seat is refused, as the API words it) and plays from
    its own view, the session acting for the seat."""
    from playwright.sync_api import expect

    pseudo = f"bo_{secrets.token_hex(4)}"
    signed = httpx.post(
        f"{served}/v1/accounts",
        json={
            "pseudo": pseudo,
            "password": "correct horse battery",
            "age_range": "25-34",
            "accept_terms": True,
            "locale": "fr",
        },
        timeout=10,
    )
    assert signed.status_code == 201, signed.text
    session = signed.json()["token"]

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.context.add_init_script(
        "localStorage.setItem('numrules.session', JSON.stringify("
        f"{{token: '{session}', pseudo: '{pseudo}'}}))"
    )
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    for i, name in enumerate(NAMES):
        page.get_by_label(f"Joueur {i + 1}", exact=True).fill(name)
    page.get_by_text("Jouer avec des comptes (facultatif)", exact=True).click()
    page.get_by_label("Pseudo du compte de Bo", exact=True).fill(pseudo)
    unknown = page.get_by_label("Pseudo du compte de Cy", exact=True)
    unknown.fill("nobody_here")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    answer = httpx.post(
        f"{served}/v1/games",
        json={
            "ruleset": "numwars",
            "players": [{"name": n, "account": "nobody_here"} for n in ("Cy", "Di", "Ed")],
        },
        headers={"Accept-Language": "fr"},
        timeout=10,
    )
    assert answer.status_code == 422 and answer.json()["code"] == "unknown-account"
    (message,) = {e["message"] for e in answer.json()["errors"]}
    expect(unknown).to_have_accessible_description(sentence(message))  # the API's, under its field
    expect(unknown).to_have_attribute("aria-invalid", "true")
    screen.axe("pseudo inconnu")
    unknown.fill("")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    screen.heading("Les liens des places")
    link = page.get_by_label("Lien de Bo", exact=True).input_value()
    game_id = urlsplit(link).path.rsplit("/", 1)[1]
    ada_token = token_of(page.get_by_label("Lien d’Ada", exact=True).input_value())
    refused = httpx.post(
        f"{served}/v1/games/{game_id}/seats/0/join",
        headers={"Authorization": f"Bearer {session}", "Accept-Language": "fr"},
        timeout=10,
    )
    assert refused.status_code == 403 and refused.json()["code"] == "not-your-seat"

    screen.goto(f"/parties/{game_id}")  # no link: the account's page
    screen.heading("Partie en ligne — manche 1")
    expect(page.get_by_text("Tu regardes la partie", exact=False)).to_be_visible()
    expect(page.locator("ul.hand")).to_have_count(0)
    screen.axe("rejoindre avec mon compte")
    joining = page.get_by_role("group", name="Rejoindre avec mon compte")
    joining.get_by_role("button", name="Rejoindre la place d’Ada", exact=True).click()
    # the API's 0-based « place 0 » said as the player reads it: « La place 1 (Ada) »
    expect(page.get_by_role("alert")).to_have_text(
        "La place 1 (Ada) n’est pas liée à ton compte : seul le compte nommé pour une place "
        "à sa création peut la rejoindre."
    )
    joining.get_by_role("button", name="Rejoindre la place de Bo", exact=True).click()
    expect(page.get_by_text("Tu joues la place de Bo.", exact=True)).to_be_visible()
    hand = httpx.get(
        f"{served}/v1/games/{game_id}", headers={"Authorization": f"Bearer {session}"}, timeout=10
    ).json()["view"]["hand"]
    assert sorted(page.locator("ul.hand button").all_inner_texts()) == sorted(
        label(c, "fr") for c in hand
    )
    # Ada (seat 0) leads over HTTP; the joined session's page sees it live and plays its turn
    ada = game_as(served, game_id, ada_token)["view"]
    assert act(served, game_id, ada_token, ada["legal_actions"][0]).status_code == 200
    at_version(screen, 1)
    expect(page.get_by_role("status").filter(has_text="À toi de jouer !")).to_be_visible()
    page.locator("ul.hand button.legal").first.click()
    at_version(screen, 2)
    assert game_as(served, game_id, None)["view"]["hand_counts"][1] == len(hand) - 1
    screen.errors = [
        e for e in screen.errors if not re.search(r"status of 40[13]|status of 422", e)
    ]
    screen.close()


def test_a_classic_round_with_its_exchange_in_english(browser: Any, served: str) -> None:  # noqa: F811
    """The same screen plays Num Wars classic (Speed Wars: 10 cards, 2 passed): its
    simultaneous exchange (the cards to pass highlighted, tapped one by one) and the tricks of
    round 1 through the seat's link, in English; the other three seats over HTTP."""
    from playwright.sync_api import TimeoutError as Timeout, expect

    speed = {"speed": True, "tiebreak": False}
    game_id, tokens = new_game(served, "numwars-classic", NAMES, options=speed)
    screen = Screen(browser, served, "en-US")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading("Online game — round 1")
    expect(
        page.get_by_text("Tap the 2 cards to pass to your right-hand neighbour.")
    ).to_be_visible()
    screen.axe("classic exchange")

    rng = random.Random(5)
    browser_moves = 0
    state = game_as(served, game_id, None)
    while state["view"]["round"] == 1 and state["status"] == "active":
        actors = state["view"]["actors"]
        others = [s for s in actors if s != 0]
        seat = others[0] if others else 0
        own = game_as(served, game_id, tokens[seat])["view"]
        action = rng.choice(own["legal_actions"])
        if seat != 0:
            assert act(served, game_id, tokens[seat], action).status_code == 200
        else:
            assert action["type"] in ("pass", "play"), action
            # another seat's pass is private (no event reaches this page, nothing of it shows):
            # the page is current when it shows the seat's own hand and legal cards
            # a card held twice (two jokers) is ringed twice: one legal action, two cards
            playable = {a["card"] for a in own["legal_actions"]}
            legal = sorted(label(c, "en") for c in own["hand"] if c in playable)
            hand = sorted(label(c, "en") for c in own["hand"])
            try:
                page.wait_for_function(
                    """([legal, hand]) => {
                      const texts = (s) => [...document.querySelectorAll(s)].map((b) => b.textContent).sort();
                      return JSON.stringify([texts("ul.hand button.legal"), texts("ul.hand button")])
                        === JSON.stringify([legal, hand]);
                    }""",
                    arg=[legal, hand],
                )
            except Timeout:
                raise AssertionError(f"not {legal} of {hand}: {screen.shown()}") from None
            card_in_hand(page, action["card"], "en").click()
            at_version(screen, state["version"] + 1)
            browser_moves += 1
        state = game_as(served, game_id, None)
    assert browser_moves == 2 + 10  # two cards passed, one card a trick
    round_two = page.get_by_role("heading", level=1, name="Online game — round 2", exact=True)
    expect(round_two).to_be_visible()  # live, the focus left where the player had it
    screen.close()
