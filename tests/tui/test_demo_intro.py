"""The demo introduces itself: its API URL, publisher URL and token above the tree and in `demo --help`,
and they are what curl or a second terminal needs (the token read off the screen opens the API)."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from textual.widgets import Static
from ui_support import Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui, shown

from omeconsole.cli.parser import DEMO_TOKEN
from omeconsole.core.config import Settings
from omeconsole.ui.demo import introduction
from simulator.http.server import DEFAULT_ACCESS_TOKEN

__all__ = ["console_clock", "quiet_ui"]


async def test_the_demo_line_names_its_addresses_and_a_token_that_opens_the_api(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path) -> None:
    with ThreadedSimulator(access_token=DEFAULT_ACCESS_TOKEN) as simulator:
        app = make_app(simulator.api_url, console_clock, tmp_path, token=DEFAULT_ACCESS_TOKEN)
        app.intro = introduction(simulator.running)
        async with app.run_test(size=(200, 40)) as pilot:
            await Driver(pilot, console_clock, simulator).warm_up(1)
            line = shown(app.screen.query_one("#intro", Static))
        found = re.search(r"API (\S+) · publisher (\S+) · token (\S+)", line)
        assert found is not None, line
        api, publisher, token = found.groups()
        assert (api, publisher) == (simulator.api_url, simulator.running.publisher_url)
        basic = base64.b64encode(token.encode()).decode()
        reply = httpx.get(f"{api}/v1/vhosts", headers={"Authorization": f"Basic {basic}"}, timeout=10)
        assert reply.status_code == 200 and "default" in reply.text


def test_demo_help_names_the_token_and_where_the_addresses_are_shown() -> None:
    assert DEMO_TOKEN == DEFAULT_ACCESS_TOKEN
    program = Path(sys.executable).with_name("omeconsole")
    run = subprocess.run([str(program), "demo", "--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    text = " ".join(run.stdout.split())
    assert DEFAULT_ACCESS_TOKEN in text and "API URL, publisher URL and access token" in text


def test_the_demo_refuses_flags_that_name_another_server_and_its_help_says_so() -> None:
    program = Path(sys.executable).with_name("omeconsole")
    run = subprocess.run([str(program), "demo", "--api-url", "http://ome.example:8081", "--token", "secret-x"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "the demo runs its own server: --api-url, --token cannot name another" in run.stderr
    assert "secret-x" not in run.stderr + run.stdout
    help_text = " ".join(subprocess.run([str(program), "demo", "--help"], capture_output=True, text=True,
                                        timeout=60).stdout.split())
    assert "--api-url, --publisher-url, --token and --token-file are refused (exit 2)" in help_text


def test_the_demo_runs_no_token_source_and_reads_no_server_from_the_environment(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import omeconsole.ui.demo
    from omeconsole.cli.main import main

    marker = tmp_path / "token-command-ran"
    config = tmp_path / "config.toml"
    command = [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ran'); print('prod-token')"]
    config.write_text(f'profile = "prod"\ntheme = "ome-light"\n[profiles.prod]\napi_url = "http://prod.example:8081"\n'
                      f"token_command = {json.dumps(command)}\n")
    config.chmod(0o600)
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(config))
    monkeypatch.setenv("OME_API_URL", "http://elsewhere.example:8081")
    monkeypatch.setenv("OME_ACCESS_TOKEN", "env-token")
    started: list[Settings] = []

    def run_demo(settings: Settings, **_options: object) -> int:
        started.append(settings)
        return 0

    monkeypatch.setattr(omeconsole.ui.demo, "run_demo", run_demo)
    assert main(["demo"]) == 0
    [settings] = started
    assert not marker.exists(), "the profile's token command ran for the demo"
    assert settings.token is None and settings.api_url == "http://prod.example:8081"  # replaced by the demo's own
    assert settings.theme == "ome-light", "the other settings apply"
