"""Files the console writes for the operator are theirs alone: exports and the config (0600 in 0700)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from omeconsole.core.export import write_history
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath

BIN = Path(sys.executable).parent


def test_exports_are_private_even_under_a_permissive_umask(tmp_path: Path) -> None:
    previous = os.umask(0o000)
    try:
        view = NodeView(path=NodePath("default", "app", "s\u202e1"), state=NodeState.LIVE)
        paths = write_history(view, tmp_path / "exports", datetime(2026, 1, 1, tzinfo=UTC), 0.0)
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "exports").stat().st_mode) == 0o700
    assert [stat.S_IMODE(p.stat().st_mode) for p in paths] == [0o600, 0o600]
    assert json.loads(paths[1].read_text())["path"] == "default/app/s\u202e1"


def test_config_init_writes_a_private_commented_file_once(tmp_path: Path) -> None:
    config = tmp_path / "home" / "omeconsole" / "config.toml"
    env = {**os.environ, "OMECONSOLE_CONFIG": str(config)}
    first = subprocess.run([str(BIN / "omeconsole"), "config", "init"], capture_output=True, text=True, env=env)
    assert first.returncode == 0 and first.stdout.strip() == str(config)
    assert stat.S_IMODE(config.stat().st_mode) == 0o600 and stat.S_IMODE(config.parent.stat().st_mode) == 0o700
    again = subprocess.run([str(BIN / "omeconsole"), "config", "init"], capture_output=True, text=True, env=env)
    assert again.returncode == 2 and "exists; nothing written" in again.stderr
