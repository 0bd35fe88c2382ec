"""What the command line writes: no byte from a server can drive the terminal, a closed pipe ends quietly,
and every refusal has its own exit status and its own words in `--help`.

The property test runs the real entry point in this process against a small loopback server that
puts one hypothesis string everywhere a server's text can go: names in listings, stream info, error
messages, the 401 realm, a send's reply message. Whatever the string, stdout and stderr carry no
control byte but the line feed, and no bidi or invisible format character.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import sys
import threading
import unicodedata
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.cli import exit_codes
from omeconsole.cli.main import main

BIN = Path(sys.executable).parent
NASTY = ["\x1b]52;c;cHduZWQ=\x07", "\x1b[2J", "\x1b]0;title\x07", "‮exe.txt", "a\x00b", "\x9b31m", "line\nbreak",
         "\r\rover", "[bold]markup[/]", "\ud800", "\u2028\u2029", "\u200bzero\ufeff", "\x7f"]


class HostileServer:
    """A management API whose every text is `self.text`: the real shapes, hostile contents."""

    def __init__(self) -> None:
        self.text = ""
        self.posts = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _reply(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()  # ensure_ascii: lone surrogates travel as \\ud800 escapes
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                text = outer.text
                if self.path == "/v1/vhosts":
                    self._reply(200, {"message": "OK", "statusCode": 200, "response": [text, "plain"]})
                elif self.path.startswith("/v1/vhosts/default/apps/app/streams/"):
                    track = {"id": 0, "type": text, "video": {"codec": text, "width": 2, "height": 2}}
                    self._reply(200, {"message": "OK", "statusCode": 200, "response": {
                        "name": text, "input": {"sourceType": text, "sourceUrl": text, "tracks": [track]},
                        "outputs": [{"name": text}]}})
                elif self.path.startswith("/v1/vhosts/locked"):
                    realm = "".join(c for c in text if c.isprintable() and c != '"' and c.isascii()) or "r"
                    self._reply(401, {"message": f"[HTTP] {text} (401)", "statusCode": 401},
                                {"WWW-Authenticate": f'Basic realm="{realm}"'})
                else:
                    self._reply(404, {"message": f"[HTTP] Could not find the application: [{text}] (404)",
                                      "statusCode": 404})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                outer.posts += 1
                self._reply(200, {"message": outer.text, "statusCode": 200})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    server = HostileServer()
    yield server
    server.close()


def run_in_process(*argv: str) -> tuple[int, bytes, bytes]:
    """`omeconsole ARGV` here, with stdout and stderr captured as the bytes a terminal would get."""
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    wrappers = io.TextIOWrapper(out, encoding="utf-8"), io.TextIOWrapper(err, encoding="utf-8")
    sys.stdout, sys.stderr = wrappers
    try:
        status = main(list(argv))
    finally:
        sys.stdout, sys.stderr = saved
        for wrapper in wrappers:
            wrapper.flush()
            wrapper.detach()
    return status, out.getvalue(), err.getvalue()


def assert_inert(data: bytes) -> None:
    for byte in data:
        assert byte == 0x0A or 0x20 <= byte != 0x7F, f"control byte {byte:#04x} in {data!r}"
    for char in data.decode("utf-8"):  # strict: nothing but valid UTF-8 leaves
        assert char == "\n" or unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Zl", "Zp"), (
            f"{char!r} in {data!r}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.sampled_from(NASTY), st.text(st.characters(exclude_categories=()), max_size=40)))
def test_no_server_text_can_drive_the_terminal(hostile: HostileServer, text: str,
                                               monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    hostile.text = text
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("OMECONSOLE_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    monkeypatch.setenv("OME_PUBLISHER_URL", "http://127.0.0.1:9")
    common = ("--api-url", hostile.url, "--token", "t")
    runs = [run_in_process("ls", *common), run_in_process("ls", "--json", *common),
            run_in_process("info", "default/app/stream", *common),
            run_in_process("info", "default/app/stream", "--json", *common),
            run_in_process("ls", "default", *common), run_in_process("ls", "locked", *common),
            # --force: the publisher cannot be read, so the rules' check could not run (exit 8 without it)
            run_in_process("cue-out", "default/app/stream", "--duration", "30", "--force", *common)]
    assert [status for status, _, _ in runs] == [0, 0, 0, 0, 1, 1, 0]
    for _status, out, err in runs:
        assert_inert(out)
        assert_inert(err)
    assert json.loads(runs[1][1]) == [text, "plain"]  # escaped for the terminal, intact for machines


def test_id3_frames_are_checked_before_anything_is_sent(hostile: HostileServer, monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("OMECONSOLE_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    common = ("default/app/stream", "--api-url", hostile.url, "--token", "t")
    hostile.text = "OK"
    before = hostile.posts
    bad = run_in_process("id3", *common, "--frame", "APIC", "--data", "x")
    empty = run_in_process("id3", *common, "--frame", "TXXX", "--info", "adId")
    assert bad[0] == exit_codes.USAGE and b"APIC is not a frame id servers take" in bad[2]
    assert empty[0] == exit_codes.NEEDS_FORCE and b"frame 1 (TXXX) has no value" in empty[2]
    assert hostile.posts == before and not (tmp_path / "audit.jsonl").exists()
    forced = run_in_process("id3", *common, "--frame", "TXXX", "--info", "adId", "--force", "--json")
    assert forced[0] == exit_codes.OK and hostile.posts == before + 1
    assert json.loads(forced[1])["body"] == [{"eventFormat": "id3v2", "eventType": "event",
                                              "events": [{"frameType": "TXXX", "info": "adId"}]}]


def test_help_says_why_token_is_unsafe_and_lists_every_exit_status() -> None:
    text = subprocess.run([str(BIN / "omeconsole"), "cue-out", "--help"], capture_output=True, text=True,
                          check=True, env={**os.environ, "COLUMNS": "200"}).stdout
    assert "--token-file" in text and "ps, /proc" in text
    for status in (exit_codes.NOT_CONFIRMED, exit_codes.READ_ONLY, exit_codes.AUDIT_UNWRITABLE,
                   exit_codes.NEEDS_FORCE, exit_codes.SPLICE_NO_MARKER, exit_codes.BROKEN_PIPE):
        assert f"\n  {status} " in text
    assert "--force" in text and "--wait-confirm" in text


def _env(tmp_path: Path, api_url: str, audit: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
    env.update(OME_API_URL=api_url, OME_ACCESS_TOKEN=TEST_TOKEN, OMECONSOLE_AUDIT_LOG=str(audit),
               OMECONSOLE_CONFIG=str(tmp_path / "absent.toml"))
    return env


async def test_a_reader_that_stops_reading_ends_the_watch_quietly_with_141(tmp_path: Path) -> None:
    async with running_simulator() as simulator:
        child = await asyncio.create_subprocess_exec(
            str(BIN / "omeconsole"), "stats", "default/app/stream", "--watch", "--format", "line",
            "--interval", "0.05", env=_env(tmp_path, simulator.api_url, tmp_path / "audit.jsonl"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        assert child.stdout is not None and child.stderr is not None
        first = await asyncio.wait_for(child.stdout.readline(), 30)
        assert b"default/app/stream  viewers" in first and first.count(b"\n") == 1  # one line per reading
        child._transport.get_pipe_transport(1).close()  # type: ignore[attr-defined]  # `| head -1` exits
        err = await asyncio.wait_for(child.stderr.read(), 30)
        assert await asyncio.wait_for(child.wait(), 30) == exit_codes.BROKEN_PIPE == 128 + signal.SIGPIPE
        assert err == b""


async def test_an_unwritable_audit_log_sends_nothing_and_exits_7(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    async with running_simulator() as simulator:
        child = await asyncio.create_subprocess_exec(
            str(BIN / "omeconsole"), "cue-out", "default/app/stream", "--duration", "30", "--force",
            env=_env(tmp_path, simulator.api_url, blocker / "audit.jsonl"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _out, err = await asyncio.wait_for(child.communicate(), 30)
        assert child.returncode == exit_codes.AUDIT_UNWRITABLE, err
        assert b"NOT sent" in err and b"audit log" in err
        stream = simulator.world.find_stream("default", "app", "stream")
        assert stream is not None and stream.events.events == []
