"""The web app's pages and files (issue 24; api-contract.md, "The app").

The app is built from `app/` by deploy/ensure-app.sh into `api/web/dist/` (package data, so
an installed package serves it): `index.html`, the hashed `assets/`, the service worker, the
manifest and the icon. Here:

* the app's own paths (:data:`PAGES`, :data:`PAGE_TREES`) answer `index.html` (the app routes
  in the browser: a link from an email opens the right screen), in French unless the
  request's `Accept-Language` ranks English first (`<html lang>`, `<title>`,
  `Content-Language`), never cached (`no-cache`: a new build is seen at once), with a CSP,
  `frame-ancestors 'none'` and `Referrer-Policy: no-referrer` (seat and reset links carry
  secrets);
* `/assets/<name>`: the build's hashed files, cached for a year (their name changes with
  their content);
* `/sw.js`, `/manifest.webmanifest`, `/icon.svg`: the shell's files, revalidated.

Any other path stays a 404 problem (the API's `/v1`, `/docs`, `/openapi.json` … are routes of
their own, never shadowed: no catch-all route). Without a build, the pages say how to make one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from litestar import MediaType, Request, Response, get
from litestar.handlers import HTTPRouteHandler

from api.http.problems import ProblemError
from engine.core.texts import pick_language, say, text

#: Where deploy/ensure-app.sh builds the app.
DIST = Path(__file__).resolve().parent / "dist"

#: The app's paths that open a screen (api-contract.md, "The app's paths"), French and English.
PAGES = [
    "/",
    "/connexion",
    "/login",
    "/inscription",
    "/signup",
    "/mot-de-passe",
    "/password",
    "/reinitialiser",
    "/reset-password",
    "/verifier-email",
    "/verify-email",
    "/historique",
    "/history",
    "/stats",
    "/tables",
    "/compte",
    "/account",
    "/feuilles",
    "/sheets",
    "/parties",
    "/games",
    "/regles",
    "/rules",
]
#: The app's paths with more below them (a sheet's id, a game's, a ruleset's).
PAGE_TREES = ["/feuilles", "/sheets", "/parties", "/games", "/regles", "/rules"]

#: The page's title per language (the app's catalogue, app/src/i18n.ts, says the same).
TITLES = {"fr": "Num Project — feuilles de score", "en": "Num Project — score sheets"}

#: What an app page may load and do: its own files and the API, nothing else; no framing.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
}
#: A year: the hashed assets never change under their name.
IMMUTABLE = "public, max-age=31536000, immutable"
#: The shell's files at the root, with their media types (Litestar adds the charset of text).
ROOT_FILES = {
    "sw.js": "text/javascript",
    "manifest.webmanifest": "application/manifest+json",
    "icon.svg": "image/svg+xml",
}
ASSET_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".woff2": "font/woff2",
}
_ASSET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

NO_APP_FILE = text(
    "no-app-file", "no such file in the web app", "aucun fichier de ce nom dans l’application"
)

NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>numrules: the app is not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>The web app is not built</h1>
<p>Build it with <code>bash deploy/ensure-app.sh</code> (<code>deploy/serve.sh</code> and
<code>deploy/test.sh</code> do it), then reload. The API is served as usual: see
<a href="/docs">/docs</a>.</p>
<p lang="fr">L’application n’est pas construite&nbsp;: lancez <code>bash deploy/ensure-app.sh</code>,
puis rechargez la page.</p></main></body></html>
"""


def page_language(accept_language: str | None) -> str:
    """French unless `Accept-Language` chooses English (ranks it first, by an `en` range or
    `*`): the API's English default does not apply to the page, the app is French first, and
    a range the header refuses (`en;q=0`) or leaves out (a malformed quality) chooses
    nothing."""
    return pick_language(accept_language, default="fr")


def localized_index(html: str, language: str) -> str:
    """The built `index.html` (French) in `language`: `<html lang>` and `<title>`."""
    if language == "fr":
        return html
    html = html.replace('<html lang="fr"', f'<html lang="{language}"', 1)
    return html.replace(f"<title>{TITLES['fr']}</title>", f"<title>{TITLES[language]}</title>", 1)


def _page(dist: Path, request: Request[Any, Any, Any]) -> Response[str]:
    index = dist / "index.html"
    if not index.is_file():
        return Response(NOT_BUILT, media_type=MediaType.HTML, headers={"Cache-Control": "no-cache"})
    language = page_language(request.headers.get("accept-language"))
    html = localized_index(index.read_text(encoding="utf-8"), language)
    return Response(
        html,
        media_type=MediaType.HTML,
        headers={**PAGE_HEADERS, "Content-Language": language},
    )


def _file(path: Path, media_type: str, cache: str) -> Response[bytes]:
    if not path.is_file():
        raise ProblemError(404, "not-found", say(NO_APP_FILE))
    return Response(path.read_bytes(), media_type=media_type, headers={"Cache-Control": cache})


def web_handlers(dist: Path = DIST) -> list[HTTPRouteHandler]:
    """The route handlers serving the app built in `dist` (none of them in the spec)."""

    @get(PAGES, include_in_schema=False, sync_to_thread=False, name="app-page")
    def page(request: Request[Any, Any, Any]) -> Response[str]:
        return _page(dist, request)

    @get(
        [f"{tree}/{{rest:path}}" for tree in PAGE_TREES],
        include_in_schema=False,
        sync_to_thread=False,
        name="app-page-below",
    )
    def page_below(request: Request[Any, Any, Any]) -> Response[str]:
        return _page(dist, request)

    @get("/assets/{name:str}", include_in_schema=False, sync_to_thread=False, name="app-asset")
    def asset(request: Request[Any, Any, Any]) -> Response[bytes]:
        name = str(request.path_params["name"])
        media_type = ASSET_TYPES.get(Path(name).suffix)
        if not _ASSET_NAME.fullmatch(name) or media_type is None:
            raise ProblemError(404, "not-found", say(NO_APP_FILE))
        return _file(dist / "assets" / name, media_type, IMMUTABLE)

    def root_file(name: str, media_type: str) -> HTTPRouteHandler:
        @get(f"/{name}", include_in_schema=False, sync_to_thread=False, name=f"app-{name}")
        def serve() -> Response[bytes]:
            return _file(dist / name, media_type, "no-cache")

        return serve

    return [page, page_below, asset, *(root_file(n, t) for n, t in ROOT_FILES.items())]
