"""Where bots and hints think (issue 25): off the event loop, in a separate process.

A move or a hint is `engine.bots.choose` / `engine.bots.hint` on the seat's view and the
events it was shown, run in a `ProcessPoolExecutor` (`NUMRULES_BOT_WORKERS` processes,
started with `spawn`, so nothing of the server's state is copied into them), within the
per-move budget of the settings (`NUMRULES_BOT_SAMPLES` worlds, `NUMRULES_BOT_SECONDS`); with
0 workers a thread thinks instead (tests). Each think's wall time is handed to `observe`
(the app's `numrules_bot_think_seconds` histogram).

A bot move's seed is derived from the game's own bot seed (never the deal's), the version the
move is played from and the seat: the same owed move is the same choice on any replica.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import multiprocessing
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from engine import registry
from engine.bots import Budget, Hint, choose, hint
from engine.core.actions import Action
from engine.core.events import EventBase
from engine.core.view import BaseView

log = logging.getLogger("numrules.games")


def move_seed(bot_seed: int, version: int, seat: int) -> int:
    """The seed of the bot move of `seat` from `version` (63 bits of a sha256)."""
    digest = hashlib.sha256(f"{bot_seed}:{version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _choose(
    ruleset: str,
    options: dict[str, Any],
    view: BaseView,
    events: Sequence[EventBase],
    level: str,
    seed: int,
    samples: int,
    seconds: float,
) -> tuple[Action, float]:
    started = cpu_now()
    rules = registry.make(ruleset, options)
    budget = Budget(samples=samples, seconds=seconds)
    action = choose(rules, view, events, level=level, seed=seed, budget=budget)
    return action, cpu_now() - started


def _hint(
    ruleset: str,
    options: dict[str, Any],
    view: BaseView,
    events: Sequence[EventBase],
    seed: int,
    samples: int,
    seconds: float,
) -> tuple[Hint, float]:
    started = cpu_now()
    rules = registry.make(ruleset, options)
    found = hint(rules, view, events, seed=seed, budget=Budget(samples=samples, seconds=seconds))
    return found, cpu_now() - started


@dataclass(frozen=True)
class Limits:
    """The bots' and hints' limits (issue 25; `NUMRULES_HINTS_PER_MINUTE`,
    `NUMRULES_BOT_CPU_SECONDS`, `NUMRULES_BOT_CPU_WINDOW_SECONDS`).

    - `hints_per_minute`: the hints one seat may ask a minute (0: no limit);
    - `cpu_seconds` per `cpu_window` seconds: the think time the bots of one owner's games
      (the account that created them, else the creator's network) may spend; past it their
      moves are `basic` (cheap: a game never stalls) and a new game with an `expert` seat is
      refused. Counted by the minute in the database, so every replica charges the same
      owner (0: no quota).
    """

    hints_per_minute: int = 10
    cpu_seconds: float = 600.0
    cpu_window: int = 3600

    @property
    def window_minutes(self) -> int:
        return max(1, self.cpu_window // 60)

    def since(self, now: float) -> int:
        """The first minute of the rolling window that holds `now`."""
        return int(now // 60) - self.window_minutes + 1

    def over(self, used: Sequence[tuple[int, float]]) -> bool:
        """Whether the minutes `used` (of the window) reach the quota."""
        return self.cpu_seconds > 0 and sum(s for _, s in used) >= self.cpu_seconds

    def retry_after(self, used: Sequence[tuple[int, float]], now: float) -> int:
        """Seconds until the window's oldest minutes have left it enough for the sum to fall
        under the quota (at least 1)."""
        total = sum(s for _, s in used)
        for minute, seconds in used:
            total -= seconds
            if total < self.cpu_seconds:
                leaves = (minute + self.window_minutes) * 60  # when that minute leaves
                return max(1, math.ceil(leaves - now))
        return 1


def owner_of(account_id: str | None, network: str | None) -> str | None:
    """Whose quota a new game's bots spend: its creator's account, else the creator's
    network (hashed: the address is never stored); None when neither is known."""
    if account_id is not None:
        return f"account:{account_id}"
    if network is not None:
        return "network:" + hashlib.sha256(network.encode()).hexdigest()[:32]
    return None


class OwnerLocks:
    """One think at a time per quota owner in this process (an expert bot's move or a hint),
    from its quota check to its charge: a burst of an owner's games or hints (all created or
    asked before any think was charged) cannot queue many thinks ahead of everyone else's in
    the thinkers, nor overshoot its quota by more than one think per replica. The others'
    thinks interleave; a lock lives while someone holds or awaits it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def holding(self, owner: str | None) -> AsyncIterator[None]:
        if owner is None:
            yield
            return
        lock, users = self._locks.setdefault(owner, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._locks[owner]

    def __len__(self) -> int:
        return len(self._locks)


def cpu_now() -> float:
    """This thread's CPU time: what a think costs, whichever thread or process runs it."""
    return time.thread_time()


class Thinker:
    """The bots' and hints' executor, with the settings' budget."""

    def __init__(
        self,
        workers: int = 1,
        samples: int = 24,
        seconds: float = 1.0,
        observe: Callable[[str, float], None] | None = None,
    ) -> None:
        self.workers = workers
        self.samples = samples
        self.seconds = seconds
        self.observe = observe
        self._executor: Executor | None = None
        self._closed = False

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.workers > 0 and not self._closed:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn")
                )
            else:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="numrules-bot")
        return self._executor

    async def _run(self, func: Callable[..., Any], *args: Any) -> Any:
        """`func(*args)` in the pool; a pool that cannot start its processes (a program that
        imports the app without the `if __name__ == "__main__"` guard `spawn` needs) or
        whose process died gives way to a thread, said once in the log."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), func, *args)
        except (RuntimeError, BrokenProcessPool) as exc:
            if not isinstance(self._executor, ProcessPoolExecutor):
                raise
            log.warning(
                "bots: the process pool failed (%s); thinking in a thread", type(exc).__name__
            )
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="numrules-bot")
            return await loop.run_in_executor(self._executor, func, *args)

    async def choose(
        self,
        ruleset: str,
        options: dict[str, Any],
        view: BaseView,
        events: Sequence[EventBase],
        level: str,
        seed: int,
    ) -> Action:
        return (await self.think(ruleset, options, view, events, level, seed))[0]

    async def think(
        self,
        ruleset: str,
        options: dict[str, Any],
        view: BaseView,
        events: Sequence[EventBase],
        level: str,
        seed: int,
    ) -> tuple[Action, float]:
        """The bot's move and the CPU seconds it took (what the bot-CPU quota charges)."""
        started = time.perf_counter()
        found: tuple[Action, float] = await self._run(
            _choose,
            ruleset,
            options,
            view,
            list(events),
            level,
            seed,
            self.samples,
            self.seconds,
        )
        if self.observe is not None:
            self.observe(level, time.perf_counter() - started)
        return found

    async def hint(
        self,
        ruleset: str,
        options: dict[str, Any],
        view: BaseView,
        events: Sequence[EventBase],
        seed: int,
    ) -> Hint:
        return (await self.think_hint(ruleset, options, view, events, seed))[0]

    async def think_hint(
        self,
        ruleset: str,
        options: dict[str, Any],
        view: BaseView,
        events: Sequence[EventBase],
        seed: int,
    ) -> tuple[Hint, float]:
        """The hint and the CPU seconds it took (charged to the bot-CPU quota of whoever
        asked, as a bot's move is to its game's creator)."""
        started = time.perf_counter()
        found: tuple[Hint, float] = await self._run(
            _hint,
            ruleset,
            options,
            view,
            list(events),
            seed,
            self.samples,
            self.seconds,
        )
        if self.observe is not None:
            self.observe("hint", time.perf_counter() - started)
        return found

    async def close(self, timeout: float = 5.0) -> None:
        """Stop the pool and wait, off the event loop, at most `timeout` seconds for its
        processes to exit (terminated past it). Waiting here matters: uvicorn ends a process
        that a signal stopped by raising that signal again once the app has shut down, which
        skips the interpreter's own joining of process pools at exit, and a worker left
        behind waits on its task queue forever (tests/games/test_served.py). Closed, it
        never starts a process again: a pool started after the shutdown's join was one nobody
        joined, and its worker outlived the server."""
        self._closed = True  # a move thought after this one (a shutdown's last) uses a thread
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        if processes:
            await asyncio.to_thread(_join, processes, timeout)


def _join(processes: list[Any], timeout: float) -> None:
    """Join the pool's `processes` within `timeout` seconds in all; terminate those left."""
    deadline = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.terminate()
            process.join(1)


__all__ = ["Limits", "OwnerLocks", "Thinker", "move_seed", "owner_of"]
