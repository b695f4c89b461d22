"""The rules summary of each ruleset — the app's "Règles de Calcul" card — in English and French.

Four sections per ruleset: set-up, turn, hierarchy, scoring. Each game's text lives in its own
folder (`engine/<game>/summary.py`, declared by its spec); this module, above the registry,
serves them by ruleset id.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.texts import LANGUAGES, pick_language
from engine.registry import spec

__all__ = ["LANGUAGES", "Summary", "notes", "pick_language", "summary"]


@dataclass(frozen=True, slots=True)
class Summary:
    language: str
    description: str
    sections: dict[str, str]


def notes(ruleset_id: str) -> dict[str, str]:
    """Rulings the summary card leaves out, by stateless answer (`score_round` …): each
    game's `NOTES` (engine/<game>/summary.py), as its spec declares them."""
    return dict(spec(ruleset_id).notes)


def summary(ruleset_id: str, language: str) -> Summary:
    text = spec(ruleset_id).summary
    description, sections = text[language if language in LANGUAGES else "en"]
    return Summary(language=language, description=description, sections=dict(sections))
