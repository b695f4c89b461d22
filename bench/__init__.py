"""Benchmarks (see bench/README.md).

With NUMRULES_BUILD_DIR set (`bench/run.sh` builds `.build/mypyc` and sets it), they measure
the packages installed there, the mypyc-compiled engine that deploy/serve.sh runs, ahead of
the source tree; without it, the pure-Python source. Each prints which.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

BUILD_DIR = os.environ.get("NUMRULES_BUILD_DIR")
if BUILD_DIR:
    sys.path.insert(0, str(Path(BUILD_DIR).resolve()))

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
#: Where the servers import `api` and `engine` from: the build under test, or the source tree.
#: uvicorn puts its `--app-dir` first on sys.path (its default, "", is the working directory,
#: which would shadow the build); PYTHONPATH adds the source tree (`bench.echo_app` …).
APP_DIR = Path(BUILD_DIR).resolve() if BUILD_DIR else ROOT
#: With two CPUs or more (and `taskset`), a server under test has CPU 0 to itself and its load
#: runs on CPU 1 (PostgreSQL is not pinned: it runs wherever the scheduler puts it).
PINNED = (os.cpu_count() or 1) >= 2 and shutil.which("taskset") is not None
SERVER_CPU, LOAD_CPU = 0, 1


def pin(cpu: int | None) -> list[str]:
    """The command prefix that keeps a process on `cpu` (nothing when not pinning)."""
    return ["taskset", "-c", str(cpu)] if PINNED and cpu is not None else []


@contextmanager
def uvicorn(
    app: str,
    port: int,
    env: dict[str, str],
    *,
    workers: int = 1,
    cpu: int | None = SERVER_CPU,
    ready: str = "/healthz",
    stderr: Any = None,
    served: bool = False,
) -> Iterator[int]:
    """`app` under uvicorn (no access log, warnings only) until the block ends, once `ready`
    answers (any HTTP status); yields the server's pid (the master's with workers > 1).
    `served`: `api.app:app` as `numrules serve` runs it (deploy/serve.sh), with the server
    options of api/ops/server.py (its HTTP protocol with the slow clients' deadlines, the
    concurrency limit …); the build comes first through `env`'s PYTHONPATH (the console
    script's own directory is first on its path, not the working directory)."""
    if served:  # its log level is the environment's NUMRULES_LOG_LEVEL (api/ops/settings.py)
        assert app == "api.app:app", app
        command = [str(Path(sys.executable).parent / "numrules"), "serve"]
    else:
        command = [sys.executable, "-m", "uvicorn", app, "--app-dir", str(APP_DIR)]
        command += ["--no-access-log", "--log-level", "warning"]
    proc = subprocess.Popen(
        [*pin(cpu), *command, "--host", HOST, "--port", str(port), "--workers", str(workers)],
        cwd=ROOT,
        env=env,
        stderr=stderr,
    )
    try:
        for _ in range(200):
            if proc.poll() is not None:  # e.g. numrules serve refusing a database behind
                raise SystemExit(f"{app} on port {port} exited with status {proc.returncode}")
            try:
                urllib.request.urlopen(f"http://{HOST}:{port}{ready}", timeout=0.5)
                break
            except urllib.error.HTTPError:  # it answers
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit(f"{app} on port {port} did not start")
        yield proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def engine_build() -> str:
    """Which engine this process runs: the mypyc-compiled build or the pure-Python source."""
    import engine.numwars.kernel

    path = engine.numwars.kernel.__file__ or ""
    if path.endswith(tuple(EXTENSION_SUFFIXES)):
        return f"mypyc-compiled ({Path(path).parents[2]})"
    return "pure Python (source)"
