"""Catalogue and stateless rules endpoints (api-contract.md, "Stateless rules endpoints").

Each ruleset gets its own literal paths (`/v1/rulesets/numwars/score-round` …) so that every
operation documents its exact request schema; an unknown ruleset id falls through to the
404 handler, which answers `unknown-ruleset`. Handlers only decode, call the engine, encode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from litestar import Request, get, post
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, Parameter

from api.body import StrictBody
from api.examples import EXAMPLES
from api.problems import MEDIA_TYPE, Problem
from api.schemas import (
    Catalogue,
    ClassicDealRequest,
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


def _problem(description: str) -> ResponseSpec:
    return ResponseSpec(
        data_container=Problem,
        description=description,
        media_type=MEDIA_TYPE,
        generate_examples=False,
    )


BODY_ERRORS: dict[int, ResponseSpec] = {
    400: _problem("The body is not JSON (`malformed-json`)."),
    413: _problem("The body is larger than 64 KiB (`body-too-large`)."),
    422: _problem(
        "The body breaks the contract: wrong type, unknown field, unknown card code, a card "
        "outside the deck for that player count, a duplicated unique card, a bad trick …"
    ),
}
QUERY_ERRORS: dict[int, ResponseSpec] = {
    400: _problem("A query parameter is missing or malformed."),
    404: _problem("Unknown ruleset (`unknown-ruleset`)."),
    422: _problem("A query parameter is out of range for this ruleset."),
}


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
        "according to `Accept-Language` (default English)."
    ),
    tags=[TAG],
    responses={404: _problem("Unknown ruleset (`unknown-ruleset`).")},
    sync_to_thread=False,
)
def get_ruleset(
    ruleset: Annotated[
        str, Parameter(description="ruleset id", examples=[Example(value="numwars")])
    ],
    request: Request[Any, Any, Any],
) -> RulesetInfo:
    language = summaries.pick_language(request.headers.get("accept-language"))
    return _ruleset_info(ruleset_class(ruleset), language)


# --- deck (GET, options as query parameters) --------------------------------------------------

_PLAYERS_DOC = "number of players at the table"


def _deck_route(ruleset_id: str, fn: Callable[..., DeckInfo], description: str) -> HTTPRouteHandler:
    return get(
        f"/v1/rulesets/{ruleset_id}/deck",
        operation_id=f"{_camel(ruleset_id)}Deck",
        summary=f"{RULESETS[ruleset_id].name}: the deck for a player count",
        description=description,
        tags=[TAG],
        responses=QUERY_ERRORS,
        sync_to_thread=False,
    )(fn)


def _numwars_deck(
    players: Annotated[int, Parameter(ge=3, le=8, description=_PLAYERS_DOC)],
) -> DeckInfo:
    return NumWars().deck(players)


def _classic_deck(
    players: Annotated[int, Parameter(ge=3, le=8, description=_PLAYERS_DOC)],
    speed: Annotated[bool, Parameter(description="Speed Wars: 10 cards each")] = False,
) -> DeckInfo:
    return NumWarsClassic(ClassicOptions(speed=speed)).deck(players)


def _numking_deck(
    players: Annotated[int, Parameter(ge=2, le=8, description=_PLAYERS_DOC)],
    zeros: Annotated[bool, Parameter(description="add rainbow-0 and shadow-0")] = False,
    max_cards: Annotated[
        int | None, Parameter(ge=1, le=19, description="last round's hand size (default k_max)")
    ] = None,
) -> DeckInfo:
    return NumKing(NumKingOptions(zeros=zeros, max_cards=max_cards)).deck(players)


def _numwin_deck(
    players: Annotated[int, Parameter(ge=2, le=8, description=_PLAYERS_DOC)],
) -> DeckInfo:
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
    description: str,
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
        description=description,
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


def _numwars_routes() -> list[HTTPRouteHandler]:
    rules = NumWars()
    return [
        _deck_route(
            "numwars",
            _numwars_deck,
            "The whole deck of that format (reduced 0–12 for 3–5 players, full 0–16 for 6–8), the "
            "hand size and how many cards are set aside unseen (3 players: the Joker).",
        ),
        _post_route(
            "numwars",
            "deal",
            NumWarsDealRequest,
            Deal,
            lambda d: NumWars(d.options).deal(RoundSetup(players=d.players, seed=d.seed)),
            "deal a round",
            DEAL_DOC + " Adds `roles`: the secret role of each seat from the role draw.",
        ),
        _post_route(
            "numwars",
            "legal-moves",
            NumWarsHandRequest,
            LegalMoves,
            lambda d: rules.legal_moves(d.players, d.hand, d.trick),
            "legal moves",
            LEGAL_DOC,
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
        ),
        _post_route(
            "numwars",
            "resolve-trick",
            NumWarsTrickRequest,
            TrickResult,
            lambda d: rules.resolve_trick(d.players, d.trick, d.roles, d.joker_neutralizes),
            "resolve a trick",
            RESOLVE_DOC
            + " Trump pairs go at once to the player who completed them; `bomb` tells the Bomb's "
            "fate when it is in the trick (`roles` is then required, and must agree with the role "
            "cards in the trick: the Bomb's player is the poseur, and so on; `joker_neutralizes` is "
            "the complice's choice, default true). Rulings: a Quantum beats a Shadow for the Bomb; "
            "a Shadow played by the demineur counts as `stolen`, by the complice as "
            "`complice-capture`, by the agent as `numx-capture`; when trump is asked and no real "
            "trump or Num-X contests, the highest card of the first classic card's colour wins, else "
            "the leader.",
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
            "holds every card won except the trump pairs captured as pairs, listed in `pairs`. "
            "A Rainbow and a Shadow of the same value won in different tricks score 0 (only pairs "
            "captured as pairs score), unlike `numwars-classic`.",
        ),
    ]


def _classic_routes() -> list[HTTPRouteHandler]:
    rules = NumWarsClassic()
    return [
        _deck_route(
            "numwars-classic",
            _classic_deck,
            "The 104-card deck, the hand size (15 for 3–5 players, 13 for 6–8, 10 with `speed`) "
            "and how many cards are set aside unseen.",
        ),
        _post_route(
            "numwars-classic",
            "deal",
            ClassicDealRequest,
            Deal,
            lambda d: NumWarsClassic(d.options).deal(RoundSetup(players=d.players, seed=d.seed)),
            "deal a round",
            DEAL_DOC,
        ),
        _post_route(
            "numwars-classic",
            "legal-moves",
            NumWarsHandRequest,
            LegalMoves,
            lambda d: rules.legal_moves(d.players, d.hand, d.trick),
            "legal moves",
            LEGAL_DOC,
        ),
        _post_route(
            "numwars-classic",
            "validate-move",
            NumWarsMoveRequest,
            MoveCheck,
            lambda d: rules.validate_move(d.players, d.hand, d.trick, d.card),
            "validate a move",
            VALIDATE_DOC
            + " Reasons: `card-not-in-hand`, `must-follow-color`, `must-play-trump`, `must-raise`.",
        ),
        _post_route(
            "numwars-classic",
            "resolve-trick",
            ClassicTrickRequest,
            TrickResult,
            lambda d: rules.resolve_trick(d.players, d.trick),
            "resolve a trick",
            RESOLVE_DOC + " A trick holding a winning trump pair splits (the trump duel).",
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
            "team totals and `winners` lists the winning team's seats. A pile holding both "
            "Rainbow X and Shadow X scores X however they got there.",
        ),
    ]


def _numking_routes() -> list[HTTPRouteHandler]:
    rules = NumKing()
    return [
        _deck_route(
            "numking",
            _numking_deck,
            "The deck (36 cards, 38 with `zeros`), the last round's hand size (`k_max` or "
            "`max_cards`) and that round's reserve.",
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
        ),
        _post_route(
            "numking",
            "legal-moves",
            NumKingHandRequest,
            LegalMoves,
            lambda d: rules.legal_moves(d.players, d.hand, d.trick),
            "legal moves",
            LEGAL_DOC + " `infinity` lists the declarations (17, 0) allowed for the Infinity card.",
        ),
        _post_route(
            "numking",
            "validate-move",
            NumKingMoveRequest,
            MoveCheck,
            lambda d: rules.validate_move(d.players, d.hand, d.trick, d.card, d.declared),
            "validate a move",
            VALIDATE_DOC
            + " Reasons: `card-not-in-hand`, `must-beat`. `infinity` needs `declared`.",
        ),
        _post_route(
            "numking",
            "resolve-trick",
            NumKingTrickRequest,
            TrickResult,
            lambda d: rules.resolve_trick(d.players, d.trick),
            "resolve a trick",
            RESOLVE_DOC
            + " A Flash annuls the trick; equal Rainbow/Shadow pairs cancel (`cancelled`); an "
            "annulled trick has `winner: null` and its leader leads again.",
        ),
        _post_route(
            "numking",
            "score-round",
            NumKingScoreRequest,
            RoundScore,
            lambda d: rules.score_round(d.cards, d.players),
            "score a round",
            SCORE_DOC
            + " Each player's bid, tricks taken and precision streak before the round; each "
            "result adds the streak after it and the precision bonus (+5 at a streak of 2, +10 "
            "every round from 3 on). Tricks are not required to add up to `cards`: the rule book's "
            "own scoring example does not, so a front-end may score players one at a time.",
        ),
    ]


def _numwin_routes() -> list[HTTPRouteHandler]:
    return [
        _deck_route("numwin", _numwin_deck, "The 111-card deck; 2 cards dealt to each player."),
        _post_route(
            "numwin",
            "deal",
            NumWinDealRequest,
            Deal,
            lambda d: NumWin(d.options).deal(RoundSetup(players=d.players, seed=d.seed)),
            "deal a round",
            DEAL_DOC + " Adds the face-up `discard` starter card and `draw_pile_count`.",
        ),
        _post_route(
            "numwin",
            "score-round",
            NumWinScoreRequest,
            RoundScore,
            lambda d: NumWin(d.options).score_round(d.players, d.caller),
            "score a round",
            SCORE_DOC
            + " Each player's final combination and locked pairs (at least 5 cards in all) and "
            "who called; the lowest score wins. Pairs that may pair are removed, choosing the "
            "pairing that leaves the lowest score; a lone remaining Rainbow scores 0; action cards "
            "+5; a caller beaten by a strictly lower score takes +15.",
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
