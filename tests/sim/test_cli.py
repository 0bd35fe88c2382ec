"""The command line through its real entry point, against `ome-simulator` processes on free ports."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

BIN = Path(sys.executable).parent
TOKEN = "cli-test-token"


def start_simulator(edition: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [str(BIN / "ome-simulator"), "--api-port", "0", "--publisher-port", "0", "--edition", edition,
         "--access-token", TOKEN, "--seed", "5"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    seen = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        found = re.search(r"management API\s+(http://\S+)", line)
        if found:
            return process, found.group(1)
    process.kill()
    raise AssertionError(f"the simulator did not start: {''.join(seen)}")


@pytest.fixture(scope="module")
def enterprise() -> Iterator[str]:
    process, url = start_simulator("enterprise")
    yield url
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="module")
def oss() -> Iterator[str]:
    process, url = start_simulator("oss")
    yield url
    process.terminate()
    process.wait(10)


@pytest.fixture
def audit_path(tmp_path: Path) -> Path:
    return tmp_path / "audit.jsonl"


def run(*args: str, url: str | None = None, token: str | None = TOKEN, audit: Path | None = None,
        stdin: str | None = None, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
    env["OMECONSOLE_CONFIG"] = "/nonexistent/omeconsole-test/config.toml"
    env["OMECONSOLE_AUDIT_LOG"] = str(audit or "/nonexistent/audit.jsonl")
    if url:
        env["OME_API_URL"] = url
    if token:
        env["OME_ACCESS_TOKEN"] = token
    env.update(extra_env or {})
    return subprocess.run([str(BIN / "omeconsole"), *args], capture_output=True, text=True, env=env,
                          input=stdin, timeout=60, check=False)


def run_all(*calls: tuple[tuple[str, ...], dict[str, Any]]) -> list[subprocess.CompletedProcess[str]]:
    """Independent invocations side by side (each is a separate process: startup dominates)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda call: run(*call[0], **call[1]), calls))


def test_ls_walks_the_tree(enterprise: str) -> None:
    vhosts, apps, streams = run_all((("ls",), {"url": enterprise}),
                                    (("ls", "default", "--json"), {"url": enterprise}),
                                    (("ls", "default/app"), {"url": enterprise}))
    assert vhosts.returncode == 0 and vhosts.stdout.split() == ["default"]
    assert json.loads(apps.stdout) == ["default/app", "default/live"]
    assert "default/app/stream" in streams.stdout.split()


def test_stats_human_json_and_watch(enterprise: str) -> None:
    human, machine_run, watch = run_all(
        (("stats", "default/app/stream"), {"url": enterprise}),
        (("stats", "default/app", "--json"), {"url": enterprise}),
        (("stats", "default/app/stream", "--watch", "--count", "2", "--interval", "1.2", "--json"),
         {"url": enterprise}))
    assert human.returncode == 0
    assert "default/app/stream  (enterprise, v2 statistics)" in human.stdout and "viewers" in human.stdout
    machine = json.loads(machine_run.stdout)
    assert machine["total_bytes_in"] > 0 and isinstance(machine["connections_in"], dict)
    lines = [json.loads(line) for line in watch.stdout.splitlines()]
    assert watch.returncode == 0 and len(lines) == 2
    assert lines[0]["rate_in_bps"] is None and lines[1]["rate_in_bps"] > 0


def test_info_shows_tracks(enterprise: str) -> None:
    info = run("info", "default/app/stream", url=enterprise)
    assert info.returncode == 0 and "H264" in info.stdout and "640x360" in info.stdout


def test_sends_succeed_and_are_audited_without_the_token(enterprise: str, audit_path: Path) -> None:
    # No publisher URL is given: the playlist cannot be read, so the rules' check could not run (--force).
    unchecked = run("cue-out", "default/app/stream", "--duration", "30", url=enterprise, audit=audit_path)
    assert unchecked.returncode == 8 and "could not be checked" in unchecked.stderr
    out = run("cue-out", "default/app/stream", "--duration", "30", "--force", url=enterprise, audit=audit_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("cue-out sent to default/app/stream: HTTP 200 OK\n"
                          "accepted by the server; not yet seen in the playlist\n")
    back = run("cue-in", "default/app/stream", "--force", url=enterprise, audit=audit_path)  # before the splice
    assert back.returncode == 0, back.stderr
    tag = run("id3", "default/app/stream", "--frame", "TXXX", "--info", "k", "--data", "v",
              "--frame", "TIT2", "--data", "Title", "--event-type", "video", url=enterprise, audit=audit_path)
    assert tag.returncode == 0, tag.stderr
    text = audit_path.read_text()
    assert TOKEN not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert [r["type"] for r in records] == ["intent", "outcome"] * 3
    intents, outcomes = records[::2], records[1::2]
    assert [r["action"] for r in intents] == ["cue-out", "cue-in", "id3"]
    assert intents[0]["body"] == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
    assert intents[2]["body"] == [{"eventFormat": "id3v2", "eventType": "video", "events": [
        {"frameType": "TXXX", "info": "k", "data": "v"}, {"frameType": "TIT2", "data": "Title"}]}]
    host = enterprise.removeprefix("http://")
    assert all(r["server"] == host and r["vhost"] == "default" and r["profile"] is None for r in intents)
    assert all(r["status"] == 200 and r["outcome"] == "accepted" for r in outcomes)


def test_send_events_from_a_file_and_a_refused_one(enterprise: str, audit_path: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps([{"eventFormat": "id3v2", "events": [{"frameType": "TIT2", "data": "x"}]}]))
    sent = run("send-events", "default/app/stream", "--file", str(good), url=enterprise, audit=audit_path)
    assert sent.returncode == 0, sent.stderr
    refused = run("send-events", "default/app/stream", "--file", "-", url=enterprise, audit=audit_path,
                  stdin=json.dumps({"eventFormat": "bogus", "events": [{}]}))
    assert refused.returncode == 1
    assert "eventFormat is not supported: [bogus]" in refused.stderr
    records = [json.loads(line) for line in audit_path.read_text().splitlines()]
    assert records[-1]["status"] == 400 and records[-1]["outcome"] == "rejected"
    assert records[-2]["body"] == [{"eventFormat": "bogus", "events": [{}]}]


def test_failures_have_their_exit_status_and_the_servers_message(enterprise: str) -> None:
    missing, wrong, down, no_token, bad_path, orphan = run_all(
        (("stats", "default/app/nope"), {"url": enterprise}),
        (("ls",), {"url": enterprise, "token": "not-the-token"}),
        (("ls",), {"url": "http://127.0.0.1:9"}),
        (("ls",), {"url": enterprise, "token": None}),
        (("stats", "default//x"), {"url": enterprise}),
        (("id3", "default/app/stream", "--data", "x"), {"url": enterprise}),
    )
    assert missing.returncode == 1
    assert "Could not find the stream: [default/app/nope]" in missing.stderr
    assert wrong.returncode == 1 and "Invalid credential" in wrong.stderr and "not-the-token" not in wrong.stderr
    assert down.returncode == 3 and "cannot connect" in down.stderr
    assert no_token.returncode == 2 and "no access token" in no_token.stderr
    assert bad_path.returncode == 2 and "vhost[/app[/stream]]" in bad_path.stderr
    assert orphan.returncode == 2 and "must follow a --frame" in orphan.stderr


def test_global_options_work_after_the_subcommand(enterprise: str) -> None:
    result = run("ls", "--api-url", enterprise, "--token", TOKEN, "--insecure", url=None, token=None)
    assert result.returncode == 0 and result.stdout.split() == ["default"]
    assert "TLS certificate verification is off" in result.stderr


def test_open_source_server_says_plainly_it_cannot_take_cues(oss: str, audit_path: Path) -> None:
    refused = run("cue-out", "default/app/stream", "--duration", "30", url=oss, audit=audit_path)
    assert refused.returncode == 1
    assert "cannot take cue events" in refused.stderr
    stats = json.loads(run("stats", "default/app/stream", "--json", url=oss).stdout)
    assert stats["connections_in"] is None  # unknown on v1, not zero
    tag = run("id3", "default/app/stream", "--frame", "TIT2", "--data", "t", url=oss, audit=audit_path)
    assert tag.returncode == 0 and "#0: HTTP 200 OK" in tag.stdout


def test_config_path_prints_where_it_looks(tmp_path: Path) -> None:
    result = run("config", "path", extra_env={"OMECONSOLE_CONFIG": str(tmp_path / "c.toml")})
    assert result.returncode == 0 and result.stdout.strip() == str(tmp_path / "c.toml")


def test_console_options_are_offered_and_bad_ones_refused_before_any_screen() -> None:
    ui_help, demo_help, bad_select, bad_bare, bad_scenario, bad_seed, misplaced = run_all(
        (("ui", "--help"), {}), (("demo", "--help"), {}),
        (("ui", "--select", "default//stream"), {"token": None}),
        (("--select", "a/b/c/d"), {"token": None}),
        (("demo", "--scenario", "no-such-scenario"), {}),
        (("demo", "--seed", "many"), {}),
        (("--select", "default", "ls"), {}),
    )
    assert ui_help.returncode == 0 and "--select" in ui_help.stdout
    assert demo_help.returncode == 0 and all(o in demo_help.stdout for o in ("--select", "--scenario", "--seed"))
    for refused in (bad_select, bad_bare):
        assert refused.returncode == 2
        assert "argument --select: not a path of the form vhost[/app[/stream]]" in refused.stderr
    assert "'default//stream'" in bad_select.stderr and "'a/b/c/d'" in bad_bare.stderr
    assert bad_scenario.returncode == 2 and "no scenario named 'no-such-scenario'" in bad_scenario.stderr
    assert "Traceback" not in bad_scenario.stderr
    assert bad_seed.returncode == 2 and "argument --seed: invalid int value" in bad_seed.stderr
    assert misplaced.returncode == 2 and "--select is for the console" in misplaced.stderr


@pytest.fixture
def console_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any, dict[str, Any]]]:
    """The console's entry points replaced by recorders: what the command line would open, without a terminal."""
    import omeconsole.ui.app
    import omeconsole.ui.demo
    from omeconsole.cli.gc_policy import ConsoleStart

    calls: list[tuple[str, Any, dict[str, Any]]] = []

    def recorder(kind: str) -> Any:
        def record(settings: Any, **options: Any) -> int:
            started = options.pop("started", None)  # the console's session, started while the UI loaded
            assert kind == "demo" or started.session.settings is settings
            assert isinstance(options.pop("start_watch", None), ConsoleStart)  # the collections' policy is told
            calls.append((kind, settings, options))
            return 0
        return record

    monkeypatch.setattr(omeconsole.ui.app, "run_app", recorder("app"))
    monkeypatch.setattr(omeconsole.ui.demo, "run_demo", recorder("demo"))
    monkeypatch.setenv("OMECONSOLE_CONFIG", "/nonexistent/omeconsole-test/config.toml")
    for name in ("OME_ACCESS_TOKEN", "OME_API_URL", "OME_PUBLISHER_URL"):
        monkeypatch.delenv(name, raising=False)
    return calls


def test_the_console_opens_without_a_token_on_the_selected_node(console_calls: list[Any]) -> None:
    from omeconsole.cli.main import main

    assert main(["ui", "--select", "default/app/stream"]) == 0
    assert main(["--select", "default/app"]) == 0  # bare omeconsole is the console
    assert main(["--select", "default", "ui"]) == 0  # before the subcommand, like the other options
    assert main([]) == 0
    assert [(kind, kw) for kind, _, kw in console_calls] == [
        ("app", {"select": "default/app/stream"}), ("app", {"select": "default/app"}),
        ("app", {"select": "default"}), ("app", {"select": None})]
    assert all(settings.token is None for _, settings, _ in console_calls)  # the console asks for it itself


def test_the_console_adopts_a_session_already_polling_while_its_ui_loaded(
        enterprise: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line makes the session and starts its engine before the UI is imported: detection, the
    listing and the selected stream's first reading are on their way (on the loop the console then runs
    on), and the console is handed that running session; when the console is gone, all of it is closed."""
    import asyncio

    import omeconsole.ui.app
    from omeconsole.cli.main import main
    from omeconsole.core.session import Started
    from omeconsole.model.paths import NodePath

    handed: list[Started] = []

    def console(settings: Any, *, select: str, started: Started, start_watch: object) -> int:
        engine = started.session.engine

        async def first_reading() -> None:
            arrived = asyncio.Event()
            stop = engine.add_listener(lambda _update: arrived.set())
            try:
                while engine.node(NodePath.parse(select)).latest is None:
                    arrived.clear()
                    await arrived.wait()
            finally:
                stop()

        started.loop.run_until_complete(asyncio.wait_for(first_reading(), 30))
        assert started.session.settings is settings and not started.running.done()
        handed.append(started)
        return 0

    monkeypatch.setattr(omeconsole.ui.app, "run_app", console)
    monkeypatch.setenv("OMECONSOLE_CONFIG", "/nonexistent/omeconsole-test/config.toml")
    monkeypatch.setenv("OMECONSOLE_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    assert main(["--api-url", enterprise, "--token", TOKEN, "--select", "default/app/news"]) == 0
    (started,) = handed
    assert started.session.engine.server is not None and started.session.engine.server.edition == "enterprise"
    assert started.running.done() and started.loop.is_closed()


def test_the_demo_gets_its_scenario_seed_and_selection(console_calls: list[Any]) -> None:
    from omeconsole.cli.main import main

    assert main(["demo", "--scenario", "scale", "--seed", "7", "--select", "default/app"]) == 0
    assert main(["demo"]) == 0
    assert [(kind, kw) for kind, _, kw in console_calls] == [
        ("demo", {"scenario": "scale", "seed": 7, "select": "default/app"}),
        ("demo", {"scenario": "demo", "seed": 0, "select": None})]
