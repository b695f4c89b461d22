"""The score sheets' OpenAPI details that Litestar cannot state from the routes: the headers
of their answers, each with its schema (Litestar's `ResponseHeader` takes none), and the
exact form of the `If-Match` and `Idempotency-Key` headers they take (issue 21)."""

from __future__ import annotations

from litestar import Litestar
from litestar.openapi.spec import OpenAPIHeader, OpenAPIResponse, Operation, Reference, Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType

from api.http.body import ruleset_enum
from api.http.fields import human_pattern

ETAG = OpenAPIHeader(
    description='The sheet\'s version, quoted: `"<version>"` (send it back as `If-Match`).',
    schema=Schema(
        type=OpenAPIType.STRING,
        pattern=human_pattern(
            r'^"[0-9]+"$',
            "field-pattern-etag",
            'a version number in double quotes, such as "3"',
            'un numéro de version entre guillemets droits, comme "3"',
        ),
        examples=['"3"'],
    ),
)
REPLAYED = OpenAPIHeader(
    description="`true` when the answer is the stored one of an earlier request with the same "
    "Idempotency-Key (nothing was changed again); absent otherwise",
    schema=Schema(type=OpenAPIType.STRING, enum=["true"]),
)
NO_STORE = OpenAPIHeader(
    description="`no-store`: no cache keeps an answer about a sheet",
    schema=Schema(type=OpenAPIType.STRING, enum=["no-store"]),
)
LOCATION = OpenAPIHeader(
    description="`/v1/scoresheets/{id}`",
    schema=Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.URI_REFERENCE),
)

#: The operations that change a sheet (their answers may be replays), and those whose
#: answer names no version (the sheet is gone).
WRITES = {
    "CreateScoresheet",
    "UpdateScoresheet",
    "DeleteScoresheet",
    "AddScoresheetRound",
    "ReplaceScoresheetRound",
    "DeleteScoresheetRound",
    "ClaimScoresheet",
    "ConfirmScoresheet",
}
VERSIONED = (WRITES - {"DeleteScoresheet"}) | {"GetScoresheet"}


def _success(operation: Operation) -> OpenAPIResponse | None:
    for status in ("200", "201", "204"):
        found = (operation.responses or {}).get(status)
        if isinstance(found, OpenAPIResponse):
            return found
    return None


def _document(operation: Operation) -> None:
    name = operation.operation_id or ""
    ok = _success(operation)
    if ok is not None:
        headers: dict[str, OpenAPIHeader | Reference] = {"Cache-Control": NO_STORE}
        if name in VERSIONED:
            headers["ETag"] = ETAG
        if name in WRITES:
            headers["Idempotent-Replayed"] = REPLAYED
        if name == "CreateScoresheet":
            headers["Location"] = LOCATION
        ok.headers = {**(ok.headers or {}), **headers}
        if "204" in (operation.responses or {}):
            ok.content = None  # a `Response[None]` handler: Litestar writes a JSON null
    for status in ("412", "428"):  # the refusal names the sheet's version to read again
        refused = (operation.responses or {}).get(status)
        if isinstance(refused, OpenAPIResponse):
            refused.headers = {**(refused.headers or {}), "ETag": ETAG}


def document_sheets(application: Litestar) -> None:
    for path, item in (application.openapi_schema.paths or {}).items():
        if not path.startswith("/v1/scoresheets"):
            continue
        for operation in (item.get, item.post, item.put, item.patch, item.delete):
            if operation is not None:
                _document(operation)
    components = application.openapi_schema.components
    schemas = components.schemas if components is not None else None
    created = schemas["CreateSheet"].properties if schemas else None
    if created is not None:
        created["ruleset"] = ruleset_enum()
