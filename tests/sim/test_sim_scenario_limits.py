"""Scenario validation: names the real server could serve, unique at each level, and a world small enough
to build, refused with a clear message before anything is allocated; the command line says the same."""

from __future__ import annotations

import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from simulator.world.scenario import MAX_STREAMS, ScenarioError, parse_scenario


def scenario(vhost: str = "default", app: str = "app", streams: tuple[str, ...] = ("s",)) -> str:
    text = f'[[vhosts]]\nname = "{vhost}"\n  [[vhosts.apps]]\n  name = "{app}"\n'
    return text + "".join(f'    [[vhosts.apps.streams]]\n    name = "{s}"\n' for s in streams)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (scenario(streams=("a/b",)), r"vhosts\[0\]\.apps\[0\]\.streams\[0\]: a stream name 'a/b' holds '/'"),
        (scenario(app="live/x"), r"an application name 'live/x' holds '/'"),
        (scenario(app="app:x"), r"an application name 'app:x' holds ':'"),
        (scenario(vhost="a/b"), r"a virtual host name 'a/b' holds '/'"),
        (scenario(streams=("",)), r"a stream needs a name"),
        (scenario(app=""), r"an application needs a name"),
        (scenario(vhost=""), r"a virtual host needs a name"),
        (scenario(streams=("tab\\there",)), r"holds '\\t'"),
        (scenario(streams=("x" * 256,)), r"256 characters long; at most 255"),
        (scenario(streams=("same", "other", "same")), r"two streams are named 'same'"),
        (scenario() + '  [[vhosts.apps]]\n  name = "app"\n', r"two applications are named 'app'"),
        (scenario() + scenario(), r"two virtual hosts are named 'default'"),
        (scenario() + "[generate]\nvhosts = 1\n", r"two virtual hosts are named 'default'"),
    ],
)
def test_names_the_real_server_could_not_serve_are_refused(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=f"^scenario t: .*{message}"):
        parse_scenario(text, "t")


def test_odd_but_servable_names_are_kept() -> None:
    parsed = parse_scenario(scenario(app="caméra #1", streams=("a&b=c?", "x:y", "名前")), "t")
    assert [s.name for s in parsed.vhosts[0].apps[0].streams] == ["a&b=c?", "x:y", "名前"]
    assert parsed.vhosts[0].apps[0].name == "caméra #1"


def test_a_huge_generated_world_is_refused_at_once_without_allocating_it() -> None:
    text = "[generate]\nvhosts = 100\napps_per_vhost = 1000\nstreams_per_app = 100000\n"
    tracemalloc.start()
    started = time.process_time()
    with pytest.raises(ScenarioError, match=r"\[generate\] 100 x 1000 x 100000 makes 100,000 applications in all; "
                                            r"at most 10,000"):
        parse_scenario(text, "t")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1_000_000 and time.process_time() - started < 1.0
    with pytest.raises(ScenarioError, match=r"makes 200,000 streams in all; at most 100,000"):
        parse_scenario("[generate]\nvhosts = 2\napps_per_vhost = 10\nstreams_per_app = 10000\n", "t")


def test_listed_and_generated_streams_count_together() -> None:
    listed = scenario(vhost="extra", streams=("a", "b"))
    per_app = MAX_STREAMS // 10
    at_limit = f"[generate]\nvhosts = 1\napps_per_vhost = 10\nstreams_per_app = {per_app}\n"
    with pytest.raises(ScenarioError, match=r"100,002 streams in all"):
        parse_scenario(listed + at_limit, "t")
    assert parse_scenario("[generate]\nvhosts = 4\napps_per_vhost = 25\nstreams_per_app = 100\n", "t")


def test_the_command_line_refuses_a_bad_scenario_before_listening(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[generate]\nvhosts = 100\napps_per_vhost = 1000\nstreams_per_app = 100000\n", "utf-8")
    result = subprocess.run([sys.executable, "-m", "simulator", "--scenario", str(path), "--api-port", "0",
                             "--publisher-port", "0"], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert "ome-simulator: scenario bad: [generate] 100 x 1000 x 100000 makes" in result.stderr
    assert "Traceback" not in result.stderr
