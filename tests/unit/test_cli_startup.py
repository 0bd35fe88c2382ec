"""What the command line loads before it works: `--help` and the console's start load no other command.

Start time is what a user notices (first data on screen, an instant `--help`); what guards it here, without
timing anything, is the set of modules a fresh interpreter has imported at the moment that matters: when
`--help` has printed, and when the console starts importing its UI (Textual; its first requests already
on their way).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SUBCOMMAND_MODULES = {
    "omeconsole.cli.alerts_cmd", "omeconsole.cli.commands", "omeconsole.cli.exporter_cmd",
    "omeconsole.cli.fleet_cmd", "omeconsole.cli.fleet_format", "omeconsole.cli.format",
    "omeconsole.cli.history_cmd", "omeconsole.cli.record_cmd", "omeconsole.cli.exit_handling", "omeconsole.cli.sends",
    "omeconsole.cli.fleet_dispatch", "omeconsole.api.alerts_reader", "omeconsole.core.fleet",
}
"""The implementations of the commands other than the console (and the fleet's machinery behind them)."""

AT_UI_IMPORT = """
import json, os, sys

def hook(event, args):  # the first module of the UI's toolkit: the console has begun to import its UI
    if event == "import" and args[0].partition(".")[0] == "textual":
        print(json.dumps(sorted(sys.modules)), flush=True)
        os._exit(0)

sys.addaudithook(hook)
from omeconsole.cli.main import main
main(sys.argv[1:])
"""

AFTER_HELP = """
import json, sys
from omeconsole.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), flush=True)
"""


def _modules(code: str, tmp_path: Path, *argv: str) -> set[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OME")}
    env |= {"OMECONSOLE_CONFIG": str(tmp_path / "config.toml"), "OMECONSOLE_HISTORY_DB": str(tmp_path / "h.db")}
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", [["--help"], ["stats", "--help"], ["cue-out", "--help"]])
def test_help_loads_no_command_and_no_client(tmp_path: Path, argv: list[str]) -> None:
    loaded = _modules(AFTER_HELP, tmp_path, *argv)
    assert "omeconsole.cli.parser" in loaded  # the probe ran the command line
    assert not loaded & SUBCOMMAND_MODULES
    # Nor the machinery of a command that would run: the session, the ad operations, pydantic, HTTP, Textual.
    heavy = {"omeconsole.core.session", "omeconsole.core.adops", "pydantic", "aiohttp", "httpx", "textual"}
    assert not loaded & heavy


def test_console_start_loads_no_other_command(tmp_path: Path) -> None:
    # Port 9 on loopback: nothing answers; the console's first requests go out and fail, which does not matter
    # here: what is loaded is read when the console begins to import its UI.
    loaded = _modules(AT_UI_IMPORT, tmp_path, "--api-url", "http://127.0.0.1:9", "--token", "t",
                      "--select", "default/app/news")
    assert "omeconsole.core.session" in loaded  # the session was made before the UI import, as it should
    assert not loaded & SUBCOMMAND_MODULES
