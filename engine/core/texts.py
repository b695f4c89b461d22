"""What the service says to people, in every language it speaks (English and French).

A :class:`Text` is one sentence with a stable `key` and a template per language; its
parameters are named (`{card}`, `{players}`) and the same in every language, which is
checked when the text is made. Raise sites and score lines keep the text and its parameters
(never an English string), and the HTTP layer renders them in the caller's language
(`Accept-Language`, :func:`pick_language`) when it answers; a stored score line keeps its
`kind` and parameters so it is rendered again on every read.

Every text made is in :data:`CATALOG` under its key (a breakdown line's text also in
:data:`KINDS`, its key being the line's `kind`); a key made twice must carry the same
words (so two modules can share a sentence, never silently disagree on it). The tests read
the catalog: each text has every language, each problem code and each breakdown kind has a
text.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: The languages the service speaks; the first is the default.
LANGUAGES = ("en", "fr")
DEFAULT_LANGUAGE = "en"

_FORMATTER = string.Formatter()


@functools.lru_cache(maxsize=4096)
def _fields(template: str) -> frozenset[str]:
    """The named parameters of `template` (kept: `say` asks on every call, and a hot path
    says a text on every action)."""
    return frozenset(name for _, name, _, _ in _FORMATTER.parse(template) if name)


@dataclass(frozen=True, slots=True)
class Text:
    """One sentence in every language: `key` (stable, kebab-case), `en` and `fr` templates
    with the same named parameters."""

    key: str
    en: str
    fr: str
    #: The words of a parameter whose values are codes (a role, a Bomb outcome): each code's
    #: text, said in the language of the whole; a code without one is said as it is.
    words: Mapping[str, Mapping[str, Text]] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.en or not self.fr:
            raise ValueError(f"text {self.key!r} needs both English and French")
        if _fields(self.en) != _fields(self.fr):
            raise ValueError(
                f"text {self.key!r}: English and French name different parameters "
                f"({sorted(_fields(self.en))} vs {sorted(_fields(self.fr))})"
            )
        if self.words and not set(self.words) <= _fields(self.en):
            raise ValueError(
                f"text {self.key!r} has words for parameters it does not take "
                f"({sorted(set(self.words) - _fields(self.en))})"
            )

    @property
    def params(self) -> frozenset[str]:
        """The names of the parameters the templates take."""
        return _fields(self.en)

    def template(self, language: str) -> str:
        return self.fr if language == "fr" else self.en

    def render(self, language: str = DEFAULT_LANGUAGE, /, **params: Any) -> str:
        """The sentence in `language` (English for any language not spoken); a parameter
        with :attr:`words` is said by its value's text."""
        if self.words:
            params = {k: self.word(k, v, language) for k, v in params.items()}
        return self.template(language).format(**params)

    def word(self, param: str, value: Any, language: str = DEFAULT_LANGUAGE) -> Any:
        """`value` of parameter `param` as the sentence says it in `language`; a list or a
        tuple of codes (`{kinds}`: an action type each) is said word by word, joined as the
        language lists them (:func:`join_words`)."""
        words = (self.words or {}).get(param)
        if words is None:
            return value
        if isinstance(value, list | tuple):
            return join_words([_said(words, v, language) for v in value], language)
        return _said(words, value, language)


def _said(words: Mapping[str, Text], value: Any, language: str) -> Any:
    said = words.get(value) if isinstance(value, str) else None
    return value if said is None else said.render(language)


#: How each language separates the items of a list said inside a sentence.
_LIST_SEPARATORS = {"en": ", ", "fr": ", "}


def join_words(items: list[Any], language: str = DEFAULT_LANGUAGE) -> str:
    """`items` (each already said in `language`) as a list inside a sentence."""
    separator = _LIST_SEPARATORS.get(language, _LIST_SEPARATORS[DEFAULT_LANGUAGE])
    return separator.join(str(item) for item in items)


#: How each language separates the details of a refusal about several fields (French: a
#: narrow no-break space before « ; », as before every « ; »).
_DETAIL_SEPARATORS = {"en": "; ", "fr": "\u202f; "}


def join_details(items: Iterable[str], language: str = DEFAULT_LANGUAGE) -> str:
    """`items` (each a detail about one field, already said in `language`) as one detail."""
    separator = _DETAIL_SEPARATORS.get(language, _DETAIL_SEPARATORS[DEFAULT_LANGUAGE])
    return separator.join(items)


#: Every text made, by key.
CATALOG: dict[str, Text] = {}

#: Each registered ruleset's name (engine.registry fills it from the specs' `names`): the
#: words of a `{ruleset}` parameter, so a sentence names « Num Wars (édition classique) » in
#: French and "Num Wars (classic edition)" in English, never `numwars-classic`. Names, not
#: sentences: they are not in :data:`CATALOG`.
RULESET_NAMES: dict[str, Text] = {}
#: The `words` of a text whose `{ruleset}` parameter is a ruleset id.
BY_RULESET: Mapping[str, Mapping[str, Text]] = {"ruleset": RULESET_NAMES}


#: Each action type (engine.core.actions: a body's `type`) as a sentence says it: in English
#: the type itself (the API's word, readable as a verb), in French what the player does, in
#: the rule books' words (« jouer une carte », « piocher », « récupération instantanée »). The
#: words of every `{kind}`/`{kinds}`/`{allowed}` parameter (issue 23: « une action play n'est
#: pas permise dans la phase exchange »). Words, not sentences: not in :data:`CATALOG`.
ACTION_WORDS: Mapping[str, Text] = {
    code: Text(f"action-{code}", en, fr)
    for code, en, fr in (
        ("play", "play", "jouer une carte"),
        ("bid", "bid", "annoncer des plis"),
        ("pass", "pass", "passer une carte"),
        ("exchange", "exchange", "échanger des cartes"),
        ("show", "show", "montrer une carte"),
        ("neutralize", "neutralize", "neutraliser une menace"),
        ("draw", "draw", "piocher"),
        ("take", "take", "récupérer la carte de la défausse"),
        ("discard", "discard", "défausser"),
        ("swap", "swap", "échanger avec la combinaison"),
        ("add", "add", "ajouter à la combinaison"),
        ("snap", "snap", "faire une récupération instantanée"),
        ("call", "call", "annoncer «\u00a0Num Win\u00a0»"),
        ("target", "target", "choisir une cible"),
    )
}
#: Each phase of a round (the kernels' `Phase`, every ruleset's) as a sentence says it: the
#: words of every `{phase}` parameter (« l'échange », never `exchange`).
PHASE_WORDS: Mapping[str, Text] = {
    code: Text(f"phase-{code}", en, fr)
    for code, en, fr in (
        ("exchange", "the exchange", "l’échange"),
        ("show", "the show step", "le moment de montrer une carte au partenaire"),
        ("bid", "the bidding", "les annonces"),
        ("play", "the play", "le jeu des plis"),
        ("neutralize", "the complice's decision", "la décision du complice"),
        ("draw", "the draw", "la pioche"),
        ("action", "a card's action", "l’action d’une carte"),
        ("over", "the end of the round", "la fin de la manche"),
    )
}


def text(key: str, en: str, fr: str, words: Mapping[str, Mapping[str, Text]] | None = None) -> Text:
    """Make (and register) a text. The same key made again must have the same words."""
    made = Text(key, en, fr, words)
    known = CATALOG.setdefault(key, made)
    if known != made or known.words != made.words:
        raise ValueError(f"text {key!r} is made twice with different words")
    return known


#: The texts of score-breakdown lines, by `kind` (each also in :data:`CATALOG`).
KINDS: dict[str, Text] = {}


def kind(key: str, en: str, fr: str, words: Mapping[str, Mapping[str, Text]] | None = None) -> Text:
    """Make (and register) the text of a breakdown line's `kind` (see :func:`text`); `words`
    says its parameters whose values are codes (a French label names a role « Démineur »,
    never `demineur`)."""
    made = text(key, en, fr, words)
    KINDS[key] = made
    return made


@dataclass(frozen=True, slots=True)
class Said:
    """A text with its parameters: what a raise site or a score line keeps, rendered late."""

    text: Text
    params: Mapping[str, Any]

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        """The sentence in `language`; a parameter that is itself a :class:`Said` (a reason
        quoted inside a sentence) is rendered in the same language."""
        params = self.params
        if any(isinstance(v, Said) for v in params.values()):
            params = {
                k: v.render(language) if isinstance(v, Said) else v for k, v in params.items()
            }
        return self.text.render(language, **params)

    def __str__(self) -> str:
        return self.render(DEFAULT_LANGUAGE)


#: What a refusal or a message holds: a text with its parameters, or (from code that has no
#: text yet, or a value that is no sentence) a plain string, the same in every language.
Message = Said | str


def render(message: Message, language: str = DEFAULT_LANGUAGE) -> str:
    """`message` in `language` (a plain string as it is)."""
    return message.render(language) if isinstance(message, Said) else message


def colour_word(colour: str) -> Said:
    """A colour's name (`red` …) as a sentence says it: the code in English, the French word
    in French."""
    return say(_COLOURS[colour])


def say(t: Text, /, **params: Any) -> Said:
    """`t` with its parameters, checked against the template's names."""
    if frozenset(params) != t.params:
        raise ValueError(f"text {t.key!r} takes {sorted(t.params)}, given {sorted(params)}")
    return Said(t, params)


_QUALITY = re.compile(r"q=(0(\.[0-9]{0,3})?|1(\.0{0,3})?)")
#: The most language ranges of an Accept-Language header that are read (a browser sends a
#: handful): the ranges after them are left out, so that a header of megabytes costs what a
#: short one does (issue 23's attack: 4 MB of ranges took 13 s of CPU).
MAX_RANGES = 32


def pick_language(accept_language: str | None, default: str = DEFAULT_LANGUAGE) -> str:
    """The supported language an Accept-Language header (RFC 9110 §12.5.4) ranks first by
    quality, ties in the header's order; English else. A range is a language tag (`fr`,
    `fr-CA`: primary subtag `fr`) or `*`, any language the header names nowhere else
    (RFC 4647 §3.3.1: `*;q=0.5, en;q=0` is French); a quality is `q=` 0 … 1 with at most
    three decimals (another parameter, or a malformed quality, leaves the range out). Only the
    first :data:`MAX_RANGES` ranges are read. `default`: the answer when the header
    chooses none (the web app's pages are French first)."""
    if not accept_language:
        return default
    ranked: list[tuple[float, int, str]] = []
    named: set[str] = set()
    for index, part in enumerate(accept_language.split(",", MAX_RANGES)[:MAX_RANGES]):
        tag, *params = (p.strip() for p in part.split(";", 2))
        quality = 1.0
        if params:
            found = _QUALITY.fullmatch(params[-1].replace(" ", "")) if len(params) == 1 else None
            if found is None:
                continue
            quality = float(found.group(0)[2:])
        primary = tag.lower().split("-", 1)[0]
        if primary != "*":
            named.add(primary)
        ranked.append((-quality, index, primary))
    for negative_quality, _, language in sorted(ranked):
        if negative_quality == 0:
            break
        if language == "*" and (others := [x for x in LANGUAGES if x not in named]):
            return others[0]
        if language in LANGUAGES:
            return language
    return default


_COLOURS = {
    code: text(f"colour-{code}", code, fr)
    for code, fr in (("red", "rouge"), ("blue", "bleu"), ("green", "vert"), ("yellow", "jaune"))
}
