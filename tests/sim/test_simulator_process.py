"""The real `ome-simulator` program: it prints where it listens, answers HTTP, and stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

PROGRAM = Path(sys.executable).with_name("ome-simulator")
DEFAULT_HEADER = "Basic b21lLWFjY2Vzcy10b2tlbg=="  # base64("ome-access-token"), as in the reference


class Simulator:
    """A running ome-simulator process and what it printed before it was ready."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "OME_ACCESS_TOKEN"} | (env or {})
        self.process = subprocess.Popen(
            [str(PROGRAM), "--api-port", "0", "--publisher-port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
        )
        self.banner: list[str] = []
        assert self.process.stdout is not None
        for line in self.process.stdout:  # the banner ends with the line that says how to stop
            self.banner.append(line)
            if line.startswith("Press Ctrl+C"):
                break
        text = "".join(self.banner)
        api = re.search(r"management API\s+(http://\S+)", text)
        publisher = re.search(r"LL-HLS / HLS\s+(http://\S+)", text)
        assert api and publisher, text + (self.process.stderr.read() if self.process.stderr else "")
        self.api_url, self.publisher_url = api.group(1), publisher.group(1)

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> tuple[int, str, str]:
        self.process.send_signal(sig)
        out, err = self.process.communicate(timeout=20)
        return self.process.returncode, out, err


@pytest.fixture
def default_simulator() -> Iterator[Simulator]:
    running = Simulator("--seed", "4")
    yield running
    if running.process.poll() is None:
        running.process.kill()
        running.process.wait()


def test_program_serves_the_api_and_stops_cleanly_on_sigterm(default_simulator: Simulator) -> None:
    banner = "".join(default_simulator.banner)
    assert default_simulator.api_url.startswith("http://127.0.0.1:")  # loopback unless told otherwise
    assert f"Authorization: {DEFAULT_HEADER}" in banner  # the default token: ready to paste
    headers = {"Authorization": DEFAULT_HEADER}
    with httpx.Client(base_url=default_simulator.api_url, headers=headers, timeout=10) as http:
        response = http.get("/v2/stats/current/vhosts/default/apps/app/streams/stream")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json;charset=UTF-8"
        assert response.json()["response"]["providers"]["connections"]["rtmp"] == 1
        assert http.get("/v1/vhosts").content == b'{"message":"OK","response":["default"],"statusCode":200}'
        sent = http.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent",
                         json={"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]})
        assert sent.content == b'{"message":"OK","statusCode":200}'
        refused = httpx.get(f"{default_simulator.api_url}/v1/vhosts", timeout=10)
        assert refused.status_code == 401
    code, out, err = default_simulator.stop(signal.SIGTERM)
    assert code == 0, err
    assert "stopped" in out
    assert "Traceback" not in err
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{default_simulator.api_url}/v1/vhosts", timeout=2)


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_a_chosen_token_is_used_and_never_printed(how: str) -> None:
    """Also: SIGINT (Ctrl+C) stops the program as cleanly as SIGTERM."""
    token = "s3cret-token-of-the-user"
    if how == "flag":
        running = Simulator("--access-token", token, "--scenario", "empty", "--edition", "oss")
    else:
        running = Simulator("--scenario", "empty", env={"OME_ACCESS_TOKEN": token})
    try:
        with httpx.Client(base_url=running.api_url, timeout=10) as http:
            good = http.get("/v1/vhosts", headers={"Authorization": "Basic czNjcmV0LXRva2VuLW9mLXRoZS11c2Vy"})
            assert good.status_code == 200
            default = http.get("/v1/vhosts", headers={"Authorization": DEFAULT_HEADER})
            assert default.status_code == 401
            if how == "flag":
                assert http.get("/v2/stats/current/vhosts/default",
                                headers={"Authorization": "Basic czNjcmV0LXRva2VuLW9mLXRoZS11c2Vy"}).status_code == 404
    finally:
        code, out, err = running.stop(signal.SIGTERM if how == "flag" else signal.SIGINT)
    printed = "".join(running.banner) + out + err
    assert code == 0
    assert token not in printed and "czNjcmV0LXRva2VuLW9mLXRoZS11c2Vy" not in printed


@pytest.mark.parametrize(("args", "message"), [
    (["--scenario", "no-such-scenario"], "no scenario named 'no-such-scenario'"),
    (["--access-token", ""], "the access token must not be empty"),
    (["--fleet", "-1"], "is not a number of edges from 0 to 32"),
    (["--fleet", "\u0663"], "is not a number of edges"),
    (["--max-connections", "0"], "is not a whole number above 0"),
    (["--request-timeout", "soon"], "is not a number of seconds above 0"),
    (["--max-header-size", "\u0661\u0660"], "is not a whole number above 0"),
])
def test_bad_arguments_are_refused_with_a_clear_message(args: list[str], message: str) -> None:
    result = subprocess.run([str(PROGRAM), "--api-port", "0", "--publisher-port", "0", *args],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_port_in_use_is_a_clear_error(default_simulator: Simulator) -> None:
    port = default_simulator.api_url.rsplit(":", 1)[1]
    result = subprocess.run([str(PROGRAM), "--api-port", port, "--publisher-port", "0"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert "cannot listen" in result.stderr and "Traceback" not in result.stderr


def test_python_dash_m_simulator_is_the_same_program() -> None:
    result = subprocess.run([sys.executable, "-m", "simulator", "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    for flag in ("--host", "--api-port", "--publisher-port", "--access-token", "--scenario", "--seed", "--edition"):
        assert flag in result.stdout


def test_fleet_runs_an_origin_and_its_edges_and_prints_each() -> None:
    running = Simulator("--fleet", "2", "--scenario", "demo")
    try:
        text = "".join(running.banner)
        apis = re.findall(r"management API\s+(http://\S+)", text)
        assert "a fleet of an origin and 2 edges" in text and "edge 2 (pulls every origin stream over OVT)" in text
        assert len(set(apis)) == 3
        headers = {"Authorization": DEFAULT_HEADER}
        origin = httpx.get(apis[0] + "/v1/stats/current/vhosts/default/apps/app/streams/stream", headers=headers,
                           timeout=10).json()["response"]
        assert origin["connections"]["ovt"] == 2
        edge = httpx.get(apis[2] + "/v2/stats/current/vhosts/default/apps/app/streams/stream", headers=headers,
                         timeout=10).json()["response"]
        assert edge["providers"]["connections"]["ovt"] == 1
    finally:
        code, _, err = running.stop()
    assert code == 0 and "Traceback" not in err
