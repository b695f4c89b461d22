"""A bot whose search fails plays the basic move instead (the bots benchmark found a world
the Num Wars sampler could not draw; with the move's seed fixed, every retry of the sweep
failed the same way and the game waited forever)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import msgspec

from api.db.engine import create_engine
from api.games.bots import Thinker
from api.games.fanout import Fanout
from api.games.schemas import CreateGame
from api.games.service import GameService
from engine.core.actions import Action
from engine.core.events import EventBase
from engine.core.view import BaseView


class _FailingExpert(Thinker):
    def __init__(self) -> None:
        super().__init__(workers=0, samples=2, seconds=0.05)
        self.levels: list[str] = []

    async def think(
        self,
        ruleset: str,
        options: dict[str, Any],
        view: BaseView,
        events: Sequence[EventBase],
        level: str,
        seed: int,
    ) -> tuple[Action, float]:
        self.levels.append(level)
        if level == "expert":
            raise RuntimeError("no world fits the view")
        return await super().think(ruleset, options, view, events, level, seed)


def test_an_expert_whose_search_fails_plays_basic_and_the_game_ends(pg_head: str) -> None:
    async def main() -> None:
        thinker = _FailingExpert()
        service = GameService(create_engine(pg_head), Fanout(), thinker=thinker)
        try:
            body = msgspec.convert(
                {
                    "ruleset": "numwars",
                    "players": [{"name": f"Bot {i}", "bot": "expert"} for i in range(3)],
                    "seed": 5,
                },
                CreateGame,
            )
            created = await service.create(body)
            for _ in range(600):
                await service.idle()
                game = await service.get(created.id, None)
                if game.status == "over":
                    break
                await asyncio.sleep(0.05)
            assert game.status == "over"
            assert "expert" in thinker.levels and "basic" in thinker.levels
            # every expert attempt was followed by its basic move
            assert thinker.levels.count("basic") >= thinker.levels.count("expert")
        finally:
            await service.close()
            await thinker.close()
            await service.engine.dispose()

    asyncio.run(main())
