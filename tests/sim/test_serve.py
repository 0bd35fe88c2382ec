"""`omeconsole serve` over HTTP and its websocket, without a browser (tests/sim/test_serve_browser.py has one).

The real command runs as a process against a real simulator (on the system clock: each session's console is
another process that reads real time); the screen is read from the websocket with a terminal emulator (pyte).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pyte
import pytest
from sim_support import running_simulator

from omeconsole.cli.main import main
from simulator.http.server import RunningSimulator
from simulator.world.clock import SystemClock

TOKEN = "serve-test-token-4f9d"
PASSWORD = "correct horse battery"
SCREEN = (120, 40)
WAIT_S = 60.0


@pytest.fixture
async def simulator() -> AsyncIterator[RunningSimulator]:
    async with running_simulator(access_token=TOKEN, clock=SystemClock()) as running:
        yield running


class Serving:
    """A running `omeconsole serve` process: its URL and process id."""

    def __init__(self, process: asyncio.subprocess.Process, url: str, banner: str) -> None:
        self.process = process
        self.url = url
        self.banner = banner

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + f"ws?width={SCREEN[0]}&height={SCREEN[1]}"

    @property
    def origin(self) -> str:
        return self.url.rstrip("/")


@contextlib.asynccontextmanager
async def serving(simulator: RunningSimulator, home: Path, *options: str) -> AsyncIterator[Serving]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omeconsole.cli.main", "--api-url", simulator.api_url, "--publisher-url",
        simulator.publisher_url, "--select", "default/app/news", "serve", "--listen", "127.0.0.1:0", *options,
        env=serve_environment(home), stdin=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL)
    assert process.stderr is not None
    try:
        banner = ""
        while not (found := re.search(r"http://\S+/", banner)):  # warnings come first
            line = (await asyncio.wait_for(process.stderr.readline(), WAIT_S)).decode()
            assert line, f"serve stopped: {banner}"
            banner += line
        yield Serving(process, found.group(0), banner)
    finally:
        if process.returncode is None:
            process.terminate()
        await asyncio.wait_for(process.wait(), WAIT_S)


def serve_environment(home: Path) -> dict[str, str]:
    """The access token in the environment; the config, audit log and history store the test's own."""
    environment = {**os.environ, "OME_ACCESS_TOKEN": TOKEN, "OMECONSOLE_CONFIG": str(home / "absent.toml"),
                   "OMECONSOLE_AUDIT_LOG": str(home / "audit.jsonl")}
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        environment[name] = str(home / name.lower())
    environment.pop("OME_ACCESS_TOKEN_FILE", None)
    return environment


async def read_screen(websocket: aiohttp.ClientWebSocketResponse, until: str) -> pyte.Screen:
    """The console's screen as the websocket draws it, once it shows `until` (or the wait runs out)."""
    screen = pyte.Screen(*SCREEN)
    stream = pyte.ByteStream(screen)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while until not in "\n".join(screen.display):
        message = await asyncio.wait_for(websocket.receive(), max(0.1, deadline - loop.time()))
        if message.type == aiohttp.WSMsgType.BINARY:
            stream.feed(message.data)
        elif message.type != aiohttp.WSMsgType.TEXT:
            raise AssertionError(f"the session ended before {until!r} showed: {message}\n" + "\n".join(screen.display))
    return screen


def descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def test_another_address_without_a_password_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--demo", "--listen", "192.0.2.1:0"]) == 2
    assert "refusing to listen on 192.0.2.1 without --auth-file" in capsys.readouterr().err


def test_an_auth_file_others_can_read_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o644)
    assert main(["serve", "--demo", "--auth-file", str(secret)]) == 2
    error = capsys.readouterr().err
    assert "readable by others (mode 0644); chmod 600 it" in error and PASSWORD not in error


def test_another_address_with_a_password_warns_without_tls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "password"
    secret.write_text(PASSWORD)
    secret.chmod(0o600)
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning is said, then listening fails.
    assert main(["serve", "--demo", "--auth-file", str(secret), "--listen", "192.0.2.1:0"]) == 2
    error = capsys.readouterr().err
    assert "listening on 192.0.2.1 without TLS" in error and "cannot listen on 192.0.2.1:0" in error


async def test_a_session_shows_the_console_and_the_token_stays_out_of_the_process_list(
        simulator: RunningSimulator, tmp_path: Path) -> None:
    async with serving(simulator, tmp_path) as served, aiohttp.ClientSession() as http:
        assert "read-only" in served.banner and TOKEN not in served.banner
        async with http.get(served.url) as reply:
            page = await reply.text()
        assert reply.status == 200 and 'class="textual-terminal"' in page
        assert "read-only: cue-out, cue-in and ID3 are refused" in page and "at most 4" in page
        assert "10 minutes without a key press" in page and TOKEN not in page
        async with http.ws_connect(served.ws_url, headers={"Origin": served.origin}) as websocket:
            screen = await read_screen(websocket, "news")
            shown = "\n".join(screen.display)
            assert "READ-ONLY" in shown and TOKEN not in shown
            consoles = descendants(served.process.pid)
            assert consoles, "a console process runs for the session"
            lines = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in [served.process.pid, *consoles]]
            assert not [line for line in lines if TOKEN.encode() in line]
            assert any(b"--read-only" in line and b"omeconsole.cli.main" in line for line in lines)
            environments = []
            for pid in consoles:
                with contextlib.suppress(OSError):
                    environments.append(Path(f"/proc/{pid}/environ").read_bytes())
            assert any(f"OME_ACCESS_TOKEN={TOKEN}".encode() in environment for environment in environments)


async def test_read_only_settings_overrule_allow_sends(simulator: RunningSimulator, tmp_path: Path) -> None:
    async with serving(simulator, tmp_path, "--read-only", "--allow-sends") as served, \
            aiohttp.ClientSession() as http:
        assert "--allow-sends is overruled" in served.banner and "; read-only;" in served.banner
        async with http.get(served.url) as reply:
            assert "read-only: cue-out, cue-in and ID3 are refused" in await reply.text()


async def test_the_cap_on_sessions_is_said_and_freed_when_a_session_ends(
        simulator: RunningSimulator, tmp_path: Path) -> None:
    async with serving(simulator, tmp_path, "--max-sessions", "1") as served, aiohttp.ClientSession() as http:
        async with http.ws_connect(served.ws_url, headers={"Origin": served.origin}) as websocket:
            await read_screen(websocket, "news")
            async with http.get(served.url) as reply:
                page = await reply.text()
            assert reply.status == 503 and "All 1 console sessions are in use" in page
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(served.ws_url, headers={"Origin": served.origin})
            assert refused.value.status == 503
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while True:  # the slot is freed once the console has quit
            async with http.get(served.url) as reply:
                if reply.status == 200:
                    break
            assert loop.time() < deadline, "the session's slot was never freed"
            await asyncio.sleep(0.2)


async def test_another_sites_page_cannot_open_the_console(simulator: RunningSimulator, tmp_path: Path) -> None:
    async with serving(simulator, tmp_path) as served, aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(served.ws_url, headers={"Origin": "http://evil.example"})
        assert refused.value.status == 403
        assert not descendants(served.process.pid), "no console was started"


async def test_an_idle_session_ends_and_its_console_with_it(simulator: RunningSimulator, tmp_path: Path) -> None:
    async with serving(simulator, tmp_path, "--idle-timeout", "3") as served, aiohttp.ClientSession() as http:
        async with http.get(served.url) as reply:
            assert "ends after 3 s without a key press" in await reply.text()
        async with http.ws_connect(served.ws_url, headers={"Origin": served.origin}) as websocket:
            drawn = 0
            # The idle time counts from the console's first bytes; nothing is typed, so the session ends.
            while (message := await asyncio.wait_for(websocket.receive(), WAIT_S)).type in (
                    aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                if message.type == aiohttp.WSMsgType.BINARY:
                    drawn += len(message.data)
            assert websocket.close_code == 4000 and message.extra == "idle timeout"
            assert drawn, "the console had started drawing before the session ended"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while descendants(served.process.pid):
            assert loop.time() < deadline, "the console outlived its session"
            await asyncio.sleep(0.2)


async def test_a_wrong_password_gets_no_console(simulator: RunningSimulator, tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o600)
    # unsafe: the jar keeps cookies of an IP address's site (127.0.0.1), as a browser does.
    jar = aiohttp.CookieJar(unsafe=True)
    async with serving(simulator, tmp_path, "--auth-file", str(secret)) as served, \
            aiohttp.ClientSession(cookie_jar=jar) as http:
        assert "password required" in served.banner
        async with http.get(served.url) as reply:
            page = await reply.text()
        assert reply.status == 200 and 'type="password"' in page and "textual.js" not in page
        assert simulator.api_url not in page, "before the password, the page names no server"
        async with http.post(served.url + "login", data={"password": PASSWORD[:-1]}) as reply:
            page = await reply.text()
        assert reply.status == 401 and "Wrong password: no console." in page and "textual.js" not in page
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(served.ws_url, headers={"Origin": served.origin})
        assert refused.value.status == 401
        assert not descendants(served.process.pid)
        async with http.post(served.url + "login", data={"password": PASSWORD}, allow_redirects=False) as reply:
            assert reply.status == 303
            cookie = reply.cookies["omeconsole_session"]
        assert PASSWORD not in cookie.value and cookie["httponly"]
        async with http.get(served.url) as reply:
            page = await reply.text()
        assert 'class="textual-terminal"' in page and PASSWORD not in page
        async with http.ws_connect(served.ws_url, headers={"Origin": served.origin}) as websocket:
            await read_screen(websocket, "news")
