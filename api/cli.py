"""The `numrules` console script: serve the API, write the spec, simulate or show rounds."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

import msgspec

from api.db.cli import add_db_commands, refuse_behind_head
from engine.base import Event


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    if (refused := refuse_behind_head()) is not None:
        return refused

    uvicorn.run(
        "api.app:app",
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        access_log=False,
    )
    return 0


def _cmd_openapi(args: argparse.Namespace) -> int:
    from api.app import openapi_json

    data = openapi_json()
    if args.output == "-":
        sys.stdout.write(data)
    else:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(data)
    return 0


def _options(raw: str | None) -> dict[str, object]:
    if not raw:
        return {}
    parsed = json.loads(raw)
    if not isinstance(parsed, dict):
        raise SystemExit("--options takes a JSON object, e.g. '{\"exchange\": 2}'")
    return parsed


def _cmd_simulate(args: argparse.Namespace) -> int:
    from engine import registry
    from engine.simulate import simulate

    rules = registry.make(args.ruleset, _options(args.options))
    start = time.perf_counter()
    stats = simulate(rules, args.players, args.rounds, args.seed, args.round)
    elapsed = time.perf_counter() - start
    stats["seconds"] = round(elapsed, 3)
    stats["rounds_per_second"] = round(args.rounds / elapsed, 1) if elapsed else None
    stats["actions_per_second"] = round(stats["actions"] / elapsed, 1) if elapsed else None
    print(json.dumps(stats, indent=2))
    return 0


def describe(event: Event) -> str | None:
    """One line for a reader; None for events that only repeat what the next line says."""
    who = f"seat {event.seat}" if event.seat is not None else ""
    cards = ", ".join(event.cards)
    if event.kind == "round-over":
        return None
    if event.kind == "trick":
        result = event.data.get("result", event.data)
        winner = result.get("winner", event.seat) if isinstance(result, dict) else event.seat
        outcome = "annulled" if winner is None else f"won by seat {winner}"
        return f"  → trick: {cards}; {outcome}"
    if event.kind == "play":
        declared = event.data.get("declared")
        return f"  {who} plays {cards}" + (
            f" (declared {declared})" if declared is not None else ""
        )
    extra = ", ".join(f"{k}={v}" for k, v in event.data.items() if not isinstance(v, (dict, list)))
    parts = [event.kind, who, cards, f"({extra})" if extra else ""]
    return "  " + " ".join(p for p in parts if p)


def _cmd_play(args: argparse.Namespace) -> int:
    from engine import registry
    from engine.base import RoundScore, RoundSetup
    from engine.rng import Rng
    from engine.simulate import default_round, pick

    rules = registry.make(args.ruleset, _options(args.options))
    rng = Rng(args.seed)
    setup = RoundSetup(
        players=args.players,
        seed=args.seed,
        dealer=0,
        round=args.round or default_round(rules, args.players),
    )
    state = rules.new_round(setup)
    print(f"{rules.name} — {args.players} players, seed {args.seed}")
    for seat in range(args.players):
        view = state.view(seat)
        hand = view.get("hand")
        if not isinstance(hand, list):  # numwin: the seat's own face-down combination
            hand = view["combinations"][seat]["cards"]
        print(f"  seat {seat}: {json.dumps(hand)}")
    while not state.is_over:
        seat, action = pick(state, rng)
        for event in state.apply(seat, action):
            line = describe(event) if event.to is None else None
            if line:
                print(line)
    score = state.scores()
    assert isinstance(score, RoundScore)
    for player in score.players:
        print(f"  seat {player.seat}: {player.score} points")
    print("scores: " + msgspec.json.encode(score).decode())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="numrules", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP API (uvicorn)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(func=_cmd_serve)

    add_db_commands(sub)

    spec = sub.add_parser("openapi", help="write the OpenAPI spec the app serves")
    spec.add_argument("--output", "-o", default="openapi/openapi.json")
    spec.set_defaults(func=_cmd_openapi)

    for name, func, helptext in (
        ("simulate", _cmd_simulate, "play seeded random-legal rounds, print statistics"),
        ("play", _cmd_play, "play one seeded random round and print it trick by trick"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--ruleset", required=True)
        p.add_argument("--players", type=int, required=True)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--round", type=int, default=None, help="numking: cards per player")
        p.add_argument("--options", default=None, help="ruleset options as a JSON object")
        if name == "simulate":
            p.add_argument("--rounds", type=int, default=1000)
        p.set_defaults(func=func)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
