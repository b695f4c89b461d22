"""README.md's examples: its curl examples run against the app, and answer what the README
says; its Python examples run as written.

Every `curl` command in a ```sh block of the README is parsed (shlex), sent through the test
client, and its answer matched against the `# answers: {...}` line that follows it (a subset
match, as for the conformance cases; `status` in it is the HTTP status, else 200 is expected;
`http`, when given, is the HTTP status and `status` a field of the body).
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any
from urllib.parse import urlsplit

import pytest
from litestar.testing import TestClient

from tests.api.test_conformance import subset_match
from tests.conftest import ROOT

README = ROOT / "README.md"
SERVED_AT = "127.0.0.1:8000"  # where README says `deploy/serve.sh` serves


def _closed(command: str) -> bool:
    try:
        shlex.split(command)
    except ValueError:  # a quote still open: the command goes on on the next line
        return False
    return True


def _examples() -> list[tuple[str, dict[str, Any]]]:
    """(curl command, expected answer) for each curl of each ```sh block."""
    text = README.read_text(encoding="utf-8")
    examples: list[tuple[str, dict[str, Any]]] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        command: str | None = None  # a curl command, once its quotes are all closed
        pending = ""  # the lines of a curl command whose quotes are still open
        for line in block.replace("\\\n", " ").splitlines():
            stripped = line.strip()
            if pending or stripped.startswith("curl "):
                assert command is None, f"no `# answers:` after {command}"
                pending = f"{pending}\n{stripped}" if pending else stripped
                if _closed(pending):
                    command, pending = pending, ""
            elif stripped.startswith("# answers:"):
                assert command is not None, f"`{stripped}` follows no curl"
                examples.append((command, json.loads(stripped.removeprefix("# answers:"))))
                command = None
        assert command is None and not pending, f"no `# answers:` after {command or pending}"
    return examples


def _request(command: str) -> tuple[str, str, dict[str, str], str | None]:
    """Method, URL, headers and body of a curl command (the options README uses)."""
    words = shlex.split(command)
    assert words[0] == "curl"
    method, url, body = None, None, None
    headers: dict[str, str] = {}
    args = iter(words[1:])
    for word in args:
        if word in ("-s", "--silent", "-i"):
            continue
        if word in ("-H", "--header"):
            name, _, value = next(args).partition(":")
            headers[name.strip().lower()] = value.strip()
        elif word in ("-d", "--data"):
            body = next(args)
        elif word in ("-X", "--request"):
            method = next(args)
        elif not word.startswith("-"):
            url = word
        else:
            raise AssertionError(f"README uses a curl option this test does not know: {word}")
    assert url is not None, command
    if body is not None:  # what curl -d sends when no content type is given
        headers.setdefault("content-type", "application/x-www-form-urlencoded")
    return method or ("POST" if body is not None else "GET"), url, headers, body


EXAMPLES = _examples()


def test_the_readme_has_its_examples() -> None:
    commands = " ".join(command for command, _ in EXAMPLES)
    assert len(EXAMPLES) >= 5
    assert "score-round" in commands and "validate-move" in commands


@pytest.mark.parametrize(
    ("command", "expected"), EXAMPLES, ids=[urlsplit(_request(c)[1]).path for c, _ in EXAMPLES]
)
def test_a_readme_example(
    client: TestClient[Any], request: pytest.FixtureRequest, command: str, expected: dict[str, Any]
) -> None:
    method, url, headers, body = _request(command)
    parts = urlsplit(url)
    if parts.path.startswith(("/v1/games", "/v1/scoresheets")):  # the app on PostgreSQL
        client = request.getfixturevalue("games")
    assert parts.netloc == SERVED_AT, url
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    response = client.request(method, path, headers=headers, content=body)
    expected = dict(expected)
    status = expected.pop("http", expected.get("status", 200))  # `http`: when the body has
    assert response.status_code == status, response.text  # a `status` of its own (games)
    subset_match(expected, response.json())


def test_the_must_raise_example_says_what_the_readme_says() -> None:
    """The answer README promises in prose is the one its `# answers:` line checks."""
    answers = {urlsplit(_request(c)[1]).path: e for c, e in EXAMPLES}
    assert answers["/v1/rulesets/numwars-classic/validate-move"] == {
        "legal": False,
        "reason": "must-raise",
        "legal_moves": ["shadow-14"],
    }
    assert answers["/v1/rulesets/numwars-classic/score-round"]["players"][0]["score"] == 40


def test_the_readme_names_the_docs_as_they_are(client: TestClient[Any]) -> None:
    text = README.read_text(encoding="utf-8")
    assert "http://127.0.0.1:8000/docs" in text
    assert client.get("/docs").status_code == 200
    assert "`/docs/scalar`" in text and client.get("/docs/scalar").status_code == 404
    assert ".venv/bin/numrules" in text


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_readme_has_its_python_examples() -> None:
    assert len(_python_blocks()) >= 2


@pytest.mark.parametrize("block", _python_blocks())
def test_a_readme_python_example_runs(block: str) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(block, "README.md", "exec"), namespace)  # its own asserts check the claims
    assert namespace  # it defined what it shows
