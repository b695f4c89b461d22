"""Catalogue and stateless rules endpoints (api-contract.md, "Stateless rules endpoints").

Each ruleset gets its own literal paths (`/v1/rulesets/numwars/score-round` …) so that every
operation documents its exact request schema; an unknown ruleset id falls through to the
404 handler, which answers `unknown-ruleset`. Handlers only decode, call the engine, encode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Body, Parameter, ParameterKwarg

from api.http.body import StrictBody
from api.http.problems import problem_spec
from api.rules.examples import EXAMPLES
from api.rules.schemas import (
    NUMKING_MAX_ROUND,
    Catalogue,
    ClassicDealRequest,
    ClassicHandRequest,
    ClassicMoveRequest,
    ClassicScoreRequest,
    ClassicTrickRequest,
    NumKingDealRequest,
    NumKingHandRequest,
    NumKingMoveRequest,
    NumKingScoreRequest,
    NumKingTrickRequest,
    NumWarsDealRequest,
    NumWarsHandRequest,
    NumWarsMoveRequest,
    NumWarsScoreRequest,
    NumWarsTrickRequest,
    NumWinDealRequest,
    NumWinScoreRequest,
    PlayerRange,
    RulesetInfo,
)
from engine import summaries
from engine.core.base import (
    Deal,
    DeckInfo,
    LegalMoves,
    MoveCheck,
    RoundScore,
    RoundSetup,
    TrickResult,
)
from engine.core.errors import EngineError
from engine.numking import NumKing, NumKingOptions
from engine.numwars import NumWars
from engine.numwars_classic import ClassicOptions, NumWarsClassic
from engine.numwin import NumWin
from engine.registry import RULESETS, AnyRuleset, ruleset_class

TAG = "Rules"


_problem = problem_spec


BODY_ERRORS: dict[int, ResponseSpec] = {
    400: _problem("The body is not JSON (`malformed-json`)."),
    413: _problem("The body is larger than 64 KiB (`body-too-large`)."),
    415: _problem(
        "The body is not declared as JSON (`unsupported-media-type`): send "
        "`Content-Type: application/json`."
    ),
    422: _problem(
        "The body breaks the contract: wrong type, unknown field, unknown card code, a card "
        "outside the deck for that player count, a duplicated unique card, a bad trick …"
    ),
}
QUERY_ERRORS: dict[int, ResponseSpec] = {
    400: _problem("The request is malformed."),
    404: _problem("Unknown ruleset (`unknown-ruleset`)."),
    422: _problem(
        "A query parameter is missing (`missing-field`), malformed or out of range for this "
        "ruleset (`validation-error`, `bad-option`)."
    ),
}

#: Which section of the engine's rules summary each answer quotes.
_SECTION = {
    "deck": "setup",
    "deal": "setup",
    "legal-moves": "turn",
    "validate-move": "turn",
    "resolve-trick": "hierarchy",
    "score-round": "scoring",
}
#: `4.0` is an integer to JSON Schema, but the API never coerces: every operation says so.
INTEGERS = "`4.0` where an integer is expected (`validation-error`): integers are never coerced"

Refusals = list[tuple[str, str]]


def _describe(ruleset_id: str, answer: str, text: str, refused: Refusals) -> str:
    """An operation's description: what it does, the rules it applies (read from the engine's
    summary and notes, never restated here), and the refusals its schema cannot state.

    "Also refused" lists the limits across fields that JSON Schema cannot express, each with
    its problem `code` in parentheses (tests/api/test_schemathesis.py holds every refusal of a
    schema-valid request to this list).
    """
    rules = summaries.summary(ruleset_id, "en").sections[_SECTION[answer]]
    parts = [text, f"Rules ({_SECTION[answer]}): {rules}"]
    note = summaries.NOTES.get(ruleset_id, {}).get(answer.replace("-", "_"))
    if note:
        parts.append(f"Rulings: {note}")
    limits = [f"{what} (`{code}`)" for what, code in refused] + [INTEGERS]
    parts.append(
        "Also refused (422, limits across fields that JSON Schema cannot state): "
        + "; ".join(limits)
        + "."
    )
    return "\n\n".join(parts)


def _options_dict(options: msgspec.Struct) -> dict[str, object]:
    return msgspec.to_builtins(options)  # type: ignore[no-any-return]


def _ruleset_info(cls: type[AnyRuleset], language: str | None = None) -> RulesetInfo:
    if language is None:
        return RulesetInfo(
            id=cls.id,
            name=cls.name,
            players=PlayerRange(cls.min_players, cls.max_players),
            options=_options_dict(cls.Options()),
            rules_version=cls.rules_version,
        )
    summary = summaries.summary(cls.id, language)
    return RulesetInfo(
        id=cls.id,
        name=cls.name,
        players=PlayerRange(cls.min_players, cls.max_players),
        options=_options_dict(cls.Options()),
        rules_version=cls.rules_version,
        description=summary.description,
        summary=summary.sections,
        language=summary.language,
    )


@get(
    "/v1/rulesets",
    operation_id="ListRulesets",
    summary="List the rulesets",
    description="Every ruleset the service knows, with its player range and default options.",
    tags=[TAG],
    sync_to_thread=False,
)
def list_rulesets() -> Catalogue:
    return Catalogue([_ruleset_info(cls) for cls in RULESETS.values()])


@get(
    "/v1/rulesets/{ruleset:str}",
    operation_id="GetRuleset",
    summary="Describe a ruleset",
    description=(
        "The ruleset's catalogue entry plus a description and the rules summary (the app's "
        '"Règles de Calcul" card: set-up, turn, hierarchy, scoring), in English or French '
        "according to `Accept-Language` (default English). The answer names its language in "
        "`Content-Language` and varies by `Accept-Language`."
    ),
    tags=[TAG],
    response_headers=[
        ResponseHeader(
            name="Content-Language",
            description="the language of the rules summary: `en` or `fr`",
            documentation_only=True,
        ),
        ResponseHeader(
            name="Vary", description="`Accept-Language` (and `Origin`)", documentation_only=True
        ),
    ],
    responses={404: _problem("Unknown ruleset (`unknown-ruleset`).")},
    sync_to_thread=False,
)
def get_ruleset(
    ruleset: Annotated[
        str,
        Parameter(
            description="ruleset id",
            examples=[Example(value="numwars")],
            schema_extra={"enum": list(RULESETS)},
        ),
    ],
    request: Request[Any, Any, Any],
) -> Response[RulesetInfo]:
    language = summaries.pick_language(request.headers.get("accept-language"))
    info = _ruleset_info(ruleset_class(ruleset), language)
    return Response(info, headers={"Content-Language": language})  # + Vary: api.http.hygiene


# --- deck (GET, options as query parameters) --------------------------------------------------

_PLAYERS_DOC = "number of players at the table"
DECK_DOC = (
    "The whole deck of that format (`cards`), the hand size and how many of its cards are not "
    "dealt (`set_aside`)."
)


def _deck_route(
    ruleset_id: str, fn: Callable[..., DeckInfo], text: str, refused: Refusals
) -> HTTPRouteHandler:
    return get(
        f"/v1/rulesets/{ruleset_id}/deck",
        operation_id=f"{_camel(ruleset_id)}Deck",
        summary=f"{RULESETS[ruleset_id].name}: the deck for a player count",
        description=_describe(ruleset_id, "deck", text, refused),
        tags=[TAG],
        responses=QUERY_ERRORS,
        sync_to_thread=False,
    )(fn)


def _players(ruleset_id: str) -> ParameterKwarg:
    cls = RULESETS[ruleset_id]
    return ParameterKwarg(ge=cls.min_players, le=cls.max_players, description=_PLAYERS_DOC)


def _numwars_deck(players: Annotated[int, _players("numwars")]) -> DeckInfo:
    return NumWars().deck(players)


def _classic_deck(
    players: Annotated[int, _players("numwars-classic")],
    speed: Annotated[bool, Parameter(description="the `speed` option (Speed Wars)")] = False,
) -> DeckInfo:
    return NumWarsClassic(ClassicOptions(speed=speed)).deck(players)


def _numking_deck(
    players: Annotated[int, _players("numking")],
    zeros: Annotated[bool, Parameter(description="the `zeros` option")] = False,
    max_cards: Annotated[
        int | None,
        Parameter(
            ge=1,
            le=NUMKING_MAX_ROUND,
            description="the `max_cards` option: the last round's hand size (default: the most "
            "the deck gives that table)",
            schema_extra={"type": OpenAPIType.INTEGER, "oneOf": None},  # absent, never null
        ),
    ] = None,
) -> DeckInfo:
    return NumKing(NumKingOptions(zeros=zeros, max_cards=max_cards)).deck(players)


def _numwin_deck(players: Annotated[int, _players("numwin")]) -> DeckInfo:
    return NumWin().deck(players)


# --- POST endpoints ------------------------------------------------------------------------


def _camel(ruleset_id: str) -> str:
    return "".join(part.capitalize() for part in ruleset_id.split("-"))


def _examples(
    ruleset_id: str, endpoint: str, call: Callable[[Any], Any], body: type[Any]
) -> tuple[list[Example], list[Example]]:
    """Request examples from the rule books and the engine's answers to them."""
    requests: list[Example] = []
    responses: list[Example] = []
    for name, source, payload in EXAMPLES.get((ruleset_id, endpoint), []):
        requests.append(Example(summary=name, description=f"Seed {source}", value=payload))
        try:
            answer = call(msgspec.convert(payload, body, strict=True))
        except (NotImplementedError, EngineError):
            continue
        responses.append(Example(summary=name, value=msgspec.to_builtins(answer)))
    return requests, responses


def _post_route(
    ruleset_id: str,
    endpoint: str,
    body: type[msgspec.Struct],
    result: type[msgspec.Struct],
    call: Callable[[Any], Any],
    summary: str,
    text: str,
    refused: Refusals,
) -> HTTPRouteHandler:
    request_examples, response_examples = _examples(ruleset_id, endpoint, call, body)

    def handler(data: Any) -> Any:  # sync: the engine never waits (run in the event loop)
        return call(data)

    handler.__annotations__ = {
        "data": Annotated[body, Body(examples=request_examples or None)],
        "return": result,
    }
    handler.__name__ = f"{ruleset_id}_{endpoint}".replace("-", "_")
    responses: dict[int, ResponseSpec] = {
        200: ResponseSpec(
            data_container=result,
            description="OK",
            examples=response_examples or None,
            generate_examples=False,
        ),
        **BODY_ERRORS,
    }
    return post(
        f"/v1/rulesets/{ruleset_id}/{endpoint}",
        operation_id=f"{_camel(ruleset_id)}{_camel(endpoint)}",
        summary=f"{RULESETS[ruleset_id].name}: {summary}",
        description=_describe(ruleset_id, endpoint, text, refused),
        status_code=200,
        dto=StrictBody[body],  # type: ignore[valid-type]
        return_dto=None,
        sync_to_thread=False,
        responses=responses,
        tags=[TAG],
    )(handler)


DEAL_DOC = (
    "Deal a round from a seed: the same ruleset, options, player count and seed always give the "
    "same hands. Shows every hand, so it is meant for physical-card helpers and tests; stored "
    "games keep hands secret."
)
LEGAL_DOC = "The cards of `hand` that may be played on `trick` (empty trick: a lead)."
VALIDATE_DOC = (
    "Whether `card` may be played. An illegal move is not an HTTP error: the answer is 200 with "
    "`legal: false`, the first broken obligation as `reason` and the legal alternatives."
)
RESOLVE_DOC = "Resolve a complete trick (exactly one card per player, in play order)."
SCORE_DOC = "Score one round from what each player captured, with a line-by-line breakdown."

# The refusals of schema-valid requests, by kind (each operation lists its own).
NOT_IN_DECK = ("a card outside the deck of that player count", "card-not-in-deck")
TRICK = (
    "a trick seat that is not a seat of the table, repeated, or out of clockwise order from the "
    "leader, or a trick that already holds one card per player",
    "bad-trick",
)
RESOLVE_TRICK = (
    "a trick that is not exactly one card per player, a seat that is not a seat of the table, "
    "repeated, or out of clockwise order from the leader",
    "bad-trick",
)


def _duplicates(where: str) -> tuple[str, str]:
    return (f"a card more often than the deck holds it, {where}", "duplicate-card")


HAND_AND_TRICK = _duplicates("within a list or across `hand`, `trick` (and `card`)")
NUMKING_DECLARED = [
    ("`declared` on another card than infinity", "bad-request"),
    ("infinity without `declared`, in the trick or as `card`", "missing-declared"),
]


def _numwars_routes() -> list[HTTPRouteHandler]:
    rules = NumWars()
    moves = [NOT_IN_DECK, HAND_AND_TRICK, TRICK]
    return [
        _deck_route("numwars", _numwars_deck, DECK_DOC, []),
        _post_route(
            "numwars",
            "deal",
            NumWarsDealRequest,
            Deal,
            lambda d: NumWars(d.options).deal(RoundSetup(players=d.players, seed=d.seed)),
            "deal a round",
            DEAL_DOC + " Adds `roles`: the secret role of each seat from the role draw.",
            [],
        ),
        _post_route(
            "numwars",
            "legal-moves",
            NumWarsHandRequest,
            LegalMoves,
            lambda d: rules.legal_moves(d.players, d.hand, d.trick),
            "legal moves",
            LEGAL_DOC,
            moves,
        ),
        _post_route(
            "numwars",
            "validate-move",
            NumWarsMoveRequest,
            MoveCheck,
            lambda d: rules.validate_move(d.players, d.hand, d.trick, d.card),
            "validate a move",
            VALIDATE_DOC + " Reasons: `card-not-in-hand`, `special-lead`, `must-follow-color`, "
            "`must-play-trump`, `must-raise`.",
            moves,
        ),
        _post_route(
            "numwars",
            "resolve-trick",
            NumWarsTrickRequest,
            TrickResult,
            lambda d: rules.resolve_trick(d.players, d.trick, d.roles, d.joker_neutralizes),
            "resolve a trick",
            RESOLVE_DOC
            + " `bomb` tells the Bomb's fate when it is in the trick (`roles` is then required, and must agree with the role "
            "cards in the trick; `joker_neutralizes` is the complice's choice, default true).",
            [
                NOT_IN_DECK,
                _duplicates("within the trick"),
                RESOLVE_TRICK,
                (
                    "`roles` that is not one role per seat, missing while the Bomb is in the "
                    "trick, or that disagrees with the role cards played",
                    "bad-request",
                ),
            ],
        ),
        _post_route(
            "numwars",
            "score-round",
            NumWarsScoreRequest,
            RoundScore,
            lambda d: rules.score_round(d.players, d.bomb_outcome),
            "score a round",
            SCORE_DOC
            + " The whole table (3–8 players) with each role and the Bomb's outcome; `captured` "
            "holds every card won except the trump pairs captured as pairs, listed in `pairs`.",
            [
                ("a card outside the deck of that table size", "card-not-in-deck"),
                _duplicates("across every `captured` and `pairs`"),
                (
                    "roles that are not exactly the roles of that table size (one of each), or "
                    "a pair that is not rainbow-X with shadow-X",
                    "bad-request",
                ),
            ],
        ),
    ]


ALLIANCE = ("`alliance` at a table of other than 4, 6 or 8 players", "bad-option")


def _classic_routes() -> list[HTTPRouteHandler]:
    rules = NumWarsClassic()
    moves = [HAND_AND_TRICK, TRICK]
    return [
        _deck_route("numwars-classic", _classic_deck, DECK_DOC, []),
        _post_route(
            "numwars-classic",
            "deal",
            ClassicDealRequest,
            Deal,
            lambda d: NumWarsClassic(d.options).deal(RoundSetup(players=d.players, seed=d.seed)),
            "deal a round",
            DEAL_DOC,
            [ALLIANCE],
        ),
        _post_route(
            "numwars-classic",
            "legal-moves",
            ClassicHandRequest,
            LegalMoves,
            lambda d: rules.legal_moves(d.players, d.hand, d.trick),
            "legal moves",
            LEGAL_DOC,
            moves,
        ),
        _post_route(
            "numwars-classic",
            "validate-move",
            ClassicMoveRequest,
            MoveCheck,
            lambda d: rules.validate_move(d.players, d.hand, d.trick, d.card),
            "validate a move",
            VALIDATE_DOC
            + " Reasons: `card-not-in-hand`, `must-follow-color`, `must-play-trump`, `must-raise`.",
            moves,
        ),
        _post_route(
            "numwars-classic",
            "resolve-trick",
            ClassicTrickRequest,
            TrickResult,
            lambda d: rules.resolve_trick(d.players, d.trick),
            "resolve a trick",
            RESOLVE_DOC,
            [_duplicates("within the trick"), RESOLVE_TRICK],
        ),
        _post_route(
            "numwars-classic",
            "score-round",
            ClassicScoreRequest,
            RoundScore,
            lambda d: NumWarsClassic(d.options).score_round(d.players),
            "score a round",
            SCORE_DOC
            + " From 1 player (one pile at a time) up to 8; with `alliance` the answer adds the "
            "team totals and `winners` lists the winning team's seats.",
            [_duplicates("across every `captured`"), ALLIANCE],
        ),
    ]


def _numking_routes() -> list[HTTPRouteHandler]:
    moves = [HAND_AND_TRICK, TRICK, *NUMKING_DECLARED]
    return [
        _deck_route(
            "numking",
            _numking_deck,
            DECK_DOC + " `hand_size` is the last round's hand (`max_cards` when given) and "
            "`set_aside` that round's reserve.",
            [("`max_cards` above the most the deck gives that table", "bad-option")],
        ),
        _post_route(
            "numking",
            "deal",
            NumKingDealRequest,
            Deal,
            lambda d: NumKing(d.options).deal(
                RoundSetup(players=d.players, seed=d.seed, round=d.round, leader=d.first_bidder)
            ),
            "deal a round",
            DEAL_DOC + " `round` is k, the cards per player; `first_bidder` is the leader.",
            [
                (
                    "`round` above the table's last round, or `first_bidder` that is not a seat "
                    "of the table",
                    "bad-request",
                ),
                (
                    "`options.max_cards` above the most the deck gives that table (18 at most "
                    "without `zeros`), or `options.first_bidder` that is not a seat of the table",
                    "bad-option",
                ),
            ],
        ),
        _post_route(
            "numking",
            "legal-moves",
            NumKingHandRequest,
            LegalMoves,
            lambda d: d.options.rules().legal_moves(d.players, d.hand, d.trick),
            "legal moves",
            LEGAL_DOC + " `infinity` lists the declarations (17, 0) allowed for the Infinity card.",
            moves,
        ),
        _post_route(
            "numking",
            "validate-move",
            NumKingMoveRequest,
            MoveCheck,
            lambda d: d.options.rules().validate_move(
                d.players, d.hand, d.trick, d.card, d.declared
            ),
            "validate a move",
            VALIDATE_DOC
            + " Reasons: `card-not-in-hand`, `must-beat`. `infinity` needs `declared`.",
            moves,
        ),
        _post_route(
            "numking",
            "resolve-trick",
            NumKingTrickRequest,
            TrickResult,
            lambda d: d.options.rules().resolve_trick(d.players, d.trick),
            "resolve a trick",
            RESOLVE_DOC,
            [_duplicates("within the trick"), RESOLVE_TRICK, *NUMKING_DECLARED],
        ),
        _post_route(
            "numking",
            "score-round",
            NumKingScoreRequest,
            RoundScore,
            lambda d: d.options.rules().score_round(d.cards, d.players),
            "score a round",
            SCORE_DOC
            + " Each player's bid, tricks taken and precision streak before the round; each "
            "result adds the streak after it and the precision bonus. With `options.zeros` "
            "(38 cards) a round of two players may deal 19 cards.",
            [
                ("a `bid` or `tricks` above `cards`", "bad-request"),
                ("`cards` 19 without `options.zeros`", "bad-request"),
            ],
        ),
    ]


TEAMS = ("`teams` at a table of other than 4 players", "bad-option")


def _numwin_routes() -> list[HTTPRouteHandler]:
    return [
        _deck_route("numwin", _numwin_deck, DECK_DOC, []),
        _post_route(
            "numwin",
            "deal",
            NumWinDealRequest,
            Deal,
            lambda d: NumWin(d.options).deal(RoundSetup(players=d.players, seed=d.seed)),
            "deal a round",
            DEAL_DOC + " Adds the face-up `discard` starter card and `draw_pile_count`.",
            [TEAMS],
        ),
        _post_route(
            "numwin",
            "score-round",
            NumWinScoreRequest,
            RoundScore,
            lambda d: NumWin(d.options).score_round(d.players, d.caller),
            "score a round",
            SCORE_DOC
            + " Each player's final combination and locked pairs (at least 5 cards in all, a "
            "locked pair counting two) and who called; the lowest score wins.",
            [
                _duplicates("across every `combination` and `locked`"),
                (
                    "a locked pair of two cards that may not pair, or a `caller` that is not a "
                    "seat of the table",
                    "bad-request",
                ),
                TEAMS,
            ],
        ),
    ]


def route_handlers() -> list[HTTPRouteHandler]:
    return [
        list_rulesets,
        get_ruleset,
        *_numwars_routes(),
        *_classic_routes(),
        *_numking_routes(),
        *_numwin_routes(),
    ]
