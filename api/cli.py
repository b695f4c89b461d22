"""The `numrules` console script: serve the API, write the spec, simulate or show matches.

    numrules play --ruleset numking --players 4 --seed 1     # a whole match, trick by trick
    numrules play --ruleset numking --players 3 --bots expert,basic   # seats 0, 1 are bots
    numrules simulate --ruleset numwin --players 4 --matches 50
    numrules simulate --ruleset numking --players 4 --rounds 1000 --round 5

Every bad argument (unknown ruleset, a player count the ruleset does not take, a count below
1, options that are not a JSON object or that the ruleset refuses …) is one line on stderr,
``numrules <command>: error: …``, and exit status 2 (argparse's own error path), never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import msgspec
from pydantic import ValidationError
from pydantic_settings import SettingsError

from api.db.cli import add_db_commands, refuse_behind_head
from api.engine_build import engine_in_use, select_build

if TYPE_CHECKING:  # the engine is imported once the build is chosen (api.engine_build)
    from engine.core.events import EventBase
    from engine.core.match import Match
    from engine.core.spec import RulesetSpec
    from engine.registry import AnyRuleset

SEED_LIMIT = 1 << 64


class _Parser(argparse.ArgumentParser):
    """argparse, with every error on one line: ``prog: error: message`` (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, not {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
        return value

    parse.__name__ = f"integer ≥ {low}"
    return parse


def _positive_seconds(text: str) -> float:
    """A think budget in seconds: finite and above 0 (nan would turn the time cap off)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, not {text}")
    return value


_positive_seconds.__name__ = "seconds > 0"


def _seed(text: str) -> int:
    value = _int_at_least(0)(text)
    if value >= SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed is below 2**64, not {value}")
    return value


def _port(text: str) -> int:
    value = _int_at_least(0)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 … 65535, not {value}")
    return value


def _options(text: str) -> dict[str, Any]:
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc.msg}): {text!r}") from None
    if not isinstance(parsed, dict):
        raise argparse.ArgumentTypeError(
            f"takes a JSON object of the ruleset's options (GET /v1/rulesets/<id> lists them), "
            f"not {text!r}"
        )
    return parsed


def _levels(text: str) -> list[str]:
    from engine.bots import LEVELS

    levels = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in levels if t not in LEVELS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"bot levels are {', '.join(LEVELS)}, not {', '.join(map(repr, unknown))}"
        )
    return levels


def _rules(args: argparse.Namespace) -> AnyRuleset:
    """The rules object for `--ruleset` and `--options`, checked against `--players`."""
    from engine import registry
    from engine.core.errors import EngineError

    parser: argparse.ArgumentParser = args.parser
    try:
        rules = registry.make(args.ruleset, args.options)
        rules.match_rounds(args.players)
    except EngineError as exc:
        fields = [e.field for e in getattr(exc, "errors", [])]
        if fields == ["players"]:  # the engine does not echo the count; the console can
            parser.error(f"argument --players: {exc.message}, not {args.players}")
        parser.error(f"argument --options: {exc.message}")
    return rules


def _cmd_serve(args: argparse.Namespace) -> int:
    """uvicorn with the settings' limits (api/ops/server.py): keep-alive, concurrency, shutdown."""
    import uvicorn

    from api.ops.server import exit_cleanly_on_sigterm, server_options
    from api.ops.settings import Settings

    if args.log_level is not None:  # the app's loggers (api/ops/logs.py), in every worker too
        os.environ["NUMRULES_LOG_LEVEL"] = args.log_level.upper()
    settings = Settings()
    if (refused := refuse_behind_head()) is not None:
        return refused

    with exit_cleanly_on_sigterm():
        uvicorn.run(
            "api.app:app",
            host=settings.host if args.host is None else args.host,
            port=settings.port if args.port is None else args.port,
            workers=settings.workers if args.workers is None else args.workers,
            log_level=settings.log_level.lower(),
            access_log=False,  # the app writes its own access lines (api/ops/observe.py)
            **server_options(settings),
        )
    return 0


def _cmd_openapi(args: argparse.Namespace) -> int:
    from api.app import openapi_json

    data = openapi_json()
    if args.output == "-":
        sys.stdout.write(data)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(data)
    except OSError as exc:
        args.parser.error(f"argument --output: cannot write {args.output!r}: {exc.strerror}")
    return 0


def _deals_a_chosen_round(spec: RulesetSpec) -> bool:
    """Whether a ruleset deals a chosen hand size: its `deal` operation takes a `round`."""
    deal = next((op for op in spec.operations if op.path == "deal"), None)
    return deal is not None and "round" in deal.request.__struct_fields__


def _cmd_simulate(args: argparse.Namespace) -> int:
    from engine.core.base import RoundSetup
    from engine.core.errors import EngineError
    from engine.registry import SPECS
    from engine.simulate import simulate, simulate_matches

    rules = _rules(args)
    parser: argparse.ArgumentParser = args.parser
    if args.round is not None:
        if args.matches is not None:
            parser.error("argument --round: a match deals its own rounds; use it with --rounds")
        chosen = [i for i, spec in SPECS.items() if _deals_a_chosen_round(spec)]
        if rules.id not in chosen:
            parser.error(f"argument --round: only {', '.join(chosen)} deals a chosen hand size")
        try:
            rules.new_round(RoundSetup(players=args.players, seed=0, round=args.round))
        except EngineError as exc:
            parser.error(f"argument --round: {exc.message}")
    start = time.perf_counter()
    if args.matches is not None:
        stats = simulate_matches(rules, args.players, args.matches, args.seed)
        count, unit = args.matches, "matches"
    else:
        rounds = 1000 if args.rounds is None else args.rounds
        stats = simulate(rules, args.players, rounds, args.seed, args.round)
        count, unit = rounds, "rounds"
    elapsed = time.perf_counter() - start
    stats["seconds"] = round(elapsed, 3)
    stats[f"{unit}_per_second"] = round(count / elapsed, 1) if elapsed else None
    stats["actions_per_second"] = round(stats["actions"] / elapsed, 1) if elapsed else None
    stats["engine"], stats["engine_path"] = engine_in_use()
    if args.engine_note and stats["engine"] == "source":  # why not the build: beside the JSON
        print(f"numrules simulate: the source engine runs: {args.engine_note}", file=sys.stderr)
    print(json.dumps(stats, indent=2))
    return 0


def describe(event: EventBase, played: Sequence[str] = ()) -> str | None:
    """One line for a reader; None for events that only repeat what the next line says. A
    trick is shown with `played`, its cards in play order (the event lists them in canonical
    order), when given."""
    from engine.core.events import PlayEvent, TrickEvent

    who = f"seat {event.seat}" if event.seat is not None else ""
    cards = ", ".join(event.cards)
    if event.kind in ("round-over", "round-start", "match-over", "deal"):
        return None
    if isinstance(event, TrickEvent):
        winner = event.data.winner
        outcome = "annulled" if winner is None else f"won by seat {winner}"
        return f"  → trick: {', '.join(played) if played else cards}; {outcome}"
    if isinstance(event, PlayEvent):
        declared = event.data.declared
        return f"  {who} plays {cards}" + (
            f" (declared {declared})" if isinstance(declared, int) else ""
        )
    details = msgspec.to_builtins(event.data)
    extra = ", ".join(f"{k}={v}" for k, v in details.items() if not isinstance(v, (dict, list)))
    parts = [event.kind, who, cards, f"({extra})" if extra else ""]
    return "  " + " ".join(p for p in parts if p)


def _print_round_start(match: Match) -> None:
    """The round's number, dealer and each seat's hand (numwin: its face-down combination)."""
    state = match.round
    title = f"round {match.index + 1} of {match.regular_rounds}"
    if match.in_tiebreak:
        title = f"tie-break round {match.index + 1 - match.regular_rounds}"
    print(f"{title} (dealer {state.setup.dealer})")
    for seat in range(match.players):
        view = state.view(seat)
        combinations = getattr(view, "combinations", None)
        # numwin: the seat's own face-down combination, as far as it has seen it
        hand = view.hand if combinations is None else combinations[seat].cards
        print(f"  seat {seat}: {json.dumps(hand)}")


def _print_round_scores(match: Match) -> None:
    score = match.round_scores[-1]
    for player in score.players:
        print(f"  seat {player.seat}: {player.score} points")
    print(f"round {len(match.round_scores)} scores: " + msgspec.json.encode(score).decode())


def _cmd_play(args: argparse.Namespace) -> int:
    from engine.bots import Budget, choose
    from engine.core.events import PlayEvent, TrickEvent, visible_to
    from engine.core.rng import Rng
    from engine.core.tiebreak import MAX_TIEBREAK_ROUNDS
    from engine.simulate import MAX_STEPS, StuckError, pick

    rules = _rules(args)
    bots: list[str] = args.bots
    if len(bots) > args.players:
        args.parser.error(f"argument --bots: {len(bots)} bots for {args.players} players")
    budget = Budget(samples=args.bot_samples, seconds=args.bot_seconds)
    rng = Rng(args.seed)
    bot_rng = Rng(args.seed ^ 0x5EED_B075)  # the bots' own draws, never the deal's
    shown: list[EventBase] = []  # the current round's events (each bot sees its share)
    match = rules.new_match(players=args.players, seed=args.seed)
    kind, path = engine_in_use()
    note = f": {args.engine_note}" if args.engine_note and kind == "source" else ""
    print(f"{rules.name} — {args.players} players, seed {args.seed}; {kind} engine ({path}){note}")
    _print_round_start(match)
    played: list[str] = []  # the current trick's cards in play order
    for _ in range(MAX_STEPS * (match.regular_rounds + MAX_TIEBREAK_ROUNDS)):
        if match.is_over:
            break
        seat, action = pick(match, rng)
        if seat < len(bots):  # a bot's seat: its level chooses, from its view only
            action = choose(
                rules,
                match.view(seat),
                visible_to(shown, seat),
                level=bots[seat],
                seed=bot_rng.next_u64(),
                budget=budget,
            )
        events = match.apply(seat, action)
        for event in events:
            if event.kind == "round-start":
                shown = []
            shown.append(event)
        for event in events:
            if event.kind in ("round-start", "match-over"):
                _print_round_scores(match)
                if event.kind == "round-start":
                    _print_round_start(match)
                continue
            if event.to is not None:
                continue
            if isinstance(event, PlayEvent):
                declared = event.data.declared
                played.extend(
                    f"{c} ({declared})" if isinstance(declared, int) else c for c in event.cards
                )
            line = describe(event, played if isinstance(event, TrickEvent) else ())
            if isinstance(event, TrickEvent):
                played = []
            if line:
                print(line)
    result = match.result()
    if result is None:
        raise StuckError("the match did not end")
    print("totals: " + ", ".join(f"seat {s}: {t}" for s, t in enumerate(result.totals)))
    if result.tiebreak_rounds:
        print(f"tie-break rounds: {result.tiebreak_rounds}")
    print(f"winners: {result.winners}")
    print("result: " + msgspec.json.encode(result).decode())
    return 0


def build_parser() -> argparse.ArgumentParser:
    from engine.registry import RULESETS

    parser = _Parser(
        prog="numrules",
        description=(__doc__ or "").split("\n\n")[0],
    )
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP API (uvicorn)")
    serve.add_argument("--host", default=None, help="default: HOST, else 127.0.0.1")
    serve.add_argument("--port", type=_port, default=None, help="default: PORT, else 8000")
    serve.add_argument(
        "--workers", type=_int_at_least(1), default=None, help="default: NUMRULES_WORKERS, 1"
    )
    serve.add_argument(
        "--log-level", default=None, help="debug, info … (default: NUMRULES_LOG_LEVEL, INFO)"
    )
    serve.set_defaults(func=_cmd_serve, parser=serve)

    add_db_commands(sub)

    spec = sub.add_parser("openapi", help="write the OpenAPI spec the app serves")
    spec.add_argument(
        "--output", "-o", default="openapi/openapi.json", help="a path, or - (default: %(default)s)"
    )
    spec.set_defaults(func=_cmd_openapi, parser=spec)

    for name, func, helptext in (
        (
            "simulate",
            _cmd_simulate,
            "play seeded random-legal rounds (--rounds) or whole matches (--matches), "
            "print statistics",
        ),
        (
            "play",
            _cmd_play,
            "play one seeded match (random legal moves, or bots with --bots) and print it "
            "round by round",
        ),
    ):
        p = sub.add_parser(name, help=helptext, description=helptext)
        p.add_argument("--ruleset", required=True, choices=list(RULESETS))
        p.add_argument("--players", type=_int_at_least(1), required=True)
        p.add_argument("--seed", type=_seed, default=1, help="0 ≤ seed < 2**64")
        p.add_argument(
            "--options", type=_options, default={}, help="ruleset options as a JSON object"
        )
        if name == "simulate":
            count = p.add_mutually_exclusive_group()
            count.add_argument(
                "--rounds", type=_int_at_least(1), default=None, help="single rounds (1000)"
            )
            count.add_argument("--matches", type=_int_at_least(1), default=None)
            p.add_argument(
                "--round", type=_int_at_least(1), default=None, help="numking: cards per player"
            )
        else:
            p.add_argument(
                "--bots",
                type=_levels,
                default=[],
                help="bot levels of the first seats, comma-separated (random, basic, expert); "
                "the other seats play random legal moves",
            )
            p.add_argument("--bot-samples", type=_int_at_least(1), default=8)
            p.add_argument("--bot-seconds", type=_positive_seconds, default=0.5)
        p.set_defaults(func=func, parser=p)
    return parser


#: The settings read from conventional variables, without the NUMRULES_ prefix.
UNPREFIXED = {"database_url": "DATABASE_URL", "host": "HOST", "port": "PORT"}


def _variable(field: str) -> str:
    return UNPREFIXED.get(field.lower(), f"NUMRULES_{field.upper()}")


def settings_errors(exc: ValidationError | SettingsError) -> list[tuple[str, str]]:
    """(environment variable, message) for each bad setting."""
    if isinstance(exc, SettingsError):  # a list or object setting that is not JSON
        found = re.search(r'field "([a-z_]+)"', str(exc))
        field = found.group(1) if found else "settings"
        return [(_variable(field), 'not JSON: a list is written ["https://app.example"]')]
    return [
        (
            _variable(str(error["loc"][0]) if error["loc"] else "settings"),
            error["msg"].removeprefix("Value error, "),
        )
        for error in exc.errors()
    ]


#: The commands that run the engine, so run the compiled one when it is built.
ENGINE_COMMANDS = ("simulate", "play")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    note = select_build() if argv[:1] and argv[0] in ENGINE_COMMANDS else None
    args = build_parser().parse_args(argv)
    args.engine_note = note
    try:
        return int(args.func(args))
    except (ValidationError, SettingsError) as exc:  # the environment's settings: one line
        for variable, message in settings_errors(exc):
            print(f"numrules: {variable}: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `numrules play … | head`: the reader left, nothing is wrong
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
