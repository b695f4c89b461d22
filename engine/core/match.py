"""A whole game of one ruleset, its record, its replay, and the rules version (issue 9, "Matches").

A **match** plays a ruleset's whole game by its own rules (rules/*.md, "Match" sections): the
regular rounds (as many as players, the dealer rotating, in the Num Wars editions and numwin;
rounds 1 … max_cards with streaks carried and the first bidder by the Ruling in numking),
then, when the ruleset breaks a tied total by more rounds (numwars-classic `tiebreak`, on by
default; numwars `tiebreak`, off by default), the tie-break rounds, at most 3. It has the
protocol of a round: `phase`, `current_player`, `actors()`, `legal_actions(seat)`,
`apply(seat, action)` → events, `view(seat | None)`, `is_over`, and `result()` once over; it
starts the next round by itself.

What differs between rulesets is asked of the rules object (:class:`MatchRules`, one
delimited "match policy" block per rules class): `match_rounds(players)` (how many regular
rounds), `round_setup(players, index, seed, previous)` (round `index`'s setup, 0-based,
tie-break rounds continuing the count, `previous` the round just over), `match_tiebreak(tied,
rounds)` (the tie-break Ruling, or None when the ruleset has none) and `score_match(rounds)`.

Events
    `apply` returns the round's events; when that action ends a round it appends the events
    that start the next (:meth:`Match.round_start_events`: a public :class:`RoundStartEvent`,
    ``round-start``, ``data``: ``round`` (1-based), ``dealer``, ``tiebreak`` (bool),
    ``current_player`` of the new round, with ``tied``, the seats still tied, in a tie-break
    round; then one private :class:`DealEvent` per seat, ``deal``, its hand as dealt in
    ``cards``, seen by that seat alone), or, after the last round, one public
    :class:`MatchOverEvent` (``match-over``, ``data``: ``totals``, ``winners``,
    ``tiebreak_rounds``, plus ``teams`` in team variants). Round 1 starts with the match:
    :meth:`Match.round_start_events` gives its events (a stored game logs them at creation),
    so a client that only follows the events knows every round's start and its own hand.

Seeds
    Round ``index`` (0-based; tie-break rounds continue the count) is dealt from
    :func:`round_seed`: the first 8 bytes, little-endian, of SHAKE-256 (FIPS 202) of
    ``b"numrules round " + seed (8 bytes LE) + index (4 bytes LE)``. Any language with
    SHAKE-256 recomputes it; no Python ``hash`` or ``random`` is involved. The match seed is an
    integer 0 ≤ seed < 2**64 (stored games draw 63 bits).

Rules versions
    Each rules class declares ``rules_version`` (the version new matches are played by) and
    ``rules_versions`` (every version this engine can still replay, ascending). A match and
    its :class:`MatchRecord` carry the version; a record of a version the engine never
    published is refused (:class:`InvalidInput`, code ``unknown-rules-version``). The golden
    records (``tests/engine/golden/``) fail on any change that replays a recorded match
    differently. A deliberate change therefore (1) appends the new version to
    ``rules_versions`` and sets ``rules_version`` to it, (2) keeps the old behaviour behind a
    test of the match's version — the match hands its version to the rules through
    :meth:`MatchRules.for_version`, which returns the rules object playing that version (a
    ruleset with version 1 only returns itself; numwin, at version 2 since issue 21's Rulings
    on action targets, returns a rules object playing version 1 for the records made before),
    and (3) adds golden records of the new version beside the old ones, which must keep
    passing: no stored game is stranded.

View
    :func:`match_view` is the current round's typed view (the game's ``View`` struct) with the
    match's ``round`` (1-based) and ``scores`` (match totals so far, tie-break rounds
    excluded) set; the round's own score stays in the game's ``round_score`` field.

Checkpoints
    A stored game need not replay its whole log after a restart: :meth:`Match.checkpoint` is
    where the match stood when its current round started (a :class:`MatchCheckpoint`: the
    number of actions before that round, its index and :class:`RoundSetup`, the finished
    rounds' scores by seat, the totals and the seats still tied, and the finished rounds'
    whole scores, compressed), and :meth:`Match.resume` rebuilds the match at that point from
    it, the rules, the players and the seed; applying the actions since then gives the same
    match as :func:`replay` of the whole log (same views, legal actions, events and result).
    :meth:`Match.progress` is that checkpoint with the round's actions so far (`played`),
    which resuming applies, each checked by the round as any action is (one it refuses, or
    one ending the round: ``bad-checkpoint``); a stored game writes it every few actions so
    that its cold load reads only the last few rows of its log (issue 27). A round whose
    ruleset keeps a stored form of its state (:class:`SavesState`: Num Wars, Num Wars classic
    and Num Win, whose rounds run to 100, 128 and a few hundred actions) also gives it with
    `played` (`state`), and resuming takes that state instead of applying `played`, so a cold
    load grows far less with its point in the round (`played` is still decoded: the resumed
    match's history); a state of another version of its
    form is not read (`played` is applied), an unreadable one or one that does not fit the
    round is refused (``bad-checkpoint``). Num King's rounds (a few dozen actions) are rebuilt
    from their setup and their actions, as OpenSpiel's states are.
    Resuming reads the scores by seat only (no view reads a finished round's breakdown); the
    whole scores are decoded when the match needs them: its result (`MatchOutcome.rounds`) and
    a tie-break's decision (issue 27: a late round's cold load costs what an early one's
    does). A resumed match holds no finished round states and
    only the actions applied since it was resumed (`history_start` counts the ones before),
    so it gives no :meth:`Match.record` or :meth:`Match.snapshot` (RuntimeError) unless it
    was resumed at the match's start. Its stored form (with its format version ``v``, read
    ignoring fields it does not know) is :mod:`engine.core.formats`'s, as is the export's.

Replay and the registry
    Core imports no game, so :func:`replay` is given the rules object, or, without one, asks
    the rules lookup that :mod:`engine.registry` installs when it is imported
    (:func:`set_rules_lookup`; ``engine/__init__.py`` imports the registry, so the lookup is
    there whenever anything of ``engine`` is). ``replay(MatchRecord.from_export(data))`` thus
    rebuilds a stored game offline (api-contract.md, "Stored games").
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol, Self, TypeVar, cast

import msgspec
from msgspec import UNSET, UnsetType

from engine.core.actions import Action
from engine.core.base import DeckInfo, MatchResult, RoundScore, RoundSetup, RoundState, TeamScore
from engine.core.cards import check_action_cards
from engine.core.errors import EngineError, IllegalMove, InvalidInput
from engine.core.events import (
    DealData,
    DealEvent,
    EventBase,
    MatchOverData,
    MatchOverEvent,
    RoundStartData,
    RoundStartEvent,
)
from engine.core.formats import (
    CHECKPOINT_FORMAT,
    MatchCheckpoint,
    decode_export,
    decode_played,
    decode_round_score,
    encode_played,
    encode_round_score,
)
from engine.core.texts import BY_RULESET, RULESET_NAMES, Said, say, text
from engine.core.tiebreak import TiebreakOutcome
from engine.core.view import BaseView

__all__ = [
    "Match",
    "MatchCheckpoint",
    "MatchOutcome",
    "MatchRecord",
    "MatchRules",
    "RulesLookup",
    "VersionedRules",
    "check_rules_version",
    "match_view",
    "replay",
    "round_seed",
    "set_rules_lookup",
]

_ROUND_KEY = b"numrules round "
_SEED_LIMIT = 1 << 64


def round_seed(seed: int, index: int) -> int:
    """The seed of round `index` (0-based) of the match seeded `seed` (module docstring)."""
    key = _ROUND_KEY + seed.to_bytes(8, "little") + index.to_bytes(4, "little")
    return int.from_bytes(hashlib.shake_256(key).digest(8), "little")


class SavesState(Protocol):
    """A round object that keeps a stored form of its state within the round (module
    docstring, "Checkpoints")."""

    def save_state(self) -> msgspec.Raw:
        """The round's state (the round not over), as JSON."""
        ...

    def load_state(self, saved: msgspec.Raw, played: list[tuple[int, Action]]) -> bool:
        """Make this round, freshly dealt from its setup, the one `saved` describes after
        `played` (its history then); False, the round untouched, when `saved` is of another
        version of its form. Raises ValueError, msgspec.DecodeError or ValidationError when
        `saved` is unreadable or does not fit the round."""
        ...


class MatchRules(Protocol):
    """What a match asks of a rules object (the "match policy" block of each rules class)."""

    id: ClassVar[str]
    rules_version: ClassVar[int]
    rules_versions: ClassVar[tuple[int, ...]]

    @property
    def options(self) -> msgspec.Struct: ...

    def new_round(self, setup: RoundSetup) -> RoundState: ...

    def score_match(self, rounds: list[RoundScore]) -> MatchResult: ...

    def for_version(self, version: int) -> MatchRules:
        """The rules object playing `version` (one of `rules_versions`)."""
        ...

    def deck(self, players: int) -> DeckInfo:
        """The deck of a `players`-player game (its cards, duplicates repeated)."""
        ...

    def match_rounds(self, players: int) -> int:
        """How many regular rounds a match of `players` has (checks the player count)."""
        ...

    def round_setup(
        self, players: int, index: int, seed: int, previous: RoundState | None
    ) -> RoundSetup:
        """Round `index`'s setup (0-based; `previous`: the round just over, None for round 0)."""
        ...

    def match_tiebreak(self, tied: list[int], rounds: list[RoundScore]) -> TiebreakOutcome | None:
        """The tie-break of a tied total after tie-break `rounds` (:mod:`engine.core.tiebreak`);
        None: the ruleset has none, ties share the win."""
        ...


class MatchOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """A finished match: a stored game's `result` once it is over.

    `rounds`: one score-round answer per round played, in order, tie-break rounds included (the
    last `tiebreak_rounds` of them); `totals`: each seat's sum over the regular rounds (the
    numwars-classic Ruling keeps tie-break rounds out of the totals); `winners`: ascending
    seats (the seats of every winning team in team variants); `teams`: team totals.
    """

    rounds: list[RoundScore]
    totals: list[int]
    winners: list[int]
    teams: list[TeamScore] | UnsetType = UNSET
    tiebreak_rounds: int = 0


class MatchRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything a match is rebuilt from: `replay(record)` gives an equal match.

    `options` are the rules object's whole options (defaults written out, so that a later
    change of a default does not change an old record); `actions` the ordered (seat, action)
    pairs applied, each action as the API takes it.
    """

    ruleset: str
    options: dict[str, Any]
    rules_version: int
    seed: int
    players: int
    actions: list[tuple[int, Action]]

    @classmethod
    def from_export(cls, export: bytes | str | Mapping[str, Any]) -> MatchRecord:
        """Read a stored game's export (api-contract.md: `GET /v1/games/{id}/export`).

        Checks that the players are seats 0 … n-1 in order, that the actions' `seq`s are
        1 … n in order (a `seq` is the version the action produced), that the seed is
        revealed, and, when the export holds them, that `seed_commitment` is
        ``sha256("<seed>:<salt>")``. Refusals are `InvalidInput` with code ``bad-record``.
        """
        try:
            data, actions = decode_export(export)
        except msgspec.ValidationError as exc:
            raise InvalidInput(say(NOT_AN_EXPORT, error=str(exc)), code="bad-record") from None
        except msgspec.DecodeError as exc:
            raise InvalidInput(say(NOT_JSON, error=str(exc)), code="bad-record") from None
        for i, player in enumerate(data.players):
            if player.seat != i:
                raise _bad_record(
                    say(RECORD_SEAT, i=i, seat=player.seat),
                    f"players[{i}].seat",
                )
        for i, entry in enumerate(data.actions):
            if entry.seq != i + 1:
                raise _bad_record(
                    say(RECORD_SEQ, i=i, seq=entry.seq, expected=i + 1),
                    f"actions[{i}].seq",
                )
        if data.seed is None:
            raise _bad_record(say(RECORD_NO_SEED), "seed")
        if data.seed_commitment is not None and data.salt is not None:
            digest = hashlib.sha256(f"{data.seed}:{data.salt}".encode()).hexdigest()
            if digest != data.seed_commitment:
                raise _bad_record(
                    say(RECORD_COMMITMENT),
                    "seed_commitment",
                )
        return cls(
            ruleset=data.ruleset,
            options=data.options,
            rules_version=data.rules_version,
            seed=data.seed,
            players=len(data.players),
            actions=[(a.seat, action) for a, action in zip(data.actions, actions, strict=True)],
        )


#: How an action's card refusals name the match's deck (the ruleset's name in the language).
MATCH_DECK = text(
    "match-deck",
    "the {players}-player {ruleset} deck",
    "le paquet de {ruleset} à {players}\u00a0joueurs",
    BY_RULESET,
)

#: A game export's refusals (code `bad-record`): the decoder's own words quoted as they are.
NOT_AN_EXPORT = text(
    "record-not-an-export", "not a game export: {error}", "pas un export de partie\u00a0: {error}"
)
NOT_JSON = text(
    "record-not-json",
    "the export is not JSON: {error}",
    "l’export n’est pas du JSON\u00a0: {error}",
)
RECORD_SEAT = text(
    "record-seat",
    "players[{i}] has seat {seat}: seats are 0 … n-1 in order",
    "players[{i}] a la place {seat}\u00a0: les places vont de 0 à n-1 dans l’ordre",
)
RECORD_SEQ = text(
    "record-seq",
    "actions[{i}] has seq {seq}, expected {expected}: seqs are 1 … n in order",
    "actions[{i}] a le seq {seq}, {expected} attendu\u00a0: les seq vont de 1 à n dans l’ordre",
)
RECORD_NO_SEED = text(
    "record-no-seed",
    "the export reveals no seed: the game cannot be replayed",
    "l’export ne révèle pas la graine\u00a0: la partie ne peut pas être rejouée",
)
RECORD_COMMITMENT = text(
    "record-commitment",
    'seed_commitment is not sha256("<seed>:<salt>") of the revealed seed',
    'seed_commitment n’est pas le sha256("<seed>:<salt>") de la graine révélée',
)
#: A checkpoint's refusals (code `bad-checkpoint`).
CHECKPOINT_INDEX = text(
    "checkpoint-index",
    "index {index!r} is not the number of finished rounds ({finished})",
    "index {index!r} n’est pas le nombre de manches terminées ({finished})",
)
CHECKPOINT_ACTIONS = text(
    "checkpoint-actions",
    "{actions!r} actions cannot precede round {round}: every round takes at least one action",
    "{actions!r} actions ne peuvent pas précéder la manche {round}\u00a0: chaque manche prend au "
    "moins une action",
)
CHECKPOINT_SETUP = text(
    "checkpoint-setup",
    "the setup is not that of round {round} of this match ({players} players, seed {seed})",
    "la mise en place n’est pas celle de la manche {round} de cette partie ({players} joueurs, "
    "graine {seed})",
)
CHECKPOINT_SCORES = text(
    "checkpoint-scores",
    "round_scores[{i}] does not score seats 0 … {last} once each",
    "round_scores[{i}] ne compte pas les places 0 à {last} une fois chacune",
)
CHECKPOINT_ROW = text(
    "checkpoint-row",
    "scores[{i}] does not hold one score for each seat 0 … {last}",
    "scores[{i}] ne tient pas un score pour chaque place de 0 à {last}",
)
CHECKPOINT_ROUND = text(
    "checkpoint-round",
    "rounds[{i}] is not the scores of seats 0 … {last} that scores[{i}] holds",
    "rounds[{i}] n’est pas le score des places 0 à {last} que tient scores[{i}]",
)
CHECKPOINT_TOTALS = text(
    "checkpoint-totals",
    "totals {totals!r} are not the sums of the regular rounds ({sums})",
    "totals {totals!r} ne sont pas les sommes des manches régulières ({sums})",
)
CHECKPOINT_OVER = text(
    "checkpoint-over",
    "the match is over after {index} rounds: there is no round {round}",
    "la partie est terminée après {index} manches\u00a0: il n’y a pas de manche {round}",
)
CHECKPOINT_TIED = text(
    "checkpoint-tied", "tied is {tied!r}, not {expected}", "tied vaut {tied!r}, pas {expected}"
)
CHECKPOINT_PLAYED_UNREADABLE = text(
    "checkpoint-played-unreadable",
    "played is not a list of [seat, action] pairs",
    "played n’est pas une liste de paires [siège, action]",
)
CHECKPOINT_PLAYED = text(
    "checkpoint-played",
    "played action {i} is refused by its round ({code})",
    "l’action jouée {i} est refusée par sa manche ({code})",
)
CHECKPOINT_PLAYED_ENDS = text(
    "checkpoint-played-ends",
    "played action {i} ends its round: played holds actions within its round only",
    "l’action jouée {i} termine sa manche\u00a0: played ne contient que des actions de sa manche",
)
CHECKPOINT_STATE = text(
    "checkpoint-state",
    "state is not the stored state of this round after its played actions",
    "state n’est pas l’état enregistré de cette manche après ses actions jouées",
)


def _bad_record(message: Said, field: str) -> InvalidInput:
    return InvalidInput(message, code="bad-record", field=field)


def _bad_checkpoint(message: Said, field: str) -> InvalidInput:
    return InvalidInput(message, code="bad-checkpoint", field=f"checkpoint.{field}")


def _played(checkpoint: MatchCheckpoint, shared: bool) -> list[tuple[int, Action]]:
    """The checkpoint's `played` (:func:`decode_played`); unreadable, `bad-checkpoint`."""
    try:
        return decode_played(checkpoint.played, shared=shared)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        raise _bad_checkpoint(say(CHECKPOINT_PLAYED_UNREADABLE), "played") from None


UNKNOWN_RULES_VERSION = text(
    "unknown-rules-version",
    "{ruleset} has no rules version {version!r}: this engine replays versions {known} "
    "(current {current})",
    "{ruleset} n’a pas de version de règles {version!r}\u00a0: ce moteur rejoue les versions {known} "
    "(actuelle {current})",
    BY_RULESET,
)
BAD_SEED = text(
    "bad-seed",
    "a match seed is an integer 0 ≤ seed < 2**64, not {seed!r}",
    "la graine d’une partie est un entier 0 ≤ graine < 2**64, pas {seed!r}",
)
MATCH_OVER = text("game-over", "the match is over", "la partie est terminée")
OTHER_RULESET = text(
    "record-other-ruleset",
    "the record is a {record} match, not {ruleset}",
    "l’enregistrement est une partie de {record}, pas de {ruleset}",
    {"record": RULESET_NAMES, "ruleset": RULESET_NAMES},
)
ACTION_REFUSED = text(
    "record-action-refused",
    "actions[{i}] (seat {seat}, {action}) is refused: {why}: {said}",
    "actions[{i}] (place {seat}, {action}) est refusée\u00a0: {why}\u00a0: {said}",
)


def check_rules_version(rules: MatchRules, version: object) -> int:
    """`version` if the engine published it for this ruleset, else `unknown-rules-version`."""
    if type(version) is not int or version not in rules.rules_versions:
        known = ", ".join(map(str, rules.rules_versions))
        raise InvalidInput(
            say(
                UNKNOWN_RULES_VERSION,
                ruleset=rules.id,
                version=version,
                known=known,
                current=rules.rules_version,
            ),
            code="unknown-rules-version",
            field="rules_version",
        )
    return version


class VersionedRules:
    """What every rules class's match policy shares (its own block declares `rules_version`
    and `rules_versions`): `for_version`, which returns the rules object itself while a
    ruleset has one version (a bump overrides it, see "Rules versions"), and `new_match`."""

    rules_version: ClassVar[int]
    rules_versions: ClassVar[tuple[int, ...]]

    def for_version(self, version: int) -> Self:
        """The rules object playing `version`: `self`, for a ruleset with one version (a
        ruleset with more overrides it, as numwin does)."""
        check_rules_version(cast(MatchRules, self), version)
        return self

    def new_match(self, players: int, seed: int, rules_version: int | None = None) -> Match:
        """A whole match of `players`, seeded `seed`, by the ruleset's "Match" rules."""
        return Match(cast(MatchRules, self), players, seed, rules_version)


class Rules(MatchRules, Protocol):
    """What every rules class is, to the registry and to its users (`engine.registry`'s
    `AnyRuleset`): a match's rules object (:class:`MatchRules`), its identity and player range
    as class attributes, its options struct, built from its options, and a match's start.

    A structural type, not a union of the games: a new game's rules class (deriving from
    :class:`VersionedRules`, as every game's does) is one, and adding a game names its class
    nowhere outside its folder."""

    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: the game's options struct (a msgspec struct); `type[Any]` since a protocol's class
    #: attribute is invariant and each game declares its own struct there
    Options: ClassVar[type[Any]]

    def __init__(self, options: Any = None) -> None: ...

    def new_match(self, players: int, seed: int, rules_version: int | None = None) -> Match:
        """A whole match of `players`, seeded `seed` (:meth:`VersionedRules.new_match`)."""
        ...


V = TypeVar("V", bound=BaseView)


def match_view(view: V, round_no: int, scores: list[int]) -> V:
    """A round's view as a match view: `round` (1-based) and `scores` (match totals) set.

    The round's view is left as it was (views are frozen structs); every other field, the
    round's own `round_score` included, is kept.
    """
    return msgspec.structs.replace(view, round=round_no, scores=scores)


class Match:
    """A whole match of one ruleset (module docstring): the round protocol, over every round.

    `round` is the current round state (the last one once over), `rounds` the finished round
    states and `round_scores` their scores, in order; `history` every applied (seat, action),
    the first `history_start` actions of the match left out (0 unless resumed: a resumed match
    holds neither the actions nor the round states before its checkpoint, see :meth:`resume`).
    """

    def __init__(
        self, rules: MatchRules, players: int, seed: int, rules_version: int | None = None
    ) -> None:
        self._prepare(rules, players, seed, rules_version)
        self._begin(0, self._setup(0, None))

    @classmethod
    def resume(
        cls,
        rules: MatchRules,
        players: int,
        seed: int,
        checkpoint: MatchCheckpoint,
        rules_version: int | None = None,
        upto: int | None = None,
    ) -> Self:
        """The match of `rules`, `players` and `seed` at the start of `checkpoint`'s round,
        then the round's actions the checkpoint holds (`played`, :meth:`progress`) applied, up
        to the match's `upto`-th action when given (a reader's row may be older than the
        checkpoint it reads); when it holds them all and the round's `state` after them, that
        state is taken instead (:class:`SavesState`).

        The round is built from the checkpoint's setup (``rules.new_round``); applying the
        actions the match's history holds after its first :attr:`played` gives the same match
        as replaying the whole history. `rules_version` is checked as by the constructor; a
        checkpoint that does not fit the match (players, round seed, scores, totals,
        tie-break, a `played` action the round refuses or cannot read, a `state` that does not
        fit the round) is refused
        (:class:`InvalidInput`, code ``bad-checkpoint``). The resumed match's `rounds` is
        empty, its `history` holds the `played` actions applied and `history_start` is
        ``checkpoint.actions``.
        """
        match = cls.__new__(cls)
        match._prepare(rules, players, seed, rules_version)
        match._restore(checkpoint)
        match._replay_played(checkpoint, upto)
        return match

    def _prepare(
        self, rules: MatchRules, players: int, seed: int, rules_version: int | None
    ) -> None:
        """Everything but the first round: the checks of the version, the seed, the players."""
        version = rules.rules_version if rules_version is None else rules_version
        self.rules_version = check_rules_version(rules, version)
        if type(seed) is not int or not 0 <= seed < _SEED_LIMIT:
            raise InvalidInput(
                say(BAD_SEED, seed=seed),
                code="bad-request",
                field="seed",
            )
        self.rules = rules.for_version(self.rules_version)
        self.regular_rounds = self.rules.match_rounds(players)
        self.players = players
        self.seed = seed
        self.history: list[tuple[int, Action]] = []
        #: How many actions of the match precede `history` (a resumed match's checkpoint).
        self.history_start = 0
        self.rounds: list[RoundState] = []
        #: The finished rounds' scores: by seat, every one (`_scores`); whole, those finished
        #: since this object started (`_played`) and those before a resumed match's checkpoint
        #: (`_earlier`, None until decoded from their stored form, `_raws`: see `round_scores`).
        self._scores: list[list[int]] = []
        self._played: list[RoundScore] = []
        self._earlier: list[RoundScore] | None = []
        self._raws: list[str] = []  # the stored form of the first len(_raws) finished rounds
        self._checkpoint: MatchCheckpoint | None = None
        self._outcome: MatchOutcome | None = None
        self._totals = [0] * players
        self._tied: list[int] = []
        #: card → copies, and the deck's name, for `check_cards`
        self._deck: tuple[dict[str, int], Said] | None = None
        self._finished = 0  # rounds over (`rounds` of a resumed match lacks those before it)

    def _restore(self, checkpoint: MatchCheckpoint) -> None:
        """Start at `checkpoint`'s round, after checking that it fits this match. The finished
        rounds' whole scores stay in their stored form until the match needs them
        (`round_scores`)."""
        cp, n = checkpoint, self.players
        index = cp.index
        rows = cp.scores
        if cp.round_scores:  # version 1: the finished rounds decoded
            rows = [[0] * n for _ in cp.round_scores]
            for i, scores in enumerate(cp.round_scores):
                if sorted(p.seat for p in scores.players) != list(range(n)):
                    raise _bad_checkpoint(
                        say(CHECKPOINT_SCORES, i=i, last=n - 1),
                        f"round_scores[{i}]",
                    )
                for p in scores.players:
                    rows[i][p.seat] = p.score
            finished = len(cp.round_scores)
        else:
            finished = len(rows) if len(cp.rounds) == len(rows) else -1
        if type(index) is not int or index < 0 or finished != index:
            raise _bad_checkpoint(
                say(CHECKPOINT_INDEX, index=index, finished=len(cp.round_scores or rows)),
                "index",
            )
        if type(cp.actions) is not int or cp.actions < 0 or (cp.actions == 0) != (index == 0):
            raise _bad_checkpoint(
                say(CHECKPOINT_ACTIONS, actions=cp.actions, round=index + 1),
                "actions",
            )
        if cp.setup.players != n or cp.setup.seed != round_seed(self.seed, index):
            raise _bad_checkpoint(
                say(CHECKPOINT_SETUP, round=index + 1, players=n, seed=self.seed),
                "setup",
            )
        for i, row in enumerate(rows):
            if len(row) != n:
                raise _bad_checkpoint(say(CHECKPOINT_ROW, i=i, last=n - 1), f"scores[{i}]")
        totals = [0] * n
        for row in rows[: self.regular_rounds]:
            for seat, score in enumerate(row):
                totals[seat] += score
        if cp.totals != totals:
            raise _bad_checkpoint(
                say(CHECKPOINT_TOTALS, totals=cp.totals, sums=totals),
                "totals",
            )
        self._scores = [list(row) for row in rows]
        if cp.round_scores:  # stored anew by `checkpoint`, if asked
            self._earlier = list(cp.round_scores)
        else:
            self._earlier = None if index else []
            self._raws = list(cp.rounds)
        tied: list[int] = []
        if index >= self.regular_rounds:  # a tie-break round: due, and between `tied`
            rounds = self.round_scores
            regular = self.rules.score_match(rounds[: self.regular_rounds])
            decision = (
                self.rules.match_tiebreak(regular.winners, rounds[self.regular_rounds :])
                if regular.tiebreak_needed
                else None
            )
            if decision is None or not decision.another_round:
                raise _bad_checkpoint(
                    say(CHECKPOINT_OVER, index=index, round=index + 1),
                    "index",
                )
            tied = list(decision.winners)
        if cp.tied != tied:
            raise _bad_checkpoint(say(CHECKPOINT_TIED, tied=cp.tied, expected=tied), "tied")
        self.history_start = cp.actions
        self._totals = totals
        self._tied = tied
        self._finished = index
        self._begin(index, cp.setup)

    def _replay_played(self, checkpoint: MatchCheckpoint, upto: int | None) -> None:
        """Apply the checkpoint's `played` actions (up to the match's `upto`-th action): all
        within its round (none may end it), each checked by the round as any action is."""
        if bytes(checkpoint.played) == b"[]":
            return
        # with a state, the actions are its history, not applied: read as sent, not as the
        # kernels' shared values (read again as those when they are applied after all)
        saved = bytes(checkpoint.state) != b"null"
        played = _played(checkpoint, shared=not saved)
        keep = len(played)
        if upto is not None and upto - checkpoint.actions < keep:
            keep = max(0, upto - checkpoint.actions)  # an older row: no `state`
        elif played and saved and self._load_state(checkpoint, played):
            return
        played = (_played(checkpoint, shared=True) if saved else played)[:keep]
        state, history = self.round, self.history
        apply = state.apply  # as `apply` does, without its round's end (refused here)
        for i, (seat, action) in enumerate(played):
            try:
                apply(seat, action)
            except EngineError as exc:
                raise _bad_checkpoint(
                    say(CHECKPOINT_PLAYED, i=i, code=exc.code), f"played[{i}]"
                ) from None
            if state.is_over:
                raise _bad_checkpoint(say(CHECKPOINT_PLAYED_ENDS, i=i), f"played[{i}]")
            history.append((seat, action))

    def _load_state(self, checkpoint: MatchCheckpoint, played: list[tuple[int, Action]]) -> bool:
        """The round's stored `state` taken after `played` (:class:`SavesState`), then asked
        for its actors' legal actions and the spectator's view (a state whose shape passed but
        that the round cannot answer with is refused here, not at a later request); False when
        its ruleset keeps none or it is of another version (`played` is applied then)."""
        state = self.round
        load = getattr(state, "load_state", None)
        if load is None:
            return False
        try:
            loaded = bool(load(checkpoint.state, played))
            if loaded:  # the round taken must answer as a round: its actors, their actions
                for seat in state.actors():
                    state.legal_actions(seat)
                state.view(None)  # and a view (every finished trick, the trick, the piles)
        except Exception:  # whatever does not fit: the state is refused, nothing else
            raise _bad_checkpoint(say(CHECKPOINT_STATE), "state") from None
        if loaded:
            self.history.extend(played)
        return loaded

    @property
    def played(self) -> int:
        """How many actions of the match this object has played: those before its checkpoint
        (`history_start`) and those in `history`."""
        return self.history_start + len(self.history)

    @property
    def round_scores(self) -> list[RoundScore]:
        """Every finished round's scores, in order (a new list). A resumed match decodes those
        before its checkpoint on first use (its result, a tie-break): a checkpoint's stored
        round that does not hold its `scores` is refused then (`bad-checkpoint`)."""
        earlier = self._earlier
        if earlier is None:
            earlier = self._earlier = self._decode_earlier()
        return earlier + self._played

    def _decode_earlier(self) -> list[RoundScore]:
        n = self.players
        count = len(self._scores) - len(self._played)
        decoded = []
        for i, raw in enumerate(self._raws[:count]):
            try:
                scores: RoundScore | None = decode_round_score(raw)
            except msgspec.DecodeError:
                scores = None
            by_seat = {p.seat: p.score for p in scores.players} if scores is not None else {}
            if (
                scores is None
                or len(scores.players) != n
                or [by_seat.get(seat) for seat in range(n)] != self._scores[i]
            ):
                raise _bad_checkpoint(say(CHECKPOINT_ROUND, i=i, last=n - 1), f"rounds[{i}]")
            decoded.append(scores)
        return decoded

    # -- the round protocol ---------------------------------------------------------------

    @property
    def index(self) -> int:
        """The current round's index, 0-based (tie-break rounds continue the count)."""
        return self._finished - (1 if self._outcome is not None else 0)

    @property
    def phase(self) -> str:
        return str(self.round.phase)

    @property
    def current_player(self) -> int | None:
        return self.round.current_player

    @property
    def is_over(self) -> bool:
        return self._outcome is not None

    @property
    def in_tiebreak(self) -> bool:
        """Whether the current round is a tie-break round (numwars-classic Ruling)."""
        return self.index >= self.regular_rounds

    def actors(self) -> list[int]:
        return self.round.actors()

    def legal_actions(self, seat: int) -> list[Action]:
        return self.round.legal_actions(seat)

    def check_cards(self, action: Action) -> None:
        """Refuse an action naming a card outside the match's deck (`InvalidInput`
        `unknown-card`, `card-not-in-deck`, `duplicate-card`, naming the field): what a client
        sends is checked against the deck before a round reads it. The deck (card → copies) and
        its name are made once per match."""
        deck = self._deck
        if deck is None:
            deck = self._deck = (
                dict(Counter(self.rules.deck(self.players).cards)),
                say(MATCH_DECK, players=self.players, ruleset=self.rules.id),
            )
        check_action_cards(deck[0], action, deck_name=deck[1])

    def apply(self, seat: int, action: Action) -> list[EventBase]:
        """Apply one action to the current round; start the next round when it ends.

        Raises like the round (nothing changes then); after the last round, `IllegalMove`
        with reason ``game-over``.
        """
        if self._outcome is not None:
            raise IllegalMove("game-over", say(MATCH_OVER))
        state = self.round
        events = list(state.apply(seat, action))
        self.history.append((seat, action))
        if state.is_over:
            events.extend(self._round_over(state))
        return events

    def round_start_events(self) -> list[EventBase]:
        """The events that start the current round: the public ``round-start``, then each
        seat's ``deal`` (its hand, seen by it alone). `apply` adds them when it starts a round;
        for round 1, which starts with the match, ask for them before the first action (a
        hand is as dealt only until its seat acts)."""
        index = self.index
        state = self.round
        tiebreak = index >= self.regular_rounds
        start = RoundStartEvent(
            data=RoundStartData(
                round=index + 1,
                dealer=state.setup.dealer,
                tiebreak=tiebreak,
                current_player=state.current_player,
                tied=list(self._tied) if tiebreak else UNSET,
            )
        )
        dealt = getattr(state, "dealt", None)  # a round may say what each seat was dealt
        events: list[EventBase] = [start]
        for seat in range(self.players):
            cards = dealt(seat) if dealt is not None else state.view(seat).hand
            events.append(
                DealEvent(
                    seat=seat, cards=list(cards or []), data=DealData(round=index + 1), to=[seat]
                )
            )
        return events

    def view(self, seat: int | None) -> BaseView:
        """The current round's view (`seat`'s, or the spectator's) as a match view."""
        return match_view(self.round.view(seat), self.index + 1, list(self._totals))

    def totals(self) -> list[int]:
        """Each seat's total so far over the regular rounds (tie-break rounds excluded)."""
        return list(self._totals)

    def result(self) -> MatchOutcome | None:
        """The contract's `result` once the match is over, else None."""
        return self._outcome

    def checkpoint(self) -> MatchCheckpoint:
        """Where the match stood when its current round started (:meth:`resume` resumes it);
        once over, when its last round started. Counts `actions` from the match's start, a
        resumed match's too. Built when first asked (the finished rounds' stored form encoded
        then): a play-out that never asks pays nothing for it."""
        checkpoint = self._checkpoint
        if checkpoint is None:
            actions, index, setup, totals, tied = self._start
            raws = self._raws
            played = self._played
            before = len(self._scores) - len(played)  # rounds finished before this object
            for i in range(len(raws), index):  # those not stored yet (a version 1's: decoded)
                earlier = self._earlier
                assert i >= before or earlier is not None, "resumed: stored or decoded"
                scores = played[i - before] if i >= before or earlier is None else earlier[i]
                raws.append(encode_round_score(scores))
            checkpoint = self._checkpoint = MatchCheckpoint(
                actions=actions,
                index=index,
                setup=setup,
                totals=totals,
                tied=tied,
                scores=self._scores[:index],
                rounds=raws[:index],
                v=CHECKPOINT_FORMAT,
            )
        return checkpoint

    def progress(self) -> MatchCheckpoint:
        """:meth:`checkpoint` with the current round's actions so far (`played`), and the
        round's state after them when its ruleset keeps one (`state`, :class:`SavesState`):
        resuming takes that state, or else applies them, so a stored game's cold load reads
        only the log written since (issue 27's growth). Encoded anew at each call. A match that is over has nothing to resume
        (RuntimeError: its last round's actions include the one that ended it)."""
        if self.is_over:
            raise RuntimeError("a match that is over has no progress to resume")
        checkpoint = self.checkpoint()
        start = checkpoint.actions - self.history_start  # >= 0: resumed at a round's start
        actions = self.history[start:]
        played = encode_played(actions)
        save = getattr(self.round, "save_state", None)
        if save is None or not actions:  # at the round's start, the checkpoint is its state
            return msgspec.structs.replace(checkpoint, played=played)
        return msgspec.structs.replace(checkpoint, played=played, state=save())

    def record(self) -> MatchRecord:
        """What the match is rebuilt from (see :func:`replay`).

        Raises RuntimeError on a match resumed after its start: it lacks the actions before
        its checkpoint (`history_start` of them), so the record would replay another match.
        """
        self._check_whole("record")
        return MatchRecord(
            ruleset=self.rules.id,
            options=msgspec.to_builtins(self.rules.options),
            rules_version=self.rules_version,
            seed=self.seed,
            players=self.players,
            actions=list(self.history),
        )

    def snapshot(self) -> dict[str, Any]:
        """The whole match as plain data, hidden cards included (replay equality).

        Raises RuntimeError on a match resumed after its start, like :meth:`record` (it also
        lacks the finished rounds' states).
        """
        self._check_whole("snapshot")
        return {
            "rules_version": self.rules_version,
            "rounds": [r.snapshot() for r in self.rounds],
            "current": None if self._outcome is not None else self.round.snapshot(),
            "history": [[s, msgspec.to_builtins(a)] for s, a in self.history],
            "result": msgspec.to_builtins(self._outcome),
        }

    def _check_whole(self, what: str) -> None:
        if self.history_start:
            raise RuntimeError(
                f"a match resumed after {self.history_start} actions has no {what}: it holds"
                " neither those actions nor the rounds they played (replay the whole record)"
            )

    # -- moving on --------------------------------------------------------------------------

    def _setup(self, index: int, previous: RoundState | None) -> RoundSetup:
        return self.rules.round_setup(self.players, index, round_seed(self.seed, index), previous)

    def _begin(self, index: int, setup: RoundSetup) -> None:
        """Start round `index` from `setup`, and note what its checkpoint holds."""
        self.round = self.rules.new_round(setup)
        self._start = (
            self.played,
            index,
            setup,
            list(self._totals),
            list(self._tied),
        )
        self._checkpoint = None

    def _round_over(self, state: RoundState) -> list[EventBase]:
        """Score the round just over; start the next one or end the match (module docstring)."""
        scores = state.scores()
        assert scores is not None, "a round over has its scores"
        self.rounds.append(state)
        self._played.append(scores)
        row = [0] * self.players
        for p in scores.players:
            row[p.seat] = p.score
        self._scores.append(row)
        self._finished += 1
        index = self._finished
        if index <= self.regular_rounds:
            for p in scores.players:
                self._totals[p.seat] += p.score
        if index < self.regular_rounds:
            return self._next_round(index, state)
        rounds = self.round_scores
        regular = self.rules.score_match(rounds[: self.regular_rounds])
        winners = regular.winners
        if regular.tiebreak_needed:
            decision = self.rules.match_tiebreak(regular.winners, rounds[self.regular_rounds :])
            if decision is not None:
                if decision.another_round:
                    self._tied = list(decision.winners)
                    return self._next_round(index, state)
                winners = list(decision.winners)
        outcome = MatchOutcome(
            rounds=rounds,
            totals=regular.totals,
            winners=winners,
            teams=regular.teams,
            tiebreak_rounds=index - self.regular_rounds,
        )
        self._outcome = outcome
        over = MatchOverData(
            totals=outcome.totals,
            winners=outcome.winners,
            tiebreak_rounds=outcome.tiebreak_rounds,
            teams=outcome.teams,
        )
        return [MatchOverEvent(data=over)]

    def _next_round(self, index: int, previous: RoundState) -> list[EventBase]:
        self._begin(index, self._setup(index, previous))
        return self.round_start_events()


#: Finds the rules object of a ruleset id and options (see "Replay and the registry").
RulesLookup = Callable[[str, Mapping[str, Any]], MatchRules]
_rules_lookup: RulesLookup | None = None


def set_rules_lookup(lookup: RulesLookup) -> None:
    """Install what :func:`replay` asks for a record's rules (:mod:`engine.registry` does)."""
    global _rules_lookup
    _rules_lookup = lookup


def replay(record: MatchRecord, rules: MatchRules | None = None) -> Match:
    """The match `record` describes, rebuilt by applying its actions in order.

    `rules` defaults to the rules object of the record's ruleset and options, from the
    registry's lookup (module docstring). A refused action is re-raised with its position
    (``actions[i]``) in the error's field.
    """
    if rules is None:
        if _rules_lookup is None:  # engine/__init__ imports the registry: only mid-import
            raise RuntimeError("no rules lookup: import engine.registry, or pass the rules")
        rules = _rules_lookup(record.ruleset, record.options)
    elif rules.id != record.ruleset:
        raise InvalidInput(
            say(OTHER_RULESET, record=record.ruleset, ruleset=rules.id),
            code="bad-record",
            field="ruleset",
        )
    match = Match(rules, record.players, record.seed, record.rules_version)
    for i, (seat, action) in enumerate(record.actions):
        try:
            match.apply(seat, action)
        except EngineError as exc:
            why = exc.reason if isinstance(exc, IllegalMove) else exc.code
            raise InvalidInput(
                say(ACTION_REFUSED, i=i, seat=seat, action=repr(action), why=why, said=exc.said),
                code="bad-record",
                field=f"actions[{i}]",
            ) from exc
    return match
