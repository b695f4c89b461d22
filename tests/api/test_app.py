"""The web app (issue 24) as the service serves it, and its sources' type check.

* `GET /` and the app's other paths answer the built page, French by default and English for
  `Accept-Language: en` (`<html lang>`, `<title>`, `Content-Language`, `Vary`), never cached,
  with a CSP; the hashed assets are cached for a year; the manifest and the service worker are
  served; the API's paths are never shadowed (an unknown `/v1/...` stays a JSON 404 problem).
* Without a build, the page says how to make one (200, never a 500).
* The app's sources type-check with `tsc --strict` against types generated from the spec the
  service serves (a spec change that breaks the app fails here), and take no shortcut (no
  cast, no `any`: tests/api/test_typescript.py's rules).

The build is deploy/ensure-app.sh's (deploy/test.sh runs it first): without it the tests on the
built page fail, saying how to build.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from api.app import create_app, spec_dict
from api.web.routes import DIST, TITLES, page_language
from tests.api.test_typescript import BIN, CLIENT, shortcuts
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def built() -> Path:
    if not (DIST / "index.html").is_file():
        pytest.fail("the web app is not built: run `bash deploy/ensure-app.sh`")
    return DIST


@pytest.fixture(scope="module")
def web(built: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(create_app()) as client:
        yield client


def test_the_page_is_french_by_default_and_english_when_asked(web: TestClient) -> None:  # type: ignore[type-arg]
    for headers, language in (
        ({}, "fr"),
        ({"Accept-Language": "fr-FR,fr;q=0.9"}, "fr"),
        ({"Accept-Language": "de"}, "fr"),
        ({"Accept-Language": "en"}, "en"),
        ({"Accept-Language": "en-US,en;q=0.9,fr;q=0.5"}, "en"),
    ):
        answer = web.get("/", headers=headers)
        assert answer.status_code == 200, headers
        assert answer.headers["content-type"] == "text/html; charset=utf-8"
        assert answer.headers["content-language"] == language
        assert "accept-language" in answer.headers["vary"].lower()
        assert answer.headers["cache-control"] == "no-cache"
        assert f'<html lang="{language}"' in answer.text
        assert f"<title>{TITLES[language]}</title>" in answer.text
        assert '<link rel="manifest" href="/manifest.webmanifest"' in answer.text
        csp = answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert answer.headers["referrer-policy"] == "no-referrer"


def test_page_language() -> None:
    assert page_language(None) == "fr"
    assert page_language("") == "fr"
    assert page_language("en-GB") == "en"
    assert page_language("es, en;q=0.8") == "en"
    assert page_language("es") == "fr"
    assert page_language("fr;q=0.2, en;q=0.9") == "en"
    assert page_language("en;q=0.2, fr;q=0.9") == "fr"
    assert page_language("*") == "en"


@pytest.mark.parametrize(
    "header", ["en;q=0", "en;q=0, fr;q=0", "de, en;q=0", "en;q=1;q=1", "en;q=2", "*;q=0"]
)
def test_a_page_is_not_in_a_language_the_header_refuses(
    web: TestClient,  # type: ignore[type-arg]
    header: str,
) -> None:
    """`en;q=0` refuses English, and a range with a malformed quality is left out (as the
    API's answers read them): the page was in English for these, the API's default taken
    for the header's choice because the header named `en`."""
    assert page_language(header) == "fr"
    answer = web.get("/", headers={"Accept-Language": header})
    assert answer.status_code == 200
    assert answer.headers["content-language"] == "fr"
    assert '<html lang="fr"' in answer.text


@pytest.mark.parametrize(
    "path",
    [
        "/connexion",
        "/inscription",
        "/login",
        "/reset-password?token=abc",
        "/verify-email?token=abc",
        "/reinitialiser?token=abc",
        "/feuilles/nouvelle",
        "/tables",
        "/sheets/3f6c1d2e9a8b47c5b0e4d7a1c2f3e4d5",
    ],
)
def test_the_app_paths_answer_the_page(web: TestClient, path: str) -> None:  # type: ignore[type-arg]
    answer = web.get(path)
    assert answer.status_code == 200
    assert '<div id="app">' in answer.text


@pytest.mark.parametrize(
    "path", ["/v1/nothing", "/v1/rulesets/numwars/nothing", "/nothing", "/assets/nope.js"]
)
def test_other_paths_stay_404_problems(web: TestClient, path: str) -> None:  # type: ignore[type-arg]
    answer = web.get(path, headers={"Accept-Language": "fr"})
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "not-found"


def test_the_api_is_not_shadowed(web: TestClient) -> None:  # type: ignore[type-arg]
    assert web.get("/healthz").json() == {"status": "ok"}
    assert web.get("/openapi.json").json()["openapi"].startswith("3.")
    assert "swagger" in web.get("/docs").text.lower()
    assert web.get("/v1/rulesets").status_code == 200
    assert "/" not in spec_dict()["paths"]  # the app's routes are no operations


def test_assets_are_cached_for_long_and_the_shell_files_served(
    web: TestClient, built: Path
) -> None:  # type: ignore[type-arg]
    html = web.get("/").text
    assets = re.findall(r'(?:src|href)="(/assets/[^"]+)"', html)
    assert any(a.endswith(".js") for a in assets), html
    for asset in assets:
        answer = web.get(asset)
        assert answer.status_code == 200, asset
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert answer.headers["content-type"].count("charset") <= 1
        assert answer.content == (built / asset.lstrip("/")).read_bytes()
    manifest = web.get("/manifest.webmanifest")
    assert manifest.status_code == 200
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    body = manifest.json()
    assert body["start_url"] == "/" and body["display"] == "standalone" and body["icons"]
    worker = web.get("/sw.js")
    assert worker.status_code == 200
    assert worker.headers["content-type"] == "text/javascript; charset=utf-8"
    assert worker.headers["cache-control"] == "no-cache"
    assert "caches" in worker.text
    head = web.head("/")
    assert head.status_code == 200 and head.content == b""


def test_an_unbuilt_app_says_how_to_build_it(tmp_path: Path) -> None:
    with TestClient(create_app(web_dist=tmp_path)) as client:
        answer = client.get("/")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/html")
        assert "deploy/ensure-app.sh" in answer.text
        assert client.get("/sw.js").status_code == 404
        assert client.get("/v1/rulesets").status_code == 200


# -- the sources ---------------------------------------------------------------------------------


def app_sources() -> list[Path]:
    return sorted((CLIENT / "src").rglob("*.ts*"))


def test_the_app_takes_no_shortcut() -> None:
    sources = app_sources()
    assert len(sources) >= 5
    found = {str(p.relative_to(ROOT)): shortcuts(p.read_text(encoding="utf-8")) for p in sources}
    assert not any(found.values()), found


def test_the_catalogue_has_every_key_in_both_languages() -> None:
    """`en` is typed by `fr` (a missing key fails tsc); and no English word is left French."""
    source = (CLIENT / "src" / "i18n.ts").read_text(encoding="utf-8")
    assert "const en: Texts = {" in source
    assert "export type Texts = typeof fr;" in source


def _type_check(spec: dict[str, Any], where: Path) -> subprocess.CompletedProcess[str]:
    """`tsc --strict` over the app's sources (and check.ts) with types generated from `spec`."""
    if not (BIN / "tsc").exists():
        pytest.fail("app is not installed: run `bash deploy/setup.sh dev`")
    (where / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    (where / "node_modules").symlink_to(CLIENT / "node_modules", target_is_directory=True)
    generated = subprocess.run(
        [str(BIN / "openapi-typescript"), "openapi.json", "-o", "schema.d.ts"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert generated.returncode == 0, generated.stderr
    shutil.copytree(CLIENT / "src", where / "src")
    shutil.copy(CLIENT / "check.ts", where / "check.ts")
    config = json.loads((CLIENT / "tsconfig.json").read_text(encoding="utf-8"))
    assert config["compilerOptions"]["strict"] is True
    assert config["include"] == ["src"]
    (where / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run(
        [str(BIN / "tsc"), "--strict", "--noEmit", "-p", "."],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_app_type_checks_against_the_served_spec(tmp_path: Path) -> None:
    checked = _type_check(spec_dict(), tmp_path)
    assert checked.returncode == 0, checked.stdout[-4000:] + checked.stderr[-2000:]


def test_a_spec_change_that_breaks_the_app_fails_the_check(tmp_path: Path) -> None:
    """The check can fail: a sheet without `totals` (a field the app shows) is refused."""
    spec = copy.deepcopy(spec_dict())
    sheet = spec["components"]["schemas"]["SheetOut"]
    del sheet["properties"]["totals"]
    sheet["required"].remove("totals")
    checked = _type_check(spec, tmp_path)
    assert checked.returncode != 0
    assert "src/sheet.tsx" in checked.stdout and "totals" in checked.stdout, checked.stdout[-3000:]


def test_the_package_ships_the_built_app(built: Path) -> None:
    """pyproject.toml's package data holds every file the app is served from, so an installed
    package (and the compiled build serve.sh runs, installed the same way) serves it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = project["tool"]["setuptools"]["package-data"]["api.web"]
    package = built.parent
    served = [p for p in built.rglob("*") if p.is_file() and p.name != ".numrules-js-gzip-bytes"]
    assert any(p.parent.name == "assets" for p in served)
    for path in served:
        relative = str(path.relative_to(package))
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), relative
