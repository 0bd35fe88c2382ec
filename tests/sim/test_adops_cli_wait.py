"""`omeconsole cue-out|cue-in|id3 --wait-confirm` end to end: two real processes on free ports."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import m3u8
import pytest

TOKEN = "cli-wait-token"
BIN = Path(sys.executable).parent


@pytest.fixture
def simulator() -> Iterator[tuple[str, str]]:
    """A fresh server per test: the marker rules (no out within 1.5 segments of an in) carry state."""
    process = subprocess.Popen(
        [str(BIN / "ome-simulator"), "--api-port", "0", "--publisher-port", "0", "--access-token", TOKEN,
         "--seed", "3"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        urls: dict[str, str] = {}
        assert process.stdout is not None
        for line in process.stdout:
            match = re.match(r"\s+(management API|LL-HLS / HLS)\s+(http://\S+)", line)
            if match:
                urls[match[1]] = match[2]
            if len(urls) == 2:
                break
        assert len(urls) == 2, "the simulator did not print its URLs"
        yield urls["management API"], urls["LL-HLS / HLS"]
    finally:
        process.terminate()
        process.wait(timeout=10)


def _run(simulator: tuple[str, str], tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    api, publisher = simulator
    env = {**os.environ, "OMECONSOLE_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
           "OMECONSOLE_CONFIG": str(tmp_path / "absent.toml"), "OME_ACCESS_TOKEN": TOKEN,
           "OME_API_URL": api, "OME_PUBLISHER_URL": publisher}
    return subprocess.run([str(BIN / "omeconsole"), *args], env=env, capture_output=True, text=True, timeout=60)


def _wait_until_on_air(publisher: str, app: str, stream: str) -> None:
    """Until the break has spliced: the chunklist lists the first part after the out (`#EXT-X-CUE-OUT`).

    A cue-in asked for before that splices on the same keyframe as the out and is refused by the server's
    rules. Each reload blocks on the server until the next part exists (LL-HLS blocking reload), so this
    waits on the server's own events, never on a sleep; the bound only keeps a broken server from hanging it.
    """
    with httpx.Client(base_url=publisher, timeout=10) as http:
        variants = m3u8.loads(http.get(f"/{app}/{stream}/llhls.m3u8").text)
        chunklist = f"/{app}/{stream}/{variants.playlists[0].uri}"
        params: dict[str, str] = {}
        for _ in range(40):
            text = http.get(chunklist, params=params).text
            if "#EXT-X-CUE-OUT:" in text:
                return
            hint = m3u8.loads(text).preload_hint
            # Parts are named as the real server names them: part_<track>_<msn>_<index>_...
            named = re.match(r"part_\d+_(\d+)_(\d+)_", hint.uri if hint is not None else "")
            assert named is not None, text
            params = {"_HLS_msn": named[1], "_HLS_part": named[2]}
    raise AssertionError("the break never went on air")


def _audit(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]


def test_cue_out_then_cue_in_are_confirmed_with_their_delay(simulator, tmp_path: Path) -> None:
    out = _run(simulator, tmp_path, "cue-out", "default/app/news", "--duration", "30", "--wait-confirm",
               "--confirm-timeout", "20")
    assert out.returncode == 0, out.stderr
    assert re.search(r"^seen in playlist after \d+\.\d s$", out.stdout, re.MULTILINE), out.stdout
    _wait_until_on_air(simulator[1], "app", "news")
    cue_in = _run(simulator, tmp_path, "cue-in", "default/app/news", "--wait-confirm", "--confirm-timeout", "20",
                  "--json")
    assert cue_in.returncode == 0, cue_in.stderr
    confirmation = json.loads(cue_in.stdout.splitlines()[-1])
    assert confirmation["confirmed"] is True
    assert confirmation["line"] == "#EXT-X-CUE-IN" or str(confirmation["line"]).startswith("#EXT-X-DATERANGE")
    lines = _audit(tmp_path)
    assert [line["type"] for line in lines] == ["intent", "outcome", "confirmation"] * 2
    assert lines[0]["id"] == lines[1]["id"] == lines[2]["send_id"] and lines[3]["id"] == lines[5]["send_id"]
    assert isinstance(lines[2]["seen_after_s"], float)
    assert TOKEN not in (tmp_path / "audit.jsonl").read_text()


def test_a_cue_in_with_no_break_on_air_is_refused_without_force_and_never_written_with_it(
        simulator, tmp_path: Path) -> None:
    refused = _run(simulator, tmp_path, "cue-in", "default/app/sports", "--wait-confirm")
    assert refused.returncode == 8, refused.stderr
    assert "no ad break is on air" in refused.stderr and "--force" in refused.stderr
    assert not (tmp_path / "audit.jsonl").exists()
    # The first marker must be an out: a lone cue-in is answered 200 and never written (DECISIONS).
    result = _run(simulator, tmp_path, "cue-in", "default/app/sports", "--wait-confirm", "--confirm-timeout", "3",
                  "--force")
    assert result.returncode == 5
    assert "cue-in in the playlist not seen within 3 s" in result.stderr
    assert "HTTP 200" in result.stdout
    intent, outcome, confirmation = _audit(tmp_path)
    assert intent["type"] == "intent" and outcome["status"] == 200 and confirmation["seen_after_s"] is None


def test_id3_is_confirmed_from_the_media(simulator, tmp_path: Path) -> None:
    result = _run(simulator, tmp_path, "id3", "default/app/stream", "--frame", "TXXX", "--info", "adId",
                  "--data", "cli-spot", "--frame", "TIT2", "--data", "Title", "--event-type", "video",
                  "--wait-confirm", "--confirm-timeout", "20")
    assert result.returncode == 0, result.stderr
    assert "ID3 seen in the media after" in result.stdout


def test_read_only_flag_sends_nothing(simulator, tmp_path: Path) -> None:
    result = _run(simulator, tmp_path, "cue-out", "default/app/backup", "--duration", "30", "--read-only")
    assert result.returncode == 6
    assert "read-only mode" in result.stderr and "nothing is sent" in result.stderr
    assert not (tmp_path / "audit.jsonl").exists()
