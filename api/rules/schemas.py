"""The catalogue's answers (api-contract.md, "Stateless rules endpoints"). The stateless
operations' request bodies are each game's own (`engine/<game>/requests.py`, shared pieces in
engine/core/requests.py), declared by its spec (engine/core/spec.py).
"""

from __future__ import annotations

import msgspec

# --- catalogue --------------------------------------------------------------------------------


class PlayerRange(msgspec.Struct, frozen=True):
    min: int
    max: int


class RulesetInfo(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    id: str
    name: str
    players: PlayerRange
    options: dict[str, object]
    rules_version: int  # engine.core.match "Rules versions": what a stored game is replayed by
    # rules/app.md "Jeux de la communauté 🔒": its games and sheets need an account's session
    community: bool
    lowest_wins: bool  # the lowest total wins the match (numwin), else the highest
    #: the bot levels a stored game's seat may be (issue 25: `{"name", "bot": level}`)
    bots: list[str] = []
    #: the options a stored game takes (`POST /v1/games`), with their defaults: `options`
    #: and the service's own (:class:`GameOptions`: `hints`)
    game_options: dict[str, object] = {}
    description: str | None = None
    summary: dict[str, str] | None = None
    language: str | None = None


class GameOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The options a stored game takes beside its ruleset's (api-contract.md, "Edge cases
    settled", Bots): the service's, not the rules', so no stateless operation or sheet takes
    them; `POST /v1/games` declares them in each ruleset's options (api.exact_types) and
    `GET /v1/rulesets/{id}` lists them under `game_options`."""

    #: whether `POST /v1/games/{id}/hint` answers (false: 409 `hints-off`)
    hints: bool = True


#: Each service option's description in the spec.
GAME_OPTION_DOCS = {
    "hints": "the service's, not the ruleset's: false turns `POST /v1/games/{id}/hint` off "
    "(409 `hints-off`) for the whole game",
}


class Catalogue(msgspec.Struct, frozen=True):
    rulesets: list[RulesetInfo]


class Health(msgspec.Struct, frozen=True):
    status: str
