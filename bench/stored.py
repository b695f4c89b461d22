"""What the stored-games benchmarks share: a throw-away PostgreSQL database, the API server on
it, a small keep-alive HTTP/1.1 client, and the driver that plays games through the API.

The driver plays each game the way a client would: the seat that may act (the first of the
view's `actors`) takes the first of its `legal_actions`, from the view the server returned to
it after its own last action when that view is still current, else from its view read with
`GET /v1/games/{id}` (its token). Games run one after the other in each of `conc` tasks (a
finished game is replaced by a new one, created in the timed window: one `POST /v1/games`
per 320 actions of a four-player Num Wars match).
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import msgspec

from bench import APP_DIR, HOST, PINNED, ROOT, SERVER_CPU, uvicorn

PG = "postgres@127.0.0.1:5432"


def pin_self(cpu: int) -> None:
    if PINNED:
        os.sched_setaffinity(0, {cpu})


def server_env(url: str) -> dict[str, str]:
    """The API's environment: the database, the build first on the path; rate limiting off
    unless the environment sets it (one client address sends everything), logs at WARNING,
    a pool of 20 database connections."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(APP_DIR), str(ROOT)]),
        "DATABASE_URL": url,
        "NUMRULES_RATE_LIMIT_PER_MINUTE": os.environ.get("NUMRULES_RATE_LIMIT_PER_MINUTE", "0"),
        "NUMRULES_LOG_LEVEL": os.environ.get("NUMRULES_LOG_LEVEL", "WARNING"),
        # Connections for 16 concurrent games, as the raw-asyncpg baseline's pool of 20 (the
        # default 10 would open and close an overflow connection on most actions).
        "NUMRULES_DB_POOL_SIZE": os.environ.get("NUMRULES_DB_POOL_SIZE", "20"),
    }


@contextmanager
def throwaway_db() -> Iterator[str]:
    """A fresh database migrated to head (`numrules db upgrade`); dropped afterwards."""
    name = f"numrules_bench_{secrets.token_hex(4)}"
    psql = ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc"]
    subprocess.run([*psql, f"CREATE DATABASE {name}"], check=True)
    url = f"postgresql+asyncpg://{PG}/{name}"
    try:
        subprocess.run(
            [str(ROOT / ".venv/bin/numrules"), "db", "upgrade"],
            env=server_env(url),
            check=True,
            capture_output=True,
        )
        yield url
    finally:
        subprocess.run([*psql, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)


def serve_api(
    url: str,
    port: int,
    workers: int = 1,
    cpu: int | None = SERVER_CPU,
    settings: dict[str, str] | None = None,
) -> AbstractContextManager[int]:
    """`api.app:app` on `url` (and `settings`, environment variables) as `numrules serve`
    runs it (its server options: api/ops/server.py); yields its pid (the master's with
    workers > 1)."""
    env = {**server_env(url), **(settings or {})}
    return uvicorn("api.app:app", port, env, workers=workers, cpu=cpu, served=True)


_LENGTH = re.compile(rb"\r\ncontent-length: *(\d+)", re.IGNORECASE)


class _View(TypedDict):
    """What a driver reads of a seat's view (the rest of the answer is skipped, not built:
    a client decodes what it uses); an action is sent back as it came."""

    actors: list[int]
    legal_actions: list[msgspec.Raw] | None


class _Shown(TypedDict):
    """What a driver reads of a game or an action's answer (its view, its version) or of a
    stream's `event: game` (and its seat)."""

    version: int
    view: _View
    seat: NotRequired[int | None]


#: The decoder of a game, an action's answer or a stream's game, as the drivers read them.
SHOWN = msgspec.json.Decoder(_Shown)


_ANY = msgspec.json.Decoder()


class Http:
    """One keep-alive HTTP/1.1 connection (the answers carry Content-Length)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        shape: msgspec.json.Decoder[Any] | None = None,
    ) -> tuple[int, Any]:
        """The answer's status and its JSON (a 2xx answer's decoded by `shape` when given)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        data = b"" if body is None else msgspec.json.encode(body)
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        answer = await self.reader.readuntil(b"\r\n\r\n")
        found = _LENGTH.search(answer)
        payload = await self.reader.readexactly(int(found[1])) if found else b""
        status = int(answer[9:12])
        if not payload:
            return status, None
        return status, (shape if shape and status < 300 else _ANY).decode(payload)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


CREATE = {"ruleset": "numwars", "players": [{"name": f"p{i}"} for i in range(4)]}


async def play_game(
    http: Http,
    game: Any,
    deadline: float,
    lat: list[float],
    view_of: Callable[[int, int], Awaitable[Any]],
) -> None:
    """Play the created `game` until it ends or `deadline`: the seat that may act (the first
    of the view's `actors`) takes the first of its `legal_actions`, from its own last
    action's answer when it acts again, else from `view_of(seat, version)`; each POST's
    latency (ms) goes to `lat`."""
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    view, fresh, version = game["view"], -1, 0
    while view["actors"] and time.perf_counter() < deadline:
        seat = view["actors"][0]
        if fresh != seat:
            view = await view_of(seat, version)
        t0 = time.perf_counter()
        status, ans = await http.request(
            "POST", f"/v1/games/{gid}/actions", view["legal_actions"][0], tokens[seat], SHOWN
        )
        lat.append((time.perf_counter() - t0) * 1e3)
        assert status == 200, (status, ans)
        assert ans["version"] == version + 1
        version, view, fresh = ans["version"], ans["view"], seat


async def play_http(
    port: int | Sequence[int], conc: int, duration: float, create: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Actions per second and POST latencies (ms) of `conc` concurrent game loops (with
    several ports, the loops are dealt to the servers in turn)."""
    ports = [port] if isinstance(port, int) else list(port)
    lat: list[float] = []
    gets = 0
    games = created = 0
    deadline = time.perf_counter() + duration

    async def loop(port: int) -> None:
        nonlocal games, created
        http = Http(port)
        try:
            while time.perf_counter() < deadline:
                status, game = await http.request("POST", "/v1/games", create or CREATE)
                assert status == 201, (status, game)
                created += 1

                async def read(seat: int, version: int, game: Any = game) -> Any:
                    nonlocal gets
                    path, token = f"/v1/games/{game['id']}", game["seats"][seat]["token"]
                    status, got = await http.request("GET", path, token=token, shape=SHOWN)
                    assert status == 200, (status, got)
                    gets += 1
                    return got["view"]

                await play_game(http, game, deadline, lat, read)
                games += 1
        finally:
            http.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(loop(ports[i % len(ports)]) for i in range(conc)))
    wall = time.perf_counter() - t0
    requests = (len(lat) + gets + created) / max(1, len(lat))  # actions' POSTs, GETs, creations
    return summary(lat, wall, games=games, gets=gets, requests_per_action=requests)


async def watch(port: int, path: str, token: str, seen: Any, events: Any = None) -> None:
    """Read the event stream at `path` (with `token`), calling `seen(game)` with each of its
    `event: game` messages (the stream's `view=true`), and `events()` after each chunk that
    held events, until the stream ends."""
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
        )
        status_line = await reader.readline()
        assert status_line.split()[1] == b"200", status_line
        chunked = False
        while (line := await reader.readline()) not in (b"\r\n", b""):
            chunked = chunked or line.lower() == b"transfer-encoding: chunked\r\n"
        buffer = b""
        while True:
            if chunked:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    return
                buffer += await reader.readexactly(size + 2)
                buffer = buffer[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    return
                buffer += data
            logged = False
            while (end := buffer.find(b"\r\n\r\n")) >= 0:
                message, buffer = buffer[:end], buffer[end + 4 :]
                fields = dict(line.partition(b": ")[::2] for line in message.split(b"\r\n"))
                logged = logged or b"id" in fields
                if fields.get(b"event") == b"game":
                    seen(SHOWN.decode(fields[b"data"]))
            if logged and events is not None:
                events()
    finally:
        writer.close()


async def play_streams(
    port: int | Sequence[int],
    conc: int,
    duration: float,
    create: dict[str, Any] | None = None,
    views: bool = True,
) -> dict[str, Any]:
    """`play_http`'s games, each seat watching the game through its own event stream (four
    streams a game), as the app's players do. With `views`, each stream is opened with
    `?view=true`: the seat that may act takes the first of its legal actions from the last
    `game` its stream showed (or from its own last action's answer when it acts again), and
    no view is ever read with a GET. Without, each seat reads its view with a GET after each
    chunk of events its stream brings (one read in flight per seat, another after it if
    events came meanwhile), as the app did before `view=true`: about four GETs an action."""
    ports = [port] if isinstance(port, int) else list(port)
    lat: list[float] = []
    games = gets = 0
    deadline = time.perf_counter() + duration

    async def refresher(port: int, gid: str, token: str, seen: Any) -> Any:
        """The `events` callback of one seat's stream without views: its GETs."""
        http = Http(port)
        state = {"busy": False, "again": False}

        async def read() -> None:
            nonlocal gets
            try:
                while True:
                    state["again"] = False
                    status, got = await http.request(
                        "GET", f"/v1/games/{gid}", token=token, shape=SHOWN
                    )
                    assert status == 200, (status, got)
                    gets += 1
                    seen(got)
                    if not state["again"]:
                        return
            finally:
                state["busy"] = False

        def events() -> None:
            if state["busy"]:
                state["again"] = True
                return
            state["busy"] = True
            reads.add(asyncio.ensure_future(read()))

        reads: set[asyncio.Future[None]] = set()
        return events, http, reads

    async def loop(port: int) -> None:
        nonlocal games
        http = Http(port)
        try:
            while time.perf_counter() < deadline:
                status, game = await http.request("POST", "/v1/games", create or CREATE)
                assert status == 201, (status, game)
                gid, tokens = game["id"], [s["token"] for s in game["seats"]]
                shown: list[Any] = [None] * len(tokens)
                changed = asyncio.Event()

                def seen(game: Any, shown: list[Any] = shown, changed: Any = changed) -> None:
                    old = shown[game["seat"]]
                    if old is None or old["version"] <= game["version"]:  # a late GET: older
                        shown[game["seat"]] = game
                        changed.set()

                path = f"/v1/games/{gid}/stream" + ("?view=true" if views else "")
                helpers = [None] * len(tokens)
                if not views:
                    helpers = [await refresher(port, gid, t, seen) for t in tokens]
                streams = [
                    asyncio.ensure_future(watch(port, path, t, seen, None if h is None else h[0]))
                    for t, h in zip(tokens, helpers, strict=True)
                ]

                async def streamed(
                    seat: int,
                    version: int,
                    shown: list[Any] = shown,
                    changed: Any = changed,
                    streams: list[Any] = streams,
                    gid: str = gid,
                ) -> Any:
                    while (g := shown[seat]) is None or g["version"] < version:
                        changed.clear()  # a stream that failed: no wait forever
                        try:
                            await asyncio.wait_for(changed.wait(), PATIENCE)
                        except TimeoutError:
                            raise TimeoutError(
                                stalled(gid, seat, version, g, streams[seat])
                            ) from None
                    return g["view"]

                try:
                    await play_game(http, game, deadline, lat, streamed)
                    games += 1
                finally:
                    tasks = [*streams, *(r for h in helpers if h is not None for r in h[2])]
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    for h in helpers:
                        if h is not None:
                            h[1].close()
        finally:
            http.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(loop(ports[i % len(ports)]) for i in range(conc)))
    wall = time.perf_counter() - t0
    return summary(lat, wall, games=games, gets=gets)


TICKS = os.sysconf("SC_CLK_TCK")


#: How long a seat waits for its stream to show the game it may act on before the driver
#: gives up (under the server's 15 s keep-alive, after which a stream reads the log again).
PATIENCE = 10.0


def stalled(gid: str, seat: int, version: int, last: Any, stream: asyncio.Future[Any]) -> str:
    """What a driver says when a seat's stream showed it no game at `version` within
    `PATIENCE` seconds: the last version it showed, and whether the stream task had ended (and
    how), to tell a stream that ended (a read or render error on the server ends it with
    `event: end`) from one left waiting (a wake-up missed: the server reads the log again at
    its keep-alive)."""
    state = "still open"
    if stream.done():
        failed = None if stream.cancelled() else stream.exception()
        state = "ended" if failed is None else f"ended by {failed!r}"
    shown = None if last is None else last["version"]
    return (
        f"game {gid}: seat {seat}'s stream showed no version >= {version} in {PATIENCE:g} s "
        f"(last {shown}; {state})"
    )


def process_tree(root: int) -> list[int]:
    """`root` and every process descended from it (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            ppid = int(stat.rpartition(")")[2].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


def cpu_seconds(pids: Iterable[int]) -> dict[int, float]:
    """User + system CPU seconds each of `pids` has used so far (the ended ones left out)."""
    used = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    return used


def postgres_pids(url: str) -> dict[str, list[int]]:
    """The PostgreSQL server's processes: `backends`, those connected to `url`'s database
    (the server's pool), and `background` (WAL writer, checkpointer, … shared by every
    database: on a machine running nothing else, the benchmark's)."""
    name = url.rsplit("/", 1)[1]
    query = (
        "SELECT pid, datname IS NOT DISTINCT FROM %s, backend_type FROM pg_stat_activity "
        "WHERE pid <> pg_backend_pid()"
    ) % ("'" + name + "'")
    rows = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-AtF", ",", "-c", query],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    out: dict[str, list[int]] = {"backends": [], "background": []}
    for row in rows:
        pid, ours, kind = row.split(",", 2)
        if ours == "t":
            out["backends"].append(int(pid))
        elif kind != "client backend":
            out["background"].append(int(pid))
    return out


async def play_measured(
    ports: Sequence[int],
    servers: Sequence[int],
    url: str,
    conc: int,
    duration: float,
    create: dict[str, Any] | None = None,
    streams: str | None = None,
) -> dict[str, Any]:
    """`play_http` (`play_streams` with `streams`: "views", or "gets" for streams without
    views and a GET after each chunk of events) with the CPU each side used in the window, in µs per action: the API
    servers' process trees (`servers`: their pids), the PostgreSQL backends of `url`'s
    database, PostgreSQL's background processes, and this client process; `busy` is the CPU
    they used together as a share of the machine's (1.0: every core busy all the time)."""
    api = [pid for root in servers for pid in process_tree(root)]
    pg = postgres_pids(url)
    before = {
        "api": cpu_seconds(api),
        "db": cpu_seconds(pg["backends"]),
        "db_bg": cpu_seconds(pg["background"]),
    }
    client0 = time.process_time()
    if streams is None:
        row = await play_http(ports, conc, duration, create)
    else:
        row = await play_streams(ports, conc, duration, create, views=streams == "views")
    client = time.process_time() - client0
    after = {
        "api": cpu_seconds(api),
        "db": cpu_seconds(postgres_pids(url)["backends"] + pg["backends"]),
        "db_bg": cpu_seconds(pg["background"]),
    }
    used = {
        side: sum(t - before[side].get(pid, 0.0) for pid, t in after[side].items())
        for side in after
    }
    used["client"] = client
    per_action = {f"{side}_us": 1e6 * t / max(1, row["actions"]) for side, t in used.items()}
    busy = sum(used.values()) / (row["wall_s"] * (os.cpu_count() or 1))
    return {**row, **per_action, "busy": busy}


def pct(values: list[float], p: float) -> float:
    """The p-th percentile, as boardgame.io's bench.js takes it (no interpolation)."""
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def summary(lat: list[float], wall: float, **extra: Any) -> dict[str, Any]:
    return {
        "actions": len(lat),
        "wall_s": wall,
        "actions_per_s": len(lat) / wall,
        "p50_ms": pct(lat, 50),
        "p99_ms": pct(lat, 99),
        **extra,
    }
