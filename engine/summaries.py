"""The rules summary of each ruleset — the app's "Règles de Calcul" card — in English and French.

Four sections per ruleset: set-up, turn, hierarchy, scoring. Each game's text lives in its own
folder (`engine/<game>/summary.py`, declared by its spec); this module, above the registry,
serves them by ruleset id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.registry import spec

LANGUAGES = ("en", "fr")


@dataclass(frozen=True, slots=True)
class Summary:
    language: str
    description: str
    sections: dict[str, str]


def notes(ruleset_id: str) -> dict[str, str]:
    """Rulings the summary card leaves out, by stateless answer (`score_round` …): each
    game's `NOTES` (engine/<game>/summary.py), as its spec declares them."""
    return dict(spec(ruleset_id).notes)


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
    text = spec(ruleset_id).summary
    description, sections = text[language if language in LANGUAGES else "en"]
    return Summary(language=language, description=description, sections=dict(sections))
