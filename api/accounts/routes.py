"""The accounts endpoints (contract "Accounts, score sheets, history"): handlers read the
request, call :class:`api.accounts.service.AccountService` (or `ApiKeyService`), and shape the
answer; the services refuse with domain errors, which the app's exception handler answers as
problems (statuses and headers: `api.http.domain.STATUS`). One `Controller` per resource (sign-up, sessions, me, password resets, API keys);
their class-level dependencies give each handler the app's one store and the caller's
session, resolved once per request."""

from __future__ import annotations

from typing import Annotated, Any, cast

from litestar import Controller, Request, Response, delete, get, patch, post
from litestar.background_tasks import BackgroundTask
from litestar.connection import ASGIConnection
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.handlers.base import BaseRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, Parameter

from api.accounts import schemas
from api.accounts.service import MAX_KEYS, AccountService, ApiKeyService
from api.accounts.sessions import Caller, require_session
from api.accounts.texts import RESET_ACCEPTED, TERMS, TERMS_VERSION
from api.http.body import StrictBody, unwanted_body
from api.http.domain import refuse_body
from api.http.problems import problem_spec
from api.http.responses import NO_STORE
from api.ops.ratelimit import client_address as address_of
from engine.summaries import pick_language

TAG = "Accounts"
SESSION: list[dict[str, list[str]]] = [{"sessionToken": []}]

UNAUTHORIZED = problem_spec("No session token, or not a live one", "unauthorized")
FIELD_ERRORS = problem_spec(
    "A field breaks its rule: a pseudo of other than 3–24 letters, digits, `_ - .`; a password "
    "under 10 characters; an unknown `age_range` …",
    "validation-error",
)


ACCOUNT_EXAMPLE: dict[str, Any] = {
    "id": "3f6c1d0e9b2a4c7d8e5f60718293a4b5",
    "pseudo": "ada_l",
    "email": "ada@example.org",
    "email_verified": False,
    "age_range": "25-34",
    "locale": "en",
    "terms_version": TERMS_VERSION,
    "created_at": "2026-12-01T20:15:00Z",
}
SESSION_EXAMPLE = {
    "token": "nrs_q8Vd0kX2mJ7rT4wY1zB6nC3fH9pL5sA0eU2iO8gK4tM",
    "expires_at": "2026-12-31T20:15:00Z",
}


def _ok(container: type[Any], example: dict[str, Any], description: str = "OK") -> ResponseSpec:
    return ResponseSpec(
        data_container=container,
        description=description,
        examples=[Example(summary=container.__name__, value=example)],
        generate_examples=False,
    )


def provide_accounts(state: State) -> AccountService:
    """The app's one account store (built with the app: api.app)."""
    store: AccountService = state.accounts
    return store


async def provide_session(request: Request[Any, Any, Any]) -> Caller:
    """The caller's live session (401 without one), resolved once per request."""
    return await require_session(request)


def client_address(request: Request[Any, Any, Any], accounts: AccountService) -> str:
    """The client's address as the rate limit sees it (behind NUMRULES_TRUSTED_PROXIES, from
    `X-Forwarded-For`), for the log-in throttle."""
    return address_of(request.scope, accounts.trusted) or "unknown"


SIGN_UP_EXAMPLE = {
    "pseudo": "ada_l",
    "password": "correct horse battery",
    "age_range": "25-34",
    "accept_terms": True,
    "email": "ada@example.org",
    "locale": "en",
}


def reset_accepted(language: str) -> schemas.ResetAccepted:
    """The forgotten password's one answer, in the caller's language (the message catalog)."""
    return schemas.ResetAccepted(status="accepted", detail=RESET_ACCEPTED.render(language))


# -- API keys (issue 21, contract "API keys (integrators)") ----------------------------------


async def session_guard(
    connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler
) -> None:
    """The caller's session, resolved before the body is read (contract: authentication, then
    existence, then the body), kept in the request's state for the handler. A plain OPTIONS
    is answered without one, as every other resource's: it names the methods, nothing of the
    account (a helper found `OPTIONS /v1/me` a 401, `OPTIONS /v1/me/history` a 204)."""
    if connection.scope.get("method") == "OPTIONS":
        return
    request = cast(Request[Any, Any, Any], connection)
    request.state.caller = await require_session(request)


def provide_guarded_caller(request: Request[Any, Any, Any]) -> Caller:
    """The session `session_guard` resolved (once, before the body)."""
    caller: Caller = request.state.caller
    return caller


def provide_api_keys(state: State) -> ApiKeyService:
    """The app's one API-key store (built at its first request, on the app's database)."""
    store: ApiKeyService | None = state.get("api_keys")
    if store is None or store.engine is not state.db:
        store = ApiKeyService(state.db)
        state.api_keys = store
    return store


KEY_EXAMPLE = {
    "id": "9b1f0c2d3e4a5b6c7d8e9f0a1b2c3d4e",
    "name": "legality checker (prod)",
    "created_at": "2026-12-03T09:30:00Z",
}
KEYS_DESCRIPTION = (
    "An API key meters a third-party back end: a request carrying it (`X-API-Key: <key>`, "
    "beside any other token, or `Authorization: Bearer <key>`) is counted against the key's "
    "own quota (`NUMRULES_API_KEY_RATE_LIMIT_PER_MINUTE`, 12,000 a minute by default) instead "
    "of its network's; every counted answer carries `RateLimit-Limit`, `RateLimit-Remaining` "
    "and `RateLimit-Reset`. A key is for metering only: it never acts as the account, a "
    "session or a seat (sent where a session is needed it is 401). An unknown or revoked key "
    "is no error: the request is counted against its network."
)
KeyId = Annotated[str, Parameter(description="the key's id (32 hex digits)")]


class SignUpController(Controller):
    """Sign-up, the email verification and the terms it accepts."""

    dependencies = {  # noqa: RUF012 (Litestar reads the class attribute)
        "accounts": Provide(provide_accounts, sync_to_thread=False),
    }

    @post(
        "/v1/accounts",
        operation_id="SignUp",
        summary="Create an account (signed in at once)",
        description=(
            "Sign-up: a `pseudo` (3–24 letters, digits, `_`, `-` or `.`, "
            "unique case-insensitively), a `password` of at least 10 characters (kept only as an "
            "Argon2id hash), an `age_range`, `accept_terms: true` (the version of `GET /v1/terms` "
            "is recorded), an optional `email` and `locale` (`fr` or `en`; default from "
            "`Accept-Language`). The answer holds a session `token` (shown only here) to send as "
            "`Authorization: Bearer <token>`. An email is unverified until the link sent to it "
            "is confirmed (`POST /v1/email-verifications/confirm`); only a verified email logs "
            "in or receives a password reset."
        ),
        status_code=201,
        dto=StrictBody[schemas.SignUp],
        return_dto=None,
        tags=[TAG],
        responses={
            201: _ok(
                schemas.SignedUp, {**ACCOUNT_EXAMPLE, **SESSION_EXAMPLE}, "Created, signed in"
            ),
            409: problem_spec("The pseudo or the email is taken", "pseudo-taken", "email-taken"),
            422: problem_spec(
                "`accept_terms` is not true, or a field breaks its rule",
                "terms-not-accepted",
                "validation-error",
            ),
        },
    )
    async def sign_up(
        self,
        request: Request[Any, Any, Any],
        accounts: NamedDependency[AccountService],
        data: Annotated[
            schemas.SignUp, Body(examples=[Example(summary="SignUp", value=SIGN_UP_EXAMPLE)])
        ],
    ) -> Response[schemas.SignedUp]:
        locale = pick_language(request.headers.get("accept-language"))
        created = await accounts.sign_up(data, locale)
        return Response(created, status_code=201, headers={"Location": "/v1/me", **NO_STORE})

    @post(
        "/v1/email-verifications/confirm",
        operation_id="ConfirmEmail",
        summary="Verify an email with the token sent to it",
        description=(
            "The token of the message sent at sign-up or after `PATCH /v1/me` changed the email "
            "(single use, valid 48 hours). The email can then log in and receive resets."
        ),
        status_code=200,
        dto=StrictBody[schemas.EmailConfirm],
        return_dto=None,
        tags=[TAG],
        responses={
            200: _ok(schemas.EmailVerified, {"email": "ada@example.org", "email_verified": True}),
            422: problem_spec("The token is unknown, expired or used", "invalid-token"),
        },
    )
    async def confirm_email(
        self,
        accounts: NamedDependency[AccountService],
        data: Annotated[
            schemas.EmailConfirm,
            Body(
                examples=[
                    Example(
                        summary="EmailConfirm",
                        value={"token": "hT3qPzW0uE8bqS2R6sYxg1nD4kLm9vCj0aF7tB5yHcI"},
                    )
                ]
            ),
        ],
    ) -> schemas.EmailVerified:
        return await accounts.confirm_email(data.token)

    @get(
        "/v1/terms",
        operation_id="GetTerms",
        summary="The terms of use",
        description=(
            "The terms accepted at sign-up, in French or English by `Accept-Language` (default "
            "English); `version` is recorded on each account."
        ),
        tags=[TAG],
        sync_to_thread=False,
        opt={"database": False},  # a constant: no 503 database-unavailable
        responses={
            200: _ok(
                schemas.Terms,
                {"version": TERMS_VERSION, "text": TERMS["en"][:60] + "…", "locale": "en"},
            )
        },
    )
    def get_terms(self, request: Request[Any, Any, Any]) -> Response[schemas.Terms]:
        language = pick_language(request.headers.get("accept-language"))
        locale: schemas.Locale = "fr" if language == "fr" else "en"
        terms = schemas.Terms(version=TERMS_VERSION, text=TERMS[locale], locale=locale)
        return Response(terms, headers={"Content-Language": locale})  # + Vary: api.http.hygiene


class SessionController(Controller):
    """Log-in and log-out: a session token made and ended."""

    dependencies = {  # noqa: RUF012 (Litestar reads the class attribute)
        "accounts": Provide(provide_accounts, sync_to_thread=False),
        "caller": Provide(provide_session),
    }

    @post(
        "/v1/sessions",
        operation_id="LogIn",
        summary="Log in by pseudo or email",
        description=(
            "`login` is a pseudo or a verified email. An unknown login and a wrong password get "
            "the same 401 `invalid-credentials` answer, and are throttled alike.\n\n"
            "**Throttling** (OWASP; nobody can lock another user out). Every attempt is counted "
            "before its password is checked, in the database (so across replicas), per login as "
            "typed (case-folded; a pseudo and an email are two logins) and per client network "
            "(IPv4 address, IPv6 /64; `NUMRULES_RATE_LIMIT_IPV4_PREFIX`, `_IPV6_PREFIX`), in "
            "windows of 15 minutes (`NUMRULES_LOGIN_WINDOW_SECONDS`). 429 `too-many-attempts` "
            "with `Retry-After` (seconds) answers:\n"
            "- past **5** attempts on one login from one network "
            "(`NUMRULES_LOGIN_MAX_FAILURES`), that network, until its window ends;\n"
            "- past **50** attempts from one network on any logins "
            "(`NUMRULES_LOGIN_MAX_FAILURES_PER_ADDRESS`), that network, until its window ends;\n"
            "- past **100** attempts on one login from all networks (`NUMRULES_LOGIN_CEILING`; "
            "attempts refused by the two limits above are not counted), only the networks that "
            "have already tried that login in the window: each waits between two attempts "
            "(its first one past the ceiling starts the wait; one made while waiting is refused "
            "and restarts it). The wait is 1 s once the login is 1 attempt past the ceiling and "
            "doubles with each further attempt on it (2 s, 4 s, 8 s …), at most until the "
            "login's window ends; `Retry-After` says it.\n\n"
            "A network that has not tried the login in the window (the owner's, elsewhere) is "
            "never refused because of other networks' attempts: it reaches the password check. "
            "A success clears its network's count on that login "
            "and is not charged to the ceiling nor to the network."
        ),
        status_code=201,
        dto=StrictBody[schemas.LogIn],
        return_dto=None,
        tags=[TAG],
        responses={
            201: _ok(schemas.Session, SESSION_EXAMPLE, "Created: a new session"),
            401: problem_spec("Unknown login or wrong password", "invalid-credentials"),
            422: FIELD_ERRORS,
            429: problem_spec(
                "Too many attempts from this network on this login, or on any logins, or this "
                "network must wait its delay past the login's ceiling: retry after "
                "`Retry-After` seconds",
                "too-many-attempts",
            ),
        },
    )
    async def log_in(
        self,
        request: Request[Any, Any, Any],
        accounts: NamedDependency[AccountService],
        data: Annotated[
            schemas.LogIn,
            Body(
                examples=[
                    Example(
                        summary="LogIn",
                        value={"login": "ada_l", "password": "correct horse battery"},
                    )
                ]
            ),
        ],
    ) -> Response[schemas.Session]:
        session = await accounts.log_in(data, client_address(request, accounts))
        return Response(session, status_code=201, headers=NO_STORE)

    @delete(
        "/v1/sessions/current",
        operation_id="LogOut",
        summary="Log out",
        description="End the session whose token is sent: it answers 401 from now on.",
        status_code=204,
        tags=[TAG],
        security=SESSION,
        responses={401: UNAUTHORIZED},
    )
    async def log_out(
        self,
        request: Request[Any, Any, Any],
        accounts: NamedDependency[AccountService],
        caller: NamedDependency[Caller],
    ) -> None:
        refuse_body(await unwanted_body(request))  # the session checked: nothing else exists
        await accounts.log_out(caller.session_hash)


class MeController(Controller):
    """`/v1/me`: the session's own account, its password. The session is a guard's, so a
    request without one is 401 before its body is read (contract: authentication, then
    existence, then the body)."""

    guards = [session_guard]  # noqa: RUF012
    dependencies = {  # noqa: RUF012 (Litestar reads the class attribute)
        "accounts": Provide(provide_accounts, sync_to_thread=False),
        "caller": Provide(provide_guarded_caller, sync_to_thread=False),
    }

    @get(
        "/v1/me",
        operation_id="GetMe",
        summary="Read my account",
        description="The signed-in account (never its password or its hash).",
        tags=[TAG],
        security=SESSION,
        responses={200: _ok(schemas.Account, ACCOUNT_EXAMPLE), 401: UNAUTHORIZED},
    )
    async def get_me(
        self, accounts: NamedDependency[AccountService], caller: NamedDependency[Caller]
    ) -> Response[schemas.Account]:
        return Response(await accounts.me(caller.account_id), headers=NO_STORE)

    @patch(
        "/v1/me",
        operation_id="UpdateMe",
        summary="Change my email or language",
        description=(
            "`email`: a new address (unverified until the link sent to it is confirmed; until "
            "then it neither logs in nor receives resets), or null to remove it. `locale`: `fr` "
            "or `en`, the language of the messages sent to this account."
        ),
        dto=StrictBody[schemas.UpdateMe],
        return_dto=None,
        tags=[TAG],
        security=SESSION,
        responses={
            200: _ok(
                schemas.Account, {**ACCOUNT_EXAMPLE, "email": "ada@example.net", "locale": "fr"}
            ),
            401: UNAUTHORIZED,
            409: problem_spec("Another account uses this email", "email-taken"),
            422: FIELD_ERRORS,
        },
    )
    async def update_me(
        self,
        accounts: NamedDependency[AccountService],
        caller: NamedDependency[Caller],
        data: Annotated[
            schemas.UpdateMe,
            Body(
                examples=[
                    Example(summary="UpdateMe", value={"email": "ada@example.net", "locale": "fr"})
                ]
            ),
        ],
    ) -> Response[schemas.Account]:
        account = await accounts.update_me(caller.account_id, data)
        return Response(account, headers=NO_STORE)

    @delete(
        "/v1/me",
        operation_id="DeleteMe",
        summary="Delete my account",
        description=(
            "Removes the account, its sessions, its personal data and the score sheets it owns. "
            "Other owners' sheets and stored games keep the player's name only."
        ),
        status_code=204,
        tags=[TAG],
        security=SESSION,
        responses={401: UNAUTHORIZED},
    )
    async def delete_me(
        self,
        request: Request[Any, Any, Any],
        accounts: NamedDependency[AccountService],
        caller: NamedDependency[Caller],
    ) -> None:
        refuse_body(await unwanted_body(request))  # the session checked: its account exists
        await accounts.delete_me(caller.account_id)

    @post(
        "/v1/me/password",
        operation_id="ChangePassword",
        summary="Change my password",
        description=(
            "With the current password (a wrong one is 403 `wrong-password`, throttled like a "
            "log-in). Every other session of the account ends; this one stays. The seat tokens "
            "a session of the account could have been given are revoked: those of the seats it "
            "claimed, of its seats in rematches and of its seats in the games it created (its "
            "sessions still act for those seats; a claim gets a fresh token)."
        ),
        status_code=204,
        dto=StrictBody[schemas.PasswordChange],
        return_dto=None,
        tags=[TAG],
        security=SESSION,
        responses={
            401: UNAUTHORIZED,
            403: problem_spec("`current` is not the account's password", "wrong-password"),
            422: FIELD_ERRORS,
            429: problem_spec(
                "Too many wrong passwords: retry after `Retry-After` seconds", "too-many-attempts"
            ),
        },
    )
    async def change_password(
        self,
        request: Request[Any, Any, Any],
        accounts: NamedDependency[AccountService],
        caller: NamedDependency[Caller],
        data: Annotated[
            schemas.PasswordChange,
            Body(
                examples=[
                    Example(
                        summary="PasswordChange",
                        value={"current": "correct horse battery", "new": "a brand new password"},
                    )
                ]
            ),
        ],
    ) -> None:
        await accounts.change_password(
            caller.account_id, caller.session_hash, data, client_address(request, accounts)
        )


class PasswordResetController(Controller):
    """A forgotten password: the emailed reset and its confirmation."""

    dependencies = {  # noqa: RUF012 (Litestar reads the class attribute)
        "accounts": Provide(provide_accounts, sync_to_thread=False),
    }

    @post(
        "/v1/password-resets",
        operation_id="RequestPasswordReset",
        summary="Forgotten password: email a reset token",
        description=(
            "Always 202 with the same body, whether or not the login exists or has an email. "
            "When it names an account with a verified email, a single-use token valid one hour "
            "is emailed (SMTP), on a line `token: <token>` (and in a link ending "
            "`?token=<token>` when `NUMRULES_APP_URL` is set), in the account's language."
        ),
        status_code=202,
        dto=StrictBody[schemas.ResetRequest],
        return_dto=None,
        tags=[TAG],
        responses={
            202: ResponseSpec(
                data_container=schemas.ResetAccepted,
                description="Accepted (the same answer in every case)",
                examples=[
                    Example(
                        summary="accepted",
                        value={"status": "accepted", "detail": RESET_ACCEPTED.render("en")},
                    )
                ],
                generate_examples=False,
            ),
            422: FIELD_ERRORS,
        },
    )
    async def request_reset(
        self,
        request: Request[Any, Any, Any],
        accounts: NamedDependency[AccountService],
        data: Annotated[
            schemas.ResetRequest,
            Body(examples=[Example(summary="ResetRequest", value={"login": "ada@example.org"})]),
        ],
    ) -> Response[schemas.ResetAccepted]:
        target = await accounts.reset_target(data.login)
        language = pick_language(request.headers.get("accept-language"))
        return Response(
            reset_accepted(language),
            status_code=202,
            headers={"Content-Language": language},
            # the token's writes and its email after the answer: every login answers alike
            # and in the same time (one read), verified email or not
            background=None if target is None else BackgroundTask(accounts.issue_reset, target),
        )

    @post(
        "/v1/password-resets/confirm",
        operation_id="ConfirmPasswordReset",
        summary="Set a new password with a reset token",
        description=(
            "The emailed token (single use, one hour) and the new password. Every session of the "
            "account ends: log in again with the new password. The seat tokens a session of the "
            "account could have been given are revoked: those of the seats it claimed, of its "
            "seats in rematches and of its seats in the games it created (a claim with the new "
            "session gets a fresh one)."
        ),
        status_code=204,
        dto=StrictBody[schemas.ResetConfirm],
        return_dto=None,
        tags=[TAG],
        responses={
            422: problem_spec(
                "The token is unknown, expired or used, or the password is too short",
                "invalid-token",
                "validation-error",
            ),
        },
    )
    async def confirm_reset(
        self,
        accounts: NamedDependency[AccountService],
        data: Annotated[
            schemas.ResetConfirm,
            Body(
                examples=[
                    Example(
                        summary="ResetConfirm",
                        value={
                            "token": "Zk9aQ2mN7pR4sT1uV8wX3yB6cD0eF5gH2iJ9kL4mN7o",
                            "password": "a brand new password",
                        },
                    )
                ]
            ),
        ],
    ) -> None:
        await accounts.confirm_reset(data)


class ApiKeyController(Controller):
    """`/v1/me/api-keys`: the account's API keys. The session is resolved by the class's
    guard before the body is read (contract: authentication, then existence, then the body)."""

    guards = [session_guard]  # noqa: RUF012
    dependencies = {  # noqa: RUF012 (Litestar reads the class attribute)
        "keys": Provide(provide_api_keys, sync_to_thread=False),
        "caller": Provide(provide_guarded_caller, sync_to_thread=False),
    }

    @post(
        "/v1/me/api-keys",
        operation_id="CreateApiKey",
        summary="Create an API key (shown once)",
        description=(
            f"{KEYS_DESCRIPTION} The answer holds the `key` (`nrk_` and 256 random bits): it is "
            "shown only here and stored only as its sha256. An account holds at most "
            f"{MAX_KEYS} keys."
        ),
        status_code=201,
        dto=StrictBody[schemas.ApiKeyIn],
        return_dto=None,
        tags=[TAG],
        security=SESSION,
        responses={
            201: _ok(
                schemas.ApiKeyCreated,
                {**KEY_EXAMPLE, "key": "nrk_Xq3vB8mT1kP6wZ0rD4yH7nC2fJ9sL5aE0uG8iO3tK1m"},
                "Created: the key, shown once",
            ),
            401: UNAUTHORIZED,
            409: problem_spec(f"The account holds {MAX_KEYS} keys already", "too-many-api-keys"),
            422: problem_spec(
                "`name` is missing, empty or longer than 100 characters, or blank or holds a "
                "control character",
                "validation-error",
                "bad-name",
            ),
        },
    )
    async def create_api_key(
        self,
        keys: NamedDependency[ApiKeyService],
        caller: NamedDependency[Caller],
        data: Annotated[
            schemas.ApiKeyIn,
            Body(examples=[Example(summary="ApiKeyIn", value={"name": "legality checker (prod)"})]),
        ],
    ) -> Response[schemas.ApiKeyCreated]:
        created = await keys.create(caller.account_id, data)
        return Response(
            created,
            status_code=201,
            headers={"Location": f"/v1/me/api-keys/{created.id}", **NO_STORE},
        )

    @get(
        "/v1/me/api-keys",
        operation_id="ListApiKeys",
        summary="List my API keys (never the keys)",
        description=(
            "The account's keys, oldest first: `id`, `name`, `created_at` and `last_used_at` (null "
            "until first used; exact to within the rate limiter's cache time, 30 s by default). "
            "The keys themselves are never shown again."
        ),
        tags=[TAG],
        security=SESSION,
        responses={
            200: _ok(
                schemas.ApiKeys,
                {"items": [{**KEY_EXAMPLE, "last_used_at": "2026-12-03T10:02:41Z"}]},
            ),
            401: UNAUTHORIZED,
        },
    )
    async def list_api_keys(
        self, keys: NamedDependency[ApiKeyService], caller: NamedDependency[Caller]
    ) -> Response[schemas.ApiKeys]:
        listed = await keys.list(caller.account_id)
        return Response(listed, headers=NO_STORE)

    @delete(
        "/v1/me/api-keys/{key_id:str}",
        operation_id="DeleteApiKey",
        summary="Revoke an API key",
        description=(
            "Deletes the key: requests carrying it are counted against their network again, in "
            "every process within `NUMRULES_RATE_LIMIT_CREDENTIAL_CACHE_SECONDS` (30 s by "
            "default, never more than 60 s: each process caches its lookups that long)."
        ),
        status_code=204,
        tags=[TAG],
        security=SESSION,
        responses={
            401: UNAUTHORIZED,
            404: problem_spec("The account has no key with this id", "not-found"),
        },
    )
    async def delete_api_key(
        self,
        request: Request[Any, Any, Any],
        keys: NamedDependency[ApiKeyService],
        caller: NamedDependency[Caller],
        key_id: KeyId,
    ) -> None:
        await keys.delete(caller.account_id, key_id, await unwanted_body(request))


route_handlers = [
    SignUpController,
    SessionController,
    MeController,
    PasswordResetController,
    ApiKeyController,
]
