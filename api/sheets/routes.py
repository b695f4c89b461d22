"""The score-sheet endpoints (api-contract.md, "Accounts, score sheets, history"), one
`Controller`: its class-level dependencies give each handler the app's one
:class:`api.sheets.service.SheetService` and the caller, resolved once per request (`auth`:
the bearer token and its live session, if any; `editor`: the same, a token required; `caller`:
a live session required). A handler parses its headers, calls the service and owns the
answer's status and headers (`ETag`, `Location`, `Idempotent-Replayed`, `Cache-Control`); the
service's refusals are domain errors, mapped to problems once (`api.http.problems`). The
rulings are in the service's docstring."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, delete, get, patch, post, put
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example, Reference, Schema
from litestar.params import Body, HeaderParameter, Parameter
from litestar.typing import FieldDefinition

from api.accounts.sessions import (
    Caller,
    optional_session,
    require_session,
    session_caller,
)
from api.http.body import LateBody, StrictBody, decode_body, decode_document, unwanted_body
from api.http.conditions import check_anonymous_key, check_key, parse_if_match
from api.http.languages import language_headers, language_of, localized
from api.http.problems import ProblemSpec, make_problem, problem_spec
from api.http.responses import INTEGERS, NO_STORE, REUSED
from api.http.tokens import SESSION_OR_SHEET_TOKEN, bearer
from api.sheets.idempotency import Conditions, Written
from api.sheets.rules import make_rules, round_input, score, settle
from api.sheets.schemas import (
    ClaimSheet,
    CreateSheet,
    PatchSheet,
    RoundAnswer,
    RoundOut,
    ShareSheet,
    SheetCreated,
    SheetOut,
    SheetPlayerOut,
    round_bodies,
)
from api.sheets.service import Auth, SheetService, needs_token
from engine.core.requests import RoundBody as RoundBodyBase
from engine.registry import SPECS

TAG = "Score sheets"

_problem = problem_spec
UNAUTHORIZED = _problem(
    "A bearer token that is neither a live session nor this sheet's token, or none where one "
    "is needed",
    "unauthorized",
)
NOT_FOUND = _problem(
    "No such sheet, or none this caller may see: its existence is not revealed", "not-found"
)
NOT_OWNER = _problem(
    "The caller is a player named on the sheet, which it may read and confirm, not change",
    "not-owner",
)
NO_ROUND = _problem("No such sheet or round, or none this caller may see", "not-found")
SESSION_NEEDED = _problem("No live session", "unauthorized")
FINISHED = _problem(
    "The match is over: a round past `planned_rounds` that no tie-break calls for, or a "
    "change that would leave such a round",
    "sheet-finished",
)
#: What a sheet's round is refused for by the rulesets (their `score-round` refusals and
#: their sheets' own), read from the registry, and the cards' own refusals (`unknown-card`:
#: api.problem_codes, for every body holding a card).
RULESET_ROUND_CODES = tuple(
    dict.fromkeys(
        code
        for spec in SPECS.values()
        for _, code in (*spec.operation("score-round").refusals, *spec.sheet.refusals)
    )
)
CARD_CODES = ("card-not-in-deck", "duplicate-card")
ROUND_CODES = tuple(
    dict.fromkeys(
        (
            "validation-error",
            "bad-player-count",
            "options-mismatch",
            "bad-request",
            *CARD_CODES,
            *RULESET_ROUND_CODES,
            "idempotency-key-reused",
        )
    )
)
ROUND_REFUSED = _problem(
    "The round breaks the contract: a field's error, a ruleset's score-round or sheet "
    "refusal, a player count or options other than the sheet's, a dealer off the table, or an "
    "`Idempotency-Key` used for another request",
    *ROUND_CODES,
)
ROUND_REPLACE_REFUSED = _problem(
    "The round breaks the contract: a field's error, a ruleset's score-round or sheet "
    "refusal, a player count or options other than the sheet's, a dealer off the table, a later "
    "round that no longer scores once derived again, or an `Idempotency-Key` used for another "
    "request",
    *ROUND_CODES,
    "round-no-longer-scores",
)
#: A change refused for its headers only.
HEADERS_REFUSED = _problem(
    "An `Idempotency-Key` used for another request, or a malformed header",
    "idempotency-key-reused",
    "validation-error",
)
ROUND_ALSO = (
    "Also refused (422, limits across fields that JSON Schema cannot state): a body that is "
    "not the sheet ruleset's round (`validation-error`, `unknown-field`); a number of players "
    "other than the sheet's (`bad-player-count`); `options` other than the sheet's "
    "(`options-mismatch`); numking `cards` other than the round number (`cards-mismatch`) or a "
    "`streak` other than the earlier rounds give (`streak-mismatch`); numking tricks adding up "
    "to more than the round's cards (`too-many-tricks`: fewer is a round with annulled tricks); "
    "a `dealer` off the table (`bad-request`); the ruleset's own score-round refusals "
    "(`card-not-in-deck`, `duplicate-card`, numwars' `bomb-mismatch` …); "
    f"{REUSED}; {INTEGERS}. Checks added after a round was stored apply to new input only: "
    "stored rounds still read and total."
)
#: A replaced round is derived again with the rounds after it.
LATER_ROUNDS = (
    " A later numking round that the change derives again with more bids or tricks than its "
    "cards is refused too (`round-no-longer-scores`)."
)

#: OpenAPI security: who may call (the schemes are in api/app.py's components). A change needs
#: a session or the sheet token (401 without one), so it lists no anonymous `{}`; a read takes
#: a request without a token too, answered 404 as for a sheet the caller may not see (its
#: existence is not revealed).
OPTIONAL_SESSION: list[dict[str, list[str]]] = [{}, {"sessionToken": []}]
SHEET_READ: list[dict[str, list[str]]] = [{}, {"sessionToken": []}, {"sheetToken": []}]
SHEET_AUTH: list[dict[str, list[str]]] = [{"sessionToken": []}, {"sheetToken": []}]
SESSION_ONLY: list[dict[str, list[str]]] = [{"sessionToken": []}]

SheetId = Annotated[
    str, Parameter(description="the sheet's id (32 hex digits; anything else is 404)")
]
RoundNo = Annotated[int, Parameter(ge=1, le=1000, description="the round's number, 1-based")]


# --- dependencies: the service, and the caller resolved once ---------------------------------


def provide_sheets(state: State) -> SheetService:
    """The app's one sheet service (built at its first request, on the app's database)."""
    service: SheetService | None = state.get("sheets")
    if service is None or service.engine is not state.db:
        service = SheetService(state.db)
        state.sheets = service
    return service


async def provide_auth(
    request: Request[Any, Any, Any], sheets: NamedDependency[SheetService]
) -> Auth:
    """The bearer token (a session's or a sheet's) and the account whose live session it is;
    a malformed `Authorization` is 401 here, before the handler runs."""
    token = bearer(request, SESSION_OR_SHEET_TOKEN)
    caller = None if token is None else await session_caller(sheets.engine, token)
    return Auth(token, caller)


async def provide_editor(auth: NamedDependency[Auth]) -> Auth:
    """The caller of a change: a bearer token is needed before anything else is read."""
    if auth.token is None:
        raise needs_token()
    return auth


async def provide_session(request: Request[Any, Any, Any]) -> Caller:
    """A live session (401 without one)."""
    return await require_session(request)


async def provide_optional_session(request: Request[Any, Any, Any]) -> Caller | None:
    return await optional_session(request)


IfMatchHeader = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        required=False,
        description='the sheet\'s `ETag` as read, quoted: `"<version>"` (412 '
        "`version-mismatch` when the sheet has moved since)",
    ),
]
KeyHeader = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        description="1 … 255 visible ASCII characters: a retry with the same key and request "
        "replays the first answer",
    ),
]


def _conditions(if_match: str | None, key: str | None) -> Conditions:
    return Conditions(parse_if_match(if_match), check_key(key))


def _etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


def _answer(
    written: Written, headers: dict[str, str] | None = None, language: str | None = None
) -> Response[Any]:
    """A write's answer: its `ETag` (the sheet's new version), and `Idempotent-Replayed:
    true` when it is the stored answer of an earlier request with the same key; with
    `language`, a body's breakdown labels in that language, named in `Content-Language`."""
    out = {**NO_STORE, **(headers or {})}
    if written.version is not None:
        out.update(_etag(written.version))
    if written.replayed:
        out["Idempotent-Replayed"] = "true"
    body = written.body
    if language is not None and body is not None:
        body = localized(body, language)
        out.update(language_headers(language))
    return Response(body, status_code=written.status, headers=out)


class RoundBody(StrictBody[RoundBodyBase]):
    """A round's body: its struct depends on the sheet's ruleset, known only once the sheet is
    read, so the body is only parsed here (400 unless JSON) and decoded strictly by the store;
    the spec states it as one of the registered rulesets' round structs (their specs')."""

    def decode_bytes(self, value: bytes) -> Any:
        return decode_body(value, Any)

    @classmethod
    def create_openapi_schema(
        cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any
    ) -> Reference | Schema:
        one_of = [
            StrictBody.create_openapi_schema.__func__(  # type: ignore[attr-defined]
                cls, FieldDefinition.from_annotation(model), handler_id, schema_creator
            )
            for model in round_bodies().values()
        ]
        return Schema(any_of=one_of, examples=[value for _, value in ROUND_EXAMPLES])


# --- examples: the engine's real answers ------------------------------------------------------

EXAMPLE_ID = "3f6c1d2e9a8b47c5b0e4d7a1c2f3e4d5"
EXAMPLE_TIME = datetime(2026, 12, 1, 20, 30, tzinfo=UTC)
CREATE_EXAMPLE = {
    "ruleset": "numwars-classic",
    "players": [{"name": "Ada", "account": "ada"}, {"name": "Bo"}, {"name": "Cy"}],
}
CLASSIC_ROUND = {
    "players": [
        {"captured": ["rainbow-14", "shadow-14", "red-16", "red-8", "blue-8", "joker"]},
        {"captured": ["red-2", "blue-2", "green-2", "rainbow-5"]},
        {"captured": ["yellow-9", "green-11"]},
    ]
}
ROUND_EXAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("numwars-classic: the piles of three players", CLASSIC_ROUND),
    (
        "numking: bids and tricks (cards and streaks derived)",
        {"players": [{"bid": 1, "tricks": 1}, {"bid": 0, "tricks": 0}, {"bid": 0, "tricks": 0}]},
    ),
    (
        "numwars: piles, roles, the Bomb's outcome, the dealer",
        {
            "players": [
                {"captured": ["red-5", "blue-5", "green-5", "bomb"], "role": "demineur"},
                {"captured": ["red-12"], "pairs": [["rainbow-7", "shadow-7"]], "role": "poseur"},
                {"captured": ["blue-1", "green-1"], "role": "agent"},
                {"captured": ["rainbow-4", "joker"], "role": "complice"},
            ],
            "bomb_outcome": "stolen",
            "dealer": 2,
        },
    ),
]


def _example_sheet() -> tuple[SheetOut, RoundAnswer]:
    rules = make_rules("numwars-classic", {})
    data, _ = round_input(rules, 3, 1, CLASSIC_ROUND, None)
    scores = score(rules, data)
    standing = settle(rules, 3, 3, [scores])
    answer = RoundAnswer(
        n=1,
        dealer=0,
        input=data,
        scores=scores,
        totals=standing.totals,
        leader=standing.leader,
        finished=standing.finished,
        winners=standing.winners,
        teams=standing.teams,
        version=1,
    )
    sheet = SheetOut(
        id=EXAMPLE_ID,
        ruleset="numwars-classic",
        options=msgspec.to_builtins(rules.options),
        owner="ada",
        players=[
            SheetPlayerOut(name="Ada", account="ada", confirmed=True),
            SheetPlayerOut(name="Bo", account=None, confirmed=False),
            SheetPlayerOut(name="Cy", account=None, confirmed=False),
        ],
        planned_rounds=3,
        rounds=[RoundOut(n=1, dealer=0, input=data, scores=scores)],
        totals=standing.totals,
        leader=standing.leader,
        finished=False,
        winners=[],
        teams=None,
        version=1,
        created_at=EXAMPLE_TIME,
        updated_at=EXAMPLE_TIME,
    )
    return sheet, answer


EXAMPLE_SHEET, EXAMPLE_ROUND = _example_sheet()
EXAMPLE_CREATED = SheetCreated(
    **{
        **msgspec.structs.asdict(EXAMPLE_SHEET),
        "owner": None,
        "players": [
            SheetPlayerOut(name=n, account=None, confirmed=False) for n in ("Ada", "Bo", "Cy")
        ],
        "rounds": [],
        "totals": [0, 0, 0],
        "leader": None,
        "version": 0,
    },
    token="nrc_kq3J6v0mX2cV8aXbT1yL5nR7sW9dE4fG0hJ2kL4mN6o",
)


def _ok(
    container: type[Any], summary: str, value: msgspec.Struct, status: str = "OK"
) -> ResponseSpec:
    return ResponseSpec(
        data_container=container,
        description=status,
        examples=[Example(summary=summary, value=msgspec.to_builtins(value))],
        generate_examples=False,
    )


SHEET_OK = _ok(SheetOut, "A numwars-classic sheet after its first round", EXAMPLE_SHEET)

#: What every write says of `If-Match` and `Idempotency-Key` (api-contract.md, "Score sheets:
#: versions").
VERSIONS = (
    '`If-Match: "<version>"` (the sheet\'s `ETag`, as `GET` answers it): 412 '
    "`version-mismatch` (with the sheet's `ETag`) when the sheet has moved since. "
    "`Idempotency-Key` (1 … 255 visible ASCII characters): a retry with the same key and the "
    "same request (sheet, round and body) answers the first answer again, with "
    "`Idempotent-Replayed: true`, and changes nothing; the same key with another request is "
    "422 `idempotency-key-reused`. Only applied changes are remembered (for 24 hours): a "
    "refused one may be retried. Without a key, a retry whose first attempt was applied "
    "carries a stale `If-Match`: 412. The answer's `ETag` is the sheet's new version."
)


def _refusal(description: str, status: int, code: str, detail: str) -> ProblemSpec:
    """A documented problem with an example of it."""
    example = make_problem(status, code, detail)
    refusal = problem_spec(description, code)
    refusal.examples = [Example(summary=code, value=msgspec.to_builtins(example))]
    return refusal


STALE = _refusal(
    "`If-Match` names another version than the sheet's: read it again, the answer's `ETag` "
    "is the sheet's version",
    412,
    "version-mismatch",
    "the sheet is at version 4, not the one in If-Match: read it again",
)
IF_MATCH_NEEDED = _refusal(
    'No `If-Match`: a round is corrected or deleted as read, `If-Match: "<version>"` from the '
    "sheet's `ETag`, the answer's `ETag` being the sheet's version",
    428,
    "if-match-required",
    'this change needs If-Match: "<version>", the ETag of the sheet as read (now If-Match: '
    '"3"): a round corrected or deleted on an old reading would undo another\'s change',
)
PLAYER_BOUND = _refusal(
    "`player` is bound to another account, or the claimer already plays on the sheet",
    409,
    "player-bound",
    "player 0 is bound to another account already",
)
SHARE_BOUND = _refusal(
    "`player` is bound to another account, or the account plays another player of the sheet",
    409,
    "player-bound",
    "player 0 is bound to another account already",
)


def _body_refused(*codes: str) -> ProblemSpec:
    """The 422 of a body that breaks the contract, with the operation's own `codes`."""
    return _problem(
        "The body breaks the contract (field errors in `errors[]`; the limits across fields "
        "the description lists), or an `Idempotency-Key` was used for another request",
        "validation-error",
        *codes,
        "idempotency-key-reused",
    )


ROUND_DOC = (
    "The round is the ruleset's `score-round` request (one entry per player of the sheet) "
    "plus an optional `dealer` (default: the rotation, round n dealt by seat (n-1) mod "
    "players). What the sheet knows is derived: the sheet's `options` (a round may leave them "
    "out; sent, they must be the sheet's), numking's `cards` (the round number) and each "
    "`streak` (from the earlier rounds). The answer is the round as scored by the engine "
    "(`input`: the complete score-round request, `scores`: its answer), the sheet's new "
    "totals, leader and winners, and its new `version`. A change clears the confirmations of "
    "the other accounts named on the sheet."
)
MUST_MATCH = (
    '`If-Match: "<version>"` is required (428 `if-match-required` without it): two phones '
    "correcting one sheet never overwrite each other, and a `DELETE` sent twice never deletes "
    "the round that took the first one's place."
)


class SheetController(Controller):
    """The score sheets: `/v1/scoresheets` and below."""

    dependencies = {  # noqa: RUF012 (Litestar reads the class attribute)
        "sheets": Provide(provide_sheets, sync_to_thread=False),
        "auth": Provide(provide_auth),
        "editor": Provide(provide_editor),
    }

    # --- sheets -----------------------------------------------------------------------------------

    @post(
        "/v1/scoresheets",
        operation_id="CreateScoresheet",
        summary="Start a score sheet",
        description=(
            "A score sheet keeps a match played with physical cards: the service scores each round "
            "sent (`POST …/rounds`) with the engine and keeps the totals, the leader and the "
            "winners. `planned_rounds` defaults to the ruleset's match length. A player may name "
            "an account by its pseudo (`account`, case-insensitive): that account may read the "
            "sheet, sees it in its history, and it counts in its stats once it confirms it "
            "(`POST …/confirm`; the owner's own player entries count at once).\n\n"
            "With a session (`Authorization: Bearer <session token>`) the account owns the sheet. "
            "`numking` and `numwin` sheets need one (401 `community-locked`). A `numwars` or "
            "`numwars-classic` sheet made without a session answers a secret `token`, shown only "
            "here and kept only hashed: send it as `Authorization: Bearer <sheet token>` to change "
            "the sheet, or claim the sheet for an account (`POST …/claim`).\n\n"
            "`Idempotency-Key` (1 … 255 visible ASCII characters): a 201 lost on the way can be "
            "retried with the same key and body within 24 hours; the retry answers the same sheet "
            "(and its token once more, with `Idempotent-Replayed: true`) and creates nothing. The "
            "same key with another body is 422 `idempotency-key-reused`. Without a session, the "
            "key alone gets the token back: it must be at least 16 characters (make it a fresh "
            "random UUID), else 422. A key belongs to "
            "the session's account, or to anonymous creations.\n\n"
            "Also refused (422, limits across fields that JSON Schema cannot state): a player name "
            "that is blank or holds a control or formatting character (`bad-name`), or that "
            "another player of the sheet already has, case and spaces aside (`duplicate-name`, "
            "at the later one's field); a number of players outside the ruleset's range (`bad-player-count`); an unknown or ill-typed "
            "option (`bad-option`); an `account` no account has (`unknown-account`) or named "
            "twice (`duplicate-account`); numking `planned_rounds` above its match length "
            f"(`bad-request`); {REUSED}; {INTEGERS}."
        ),
        status_code=201,
        dto=StrictBody[CreateSheet],
        return_dto=None,
        tags=[TAG],
        security=OPTIONAL_SESSION,
        dependencies={"caller": Provide(provide_optional_session)},
        responses={
            201: _ok(
                SheetCreated,
                "An anonymous Num Wars sheet and its token",
                EXAMPLE_CREATED,
                "Created",
            ),
            401: _problem(
                "A community ruleset's sheet without a session, or a bearer token that is no "
                "live session",
                "community-locked",
                "unauthorized",
            ),
            422: _body_refused(
                "bad-name",
                "duplicate-name",
                "bad-player-count",
                "bad-option",
                "unknown-account",
                "duplicate-account",
                "bad-request",
            ),
        },
    )
    async def create_sheet(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        caller: NamedDependency[Caller | None],
        data: Annotated[
            CreateSheet,
            Body(
                examples=[
                    Example(summary="Three players of Num Wars classic", value=CREATE_EXAMPLE)
                ]
            ),
        ],
        idempotency_key: KeyHeader = None,
    ) -> Response[Any]:
        key = check_key(idempotency_key)
        if caller is None:
            check_anonymous_key(key)
        created = await sheets.create(data, caller, key)
        sheet_id = created.body["id"] if isinstance(created.body, dict) else created.body.id
        location = {"Location": f"/v1/scoresheets/{sheet_id}"}
        return _answer(created, location, language_of(request))

    @get(
        "/v1/scoresheets/{sheet_id:str}",
        operation_id="GetScoresheet",
        summary="Read a score sheet",
        description=(
            "The sheet: players, planned rounds, each round (`input`: the complete score-round "
            "request it was scored from, `scores`: the engine's answer), the totals by player over "
            "the regular rounds, the `leader` (an index into `players`, null before the first "
            "round), whether the match is `finished` and its `winners` (empty until then; highest "
            "total wins, lowest in numwin; numwars-classic tie-break rounds, past `planned_rounds`, "
            "decide a tie). The owner's session, the sheet token, or the session of an account "
            "named as a player may read it; anyone else gets 404.\n\n"
            '`ETag: "<version>"`: the sheet\'s `version`, which every change of its players, '
            "planned rounds, rounds or owner moves; a change sends it back as "
            '`If-Match: "<version>"`.'
        ),
        tags=[TAG],
        security=SHEET_READ,
        responses={200: SHEET_OK, 401: UNAUTHORIZED, 404: NOT_FOUND},
    )
    async def get_sheet(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        auth: NamedDependency[Auth],
        sheet_id: SheetId,
    ) -> Response[SheetOut]:
        sheet = await sheets.get(sheet_id, auth)
        language = language_of(request)
        headers = {**NO_STORE, **_etag(sheet.version), **language_headers(language)}
        return Response(localized(sheet, language), headers=headers)

    @patch(
        "/v1/scoresheets/{sheet_id:str}",
        operation_id="UpdateScoresheet",
        summary="Rename players or change the planned rounds",
        description=(
            "The owner (or the sheet token) renames the players (`players`: every player's new "
            "`name`, in order; accounts named stay) or changes `planned_rounds`. A change of "
            "`planned_rounds` clears the confirmations of the other accounts named on the sheet "
            f"(they confirm the sheet as it is).\n\n{VERSIONS}\n\n"
            "Also refused: a `planned_rounds` that leaves recorded rounds past it that no tie-break "
            "calls for (409 `sheet-finished`); a `players` list of another length "
            "(`bad-player-count`); a blank name (`bad-name`); a name two players would share "
            "(`duplicate-name`); numking `planned_rounds` above its "
            f"match length (`bad-request`); {REUSED}; {INTEGERS}."
        ),
        dto=StrictBody[PatchSheet],
        return_dto=None,
        tags=[TAG],
        security=SHEET_AUTH,
        responses={
            200: SHEET_OK,
            401: UNAUTHORIZED,
            403: NOT_OWNER,
            404: NOT_FOUND,
            409: FINISHED,
            412: STALE,
            422: _body_refused("bad-player-count", "bad-name", "duplicate-name", "bad-request"),
        },
    )
    async def update_sheet(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        editor: NamedDependency[Auth],
        sheet_id: SheetId,
        data: Annotated[
            PatchSheet,
            Body(examples=[Example(summary="Play two more rounds", value={"planned_rounds": 5})]),
        ],
        if_match: IfMatchHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> Response[Any]:
        conditions = _conditions(if_match, idempotency_key)
        written = await sheets.patch(sheet_id, editor, data, conditions)
        return _answer(written, None, language_of(request))

    @delete(
        "/v1/scoresheets/{sheet_id:str}",
        operation_id="DeleteScoresheet",
        summary="Delete a score sheet",
        description=(
            "The owner (or the sheet token) deletes the sheet and its rounds. The answer has no "
            f"`ETag`: the sheet is gone.\n\n{VERSIONS}"
        ),
        tags=[TAG],
        security=SHEET_AUTH,
        status_code=204,
        responses={
            401: UNAUTHORIZED,
            403: NOT_OWNER,
            404: NOT_FOUND,
            412: STALE,
            422: HEADERS_REFUSED,
        },
    )
    async def delete_sheet(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        editor: NamedDependency[Auth],
        sheet_id: SheetId,
        if_match: IfMatchHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> Response[None]:
        conditions = _conditions(if_match, idempotency_key)
        refusal = await unwanted_body(request)
        return _answer(await sheets.delete(sheet_id, editor, conditions, refusal))

    # --- rounds -----------------------------------------------------------------------------------

    @post(
        "/v1/scoresheets/{sheet_id:str}/rounds",
        operation_id="AddScoresheetRound",
        summary="Score the next round of a sheet",
        description=(
            ROUND_DOC
            + " A round past `planned_rounds` is 409 `sheet-finished`, except the tie-break rounds "
            "numwars-classic (option `tiebreak`, on by default) and numwars (option `tiebreak`) "
            f"call for when the match ends tied.\n\n{VERSIONS} An `Idempotency-Key` keeps a "
            "retried round from being scored twice.\n\n" + ROUND_ALSO
        ),
        status_code=201,
        dto=RoundBody,
        return_dto=None,
        tags=[TAG],
        security=SHEET_AUTH,
        responses={
            201: _ok(RoundAnswer, "Round 1 of a numwars-classic sheet", EXAMPLE_ROUND, "Created"),
            401: UNAUTHORIZED,
            403: NOT_OWNER,
            404: NOT_FOUND,
            409: FINISHED,
            412: STALE,
            422: ROUND_REFUSED,
        },
    )
    async def add_round(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        editor: NamedDependency[Auth],
        sheet_id: SheetId,
        data: Annotated[RoundBodyBase, Body(description="the round (the sheet's ruleset's)")],
        if_match: IfMatchHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> Response[Any]:
        # `data` is the parsed JSON document (RoundBody): the service decodes it by the ruleset.
        conditions = _conditions(if_match, idempotency_key)
        written = await sheets.add_round(sheet_id, editor, data, conditions)
        return _answer(written, None, language_of(request))

    @put(
        "/v1/scoresheets/{sheet_id:str}/rounds/{n:int}",
        operation_id="ReplaceScoresheetRound",
        summary="Correct a round of a sheet",
        description=(
            ROUND_DOC
            + " Replacing a numking round re-derives the streaks of the later rounds and rescores "
            "them. A correction that ends the match before a recorded tie-break round is 409 "
            f"`sheet-finished` (delete that round first).\n\n{MUST_MATCH} {VERSIONS}\n\n"
            + ROUND_ALSO
            + LATER_ROUNDS
        ),
        dto=RoundBody,
        return_dto=None,
        tags=[TAG],
        security=SHEET_AUTH,
        responses={
            200: _ok(RoundAnswer, "Round 1 of a numwars-classic sheet", EXAMPLE_ROUND),
            401: UNAUTHORIZED,
            403: NOT_OWNER,
            404: NO_ROUND,
            409: FINISHED,
            412: STALE,
            422: ROUND_REPLACE_REFUSED,
            428: IF_MATCH_NEEDED,
        },
    )
    async def replace_round(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        editor: NamedDependency[Auth],
        sheet_id: SheetId,
        n: RoundNo,
        data: Annotated[RoundBodyBase, Body(description="the round (the sheet's ruleset's)")],
        if_match: IfMatchHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> Response[Any]:
        conditions = _conditions(if_match, idempotency_key)
        written = await sheets.replace_round(sheet_id, editor, n, data, conditions)
        return _answer(written, None, language_of(request))

    @delete(
        "/v1/scoresheets/{sheet_id:str}/rounds/{n:int}",
        operation_id="DeleteScoresheetRound",
        summary="Delete a round of a sheet",
        description=(
            "The owner (or the sheet token) removes round `n`; the later rounds are renumbered "
            "(each keeps its dealer) and, in numking, re-derived (`cards` is the new round number, "
            "the streaks follow) and rescored: a numking round whose bids or tricks no longer fit "
            "its new number is 422 and nothing changes. A deletion that would leave a round the "
            "match no longer calls for is 409 `sheet-finished`. The answer's `ETag` is the "
            f"sheet's new version.\n\n{MUST_MATCH} {VERSIONS}"
        ),
        tags=[TAG],
        security=SHEET_AUTH,
        status_code=204,
        responses={
            401: UNAUTHORIZED,
            403: NOT_OWNER,
            404: NO_ROUND,
            409: FINISHED,
            412: STALE,
            422: _problem(
                "A later round no longer scores once renumbered, `n` is out of range, or an "
                "`Idempotency-Key` was used for another request",
                "round-no-longer-scores",
                "validation-error",
                "idempotency-key-reused",
            ),
            428: IF_MATCH_NEEDED,
        },
    )
    async def delete_round(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        editor: NamedDependency[Auth],
        sheet_id: SheetId,
        n: RoundNo,
        if_match: IfMatchHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> Response[None]:
        conditions = _conditions(if_match, idempotency_key)
        refusal = await unwanted_body(request)
        return _answer(await sheets.delete_round(sheet_id, editor, n, conditions, refusal))

    # --- claim, confirm ---------------------------------------------------------------------------

    @post(
        "/v1/scoresheets/{sheet_id:str}/claim",
        operation_id="ClaimScoresheet",
        summary="Claim an anonymous sheet for an account",
        description=(
            "With a session and the sheet token, the account becomes the sheet's owner. The token "
            "then edits no more (the account's session does); the account's own player entries, "
            "if any, count in its stats at once. With `player` (an index into `players`), that "
            "player is bound to the account: the sheet then counts in its history and stats as "
            "that player's. An unknown sheet, a wrong token or a sheet already owned are 404 "
            "alike. A claim moves the version.\n\n"
            f"{VERSIONS}\n\n"
            "Also refused: a `player` bound to another account, or a claimer already bound to "
            f"another player of the sheet (409 `player-bound`); a `player` past the sheet's players "
            f"(`bad-request`); {REUSED}; {INTEGERS}."
        ),
        status_code=200,
        dto=LateBody[ClaimSheet],
        return_dto=None,
        tags=[TAG],
        security=SESSION_ONLY,
        dependencies={"caller": Provide(provide_session)},
        responses={
            200: SHEET_OK,
            401: SESSION_NEEDED,
            404: _problem("No sheet this token claims", "not-found"),
            409: PLAYER_BOUND,
            412: STALE,
            422: _body_refused("bad-request"),
        },
    )
    async def claim_sheet(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        caller: NamedDependency[Caller],
        sheet_id: SheetId,
        data: Annotated[
            ClaimSheet,
            Body(
                examples=[
                    Example(summary="The sheet token", value={"token": EXAMPLE_CREATED.token}),
                    Example(
                        summary="The sheet token, and the claimer is Ada (player 0)",
                        value={"token": EXAMPLE_CREATED.token, "player": 0},
                    ),
                ]
            ),
        ],
        if_match: IfMatchHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> Response[Any]:
        # `data` is the parsed document: decoded once the session is checked (order of checks)
        body = decode_document(data, ClaimSheet)
        conditions = _conditions(if_match, idempotency_key)
        written = await sheets.claim(sheet_id, caller, body, conditions)
        return _answer(written, None, language_of(request))

    @post(
        "/v1/scoresheets/{sheet_id:str}/shares",
        operation_id="ShareScoresheet",
        summary="Share a sheet with an account, as one of its players",
        description=(
            "The owner (or the sheet token) names an account as a player of the sheet after it "
            "was made, as `players[].account` does at creation: the account then reads the sheet, "
            "finds it in its history (`GET /v1/me/history`) and confirms it "
            "(`POST /v1/scoresheets/{sheet_id}/confirm`) to count it in its stats. Naming the "
            "owner's own account confirms it at once. Naming the account the player has already "
            "changes nothing; a share moves the version otherwise.\n\n"
            f"{VERSIONS}\n\n"
            "Also refused: a `player` bound to another account, or an account that plays another "
            "player of the sheet (409 `player-bound`); a pseudo no account has "
            "(`unknown-account`, field `account`); a `player` past the sheet's players "
            f"(`bad-request`); {REUSED}; {INTEGERS}."
        ),
        status_code=200,
        dto=LateBody[ShareSheet],
        return_dto=None,
        tags=[TAG],
        security=SHEET_AUTH,
        responses={
            200: SHEET_OK,
            401: UNAUTHORIZED,
            403: NOT_OWNER,
            404: NOT_FOUND,
            409: SHARE_BOUND,
            412: STALE,
            422: _body_refused("unknown-account", "bad-request"),
        },
    )
    async def share_sheet(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        editor: NamedDependency[Auth],
        sheet_id: SheetId,
        data: Annotated[
            ShareSheet,
            Body(
                examples=[
                    Example(
                        summary="Bo (player 1) is the account bobby",
                        value={"player": 1, "account": "bobby"},
                    )
                ]
            ),
        ],
        if_match: IfMatchHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> Response[Any]:
        # `data` is the parsed document: the service decodes it once the editor and the sheet
        # are checked (order of checks)
        conditions = _conditions(if_match, idempotency_key)
        written = await sheets.share(sheet_id, editor, data, conditions)
        return _answer(written, None, language_of(request))

    @post(
        "/v1/scoresheets/{sheet_id:str}/confirm",
        operation_id="ConfirmScoresheet",
        summary="Confirm a sheet that names you",
        description=(
            "An account named as a player confirms the sheet: from then on it counts in the "
            "account's stats (once finished). A later change of the sheet's rounds or planned "
            "rounds clears the confirmation. Anyone the sheet does not name gets 404. A "
            "confirmation changes no score: the sheet's version stays (`If-Match` confirms the "
            f"version read).\n\n{VERSIONS}"
        ),
        status_code=200,
        tags=[TAG],
        security=SESSION_ONLY,
        dependencies={"caller": Provide(provide_session)},
        responses={
            200: SHEET_OK,
            401: SESSION_NEEDED,
            404: NOT_FOUND,
            412: STALE,
            422: HEADERS_REFUSED,
        },
    )
    async def confirm_sheet(
        self,
        request: Request[Any, Any, Any],
        sheets: NamedDependency[SheetService],
        caller: NamedDependency[Caller],
        sheet_id: SheetId,
        if_match: IfMatchHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> Response[Any]:
        conditions = _conditions(if_match, idempotency_key)
        written = await sheets.confirm(sheet_id, caller, conditions, await unwanted_body(request))
        return _answer(written, None, language_of(request))


route_handlers = [SheetController]
