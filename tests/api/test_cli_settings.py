"""A bad setting in the environment is one line naming the variable, exit status 2, never a
traceback (found by trying the service as a newcomer)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from pydantic import ValidationError


@pytest.mark.parametrize(
    ("variable", "value", "words"),
    [
        ("NUMRULES_MAX_BODY_BYTES", "abc", "valid integer"),
        ("NUMRULES_CORS_ORIGINS", "http://a.example", "not JSON"),
        ("DATABASE_URL", "mysql://x", "'mysql' is not supported"),
    ],
)
@pytest.mark.parametrize("command", [["serve", "--port", "1"], ["db", "current"]])
def test_a_bad_setting_is_one_line(
    variable: str, value: str, words: str, command: list[str]
) -> None:
    env = {**os.environ, variable: value}
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"numrules: {variable}: "), done.stderr
    assert words in lines[0] and "Traceback" not in done.stderr


def test_an_unreachable_database_is_one_line() -> None:
    env = {**os.environ, "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "db", "current"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("numrules db current: cannot reach the database")
    assert len(done.stderr.strip().splitlines()) == 1


def test_host_port_and_workers_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """HOST and PORT (the conventional names) and NUMRULES_WORKERS are settings; a bad one
    is named by its variable."""
    from api.cli import settings_errors
    from api.ops.settings import Settings

    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("PORT", "9123")
    monkeypatch.setenv("NUMRULES_WORKERS", "3")
    settings = Settings()
    assert (settings.host, settings.port, settings.workers) == ("0.0.0.0", 9123, 3)
    monkeypatch.setenv("PORT", "not-a-port")
    with pytest.raises(ValidationError) as refused:
        Settings()
    assert [name for name, _ in settings_errors(refused.value)] == ["PORT"]
