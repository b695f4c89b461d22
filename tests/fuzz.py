"""The schemathesis set-up the database-backed suites share (tests/games, tests/accounts)."""

from __future__ import annotations

from typing import Any

import schemathesis
from schemathesis import GenerationMode
from schemathesis.config import PositiveDataAcceptanceConfig


def fuzzed(
    spec: dict[str, Any], app: Any, tags: list[str], examples: int, expected: list[str]
) -> Any:
    """The operations of `spec` tagged with one of `tags`, called in process on `app`:
    positive and negative data, `examples` per operation and mode, 10 s per request, and
    `expected` the statuses a schema-valid request may get (`positive_data_acceptance`)."""
    schema = schemathesis.openapi.from_dict(spec)
    for tag in tags:
        schema = schema.include(tag=tag)
    schema.app = app
    schema.location = "/openapi.json"
    schema.config.generation.update(
        modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=examples
    )
    schema.config.update(request_timeout=10)
    schema.config.checks.positive_data_acceptance = PositiveDataAcceptanceConfig(
        expected_statuses=expected
    )
    return schema
