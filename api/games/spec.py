"""The stored games' OpenAPI details that Litestar cannot derive: the engine's typed views and
action union, written as msgspec's own JSON Schema of those structs.

* every `view` is one of the registered rulesets' `View` structs (each named by its spec's
  `view_component`: `NumWarsView`, `NumWarsClassicView`, `NumKingView`, `NumWinView` …);
* the body of `PostGameAction`, `legal_actions` (in views and in problems) and an export's
  `action` are the `Action` union (components `Play`, `Bid` …, discriminated by `type`);
* an event (`EventOut`) is one of the engine's event kinds (`PlayEventOut`, `TrickEventOut`
  …, discriminated by `kind`), each with its typed `data`, plus the log's `seq`;
* the seat token is the `seatToken` bearer scheme.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Litestar
from litestar.openapi.spec import (
    Components,
    Example,
    OpenAPIMediaType,
    Reference,
    RequestBody,
    Schema,
    SecurityScheme,
)
from litestar.openapi.spec.enums import OpenAPIType

from api.http.body import _to_schema, ruleset_enum
from engine.core.actions import Action
from engine.core.events import EVENT_TYPES, Event
from engine.core.formats import EXPORT_FORMAT
from engine.core.match import MatchOutcome
from engine.registry import SPECS

_REF = "#/components/schemas/"


def views() -> dict[str, type[msgspec.Struct]]:
    """The registered rulesets' views by component name, read when the spec is built."""
    return {spec.view_component: spec.view for spec in SPECS.values()}


_VIEW_RESPONSES = ("GameCreated", "GameOut", "ActionOut")
ACTION_EXAMPLE = {"type": "play", "card": "red-7"}


#: What the spec says of every event, beside each kind's own schema.
EVENT_DESCRIPTION = (
    "One event of a game's log, as a viewer may see it: `seq` (1, 2, … over all the game's "
    "events), `kind`, `seat` (who acted, or null), `cards` (shown), `data` (the kind's "
    "details, typed per kind) and `to` (the seats that may see it; null: everyone). One "
    "schema per `kind`, discriminated by it. New kinds may be added, like fields: clients "
    "keep a default branch for a `kind` they do not know (and ignore fields they do not know)."
)
_EVENT_FIELDS = ("seq", "kind", "seat", "cards", "data", "to")


def _event_components() -> tuple[dict[str, Any], dict[str, Any]]:
    """msgspec's schema of the engine's event union as the wire's events: each kind's struct
    named `<Kind>EventOut`, with the log's `seq`, every field required (the server always
    sends all six), and the union a `oneOf` discriminated by `kind`."""
    (union,), components = msgspec.json.schema_components([Event], ref_template=_REF + "{name}")
    renames = {cls.__name__: f"{cls.__name__}Out" for cls in EVENT_TYPES.values()}
    encoded = msgspec.json.encode([union, components]).decode()
    for old, new in renames.items():
        encoded = encoded.replace(_REF + old + '"', _REF + new + '"')
    union, renamed = msgspec.json.decode(encoded)
    out: dict[str, Any] = {}
    for name, schema in renamed.items():
        if name in renames:
            properties = {
                "seq": {"type": "integer", "description": "the event's place in the game's log"}
            }
            for field, value in schema["properties"].items():
                properties[field] = {k: v for k, v in value.items() if k != "default"}
            schema = {**schema, "properties": properties, "required": list(_EVENT_FIELDS)}
            schema["title"] = renames[name]
            name = renames[name]
        out[name] = schema
    event = {
        "oneOf": union["anyOf"],
        "discriminator": union["discriminator"],
        "description": EVENT_DESCRIPTION,
        "title": "EventOut",
    }
    return out, event


def _components() -> tuple[dict[str, Any], dict[str, Any]]:
    """msgspec's schema components for the views and the action union, the views renamed."""
    named = views()
    (*_, _outcome, action), components = msgspec.json.schema_components(
        [*named.values(), MatchOutcome, Action], ref_template=_REF + "{name}"
    )
    renames = {f"{cls.__module__}.{cls.__qualname__}": name for name, cls in named.items()}
    encoded = msgspec.json.encode(components).decode()
    for old, new in renames.items():
        encoded = encoded.replace(_REF + old + '"', _REF + new + '"')
    renamed: dict[str, Any] = msgspec.json.decode(encoded)
    return {renames.get(k, k): v for k, v in renamed.items()}, action


def _ref(name: str) -> Reference:
    return Reference(ref=_REF + name)


def _full_ref(ref: str) -> Reference:
    return Reference(ref=ref)


def _examples() -> dict[str, dict[str, Any]]:
    """Real answers of a numking game of three (seed 1), tokens shortened: by operation id."""
    from engine import registry
    from engine.bots import Budget, hint

    match = registry.make("numking").new_match(players=3, seed=1)
    match_view_none = match.view(None)
    game = {
        "id": "5f0c3a4e9b2d4c6e8a1b3d5f7a9c1e3b",
        "ruleset": "numking",
        "options": msgspec.to_builtins(match.rules.options),
        "rules_version": match.rules_version,
        "version": 0,
        "status": "active",
        "seed_commitment": "9d1c…(sha256 hex)",
    }
    created = {
        **game,
        "seats": [{"seat": i, "name": n, "token": "…"} for i, n in enumerate(["Ada", "Bo", "Cy"])],
        "view": msgspec.to_builtins(match.view(None)),
    }
    seat = match.actors()[0]
    before = msgspec.to_builtins(match.view(seat))
    rules = registry.make("numking")
    hinted = hint(rules, match.view(seat), seed=1, budget=Budget(samples=4, seconds=5.0))
    action = match.legal_actions(seat)[0]
    events = match.apply(seat, action)
    acted = {
        "version": 1,
        "events": [
            {"seq": i + 1, **msgspec.to_builtins(e)}
            for i, e in enumerate(events)
            if e.visible(seat)
        ],
        "view": msgspec.to_builtins(match.view(seat)),
    }
    read = {
        **game,
        "seat": seat,
        "players": [{"seat": i, "name": n} for i, n in enumerate(["Ada", "Bo", "Cy"])],
        "view": before,
    }
    players = [{"seat": i, "name": n} for i, n in enumerate(["Ada", "Bo", "Cy"])]
    revealed = {"seed": 1, "salt": "3f9a…(32 hex)"}
    table_players = [
        {"seat": 0, "name": "Ada"},
        {"seat": 1, "name": "", "open": True},
        {"seat": 2, "name": "Cy", "open": True},
    ]
    rematch = {
        **game,
        "id": "0b7e2d9c4a6f4e1d8c3b5a7f9e1d3c5b",
        "seats": [
            {"seat": 0, "name": "Bo"},
            {"seat": 1, "name": "Cy"},
            {"seat": 2, "name": "Ada", "token": "…", "account": "ada_l"},
        ],
        "view": msgspec.to_builtins(
            registry.make("numking").new_match(players=3, seed=2).view(None)
        ),
    }
    return {
        "ListGames": {
            "items": [
                {
                    "id": game["id"],
                    "ruleset": "numking",
                    "options": game["options"],
                    "players": table_players,
                    "open_seats": [1, 2],
                    "created_at": "2026-12-04T05:00:00.123456Z",
                }
            ],
            "next_cursor": None,
        },
        "ClaimSeat": {"seat": 1, "token": "…", "status": "waiting"},
        "LeaveSeat": {"seat": 1, "open": True, "open_seats": [1, 2]},
        "StartGame": {**read, "seat": None, "view": msgspec.to_builtins(match_view_none)},
        "RematchGame": rematch,
        "CreateGame": created,
        "PostGameAction": acted,
        "GetGame": read,
        "ListGameEvents": {
            "events": acted["events"],
            "version": 1,
            "status": "active",
            "more": False,
            "next_after": len(acted["events"]),
        },
        "AbandonGame": {"id": game["id"], "status": "abandoned", "version": 1, **revealed},
        "CreateStreamTicket": {"ticket": "…", "expires_in": 60},
        "PostGameHint": msgspec.to_builtins(hinted),
        "JoinSeat": {
            "game_id": game["id"],
            "seat": 0,
            "name": players[0]["name"],
            "account": "ada_l",
            "joined": True,
        },
        "ExportGame": {
            **{k: game[k] for k in ("id", "ruleset", "options", "rules_version")},
            "status": "abandoned",
            "players": players,
            "seed_commitment": game["seed_commitment"],
            **revealed,
            "actions": [{"seq": 1, "seat": seat, "action": msgspec.to_builtins(action)}],
            "v": EXPORT_FORMAT,
        },
    }


def _start_schema() -> Schema:
    """`POST /v1/games/{id}/start`'s body (read by the handler itself: an empty one too)."""
    from api.games.schemas import StartGame

    _, components = msgspec.json.schema_components([StartGame], ref_template=_REF + "{name}")
    schema = _to_schema(components["StartGame"], _full_ref)
    assert isinstance(schema, Schema)
    return schema


def document_games(application: Litestar) -> None:
    spec = application.openapi_schema
    components = spec.components
    assert isinstance(components, Components)
    schemas = components.schemas
    assert schemas is not None
    extra, action_schema = _components()
    for name, schema in extra.items():
        if name not in schemas:  # RoundScore … are the same engine structs as the rules'
            schemas[name] = _to_schema(schema, _full_ref)  # type: ignore[assignment]
    action = _to_schema(action_schema, _full_ref)
    view = Schema(one_of=[_ref(name) for name in views()])
    for name in _VIEW_RESPONSES:
        properties = schemas[name].properties
        assert properties is not None
        properties["view"] = view
    created = schemas["CreateGame"].properties
    assert created is not None
    created["ruleset"] = ruleset_enum()
    listed = schemas["EventOut"].properties
    assert listed is not None
    cards = listed["cards"]  # Litestar's: the card-code pattern on each item
    kinds, event = _event_components()
    for name, schema in kinds.items():
        if name not in schemas:  # Capture, BombResult, TeamScore: the rules' own structs
            converted = _to_schema(schema, _full_ref)
            if name.endswith("EventOut"):
                assert isinstance(converted, Schema) and converted.properties is not None
                converted.properties["cards"] = cards
            schemas[name] = converted  # type: ignore[assignment]
    schemas["EventOut"] = _to_schema(event, _full_ref)  # type: ignore[assignment]
    outcome = Schema(one_of=[_ref("MatchOutcome"), Schema(type=OpenAPIType.NULL)])
    for name in ("GameOut", "ExportOut"):
        properties = schemas[name].properties
        assert properties is not None
        properties["result"] = outcome
    exported = schemas["ExportAction"].properties
    assert exported is not None
    exported["action"] = action
    for name in ("HintOut", "HintValue"):  # a hint's actions are the same union
        hinted = schemas[name].properties
        assert hinted is not None
        hinted["action"] = action
    problem = schemas["Problem"].properties
    assert problem is not None
    problem["legal_actions"] = Schema(
        one_of=[Schema(type="array", items=action), Schema(type="null")]  # type: ignore[arg-type]
    )
    components.security_schemes = {
        **(components.security_schemes or {}),
        "seatToken": SecurityScheme(
            type="http",
            scheme="bearer",
            description="A seat's token from `POST /v1/games` (at least 128 random bits).",
        ),
        "creatorToken": SecurityScheme(
            type="http",
            scheme="bearer",
            description="The `creator_token` of a game of bots only created without a "
            "session, from `POST /v1/games` (256 random bits): it ends that game (`POST "
            "/v1/games/{id}/abandon`) and nothing else.",
        ),
    }
    examples = _examples()
    for path_item in (spec.paths or {}).values():
        for operation in (path_item.get, path_item.post):
            if operation is None or operation.operation_id not in examples:
                continue
            for status in ("200", "201"):
                response = (operation.responses or {}).get(status)
                if response is not None and not isinstance(response, Reference):
                    for media in (response.content or {}).values():
                        ruleset = examples["CreateGame"]["ruleset"]
                        media.examples = {
                            ruleset: Example(
                                summary=f"A {ruleset} game of three (seed 1)",
                                value=examples[operation.operation_id],
                            )
                        }
        if path_item.get is not None and path_item.get.operation_id == "StreamGameEvents":
            ok = (path_item.get.responses or {})["200"]
            assert not isinstance(ok, Reference)
            ok.content = {
                "text/event-stream": OpenAPIMediaType(
                    # one message (OpenAPI 3.1: `schema` describes each event of a stream)
                    schema=Schema(
                        type=OpenAPIType.OBJECT,
                        properties={
                            "id": Schema(
                                type=OpenAPIType.STRING,
                                description="the event's `seq` (none on `game` and `end`)",
                            ),
                            "event": Schema(
                                type=OpenAPIType.STRING,
                                description="its `kind`, or `game` (`view=true`), or `end`",
                            ),
                            "data": Schema(
                                type=OpenAPIType.STRING,
                                description="the event as JSON (`EventOut`); for `game`, the "
                                "game as JSON (`GameOut`, as `GET /v1/games/{id}` answers); for "
                                "`end`, the game's status",
                            ),
                        },
                        required=["data"],
                    ),
                    # the example is one message as the schema reads it (a linter checks
                    # examples against their schema); its wire form is in the description
                    example={
                        "id": "1",
                        "event": "bid",
                        "data": '{"seq":1,"kind":"bid","seat":0,…}',
                    },
                )
            }
            ok.description = (
                "Server-Sent Events, one message per event, on the wire: "
                '`id: 1`, `event: bid`, `data: {"seq":1,"kind":"bid","seat":0,…}`, each on '
                "its own line, then a blank line. With `view=true`, after each version's "
                'events: `event: game`, `data: {"id":…,"version":3,"view":{…},…}`.'
            )
        operation = path_item.post
        if operation is not None and operation.operation_id == "StartGame":
            operation.request_body = RequestBody(
                content={
                    "application/json": OpenAPIMediaType(
                        schema=_start_schema(), example={"fill_with_bots": "basic"}
                    )
                },
                required=False,
                description="Optional (an empty body starts a game whose seats are all held).",
            )
        if operation is None or operation.operation_id != "PostGameAction":
            continue
        for parameter in operation.parameters or ():
            # the handler checks the key itself (its problem names the header): say it here
            if not isinstance(parameter, Reference) and parameter.name == "Idempotency-Key":
                assert isinstance(parameter.schema, Schema)
                parameter.schema.min_length = 1
                parameter.schema.max_length = 255
                parameter.schema.pattern = r"^[\x21-\x7e]+$"
        operation.request_body = RequestBody(
            content={"application/json": OpenAPIMediaType(schema=action, example=ACTION_EXAMPLE)},
            required=True,
            description="One action, as listed in the seat's `legal_actions`.",
        )
