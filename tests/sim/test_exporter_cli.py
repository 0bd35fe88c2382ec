"""`omeconsole exporter` and `omeconsole alerts` as a user runs them.

End to end with real processes (the simulator program, the exporter program, the alerts command),
then `omeconsole alerts` in-process against an exporter on clocks the test moves, for its table, JSON
and watch output.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from alerts_support import exporter_rig
from prometheus_client.parser import text_string_to_metric_families
from test_simulator_process import Simulator

from omeconsole.cli import alerts_cmd
from omeconsole.cli.main import build_parser, main
from omeconsole.core.alerts.rules import AlertRule

OMECONSOLE = Path(sys.executable).with_name("omeconsole")
CONFIG = """
[[alerts]]
name = "backup watched"
kind = "no_viewers"
scope = "default/app/backup"
after = "1s"
severity = "critical"
"""


def _metrics_when(url: str, ready: str) -> str:
    """Scrapes until the exposition contains `ready` (real processes on real clocks; bounded)."""
    text = ""
    for _ in range(300):
        try:
            text = httpx.get(url, timeout=5).text
        except httpx.HTTPError:
            text = ""
        if ready in text:
            return text
        time.sleep(0.1)
    raise AssertionError(f"{ready!r} never showed in {url}:\n{text[:2000]}")


def test_the_exporter_program_serves_metrics_and_alerts_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    config.chmod(0o600)
    simulator = Simulator("--seed", "3")
    env = {**os.environ, "OMECONSOLE_CONFIG": str(config), "OMECONSOLE_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
           "OME_ACCESS_TOKEN": "ome-access-token"}
    exporter = subprocess.Popen([str(OMECONSOLE), "exporter", "--api-url", simulator.api_url,
                                 "--listen", "127.0.0.1:0", "--max-streams", "3"],
                                stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert exporter.stderr is not None
        banner = exporter.stderr.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/metrics", banner)
        assert match, banner
        base = match.group(1)
        text = _metrics_when(f"{base}/metrics", 'ome_alerts_firing{rule="backup watched"')
        _metrics_when(f"{base}/metrics", 'rule="backup watched",server="127.0.0.1')
        # Up once a reading has been answered (a request that timed out on a loaded machine says 0 meanwhile:
        # that is the truth then, so the test waits for the answer, not for a moment).
        server = simulator.api_url.removeprefix("http://")
        text = _metrics_when(f"{base}/metrics", f'ome_up{{server="{server}"}} 1.0')
        families = {f.name: f for f in text_string_to_metric_families(text)}
        assert families["ome_up"].samples[0].value == 1.0
        assert len({s.labels["stream"] for s in families["ome_bytes_out"].samples if "stream" in s.labels}) <= 3
        for _ in range(300):  # backup has nobody watching: the rule fires about a second after its first reading
            listed = subprocess.run([str(OMECONSOLE), "alerts", "--exporter", base, "--json"],
                                    capture_output=True, text=True, env=env, timeout=30)
            assert listed.returncode == 0, listed.stderr
            document = json.loads(listed.stdout)
            if any(a["status"] == "firing" for a in document["alerts"]):
                break
            time.sleep(0.1)
        (alert,) = [a for a in document["alerts"] if a["status"] == "firing"]
        assert alert["rule"] == "backup watched" and alert["node"] == "default/app/backup"
        assert alert["severity"] == "critical" and alert["detail"].startswith("no viewers for")
        exporter.send_signal(signal.SIGTERM)
        _, err = exporter.communicate(timeout=20)
        assert exporter.returncode == 0, err
        assert "Traceback" not in err and "ome-access-token" not in banner + err
        assert "alert backup watched firing on" in err  # transitions are logged
    finally:
        if exporter.poll() is None:
            exporter.kill()
            exporter.wait()
        simulator.stop()


def test_bad_listen_addresses_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("nonsense", "127.0.0.1:99999", ":9464"):
        with pytest.raises(SystemExit) as stop:
            main(["exporter", "--token", "t", "--listen", bad])
        assert stop.value.code == 2
        assert "expected HOST:PORT" in capsys.readouterr().err


def test_alerts_says_when_no_exporter_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["alerts", "--exporter", "http://127.0.0.1:9"]) == 3
    assert "is `omeconsole exporter` running there?" in capsys.readouterr().err


async def test_alerts_prints_the_table_the_json_and_each_change_when_watching(tmp_path: Path) -> None:
    rule = AlertRule(name="backup busy", kind="viewers_above", scope="default/app/backup", viewers=0,
                     keep_firing_for=0, severity="critical")
    async with exporter_rig(tmp_path, rules=[rule], profile="prod") as rig:
        await rig.cycle(6)

        def parsed(*argv: str) -> argparse.Namespace:
            return build_parser().parse_args(["alerts", "--exporter", rig.base_url, *argv])

        async def run(*argv: str) -> str:
            out = io.StringIO()
            assert await alerts_cmd.run(parsed(*argv), out) == 0
            return out.getvalue()

        watched = io.StringIO()
        watcher = asyncio.create_task(alerts_cmd.run(parsed("--watch", "--interval", "0.05"), watched))
        while "no alerts" not in watched.getvalue():
            await asyncio.sleep(0.01)
        backup = rig.stream("backup")
        rig.simulator.world.open_session(backup, "llhls")
        await rig.cycle(2)
        for _ in range(1000):  # the watcher's next reading prints the change (bounded wait, not a timing check)
            if "firing" in watched.getvalue():
                break
            await asyncio.sleep(0.01)
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        lines = watched.getvalue().splitlines()
        assert lines[0] == "no alerts" and len(lines) == 2
        assert re.match(r"firing\s+critical\s+backup busy\s+prod:default/app/backup\s+\d+s ago\s+1 viewers",
                        lines[1])
        (line,) = (await run()).splitlines()
        assert line.startswith("firing") and "prod:default/app/backup" in line
        document = json.loads(await run("--json"))
        assert [(a["status"], a["node"], a["value"]) for a in document["alerts"]] == [
            ("firing", "default/app/backup", 1.0)]
        rig.simulator.world.close_session(backup, "llhls")
        await rig.cycle(2)
        resolved = (await run("--watch", "--json", "--interval", "0.05", "--count", "2")).splitlines()
    assert [json.loads(line)["status"] for line in resolved] == ["resolved"]
