"""The fault SPEC: what users type after --faults or in a scenario's [faults] table, and its errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from simulator.world.fault_spec import (
    BitrateDrop,
    FaultSpecError,
    Schedule,
    VanishSpec,
    Window,
    fault_spec_from_table,
    parse_fault_spec,
)
from simulator.world.scenario import parse_scenario

FULL = ("latency=200ms,5xx=0.1,reset=0.05,stall=0.02:30s,html=0.05,truncate=0.05,types=0.05,"
        "restart=every:120s,vanish=every:60s:for:20s")


def test_the_documented_example_parses_into_every_fault() -> None:
    spec = parse_fault_spec(FULL)
    assert spec.latency_ms == (200, 200)
    assert spec.shares == {"5xx": 0.1, "reset": 0.05, "stall": 0.02, "html": 0.05, "truncate": 0.05,
                           "types": 0.05}
    assert spec.stall_ms == 30_000
    assert spec.restart == Schedule("every", 120_000)
    assert spec.vanish == VanishSpec(Schedule("every", 60_000), 20_000, 1.0)
    assert spec.has_http_faults and spec.has_world_faults


def test_ranges_percentages_windows_paths_and_one_shot_schedules() -> None:
    spec = parse_fault_spec(" latency=100ms..1.5s , 5xx=25% ,during=30s..2m, paths=/v2/stats|/v1/vhosts,"
                            "restart=at:90s,vanish=at:10s:for:5s:share:0.5")
    assert spec.latency_ms == (100, 1500)
    assert spec.shares == {"5xx": 0.25}
    assert spec.during_ms == (30_000, 120_000)
    assert spec.paths == ("/v2/stats", "/v1/vhosts")
    assert spec.restart == Schedule("at", 90_000)
    assert spec.vanish == VanishSpec(Schedule("at", 10_000), 5_000, 0.5)
    assert parse_fault_spec("during=45s..").during_ms == (45_000, None)


def test_input_faults_take_windows_schedules_and_stream_patterns() -> None:
    spec = parse_fault_spec("ingest-stall=30s..90s,bitrate-drop=20%@every:5m:for:1m,"
                            "streams=default/app/*|*/live/concert")
    assert spec.ingest_stall == Window(30_000, 90_000)
    assert spec.bitrate_drop == BitrateDrop(0.2, Window(300_000, 360_000, 300_000))
    assert spec.streams == ("default/app/*", "*/live/concert")
    assert spec.has_world_faults and not spec.has_http_faults
    assert parse_fault_spec("ingest-stall=at:10s:for:5s").ingest_stall == Window(10_000, 15_000)
    assert parse_fault_spec("ingest-stall=45s..").ingest_stall == Window(45_000, None)
    window = Window(300_000, 360_000, 300_000)
    assert [window.active(t * 1000) for t in (299, 300, 359, 360, 600, 659, 660)] == [
        False, True, True, False, True, True, False]


def test_an_empty_spec_injects_nothing() -> None:
    assert parse_fault_spec("").empty
    assert parse_fault_spec(" , ").empty


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bogus=1", "unknown fault 'bogus'"),
        ("5xx", "'5xx' needs a value"),
        ("5xx=", "'5xx=' needs a value"),
        ("5xx=lots", "5xx: 'lots' is not a share"),
        ("5xx=1.5", "must be between 0 and 1"),
        ("reset=-0.1", "must be between 0 and 1"),
        ("5xx=0.6,reset=0.6", "add up to 1.2, more than 1"),
        ("latency=2x", "latency: '2x' is not a duration"),
        ("latency=300ms..100ms", "goes backwards"),
        ("stall=0.1:forever", "stall: 'forever' is not a duration"),
        ("restart=120s", "must be every:DURATION or at:DURATION"),
        ("restart=every:10ms", "period under 1s"),
        ("vanish=every:60s", "vanish: use every:DURATION:for:DURATION"),
        ("vanish=every:60s:for:90s", "must be back"),
        ("vanish=every:60s:for:5s:share:2", "between 0 and 1"),
        ("during=30s", "must be START..END"),
        ("during=60s..30s", "ends before it starts"),
        ("paths=v2/stats", "must be path prefixes"),
        ("5xx=0.1,5xx=0.2", "5xx is given twice"),
        ("latency=\u0661\u0660ms", "latency: '\u0661\u0660ms' is not a duration"),  # Arabic-Indic 10
        ("latency=\uff11s", "is not a duration"),  # a fullwidth 1
        ("5xx=0.\u0665", "is not a share"),
        ("5xx=\u00b9", "is not a share"),  # superscript one
        ("reset=nan", "is not a share"),
        ("restart=every:\u0669\u0669s", "is not a duration"),
        ("ingest-stall=30s", "must be START..END, START.., every:DURATION:for:DURATION"),
        ("ingest-stall=90s..30s", "ingest-stall: '90s..30s' ends before it starts"),
        ("ingest-stall=every:60s:for:60s", "ingest-stall: it must end"),
        ("bitrate-drop=20%", "must be SHARE@WHEN"),
        ("bitrate-drop=100%@10s..", "is no drop"),
        ("bitrate-drop=lots@10s..", "bitrate-drop: 'lots' is not a share"),
        ("ingest-stall=10s..,streams=app/stream", "must be vhost/app/stream patterns"),
        ("streams=default/app/stream", "only chooses the streams of ingest-stall and bitrate-drop"),
    ],
)
def test_bad_specs_fail_with_a_message_naming_the_item(text: str, message: str) -> None:
    with pytest.raises(FaultSpecError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_fault_spec(text)


def test_a_scenario_faults_table_is_kept_and_a_spec_string_overrides_it_per_key() -> None:
    scenario = parse_scenario(
        '[[vhosts]]\nname = "default"\n[faults]\n5xx = 0.1\nlatency = "50ms"\nrestart = "every:60s"\n', "t")
    spec = fault_spec_from_table(scenario.faults)
    assert spec.shares == {"5xx": 0.1}
    assert spec.latency_ms == (50, 50)
    merged = fault_spec_from_table(scenario.faults, "5xx=0.3,reset=0.1")
    assert merged.shares == {"5xx": 0.3, "reset": 0.1}
    assert merged.restart == Schedule("every", 60_000)


def test_a_scenario_faults_table_with_a_wrong_value_type_is_refused() -> None:
    with pytest.raises(FaultSpecError, match=r"\[faults\] restart: use a string or a number"):
        fault_spec_from_table({"restart": True})
    with pytest.raises(FaultSpecError, match="unknown fault 'lag'"):
        fault_spec_from_table({"lag": "1s"})


def _simulator(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "simulator", *args], capture_output=True, text=True, timeout=60,
                          check=False)


def test_the_command_line_refuses_a_bad_spec_before_listening() -> None:
    result = _simulator("--api-port", "0", "--publisher-port", "0", "--faults", "5xx=0.6,reset=0.6")
    assert result.returncode == 2
    assert "ome-simulator: faults: the shares of reset, 5xx add up to 1.2, more than 1" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_command_line_documents_faults_in_help() -> None:
    result = _simulator("--help")
    assert result.returncode == 0
    assert "--faults SPEC" in result.stdout
