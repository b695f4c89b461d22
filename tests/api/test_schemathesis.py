"""schemathesis against the real app: positive and negative data for every operation.

Checks: no server error, responses conform to their schema, no undocumented status code,
content types as documented, negative data rejected. Not `positive_data_acceptance`: a body can
fit the schema and still break the rules the schema cannot say (a card outside the deck for that
player count, a duplicated card, seats out of clockwise order), which is a documented 422.
A bounded number of examples keeps the suite within minutes.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from api.app import create_app

# A separate app instance: schemathesis runs its own lifespan, apart from the TestClient fixture.
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app())
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=40
)


@schema.parametrize()
def test_api_conforms_to_its_spec(case: Any) -> None:
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
