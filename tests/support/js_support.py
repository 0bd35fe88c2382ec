"""JavaScript players' parsers (npm `m3u8-parser`, `mux.js`) run through Node on what the simulator serves.

`js_parsers` (session fixture) installs tests/support/js with `npm ci` once per machine (a file lock keeps the two
xdist workers from installing at the same time; a stamp of the lock file skips it when nothing changed),
and skips the tests that use it, saying why, when Node or npm is missing or the install fails.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

JS_DIR = Path(__file__).parent / "js"
CHECKER = JS_DIR / "check_media.mjs"
STAMP = JS_DIR / "node_modules" / ".installed-lock-sha256"

JsParsers = Callable[[Mapping[str, str], Mapping[str, bytes]], dict[str, Any]]


def _install() -> None:
    lock_hash = hashlib.sha256((JS_DIR / "package-lock.json").read_bytes()).hexdigest()
    lock_path = Path(tempfile.gettempdir()) / f"omeconsole-npm-{hashlib.sha256(bytes(JS_DIR)).hexdigest()[:16]}.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if STAMP.exists() and STAMP.read_text() == lock_hash:
            return
        result = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=JS_DIR,
                                capture_output=True, text=True, timeout=300, check=False)
        if result.returncode != 0:
            pytest.skip(f"npm ci in tests/support/js failed: {result.stderr.strip()[-400:]}")
        STAMP.write_text(lock_hash)


@pytest.fixture(scope="session")
def js_parsers() -> JsParsers:
    """`run(playlists, ts_segments)`: what m3u8-parser and mux.js made of them (see support/js/check_media.mjs)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are needed for the JavaScript parsers (m3u8-parser, mux.js)")
    _install()

    def run(playlists: Mapping[str, str], ts_segments: Mapping[str, bytes]) -> dict[str, Any]:
        job = {"playlists": dict(playlists),
               "ts": {name: base64.b64encode(data).decode() for name, data in ts_segments.items()}}
        result = subprocess.run([node, str(CHECKER)], input=json.dumps(job), capture_output=True, text=True,
                                timeout=120, check=False, cwd=JS_DIR)
        assert result.returncode == 0, result.stderr[-2000:]
        parsed: dict[str, Any] = json.loads(result.stdout)
        return parsed

    return run
