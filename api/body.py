"""Strict request-body decoding.

Litestar decodes bodies leniently (`strict=False`: "3" would pass for 3). The contract wants
wrong types refused, unparsable JSON as 400 and contract breaks as 422, so request bodies go
through :class:`StrictBody`, a DTO whose only job is one `msgspec.json.decode(..., strict=True)`
into the handler's struct, while the OpenAPI schema stays the struct's own.
"""

from __future__ import annotations

import re
from typing import Any, Generic, TypeVar

import msgspec
from litestar.dto import MsgspecDTO
from litestar.openapi.spec import Reference, Schema
from litestar.typing import FieldDefinition

from api.problems import FieldProblem, ProblemError

T = TypeVar("T", bound=msgspec.Struct)

_PATH_RE = re.compile(r" - at `\$(.*)`$")


def decode_error(exc: msgspec.DecodeError) -> ProblemError:
    """400 for unparsable JSON, 422 (with the field) for a body that breaks the schema."""
    message = str(exc)
    if not isinstance(exc, msgspec.ValidationError):
        return ProblemError(400, "malformed-json", f"the request body is not valid JSON: {message}")
    match = _PATH_RE.search(message)
    field = match.group(1).lstrip(".") if match else ""
    text = _PATH_RE.sub("", message)
    code = "validation-error"
    if text.startswith("Object contains unknown field"):
        code = "unknown-field"
        name = text.split("`")[1] if "`" in text else ""
        field = f"{field}.{name}" if field else name
        text = f"unknown field {name!r}"
    elif text.startswith("Object missing required field"):
        code = "missing-field"
        name = text.split("`")[1] if "`" in text else ""
        field = f"{field}.{name}" if field else name
        text = f"required field {name!r} is missing"
    detail = f"{field}: {text}" if field else text
    return ProblemError(422, code, detail, [FieldProblem(field or "body", text)])


class StrictBody(MsgspecDTO[T], Generic[T]):
    """Decode the body strictly into the handler's msgspec struct."""

    def decode_bytes(self, value: bytes) -> Any:
        try:
            return msgspec.json.decode(value, type=self.model_type, strict=True)
        except msgspec.DecodeError as exc:
            raise decode_error(exc) from None

    def decode_builtins(self, value: dict[str, Any]) -> Any:
        try:
            return msgspec.convert(value, type=self.model_type, strict=True)
        except msgspec.ValidationError as exc:
            raise decode_error(exc) from None

    @classmethod
    def create_openapi_schema(
        cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any
    ) -> Reference | Schema:
        result: Reference | Schema = schema_creator.for_field_definition(field_definition)
        return result
