"""The docs page works offline: every script and stylesheet of /docs comes from the service.

Swagger UI's files come from the pinned `swagger-ui-bundle-v2` package (pyproject.toml);
tests/api/test_docs_browser.py renders the page in a real headless Chromium.
"""

from __future__ import annotations

import re
import tomllib
from html.parser import HTMLParser
from importlib.metadata import version
from typing import Any

from litestar.testing import TestClient

from api.app import SWAGGER_UI_DIR
from tests.conftest import ROOT

#: What each kind of asset must be served as.
EXPECTED_TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


class _Assets(HTMLParser):
    """The URLs of every `<script src>` and `<link href>` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"script": "src", "link": "href"}.get(tag)
        for name, value in attrs:
            if name == wanted and value is not None:
                self.urls.append(value)


def test_every_script_and_stylesheet_of_the_docs_is_served_by_the_app(
    client: TestClient[Any],
) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    parser = _Assets()
    parser.feed(page.text)
    urls = parser.urls
    assert len(urls) >= 4, urls  # the bundle, the standalone preset, the stylesheet, the icon
    assert any(u.endswith("swagger-ui-bundle.js") for u in urls)
    assert any(u.endswith(".css") for u in urls)
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), f"{url} is not on the service"
        response = client.get(url)
        assert response.status_code == 200, url
        suffix = url[url.rindex(".") :]
        assert response.headers["content-type"].startswith(EXPECTED_TYPES[suffix]), url
        assert response.content == (SWAGGER_UI_DIR / url.rsplit("/", 1)[1]).read_bytes()


def test_the_docs_page_names_no_other_host(client: TestClient[Any]) -> None:
    """No CDN: no `src` or `href` attribute anywhere in the page points off the service."""
    page = client.get("/docs").text
    assert not re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)


def test_swagger_ui_is_the_pinned_release() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = [d for d in pyproject["project"]["dependencies"] if d.startswith("swagger-ui-bundle")]
    assert pins == [f"swagger-ui-bundle-v2=={version('swagger-ui-bundle-v2')}"]
    assert SWAGGER_UI_DIR.name == f"swagger-ui-{version('swagger-ui-bundle-v2')}"
    assert (SWAGGER_UI_DIR / "swagger-ui-bundle.js").is_file()
