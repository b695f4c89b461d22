"""The committed spec equals what the app serves; every operation is documented."""

from __future__ import annotations

import json
from typing import Any

from api.app import openapi_json
from tests.conftest import ROOT


def test_committed_spec_matches_the_app() -> None:
    committed = (ROOT / "openapi" / "openapi.json").read_text(encoding="utf-8")
    assert committed == openapi_json(), "openapi/openapi.json is stale: run `numrules openapi`"


def test_served_spec_is_the_same(client: Any) -> None:
    served = client.get("/openapi.json")
    assert served.status_code == 200
    assert served.json() == json.loads(openapi_json())
    assert client.get("/docs").status_code == 200


def test_every_operation_has_summary_description_and_errors() -> None:
    spec = json.loads(openapi_json())
    assert spec["openapi"].startswith("3.1")
    for path, item in spec["paths"].items():
        for method, op in item.items():
            where = f"{method.upper()} {path}"
            assert op.get("summary"), where
            assert op.get("description"), where
            assert op.get("operationId", "")[:1].isupper(), where
            if method == "post":
                assert {"400", "413", "422"} <= set(op["responses"]), where
                body = op["requestBody"]["content"]["application/json"]
                examples = body.get("examples") or body["schema"].get("examples")
                assert examples, f"{where}: no request example"
                ok = op["responses"]["200"]["content"]["application/json"]
                assert ok.get("examples"), f"{where}: no response example"


def test_card_code_pattern_is_in_the_spec() -> None:
    assert "^((red|blue|green|yellow|rainbow|shadow)-" in openapi_json()
