"""HTTP hygiene (issue 10): media types, HEAD, problems for every error, Vary, nosniff, CORS."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from pydantic import ValidationError

from api.app import CORS_EXPOSED, CORS_HEADERS, create_app
from api.http.hygiene import is_json_media_type
from api.http.problems import canonical_allow
from api.ops.settings import TRACING_HEADERS, Settings

SCORE = "/v1/rulesets/numwars-classic/score-round"
BODY = json.dumps({"players": [{"captured": ["rainbow-14", "shadow-14"]}]})
ORIGIN = "https://front.example"


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    assert body["status"] == status
    assert body["type"].endswith("/" + code)
    assert body["title"] and body["detail"]
    return body


# --- 415 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin-1",
        "application/xml",
    ],
)
def test_a_body_not_declared_as_json_is_415(client: TestClient[Any], content_type: str) -> None:
    response = client.post(SCORE, content=BODY, headers={"content-type": content_type})
    body = _problem(response, 415, "unsupported-media-type")
    assert "application/json" in body["detail"]
    assert response.headers["accept-post"] == "application/json"


def test_a_multipart_form_is_415(client: TestClient[Any]) -> None:
    response = client.post(SCORE, files={"players": ("a.json", BODY, "application/json")})
    _problem(response, 415, "unsupported-media-type")


def test_a_body_without_content_type_is_415(client: TestClient[Any]) -> None:
    request = client.build_request("POST", SCORE, content=BODY.encode())
    assert "content-type" not in request.headers
    assert request.headers["content-length"] == str(len(BODY))
    body = _problem(client.send(request), 415, "unsupported-media-type")
    assert "no Content-Type" in body["detail"]


@pytest.mark.parametrize(
    ("body", "french", "english"),
    [
        (b'{"a": \x01}', "caractère invalide à l’octet 6", "invalid character at byte 6"),
        (b"[1,]", "virgule en trop à la fin d’un tableau à l’octet 3", "trailing comma in array"),
        (b'{"a" 1}', "«\u00a0:\u00a0» attendu à l’octet 5", "expected ':' at byte 5"),
        (b'{"a": "\xff"}', "une chaîne n’est pas de l’UTF-8 valide", "not valid UTF-8"),
    ],
)
def test_a_json_syntax_error_is_said_in_the_callers_language(
    client: TestClient[Any], body: bytes, french: str, english: str
) -> None:
    """msgspec's words for where the JSON broke, in French too (no English left inside)."""
    json_type = {"content-type": "application/json"}
    fr = client.post(SCORE, content=body, headers={**json_type, "accept-language": "fr"})
    assert french in _problem(fr, 400, "malformed-json")["detail"]
    en = client.post(SCORE, content=body, headers=json_type)
    assert english in _problem(en, 400, "malformed-json")["detail"]


def test_an_empty_post_without_content_type_asks_for_json(client: TestClient[Any]) -> None:
    """No body, no content type: the operation's own answer, 400 `malformed-json`."""
    request = client.build_request("POST", SCORE)
    assert "content-type" not in request.headers
    body = _problem(client.send(request), 400, "malformed-json")
    assert "empty" in body["detail"]


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON;charset=UTF-8",
        "application/merge-patch+json",
        "application/problem+json",
    ],
)
def test_json_media_types_are_accepted(client: TestClient[Any], content_type: str) -> None:
    response = client.post(SCORE, content=BODY, headers={"content-type": content_type})
    assert response.status_code == 200, response.text
    assert response.json()["players"][0]["score"] > 0


def test_the_media_type_rule() -> None:
    assert is_json_media_type("application/json")
    assert is_json_media_type("application/vnd.numrules+json; charset=utf8")
    assert not is_json_media_type("application/jsonx")
    assert not is_json_media_type("text/json")
    assert not is_json_media_type("application/json; charset=utf-16")


def test_get_operations_ignore_the_content_type(client: TestClient[Any]) -> None:
    response = client.get("/v1/rulesets", headers={"content-type": "text/plain"})
    assert response.status_code == 200


# --- HEAD -------------------------------------------------------------------------------

GET_RESOURCES = [
    "/healthz",
    "/openapi.json",
    "/v1/rulesets",
    "/v1/rulesets/numking",
    "/v1/rulesets/numwin/deck?players=4",
    "/docs",
    "/docs/openapi.json",
    "/docs/assets/swagger-ui.css",
]


@pytest.mark.parametrize("path", GET_RESOURCES)
def test_head_answers_every_get_resource_without_a_body(client: TestClient[Any], path: str) -> None:
    got = client.get(path)
    head = client.head(path)
    assert got.status_code == head.status_code == 200
    assert head.content == b""
    assert got.content != b""
    for name in ("content-type", "content-length", "x-content-type-options"):
        assert head.headers.get(name) == got.headers.get(name), name


def test_every_get_route_of_the_app_answers_head(tmp_path: Path) -> None:
    """No GET route is left out of HEAD, the rulesets' deck routes and the docs included; the
    account's routes answer HEAD as GET: 401 without a session. On a migrated database: the
    open tables' list (`GET /v1/games`) reads it."""
    from api.db import migrations
    from api.ops.settings import Settings

    url = f"sqlite+aiosqlite:///{tmp_path / 'numrules.db'}"
    migrations.upgrade(url)
    app = create_app(Settings(database_url=url, check_db_on_start=False))
    with TestClient(app) as client:
        paths = [
            route.path
            for route in app.routes
            if "GET" in getattr(route, "methods", ()) and "{" not in route.path
        ]
        assert len(paths) >= 6, paths
        for path in paths:
            query = "?players=4" if path.endswith("/deck") else ""
            expected = 401 if path.startswith("/v1/me") else 200
            assert client.head(path + query).status_code == expected, path
            assert client.get(path + query).status_code == expected, path


def test_head_on_an_unknown_path_is_a_404_without_a_body(client: TestClient[Any]) -> None:
    response = client.head("/v1/nothing")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.content == b""


# --- problems for every error -------------------------------------------------------------


@pytest.mark.parametrize("path", ["/docs/scalar", "/docs/swagger", "/docs/redoc", "/docs/x.json"])
def test_unknown_docs_paths_are_404_problems(client: TestClient[Any], path: str) -> None:
    body = _problem(client.get(path), 404, "not-found")
    assert "/docs" in body["detail"]


def test_a_missing_docs_asset_is_a_404_problem(client: TestClient[Any]) -> None:
    _problem(client.get("/docs/assets/no-such-file.js"), 404, "not-found")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize(
    "path",
    [
        "/docs/index.html",
        "/docs/swagger",
        "/docs/assets/no-such-file.js",
        "/docs/assets/",
    ],
)
@pytest.mark.parametrize("language", ["en", "fr"])
def test_another_method_where_docs_hold_nothing_is_the_get_s_404(
    client: TestClient[Any], method: str, path: str, language: str
) -> None:
    """Not a 405 saying "use GET, HEAD" where a GET finds nothing: the GET's own 404,
    word for word, in the caller's language."""
    head = {"Accept-Language": language}
    response = client.request(method, path, headers=head)
    got = _problem(response, 404, "not-found")
    assert "allow" not in response.headers
    assert response.headers["content-language"] == language
    expected = _problem(client.get(path, headers=head), 404, "not-found")
    assert got["detail"] == expected["detail"]


@pytest.mark.parametrize(
    "path",
    [
        "/docs",
        "/docs/",
        "/docs/openapi.json",
        "/docs/openapi.json/",
        "/docs/assets/swagger-ui.css",
        "/docs/assets//swagger-ui.css",
        "/docs/assets/swagger-ui.css/",
    ],
)
def test_another_method_on_a_docs_resource_is_still_405(client: TestClient[Any], path: str) -> None:
    assert client.get(path).status_code == 200
    response = client.post(path)
    _problem(response, 405, "method-not-allowed")
    assert response.headers["allow"].startswith("GET, HEAD")


@pytest.mark.parametrize(
    ("method", "path"),
    [("DELETE", "/healthz"), ("PUT", "/v1/rulesets"), ("GET", SCORE), ("POST", "/docs")],
)
def test_405_is_a_problem_with_allow(client: TestClient[Any], method: str, path: str) -> None:
    response = client.request(method, path)
    _problem(response, 405, "method-not-allowed")
    allowed = {m.strip() for m in response.headers["allow"].split(",")}
    assert method not in allowed
    if "GET" in allowed:
        assert "HEAD" in allowed


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/healthz", "GET, HEAD, OPTIONS"),
        ("GET", f"/v1/games/{'a' * 32}/actions", "POST, OPTIONS"),
        ("PUT", f"/v1/games/{'a' * 32}", "GET, HEAD, OPTIONS"),
    ],
)
def test_a_405_names_the_methods_in_one_order(
    client: TestClient[Any], method: str, path: str, allow: str
) -> None:
    """Litestar's order followed each process's hash seed; the answer's is fixed."""
    response = client.request(method, path)
    _problem(response, 405, "method-not-allowed")
    assert response.headers["allow"] == allow


@pytest.mark.parametrize(
    ("path", "refused"),
    [("/healthz", "PUT"), ("/v1/games", "DELETE"), (f"/v1/scoresheets/{'a' * 32}", "POST")],
)
def test_an_options_answer_names_the_methods_as_its_405(
    client: TestClient[Any], path: str, refused: str
) -> None:
    """A plain OPTIONS (not a preflight) listed Litestar's alphabetical order, HEAD last."""
    options = client.options(path)
    assert options.status_code == 204, options.text
    assert options.headers["allow"] == client.request(refused, path).headers["allow"]


def test_the_allowed_methods_order_does_not_depend_on_the_order_given() -> None:
    listed = ["OPTIONS", "DELETE", "GET", "PATCH", "POST", "PUT", "PROPFIND"]
    for shift in range(len(listed)):
        given = ", ".join(listed[shift:] + listed[:shift])
        assert canonical_allow(given) == ("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, PROPFIND")


def test_a_refused_preflight_is_a_problem(client: TestClient[Any]) -> None:
    response = client.options(
        SCORE,
        headers={"origin": ORIGIN, "access-control-request-method": "TRACE"},
    )
    body = _problem(response, 400, "cors-preflight-refused")
    assert "method" in body["detail"]


# --- Vary and Content-Language ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "language"), [("fr-FR,fr;q=0.9", "fr"), ("en", "en"), (None, "en")]
)
def test_localized_answers_name_their_language(
    client: TestClient[Any], accept: str | None, language: str
) -> None:
    headers = {"accept-language": accept} if accept else {}
    response = client.get("/v1/rulesets/numwars", headers=headers)
    assert response.status_code == 200
    assert response.json()["language"] == language
    assert response.headers["content-language"] == language
    assert "accept-language" in response.headers["vary"].lower()


def test_vary_keeps_origin_when_cors_names_its_origins() -> None:
    app = create_app(Settings(cors_origins=[ORIGIN]))
    with TestClient(app) as client:
        response = client.get("/v1/rulesets/numwin", headers={"origin": ORIGIN})
    vary = {v.strip().lower() for v in response.headers["vary"].split(",")}
    assert {"origin", "accept-language"} <= vary
    assert response.headers["access-control-allow-origin"] == ORIGIN
    with TestClient(app) as client:  # without Origin, or another one: still `Vary: Origin`
        for headers in ({}, {"origin": "https://other.example"}):
            response = client.get("/v1/rulesets", headers=headers)
            assert "origin" in response.headers["vary"].lower()


def test_answers_not_localized_do_not_vary_by_language(client: TestClient[Any]) -> None:
    """An answer without words (a deck: card codes and counts) names no language; the
    catalogue, whose names are localized since issue 23, does."""
    response = client.get("/v1/rulesets/numwin/deck?players=4", headers={"accept-language": "fr"})
    assert response.status_code == 200
    assert "content-language" not in response.headers
    assert "accept-language" not in response.headers.get("vary", "").lower()
    catalogue = client.get("/v1/rulesets", headers={"accept-language": "fr"})
    assert catalogue.headers["content-language"] == "fr"
    assert "accept-language" in catalogue.headers["vary"].lower()


# --- nosniff ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/healthz"),
        ("GET", "/docs"),
        ("GET", "/docs/assets/swagger-ui-bundle.js"),
        ("GET", "/nowhere"),
        ("DELETE", "/healthz"),
        ("POST", SCORE),
        ("OPTIONS", SCORE),
    ],
)
def test_every_answer_says_nosniff(client: TestClient[Any], method: str, path: str) -> None:
    response = client.request(method, path, headers={"origin": ORIGIN})
    assert response.headers["x-content-type-options"] == "nosniff"


# --- CORS ------------------------------------------------------------------------------------


def _preflight(client: TestClient[Any], path: str, method: str, headers: str | None = None) -> Any:
    request_headers = {"origin": ORIGIN, "access-control-request-method": method}
    if headers:
        request_headers["access-control-request-headers"] = headers
    return client.options(path, headers=request_headers)


def _listed(value: str) -> set[str]:
    return {v.strip().lower() for v in value.split(",") if v.strip()}


@pytest.mark.parametrize("path", [SCORE, "/v1/games/abc/actions", "/no/such/path"])
@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"])
def test_preflight_grants_the_api_methods_and_headers(
    client: TestClient[Any], path: str, method: str
) -> None:
    asked = "authorization, content-type, if-match, idempotency-key, last-event-id"
    response = _preflight(client, path, method, asked)
    assert response.status_code == 204, response.text
    assert response.headers["access-control-allow-origin"] == "*"
    assert _listed(asked) <= _listed(response.headers["access-control-allow-headers"])
    methods = _listed(response.headers["access-control-allow-methods"])
    assert methods == {"get", "head", "post", "put", "patch", "delete", "options"}


@pytest.mark.parametrize("path", [SCORE, "/no/such/path"])
@pytest.mark.parametrize(
    ("method", "headers"),
    [("TRACE", None), ("CONNECT", None), ("POST", "x-evil"), ("POST", "content-type, cookie")],
)
def test_preflight_refuses_anything_else(
    client: TestClient[Any], path: str, method: str, headers: str | None
) -> None:
    response = _preflight(client, path, method, headers)
    assert response.status_code == 400
    assert "access-control-allow-origin" not in response.headers
    assert "access-control-allow-methods" not in response.headers
    if headers:
        granted = _listed(response.headers.get("access-control-allow-headers", ""))
        assert not {"x-evil", "cookie"} & granted


def test_the_granted_headers_are_exactly_the_apis(client: TestClient[Any]) -> None:
    response = _preflight(client, "/no/such/path", "POST", "content-type")
    granted = _listed(response.headers["access-control-allow-headers"])
    safelisted = {"accept", "accept-language", "content-language", "content-type"}
    assert granted == {h.lower() for h in CORS_HEADERS} | set(TRACING_HEADERS) | safelisted


def test_a_preflight_may_ask_for_the_headers_browsers_tracing_adds(
    client: TestClient[Any],
) -> None:
    """Issue 23: OpenTelemetry's and Sentry's browser instrumentations add `traceparent`,
    `tracestate`, `baggage`, `sentry-trace` to every fetch; jQuery adds `X-Requested-With`. A
    refused preflight fails the request itself, so a front-end with tracing on could not call
    the API at all."""
    asked = "content-type, traceparent, tracestate, baggage, sentry-trace, x-requested-with"
    for path in (SCORE, "/v1/games/abc/actions"):
        response = _preflight(client, path, "POST", asked.upper())  # names are case-blind
        assert response.status_code == 204, response.text
        assert _listed(asked) <= _listed(response.headers["access-control-allow-headers"])
    with TestClient(create_app(Settings(cors_origins=[ORIGIN]))) as named:
        response = _preflight(named, SCORE, "POST", "traceparent")
        assert response.status_code == 204, response.text
        assert response.headers["access-control-allow-origin"] == ORIGIN


def test_the_extra_headers_are_a_setting() -> None:
    """`NUMRULES_CORS_EXTRA_HEADERS` replaces the tracing headers: `[]` grants only the API's
    own, a list grants those it names (and still never anything else)."""
    with TestClient(create_app(Settings(cors_extra_headers=[]))) as none:
        _problem(_preflight(none, SCORE, "POST", "traceparent"), 400, "cors-preflight-refused")
        assert _preflight(none, SCORE, "POST", "if-match").status_code == 204
    with TestClient(create_app(Settings(cors_extra_headers=["X-Amzn-Trace-Id"]))) as custom:
        granted = _preflight(custom, SCORE, "POST", "x-amzn-trace-id, authorization")
        assert granted.status_code == 204, granted.text
        _problem(_preflight(custom, SCORE, "POST", "sentry-trace"), 400, "cors-preflight-refused")


@pytest.mark.parametrize("names", ['["*"]', '["trace parent"]', '[""]', '["x-a:b"]'])
def test_the_extra_headers_are_header_names(names: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`*` would grant every header (the allow list would be gone): a setting names headers."""
    monkeypatch.setenv("NUMRULES_CORS_EXTRA_HEADERS", names)
    with pytest.raises(ValidationError, match="is not a header name"):
        Settings()


def test_a_preflight_may_ask_for_x_api_key(client: TestClient[Any]) -> None:
    """Issue 21: a browser app sends its API key beside its session (contract, Credentials)."""
    response = _preflight(client, SCORE, "POST", "content-type, x-api-key, authorization")
    assert response.status_code in (200, 204)
    granted = _listed(response.headers["access-control-allow-headers"])
    assert {"x-api-key", "authorization"} <= granted


def test_answers_expose_etag_location_retry_after_and_the_rate_limit(
    client: TestClient[Any],
) -> None:
    response = client.post(
        SCORE, content=BODY, headers={"origin": ORIGIN, "content-type": "application/json"}
    )
    assert response.status_code == 200
    assert _listed(response.headers["access-control-expose-headers"]) == {
        h.lower() for h in CORS_EXPOSED
    }
    assert {h.lower() for h in CORS_EXPOSED} == {
        "etag",
        "location",
        "retry-after",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
    }


def test_cors_can_be_turned_off() -> None:
    with TestClient(create_app(Settings(cors_origins=[]))) as client:
        response = client.get("/healthz", headers={"origin": ORIGIN})
        assert "access-control-allow-origin" not in response.headers
        assert response.headers["x-content-type-options"] == "nosniff"
