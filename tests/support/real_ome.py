"""`make test-real-ome`: the console's checks against a live OvenMediaEngine (or anything that answers as one).

    OME_API_URL=http://ome.example:8081 OME_ACCESS_TOKEN=... [OME_PUBLISHER_URL=http://ome.example:3333] \\
    [OME_STREAM=default/app/stream] [OME_ALLOW_SENDS=1] make test-real-ome [ARGS=--allow-sends]

Read-only by default: the command line's detection (`stats` of the virtual host names the edition and the
statistics API), `ls` down to a stream (OME_STREAM, else the first one listed), `stats` and `info` of that
stream, and the exporter's /metrics (`ome_up` 1, `ome_server_info` with the server's version). With
OME_ALLOW_SENDS=1 or `--allow-sends`, one round trip on that stream: a 30 s cue-out, a cue-in (`--force`: a
server that writes no marker tags shows the console no break to end, see issue 25), and an ID3 tag confirmed
from the media (`--wait-confirm`); on a server that refuses cue events (open source 0.21 and later) the cue
checks pass when the console says that the server refused them. Those sends go to the audit log like any
other (OMECONSOLE_AUDIT_LOG, else the user's). Without OME_API_URL every check is skipped and the reason said (exit 0).

Each check runs the real `omeconsole` program, so what is tested is what an operator runs. The same checks
run in the test suite against the replayed 0.19.0 (`tests/replay/test_real_ome_checks.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

BIN = Path(sys.executable).parent
COMMAND_TIMEOUT_S = 60.0
EXPORTER_START_S = 30.0
EXPORTER_SCRAPES = 30
OUTPUT_LIMIT = 1 << 20
REFUSED = 1
NO_CUE_EVENTS = "This server cannot take cue events"
"""The console's words (api/client.py) for a server that refuses cue events (open source 0.21 and later)."""


@dataclass(frozen=True)
class Target:
    api_url: str
    token: str
    publisher_url: str | None = None
    stream: str | None = None
    allow_sends: bool = False
    id3_frames: tuple[tuple[str, str | None, str], ...] = ()
    """(frame id, info, data) for the round trip's ID3; by default one TXXX unique to this run."""
    audit_log: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str], allow_sends: bool = False) -> Target | None:
        api_url = environ.get("OME_API_URL")
        if not api_url:
            return None
        probe = f"omeconsole-real-ome-{int(time.time())}"
        return cls(api_url, environ.get("OME_ACCESS_TOKEN", ""), environ.get("OME_PUBLISHER_URL") or None,
                   environ.get("OME_STREAM") or None,
                   allow_sends or environ.get("OME_ALLOW_SENDS", "") not in ("", "0"),
                   (("TXXX", "omeconsole", probe),), environ.get("OMECONSOLE_AUDIT_LOG") or None)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
        env.update({"OME_API_URL": self.api_url, "OME_ACCESS_TOKEN": self.token,
                    "OMECONSOLE_CONFIG": str(Path("/nonexistent/omeconsole-real-ome/config.toml"))})
        if self.publisher_url:
            env["OME_PUBLISHER_URL"] = self.publisher_url
        if self.audit_log:
            env["OMECONSOLE_AUDIT_LOG"] = self.audit_log
        return env


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Ran:
    status: int
    out: str
    err: str


@dataclass
class Checks:
    """The checks of one run, in order; `hooks` let a test move a replayed server's clock at the right moments."""

    target: Target
    after_scrape: Callable[[], Awaitable[None]] = field(default=lambda: asyncio.sleep(1.0))
    """Between two reads of the exporter's /metrics (a live server: a second)."""
    results: list[Check] = field(default_factory=list)

    def record(self, name: str, ok: bool, detail: str) -> bool:
        self.results.append(Check(name, ok, detail))
        return ok

    async def omeconsole(self, *args: str) -> Ran:
        process = await asyncio.create_subprocess_exec(
            str(BIN / "omeconsole"), *args, env=self.target.env(), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=OUTPUT_LIMIT)
        try:
            out, err = await asyncio.wait_for(process.communicate(), COMMAND_TIMEOUT_S)
        except TimeoutError:
            process.kill()
            await process.wait()
            return Ran(-1, "", f"omeconsole {' '.join(args)}: no answer within {COMMAND_TIMEOUT_S:.0f} s")
        return Ran(process.returncode or 0, out.decode(errors="replace")[:OUTPUT_LIMIT],
                   err.decode(errors="replace")[:OUTPUT_LIMIT])

    async def run(self) -> list[Check]:
        stream = await self.read_only()
        if stream is not None and self.target.allow_sends:
            await self.round_trip(stream)
        return self.results

    async def read_only(self) -> str | None:
        hosts = await self.omeconsole("ls")
        vhosts = hosts.out.split()
        if not self.record("ls", hosts.status == 0 and bool(vhosts), _said(hosts)):
            return None
        detected = await self.omeconsole("stats", vhosts[0])
        header = detected.out.splitlines()[0] if detected.out else ""
        found = re.search(r"\((oss|enterprise), (v1|v2) statistics\)", header)
        self.record("detection", detected.status == 0 and found is not None, header or _said(detected))
        stream = self.target.stream or await self._first_stream(vhosts)
        if not self.record("a stream", stream is not None, stream or "no stream listed (give OME_STREAM)"):
            return None
        assert stream is not None
        stats = await self.omeconsole("stats", stream)
        self.record("stats", stats.status == 0 and stats.out.startswith(stream), _first_lines(stats))
        info = await self.omeconsole("info", stream)
        self.record("info", info.status == 0 and "source" in info.out, _first_lines(info))
        await self.exporter()
        return stream

    async def _first_stream(self, vhosts: Sequence[str]) -> str | None:
        for vhost in vhosts:
            apps = await self.omeconsole("ls", vhost)
            for app in apps.out.split():
                streams = await self.omeconsole("ls", app)
                if streams.status == 0 and streams.out.split():
                    return streams.out.split()[0]
        return None

    async def exporter(self) -> None:
        process = await asyncio.create_subprocess_exec(
            str(BIN / "omeconsole"), "exporter", "--listen", "127.0.0.1:0", env=self.target.env(),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        try:
            url = await asyncio.wait_for(_metrics_url(process), EXPORTER_START_S)
            if not self.record("exporter starts", url is not None, url or "it printed no /metrics address"):
                return
            assert url is not None
            text = ""
            async with httpx.AsyncClient(timeout=10) as http:
                for _ in range(EXPORTER_SCRAPES):
                    text = (await http.get(url)).text
                    if re.search(r"^ome_up\{[^}]*\} 1\.0$", text, re.M) and "ome_server_info{" in text:
                        break
                    await self.after_scrape()
            info = re.search(r"^ome_server_info\{([^}]*)\}", text, re.M)
            up = re.search(r"^ome_up\{[^}]*\} 1\.0$", text, re.M) is not None
            self.record("exporter metrics", up and info is not None,
                        info[1] if info else "no ome_server_info / ome_up 1 in /metrics")
        except TimeoutError:
            self.record("exporter starts", False, f"no /metrics address within {EXPORTER_START_S:.0f} s")
        finally:
            if process.returncode is None:
                process.terminate()
            await process.wait()

    async def round_trip(self, stream: str) -> None:
        cues = (("cue-out", ("cue-out", stream, "--duration", "30")), ("cue-in", ("cue-in", stream, "--force")))
        for name, args in cues:
            ran = await self.omeconsole(*args)
            if ran.status == REFUSED and NO_CUE_EVENTS in ran.out + ran.err:
                # Open source 0.21+ refuses cue events: the console said so, which is what it must do.
                self.record(name, True, f"refused by this server, as the console said: {_said(ran)}")
            else:
                self.record(name, ran.status == 0 and "HTTP 200" in ran.out, _said(ran))
        frames: list[str] = []
        for frame, info, data in self.target.id3_frames:
            frames += ["--frame", frame, *(["--info", info] if info is not None else []), "--data", data]
        id3 = await self.omeconsole("id3", stream, "--event-type", "video", *frames, "--wait-confirm")
        self.record("id3 confirmed", id3.status == 0 and "ID3 seen in the media" in id3.out, _said(id3))


async def _metrics_url(process: asyncio.subprocess.Process) -> str | None:
    assert process.stderr is not None
    while line := await process.stderr.readline():
        found = re.search(r"(http://\S+/metrics)", line.decode(errors="replace"))
        if found:
            return found[1]
    return None


def _said(ran: Ran) -> str:
    return " / ".join(line for line in (ran.out + ran.err).splitlines() if line.strip())[:300] or f"exit {ran.status}"


def _first_lines(ran: Ran) -> str:
    return f"exit {ran.status}: " + " / ".join((ran.out or ran.err).splitlines()[:2])[:300]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the console's checks against a live OvenMediaEngine")
    parser.add_argument("--allow-sends", action="store_true", help="one cue-out / cue-in / ID3 round trip")
    args = parser.parse_args(argv)
    target = Target.from_env(os.environ, args.allow_sends)
    if target is None:
        print("test-real-ome: skipped: no OME_API_URL given (set OME_API_URL, OME_ACCESS_TOKEN and, if the "
              "publisher is not the API's host on port 3333, OME_PUBLISHER_URL)")
        return 0
    results = asyncio.run(Checks(target).run())
    for check in results:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    if not target.allow_sends:
        print("skipped: cue-out / cue-in / ID3 round trip (OME_ALLOW_SENDS=1 or --allow-sends to send)")
    failed = [check for check in results if not check.ok]
    print(f"test-real-ome: {len(results) - len(failed)} passed, {len(failed)} failed against {target.api_url}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
