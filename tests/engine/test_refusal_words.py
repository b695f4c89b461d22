"""Every move refusal a player reads is said in words (texts24): in French with « tu », never
« vous », and every card by its name (« Rouge 1 », « Joker »), never a raw or Python-quoted
code (`red-1`, `'red-1'`); in English the same cards' names. Rounds are played from a sample
of seeds and, at every play, each card of the hand the rules refuse (and a card not held) is
tried, its refusal rendered in both languages."""

from __future__ import annotations

import re

import pytest

from engine import registry
from engine.core.actions import Play
from engine.core.base import RoundSetup
from engine.core.cards import CARD_WORDS
from engine.core.errors import EngineError, IllegalMove

#: A card code as the API spells it, inside a sentence.
RAW_CODE = re.compile(
    r"(?<![\w-])((red|blue|green|yellow|rainbow|shadow)-[0-9]+"
    r"|numx|infinity|flash|joker|bomb|quantum|swipe|flip|malus-[012])(?![\w-])"
)
#: The formal « vous » and its imperatives, which the app never uses.
FORMAL = re.compile(r"\b(vous|votre|vos|jouez|montez|pariez|omettez|avez|êtes)\b", re.IGNORECASE)

GAMES = ("numwars", "numwars-classic", "numking")


def _refusals(ruleset: str, seed: int) -> list[IllegalMove]:
    """The refusals met while a round is played with its first legal actions."""
    rules = registry.make(ruleset)
    state = rules.new_round(RoundSetup(players=4, seed=seed, round=1 + seed % 8))
    refusals: list[IllegalMove] = []
    codes = list(type(rules).card_codes)
    for _ in range(400):
        if state.is_over:
            break
        seat = state.current_player
        if seat is None:
            seat = state.actors()[0]
        legal = state.legal_actions(seat)
        if any(isinstance(a, Play) for a in legal):
            hand = list(state.view(seat).hand or [])
            allowed = {a.card for a in legal if isinstance(a, Play)}
            absent = next(c for c in codes if c not in hand and c != "infinity")
            for card in [*(c for c in hand if c not in allowed), absent]:
                try:
                    state.apply(seat, Play(card=card))
                except IllegalMove as refused:
                    refusals.append(refused)
                except EngineError:
                    pass  # a bad input (numking's undeclared infinity), not a refusal
                else:  # pragma: no cover - the rules accepted a card they do not list
                    raise AssertionError(f"{ruleset}: {card} played though not legal")
            other = (seat + 1) % 4
            try:
                state.apply(other, legal[0])
            except IllegalMove as refused:
                refusals.append(refused)
            except EngineError:
                pass
        state.apply(seat, legal[0])
    return refusals


def _check(message_fr: str, message_en: str) -> None:
    for message in (message_fr, message_en):
        assert not RAW_CODE.search(message), message
        assert message[:1] == message[:1].upper(), message
    assert not FORMAL.search(message_fr), message_fr


@pytest.mark.parametrize("ruleset", GAMES)
def test_every_move_refusal_says_cards_in_words_and_tu(ruleset: str) -> None:
    reasons: set[str] = set()
    for seed in range(1, 7):
        for refused in _refusals(ruleset, seed):
            reasons.add(refused.reason)
            _check(refused.render("fr"), refused.render("en"))
    assert "card-not-in-hand" in reasons
    assert reasons - {"card-not-in-hand", "not-your-turn"}, reasons  # an obligation was met


@pytest.mark.parametrize(
    ("ruleset", "hand", "trick", "card", "reason", "fr"),
    [
        (
            "numwars",
            ["red-1", "red-2", "red-4", "blue-3"],
            ["red-9"],
            "blue-3",
            "must-follow-color",
            "Il faut fournir du rouge\u00a0: tu as Rouge 1, Rouge 2, Rouge 4",
        ),
        (
            "numwars-classic",
            ["shadow-10", "shadow-14"],
            ["rainbow-12"],
            "shadow-10",
            "must-raise",
            "Shadow 10 ne bat pas tous les atouts du pli",
        ),
        (
            "numking",
            ["rainbow-2", "rainbow-10"],
            ["rainbow-9"],
            "rainbow-2",
            "must-beat",
            "Rainbow 2 ne bat pas le pli alors que tu as une carte plus forte (Rainbow 10)",
        ),
    ],
)
def test_a_stateless_refusal_in_french_names_the_cards(
    ruleset: str, hand: list[str], trick: list[str], card: str, reason: str, fr: str
) -> None:
    from engine.core.base import TrickCard

    rules = registry.make(ruleset)
    played = [TrickCard(seat=i, card=c) for i, c in enumerate(trick)]
    french = rules.validate_move(4, hand, played, card, language="fr")
    english = rules.validate_move(4, hand, played, card)
    assert (french.legal, french.reason) == (False, reason)
    assert french.message.startswith(fr), french.message
    _check(french.message, english.message)


def test_every_card_has_a_name_in_both_languages() -> None:
    assert CARD_WORDS["red-1"].render("fr") == "Rouge 1"
    assert CARD_WORDS["rainbow-7"].render("en") == "Rainbow 7"
    assert CARD_WORDS["joker"].render("fr") == "Joker"
    for code, said in CARD_WORDS.items():
        for language in ("en", "fr"):
            assert not RAW_CODE.search(said.render(language)), code
