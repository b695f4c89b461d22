"""The rules summary of each ruleset — the app's "Règles de Calcul" card — in English and French.

Four sections per ruleset: set-up, turn, hierarchy, scoring. Each game's text lives in its own
folder (`engine/<game>/summary.py`); this module, above the games, serves them by ruleset id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.numking import NumKing, summary as numking_summary
from engine.numwars import NumWars, summary as numwars_summary
from engine.numwars_classic import NumWarsClassic, summary as numwars_classic_summary
from engine.numwin import NumWin, summary as numwin_summary

LANGUAGES = ("en", "fr")


@dataclass(frozen=True, slots=True)
class Summary:
    language: str
    description: str
    sections: dict[str, str]


_TEXT: dict[str, dict[str, tuple[str, dict[str, str]]]] = {
    NumWars.id: numwars_summary.TEXT,
    NumWarsClassic.id: numwars_classic_summary.TEXT,
    NumKing.id: numking_summary.TEXT,
    NumWin.id: numwin_summary.TEXT,
}


#: Rulings the summary card leaves out, by ruleset and stateless answer (English): the rules'
#: rulings and the engine's choices where they are silent, as the API docs state them.
NOTES: dict[str, dict[str, str]] = {
    "numwars": {
        "resolve_trick": "A Quantum beats a Shadow for the Bomb; a Shadow played by the "
        "demineur counts as `stolen`, by the complice as `complice-capture`, by the agent as "
        "`numx-capture`; when trump is asked and no real trump or Num-X contests, the highest "
        "card of the first classic card's colour wins, else the leader.",
        "score_round": "A Rainbow and a Shadow of the same value won in different tricks score 0 "
        "(only pairs captured as pairs score), unlike numwars-classic.",
    },
    "numwars-classic": {
        "resolve_trick": "A trick holding a winning trump pair splits (the trump duel).",
        "score_round": "A pile holding both Rainbow X and Shadow X scores X however they got "
        "there.",
    },
    "numking": {
        "resolve_trick": "A Flash annuls the trick; equal Rainbow/Shadow pairs cancel "
        "(`cancelled`); an annulled trick has `winner: null` and its leader leads again.",
        "score_round": "The precision bonus is +5 at a streak of 2 and +10 every round from 3 "
        "on. Tricks need not add up to `cards`: the rule book's own scoring example does not, so "
        "a front-end may score players one at a time.",
    },
    "numwin": {
        "score_round": "Pairs that may pair are removed, choosing the pairing that leaves the "
        "lowest score; a lone remaining Rainbow scores 0; action cards +5; a caller beaten by a "
        "strictly lower score takes +15.",
    },
}


_QUALITY = re.compile(r"q=(0(\.[0-9]{0,3})?|1(\.0{0,3})?)")


def pick_language(accept_language: str | None) -> str:
    """The supported language an Accept-Language header (RFC 9110 §12.5.4) ranks first by
    quality, ties in the header's order; English else. A range is a language tag (`fr`,
    `fr-CA`: primary subtag `fr`) or `*`; a quality is `q=` 0 … 1 with at most three
    decimals (another parameter, or a malformed quality, leaves the range out)."""
    if not accept_language:
        return "en"
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        if params:
            found = _QUALITY.fullmatch(params[-1].replace(" ", "")) if len(params) == 1 else None
            if found is None:
                continue
            quality = float(found.group(0)[2:])
        primary = tag.lower().split("-", 1)[0]
        ranked.append((-quality, index, "en" if primary == "*" else primary))
    for negative_quality, _, language in sorted(ranked):
        if negative_quality < 0 and language in LANGUAGES:
            return language
    return "en"


def summary(ruleset_id: str, language: str) -> Summary:
    description, sections = _TEXT[ruleset_id][language if language in LANGUAGES else "en"]
    return Summary(language=language, description=description, sections=dict(sections))
