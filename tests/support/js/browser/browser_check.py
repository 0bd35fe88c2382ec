"""`make test-browser`: hls.js 1.7.4 plays the simulator's LL-HLS in headless Chromium (not part of `make test`).

The simulator runs on the real clock; the page comes from another origin (a local static server), and
the player adds a header of its own to every request, so every request is a CORS preflight first. During
the playback an ID3 event and a cue-out are sent through the API. Passes when the player parsed the
manifest, buffered video and audio, played on, raised no fatal error, read the ID3 from the media and
saw the ad break's DATERANGE. Needs Node.js, npm and Chromium (`apt-get install chromium`; another binary
through $CHROMIUM). Exit status 0 when everything was seen, 1 otherwise, 2 when a tool is missing.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx

from simulator.http.auth import basic_header
from simulator.http.server import start_simulator

HERE = Path(__file__).resolve().parent
PLAY_SECONDS = 20
WARM_UP_SECONDS = 13
"""Two complete segments first: hls.js gives up (levelEmptyError) on a chunklist of a stream in its first
segment, which the simulator answers once the first part exists (the real server holds such a request
until segment 2 starts)."""


def _install() -> None:
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True, timeout=300)


def _serve_page() -> http.server.ThreadingHTTPServer:
    """page.html and hls.js's build, from 127.0.0.1 on a free port: an origin other than the publisher's."""
    files = {"/page.html": HERE / "page.html", "/hls.min.js": HERE / "node_modules/hls.js/dist/hls.min.js"}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the name http.server calls
            path = files.get(self.path)
            if path is None:
                self.send_error(404)
                return
            body = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if path.suffix == ".html" else "text/javascript")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def _events_during_playback(api_url: str, token: str) -> None:
    """An ID3 event at 8 s and a cue-out at 9 s of playback, through the management API."""
    headers = {"Authorization": basic_header(token)}
    stream = f"{api_url}/v1/vhosts/default/apps/app/streams/stream:sendEvent"
    async with httpx.AsyncClient(headers=headers, timeout=10) as api:
        await asyncio.sleep(8)
        id3 = {"eventFormat": "id3v2", "eventType": "video",
               "events": [{"frameType": "TXXX", "info": "check", "data": "browser"}]}
        (await api.post(stream, json=id3)).raise_for_status()
        await asyncio.sleep(1)
        cue = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30_000}]}
        (await api.post(stream, json=cue)).raise_for_status()


async def _run(node: str) -> dict[str, Any]:
    simulator = await start_simulator("demo")
    page = _serve_page()
    try:
        await asyncio.sleep(WARM_UP_SECONDS)
        page_url = f"http://127.0.0.1:{page.server_address[1]}/page.html"
        playlist = f"{simulator.publisher_url}/app/stream/llhls.m3u8"  # another port: another origin
        player = await asyncio.create_subprocess_exec(
            node, str(HERE / "check_playback.mjs"), page_url, playlist, str(PLAY_SECONDS), cwd=HERE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        output, errors = (await asyncio.gather(player.communicate(),
                                               _events_during_playback(simulator.api_url, simulator.access_token)))[0]
        if player.returncode != 0:
            raise RuntimeError(f"the browser check failed: {errors.decode(errors='replace')[-2000:]}")
        seen: dict[str, Any] = json.loads(output)
        return seen
    finally:
        page.shutdown()
        await simulator.stop()


def _verdict(seen: dict[str, Any]) -> list[str]:
    """What was missing; empty when the playback did everything it should."""
    checks = {
        "MediaSource plays H.264 + AAC": seen["supported"],
        "manifest parsed": seen["manifest"],
        "video fragments buffered": seen["buffered"].get("main", 0) > 0,
        "audio fragments buffered": seen["buffered"].get("audio", 0) > 0,
        f"played on ({seen['played']:.1f} s of media in {PLAY_SECONDS} s)": seen["played"] > PLAY_SECONDS / 2,
        "no fatal error": not any(error["fatal"] for error in seen["errors"]),
        "ID3 read from the media": any(sample == [73, 68, 51] for sample in seen["id3"]),  # "ID3"
        "the ad break's DATERANGE seen": any(name.startswith("splice-") for name in seen["dateRanges"]),
    }
    return [name for name, passed in checks.items() if not passed]


def main() -> int:
    node, npm = shutil.which("node"), shutil.which("npm")
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if node is None or npm is None or not Path(chromium).exists():
        print("browser check skipped: needs node, npm and Chromium (apt-get install chromium, or $CHROMIUM)")
        return 2
    _install()
    seen = asyncio.run(_run(node))
    print(json.dumps({key: seen[key] for key in ("buffered", "played", "latency", "errors", "dateRanges")}))
    missing = _verdict(seen)
    for name in missing:
        print(f"FAILED: {name}")
    print("browser check: " + ("passed" if not missing else f"{len(missing)} check(s) failed"))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
