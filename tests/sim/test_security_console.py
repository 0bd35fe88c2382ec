"""Security of the console side: the config file warning, and the access token kept out of reprs,
errors, logs (even at DEBUG, httpx included) and the audit log."""

from __future__ import annotations

import logging
import os
import random
from pathlib import Path

import pytest
from fake_clock import FakeClock

from omeconsole.api.client import OmeClient
from omeconsole.api.errors import OmeError
from omeconsole.api.wire import Id3Frame
from omeconsole.core.config import load_settings
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.core.session import connector
from omeconsole.model.paths import NodePath
from simulator.http.auth import basic_header
from simulator.http.server import start_simulator
from simulator.world.clock import ManualClock

TOKEN = "console-S3cret-token-value"
ENCODED = basic_header(TOKEN).split()[1]


def _write(path: Path, text: str, mode: int) -> Path:
    path.write_text(text, "utf-8")
    os.chmod(path, mode)
    return path


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_config_file_others_can_read_is_warned_about_without_showing_the_token(tmp_path: Path, mode: int) -> None:
    config = _write(tmp_path / "config.toml", f'api_url = "http://127.0.0.1:8081"\ntoken = "{TOKEN}"\n', mode)
    warnings: list[str] = []
    settings = load_settings(path=config, environ={}, warn=warnings.append)
    assert settings.token_value() == TOKEN
    assert any("can be read by other users" in w and "chmod 600" in w for w in warnings), warnings
    assert all(TOKEN not in w for w in warnings)
    assert TOKEN not in repr(settings) and TOKEN not in str(settings.model_dump())


def test_a_private_config_file_is_not_warned_about(tmp_path: Path) -> None:
    config = _write(tmp_path / "config.toml", f'token = "{TOKEN}"\n', 0o600)
    warnings: list[str] = []
    load_settings(path=config, environ={}, warn=warnings.append)
    assert warnings == []


def test_a_token_file_others_can_read_is_warned_about(tmp_path: Path) -> None:
    token_file = _write(tmp_path / "token", TOKEN + "\n", 0o644)
    config = _write(tmp_path / "config.toml", f'token_file = "{token_file}"\n', 0o600)
    warnings: list[str] = []
    settings = load_settings(path=config, environ={}, warn=warnings.append)
    assert settings.token_value() == TOKEN
    assert any("token file" in w and "can be read by other users" in w for w in warnings), warnings
    assert all(TOKEN not in w for w in warnings)


async def test_the_client_never_shows_the_token_in_reprs_errors_or_debug_logs(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    caplog.set_level(logging.DEBUG)
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=1,
                                      clock=ManualClock(), faults="5xx=0.2,reset=0.1,html=0.1")
    seen: list[str] = []
    try:
        for token in (TOKEN, "wrong-" + TOKEN):
            client = OmeClient(simulator.api_url, token, timeout=2)
            seen.append(repr(client))
            engine = PollingEngine(client, FakeClock(), PollSettings(), rng=random.Random(3))
            engine.select(NodePath("default", "app", "stream"))
            for _ in range(15):
                await engine.poll_cycle()
                seen.append(engine.connection.message)
                seen.append(str(engine.node(NodePath("default", "app", "stream")).error))
            try:
                await client.cue_out(NodePath("default", "app", "stream"), 30_000)
            except OmeError as error:
                seen.extend((str(error), repr(error), repr(error.body)))
            await client.aclose()
    finally:
        await simulator.stop()
    everything = caplog.text + "\n".join(seen)
    assert "HTTP Request" in caplog.text or caplog.records  # debug logging really ran
    for secret in (TOKEN, ENCODED):
        assert secret not in everything


async def test_no_record_and_no_command_output_ever_holds_the_token(tmp_path: Path) -> None:
    """The token is never put into a record, so nothing needs masking: a send's intent, outcome and
    confirmation, and everything the command line prints, are free of it (and of its Basic form)."""
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=1,
                                      clock=ManualClock())
    try:
        settings = load_settings({"api_url": simulator.api_url, "token": TOKEN,
                                  "publisher_url": simulator.publisher_url}, environ={},
                                 path=tmp_path / "absent.toml")
        session = connector(FakeClock(), audit_path=tmp_path / "audit.jsonl")(settings)
        try:
            controller = session.adops.stream(NodePath("default", "app", "stream"))
            plan = controller.plan_id3([Id3Frame(frameType="TIT2", data="x")])
            outcome = await controller.send(plan)
            nope = session.adops.stream(NodePath("default", "app", "nope"))  # its playlist is not read: confirmed
            refused = await nope.send(nope.plan_cue_out(30), confirmed={"check-not-run"})
        finally:
            await session.aclose()
    finally:
        await simulator.stop()
    assert outcome.status == "accepted" and refused.status == "rejected"
    text = (tmp_path / "audit.jsonl").read_text("utf-8") + repr(outcome) + repr(refused) + plan.describe()
    for secret in (TOKEN, ENCODED):
        assert secret not in text
