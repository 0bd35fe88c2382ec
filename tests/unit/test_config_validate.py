"""`config validate` and the loading of a file: problems named by file, table and key in a user's words, a
misspelt key an error naming the nearest known key, values never echoed (one may be a token)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from omeconsole.core.config import ConfigError, load_settings

PROGRAM = Path(sys.executable).with_name("omeconsole")

BAD = """\
intervall = 2
token = "s3cret-token-value"

[history]
enabled = "perhaps"

[profiles.prod]
api_url = "http://ome.example:8081"
interval = "fast"

[[alerts]]
name = "quiet"
kind = "no_viewers"
scope = "default/app/*"
severty = "info"
"""


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PROGRAM), "config", "validate", str(path)], capture_output=True, text=True,
                          timeout=60)


def test_validate_names_the_file_the_table_and_the_key_of_every_problem_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BAD)
    run = validate(path)
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    assert f"omeconsole: {path}: unknown key 'intervall' (did you mean 'interval'?)" in lines
    assert f"omeconsole: {path} [history]: enabled: must be true or false" in run.stderr
    assert f"omeconsole: {path} [profiles.prod]: interval: must be a number" in run.stderr
    assert f"omeconsole: {path} [alerts #1]: unknown key 'severty' (did you mean 'severity'?)" in lines
    assert "s3cret" not in run.stderr + run.stdout and "Input should" not in run.stderr


def test_a_valid_file_is_said_valid_and_a_missing_one_is_named(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('interval = 2\n[profiles.prod]\napi_url = "http://ome.example:8081"\n')
    run = validate(path)
    assert (run.returncode, run.stdout.strip()) == (0, f"{path}: valid")
    missing = validate(tmp_path / "nope.toml")
    assert missing.returncode == 2 and "nope.toml: no such file" in missing.stderr


def test_loading_a_misspelt_key_is_an_error_naming_the_nearest_known_key(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("intervall = 2\n")
    with pytest.raises(ConfigError, match=r"unknown key 'intervall' \(did you mean 'interval'\?\)"):
        load_settings(environ={}, path=path, warn=lambda _message: None)
    path.write_text("[alert_notices]\nbel = true\n")
    with pytest.raises(ConfigError, match=r"\[alert_notices\]: unknown key 'bel' \(did you mean 'bell'\?\)"):
        load_settings(environ={}, path=path, warn=lambda _message: None)


def test_validate_checks_fleets_templates_and_schedules_too(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.prod]\napi_url = "http://ome.example:8081"\n'
                    '[fleets.live]\nserver = ["prod"]\n'
                    '[fleets.late]\nservers = ["prod", "ghost"]\n'
                    '[templates.spot]\nduration = "30s"\n'
                    '[[schedules]]\nname = "news"\nstream = "default/app/news"\ntemplate = "spot"\nevry = "12m"\n')
    run = validate(path)
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    assert f"omeconsole: {path} [fleets.live]: unknown key 'server' (did you mean 'servers'?) " \
           "(a fleet has servers, request_budget)" in lines
    assert f"omeconsole: {path} [fleets.late]: no profile named 'ghost' in {path} (profiles: prod)" in lines
    assert any("[[schedules]]" in line and "evry" in line for line in lines), lines
    path.write_text('[profiles.prod]\napi_url = "http://ome.example:8081"\n[fleets.live]\nservers = ["prod"]\n'
                    '[templates.spot]\nduration = "30s"\n'
                    '[[schedules]]\nname = "news"\nstream = "default/app/news"\ntemplate = "spot"\nevery = "12m"\n')
    assert validate(path).returncode == 0


def test_what_a_key_wants_is_said_in_tomls_words_not_pydantics(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('interval = "fast"\nmax_concurrency = 2.5\nkeymap = "o"\ntheme = 3\n'
                    '[alert_notices]\ndesktop = "maybe"\n[[alerts]]\nname = "x"\n'
                    '[[id3_templates]]\nname = "t"\nframes = "nope"\n')
    run = validate(path)
    assert run.returncode == 2
    for words in ("interval: must be a number", "max_concurrency: must be a whole number",
                  "keymap: must be a table", "theme: must be text (in quotes)",
                  "[alert_notices]: desktop: must be 'off', 'auto', 'notify-send', 'osc777' or 'osc9'",
                  "[alerts #1]: kind: is required (not given)", "[id3_templates #1]: frames: must be a list"):
        assert f"{path} {words}" in run.stderr or f"{path}: {words}" in run.stderr, words
    for jargon in ("Input should", "Field required", "valid dictionary", "unable to", "pydantic", "fast", "nope"):
        assert jargon not in run.stderr, jargon


def test_validate_names_a_keymap_id_that_is_no_action_with_the_nearest_one(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[keymap]\ncue_out = "o,ctrl+o"\ncue_inn = "I"\n[profiles.prod]\n[profiles.prod.keymap]\nzzz = "z"\n'
    )
    run = validate(path)
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    assert f"omeconsole: {path} [keymap]: no action 'cue_inn' (did you mean 'cue_in'?)" in lines
    assert f"omeconsole: {path} [profiles.prod.keymap]: no action 'zzz' (ids: the README's key table)" in lines
    assert not any("cue_out" in line for line in lines)
