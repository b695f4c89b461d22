"""A contender of bench/http.py: the three measured rules endpoints in FastAPI + pydantic v2.

Each route does the work of the numrules route at the same path: the JSON body is parsed
into pydantic models (strict field types and bounds, unknown fields refused, as numrules'
msgspec structs do), handed to the very same engine function (`engine` is importable; the
compiled build when the server's path puts it first), and the engine's answer is returned as
the same JSON. The handlers are coroutines, FastAPI's fast path (a plain `def` would run in
its thread pool; numrules' handlers run in the event loop too). Engine refusals are 422s with the engine's message; the benchmark sends only
valid bodies.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from engine.core.base import TrickCard
from engine.core.errors import EngineError
from engine.numwars import NumWars
from engine.numwars_classic import ClassicOptions, NumWarsClassic
from engine.numwars_classic.scoring import ClassicPile


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TrickCardIn(_Strict):
    seat: Annotated[int, Field(ge=0, le=7)]
    card: Annotated[str, Field(min_length=1, max_length=16)]


class NumWarsMoveIn(_Strict):
    players: Annotated[int, Field(ge=3, le=8)]
    hand: Annotated[list[Annotated[str, Field(min_length=1, max_length=16)]], Field(max_length=30)]
    trick: Annotated[list[TrickCardIn], Field(max_length=8)] = []
    card: Annotated[str, Field(min_length=1, max_length=16)]


class NumWarsTrickIn(_Strict):
    players: Annotated[int, Field(ge=3, le=8)]
    trick: Annotated[list[TrickCardIn], Field(min_length=1, max_length=8)]
    roles: Annotated[list[str], Field(max_length=8)] | None = None
    joker_neutralizes: bool = True


class PileIn(_Strict):
    captured: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=16)]], Field(max_length=104)
    ]


class ClassicScoreIn(_Strict):
    players: Annotated[list[PileIn], Field(min_length=1, max_length=8)]
    options: dict[str, Any] = {}


app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
NUMWARS = NumWars()
CLASSIC = NumWarsClassic()


def _answer(call: Any) -> Any:
    """The engine's value as builtins (FastAPI encodes it), or a 422 with its message."""
    try:
        return msgspec.to_builtins(call())
    except EngineError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)


def _trick(cards: list[TrickCardIn]) -> list[TrickCard]:
    return [TrickCard(seat=t.seat, card=t.card) for t in cards]


@app.post("/v1/rulesets/numwars/validate-move")
async def validate_move(data: NumWarsMoveIn) -> Any:
    return _answer(
        lambda: NUMWARS.validate_move(data.players, list(data.hand), _trick(data.trick), data.card)
    )


@app.post("/v1/rulesets/numwars/resolve-trick")
async def resolve_trick(data: NumWarsTrickIn) -> Any:
    return _answer(
        lambda: NUMWARS.resolve_trick(
            data.players, _trick(data.trick), data.roles, data.joker_neutralizes
        )
    )


@app.post("/v1/rulesets/numwars-classic/score-round")
async def score_round(data: ClassicScoreIn) -> Any:
    def call() -> Any:
        rules = (
            CLASSIC
            if not data.options
            else NumWarsClassic(msgspec.convert(data.options, ClassicOptions))
        )
        return rules.score_round([ClassicPile(captured=list(p.captured)) for p in data.players])

    return _answer(call)


@app.get("/")
async def root() -> dict[str, str]:
    return {"status": "ok"}
