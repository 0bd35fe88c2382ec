"""The command line on a fleet, end to end: real `omeconsole` processes against an `ome-simulator --fleet 2`
process (an origin and two edges), each server a profile of the config with its own token source."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

BIN = Path(sys.executable).parent
TOKEN = "fleet-cli-token"
PROFILES = ("origin", "edge-1", "edge-2")
STREAM = "default/app/stream"


@dataclass(frozen=True)
class Lab:
    apis: tuple[str, ...]
    config: Path
    home: Path

    def env(self, **more: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
        env.update(OMECONSOLE_CONFIG=str(self.config), OMECONSOLE_AUDIT_LOG=str(self.home / "audit.jsonl"),
                   OMECONSOLE_HISTORY_DB=str(self.home / "history.sqlite3"), **more)
        return env

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "omeconsole"), *args], capture_output=True, text=True, env=self.env(),
                              timeout=60, check=False)

    def run_all(self, *calls: tuple[str, ...]) -> list[subprocess.CompletedProcess[str]]:
        """Independent invocations side by side (each is a separate process: startup dominates)."""
        with ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(lambda call: self.run(*call), calls))

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen([str(BIN / "omeconsole"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=self.env())

    def own(self, index: int, path: str) -> Any:
        with httpx.Client(base_url=self.apis[index], timeout=10, auth=None,
                          headers={"Authorization": _basic(TOKEN)}) as http:
            reply = http.get(path)
        assert reply.status_code == 200, reply.text
        return reply.json()["response"]


def _basic(token: str) -> str:
    import base64

    return "Basic " + base64.b64encode(token.encode()).decode()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    home = tmp_path_factory.mktemp("fleet-cli")
    process = subprocess.Popen(
        [str(BIN / "ome-simulator"), "--fleet", "2", "--api-port", "0", "--publisher-port", "0",
         "--access-token", TOKEN, "--seed", "3"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    banner = ""
    for line in process.stdout:
        banner += line
        if line.startswith("Press Ctrl+C"):
            break
    apis = tuple(re.findall(r"management API\s+(http://\S+)", banner))
    publishers = re.findall(r"LL-HLS / HLS\s+(http://\S+)", banner)
    assert len(apis) == 3, banner
    token_file = home / "edge-1.token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    sources = [f'token = "{TOKEN}"', f'token_file = "{token_file}"',
               f'token_command = ["{sys.executable}", "-c", "print(\'{TOKEN}\')"]']
    config = home / "config.toml"
    config.write_text("".join(
        f'[profiles.{name}]\napi_url = "{api}"\npublisher_url = "{publisher}"\n{source}\n\n'
        for name, api, publisher, source in zip(PROFILES, apis, publishers, sources, strict=True))
        + '[profiles.dead]\napi_url = "http://127.0.0.1:9"\ntoken = "x"\n\n'
        + '[fleets.live]\nservers = ["origin", "edge-1", "edge-2"]\n\n'
        + '[fleets.broken]\nservers = ["origin", "dead"]\n\n[fleets.empty]\nservers = []\n')
    config.chmod(0o600)
    yield Lab(apis, config, home)
    process.terminate()
    process.wait(10)


def test_ls_shows_the_server_level_with_health_and_lists_every_server(lab: Lab) -> None:
    table, as_json, apps, vhosts, broken = lab.run_all(
        ("ls", "--fleet", "live"), ("ls", "--fleet", "live", "--json"), ("--fleet", "live", "ls", "default/app"),
        ("ls", "--fleet", "live", "edge-1:", "--json"), ("ls", "--fleet", "broken"))
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0] == "fleet live: 3 of 3 servers reachable"
    for name, api in zip(PROFILES, lab.apis, strict=True):
        assert re.search(rf"^  {name} +connected +enterprise +0\.20\S* +\d+ ms +0  {api[7:]}$", table.stdout, re.M)
    health = json.loads(as_json.stdout)
    assert [s["server"] for s in health["servers"]] == list(PROFILES)
    assert all(s["reachable"] and s["latency_ms"] > 0 and s["latency_samples"] >= 4 for s in health["servers"])
    listed = set(lab.own(0, "/v1/vhosts/default/apps/app/streams"))
    assert apps.returncode == 0 and set(apps.stdout.split()) == {f"{p}:default/app/{s}" for p in PROFILES
                                                                 for s in listed}
    assert json.loads(vhosts.stdout) == ["edge-1:default"]
    assert broken.returncode == 3
    assert "fleet broken: 1 of 2 servers reachable" in broken.stdout
    assert re.search(r"^  dead +unreachable .*\n +cannot connect to 127\.0\.0\.1:9", broken.stdout, re.M)


def test_stats_and_info_of_a_stream_on_the_fleet_and_on_one_server(lab: Lab) -> None:
    fleet, one, watch, broken, info, nowhere, profile, clash = lab.run_all(
        ("stats", "--fleet", "live", STREAM, "--json"), ("stats", "--fleet", "live", f"edge-1:{STREAM}", "--json"),
        ("stats", "--fleet", "live", STREAM, "--watch", "--count", "2", "--interval", "1", "--format", "line"),
        ("stats", "--fleet", "broken", STREAM), ("info", "--fleet", "live", STREAM, "--json"),
        ("stats", "--fleet", "live", "default/app/nope"), ("stats", f"edge-2:{STREAM}"),
        ("stats", "--profile", "origin", f"edge-2:{STREAM}"))
    assert fleet.returncode == 0, fleet.stderr
    view = json.loads(fleet.stdout)
    parts = view["servers"]
    assert [(p["server"], p["role"], p["inputs"]) for p in parts] == [
        ("origin", "origin", ["rtmp"]), ("edge-1", "edge", ["ovt"]), ("edge-2", "edge", ["ovt"])]
    assert view["origins"] == ["origin"] and view["complete"]
    assert view["sum"]["viewers"] == sum(p["viewers"] for p in parts) > 0
    assert view["sum"]["relays"] == parts[0]["relays"] == 2
    assert view["sum"]["server_ingest_bps"] == parts[0]["server_in_bps"]
    assert one.returncode == 0 and set(json.loads(one.stdout)) >= {"total_bytes_in", "connections_out"}
    lines = watch.stdout.splitlines()
    assert watch.returncode == 0 and len(lines) == 2
    assert re.search(r"viewers \d+  ingest [\d.]+ [kMG]b/s  out [\d.]+ [kMG]b/s  \|  origin 0 ", lines[1])
    assert broken.returncode == 3 and "dead           cannot be read: cannot connect" in broken.stdout
    assert "(sums leave out dead: not read)" in broken.stdout
    sources = [(s["server"], s["info"]["source_type"]) for s in json.loads(info.stdout)["servers"]]
    assert sources == [("origin", "Rtmp"), ("edge-1", "Ovt"), ("edge-2", "Ovt")]
    assert nowhere.returncode == 1 and "default/app/nope is on no server of fleet live" in nowhere.stderr
    # without a fleet, PROFILE: is that profile's server
    assert profile.returncode == 0 and profile.stdout.startswith(f"edge-2:{STREAM}  (enterprise, v2 statistics)")
    assert clash.returncode == 2 and "--profile or --api-url cannot name another server" in clash.stderr


def test_mistakes_are_usage_errors_that_say_what_to_do(lab: Lab) -> None:
    bad = lab.run_all(
        ("ls", "--fleet", "nope"), ("stats", "--fleet", "live", f"edge-9:{STREAM}"),
        ("stats", "--fleet", "live", "--api-url", "http://127.0.0.1:1", STREAM),
        ("cue-out", "--fleet", "live", STREAM, "--duration", "10"), ("--fleet", "live", "demo"),
        ("ls", "--fleet", "empty"), ("--fleet", "live", "alerts"))
    assert [run.returncode for run in bad] == [2] * len(bad)
    unknown, server, url, send, demo, empty, alerts = (run.stderr for run in bad)
    assert "no fleet named 'nope'" in unknown and "(fleets: broken, empty, live)" in unknown
    assert "'edge-9' is not a server of this fleet (servers: origin, edge-1, edge-2)" in server
    assert "--api-url names one server and cannot be used with --fleet" in url
    assert "cue-out is not sent to a whole fleet" in send and "--servers" in send
    assert "the demo's fleet is its own" in demo
    assert "[fleets.empty]: servers is empty" in empty
    assert "exporter --fleet" in alerts


def test_a_send_to_named_servers_goes_to_each_and_is_audited_on_its_own(lab: Lab, tmp_path: Path) -> None:
    audit = lab.home / "audit.jsonl"
    before = audit.read_text().splitlines() if audit.exists() else []
    # Two edges: a break sent to the origin is relayed into the edges' playlists, where the plan of a
    # cue-out to an edge would rightly see a break already on air (and refuse it) once the origin's is sent.
    sent = lab.run("cue-out", "--servers", "edge-1,edge-2", "default/app/news", "--duration", "20", "--json")
    assert sent.returncode == 0, sent.stderr
    outcomes = [json.loads(line) for line in sent.stdout.splitlines()]
    assert sorted((o["server"], o["outcome"], o["status"]) for o in outcomes) == [
        ("edge-1", "accepted", 200), ("edge-2", "accepted", 200)]
    assert "cue-out: succeeded on edge-1, edge-2" in sent.stderr
    records = [json.loads(line) for line in audit.read_text().splitlines()[len(before):]]
    intents = sorted((r["profile"], r["server"]) for r in records if r["type"] == "intent")
    assert intents == [("edge-1", lab.apis[1][7:]), ("edge-2", lab.apis[2][7:])]
    assert sorted(r["outcome"] for r in records if r["type"] == "outcome") == ["accepted", "accepted"]
    assert len({r["id"] for r in records if r["type"] == "intent"}) == 2  # each its own send

    ghost = lab.run("cue-out", "--servers", "origin,ghost", "default/app/news", "--duration", "20")
    assert ghost.returncode == 2 and "no profile named 'ghost'" in ghost.stderr
    refused = lab.run("cue-out", "--servers", "origin,edge-2", "default/app/news", "--duration", "20",
                      "--read-only")
    assert refused.returncode == 6
    assert re.search(r"^omeconsole: edge-2: read-only mode", refused.stderr, re.M)
    assert len(audit.read_text().splitlines()) == len(before) + len(records)  # nothing more was sent


def _lines_until(process: subprocess.Popen[str], done: Any, limit_s: float = 60) -> list[dict[str, Any]]:
    assert process.stdout is not None
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + limit_s
    for line in process.stdout:
        seen.append(json.loads(line))
        if done(seen) or time.monotonic() > deadline:
            break
    return seen


def test_record_then_history_of_every_server_of_the_fleet(lab: Lab) -> None:
    recorder = lab.start("record", "--fleet", "live", "--status-every", "0.5", "--json")
    try:
        def sampled(lines: list[dict[str, Any]]) -> bool:
            latest = {line["profile"]: line for line in lines if line["event"] == "status"}
            return len(latest) == 3 and all(line["sampled"] >= 11 for line in latest.values())

        seen = _lines_until(recorder, sampled)
        assert seen[0]["event"] == "started" and [s["profile"] for s in seen[0]["servers"]] == list(PROFILES)
        assert sampled(seen), seen[-3:]
    finally:
        recorder.send_signal(signal.SIGTERM)
        out, err = recorder.communicate(timeout=30)
    assert recorder.returncode == 0, err
    stopped = [json.loads(line) for line in out.splitlines() if '"stopped"' in line]
    assert sorted(line["profile"] for line in stopped) == sorted(PROFILES) and all(s["lost"] == 0 for s in stopped)

    every, one, listing = lab.run_all(("history", "--fleet", "live", STREAM, "--json"),
                                      ("history", "--fleet", "live", f"edge-2:{STREAM}", "--json"),
                                      ("history", "--fleet", "live", "--json"))
    document = json.loads(every.stdout)
    assert document["fleet"] == "live"
    assert [(d["server"], d["summary"]["profile"]) for d in document["servers"]] == [
        (api[7:], name) for name, api in zip(PROFILES, lab.apis, strict=True)]
    assert all(any(p["samples"] for p in d["points"]) for d in document["servers"])
    assert json.loads(one.stdout)["server"] == lab.apis[2][7:]
    assert {s["server"] for s in json.loads(listing.stdout)} == {api[7:] for api in lab.apis}


def test_one_exporter_process_for_the_whole_fleet(lab: Lab) -> None:
    exporter = lab.start("exporter", "--fleet", "live", "--listen", "127.0.0.1:0")
    try:
        assert exporter.stderr is not None
        banner = exporter.stderr.readline()
        assert "for fleet live: origin, edge-1, edge-2" in banner
        found = re.search(r"(http://127\.0\.0\.1:\d+)/metrics", banner)
        assert found, banner
        up: dict[str, float] = {}
        for _ in range(300):
            text = httpx.get(f"{found.group(1)}/metrics", timeout=5).text
            families = {f.name: f for f in text_string_to_metric_families(text)}
            up = {s.labels["server"]: s.value for s in families["ome_up"].samples}
            streams = {s.labels["server"] for s in families["ome_bytes_out"].samples if "stream" in s.labels}
            if up == dict.fromkeys(PROFILES, 1.0) and streams == set(PROFILES):
                break
            time.sleep(0.1)
        assert up == dict.fromkeys(PROFILES, 1.0)
    finally:
        exporter.send_signal(signal.SIGTERM)
        exporter.communicate(timeout=30)
    assert exporter.returncode == 0


def test_a_fleet_replay_says_why_there_is_nothing_to_replay_and_goes_with_the_console_only(
        lab: Lab, tmp_path: Path) -> None:
    env = lab.env()
    env["OMECONSOLE_HISTORY_DB"] = str(tmp_path / "never-recorded.sqlite3")
    nothing = subprocess.run([str(BIN / "omeconsole"), "--replay", "--fleet", "live"], capture_output=True,
                             text=True, env=env, timeout=60, check=False)
    assert nothing.returncode == 1 and nothing.stderr.startswith("omeconsole: replay: "), nothing.stderr
    assert "not there yet" not in nothing.stderr
    listing = lab.run("--replay", "--fleet", "live", "ls")
    assert listing.returncode == 2 and "--replay opens the console" in listing.stderr
