"""`numrules serve` in a process of its own, as production runs it, its standard output and
error captured in a file: for the logs and the graceful shutdown (issue 13)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.api.serving import free_port
from tests.conftest import BUILD_DIR, ROOT

#: The pool size of the served processes unless a test names its own: several run at once
#: on the run's one PostgreSQL (100 connections in all, shared with the in-process apps), and
#: a pool's idle connections stay open until the process ends.
POOL_SIZE = "4"


class ServeProcess:
    def __init__(self, database_url: str, log: Path, **env: str) -> None:
        self.database_url = database_url
        self.log = log
        self.env = env
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self) -> tuple[str, int]:
        return "127.0.0.1", self.port

    def start(self) -> ServeProcess:
        """Start (again, after a kill: on a new free port)."""
        self._spawn()
        assert self.process is not None
        deadline = time.monotonic() + 30
        with httpx.Client(timeout=2) as probe:  # one client: a new one costs ~40 ms of CPU
            while True:
                assert self.process.poll() is None, f"the server exited:\n{self.output()[-3000:]}"
                try:
                    if probe.get(f"{self.url}/healthz").status_code == 200:
                        return self
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, f"no /healthz in 30 s:\n{self.output()[-3000:]}"
                time.sleep(0.1)

    def refused(self, timeout: float = 30) -> int:
        """Start and wait for the process to exit by itself (a start-up it refuses); its
        exit status (a TimeoutExpired past `timeout`: it kept trying)."""
        self._spawn()
        assert self.process is not None
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()  # its group: no bot worker left behind by a server that hung
            raise

    def _spawn(self) -> None:
        if self.process is not None:
            self.port = free_port()
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "NUMRULES_CHECK_DB_ON_START": "true",
            "PYTHONUNBUFFERED": "1",
            "NUMRULES_DB_POOL_SIZE": POOL_SIZE,
            **self.env,
        }
        cwd = ROOT
        if BUILD_DIR:  # serve the compiled build under test
            cwd = Path(BUILD_DIR).resolve()
            env["PYTHONPATH"] = os.pathsep.join([str(cwd), str(ROOT)])
        command = self.command()
        with self.log.open("ab") as out:
            # a process group of its own: `kill` takes its children too (the bots' workers),
            # as a container runtime does with a killed pod's processes
            self.process = subprocess.Popen(
                command,
                cwd=cwd,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def command(self) -> list[str]:
        return [sys.executable, "-m", "api.cli", "serve", "--port", str(self.port)]

    def kill(self) -> None:
        """SIGKILL to the server and its children: no shutdown, no rollback but the
        database's own, and no worker left behind."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM, then the exit status (killed after `timeout`)."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.terminate()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            raise

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""
