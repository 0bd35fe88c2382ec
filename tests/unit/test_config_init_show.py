"""`config init` writes every setting with its default and a comment (from the model: it loads back to the
defaults and names every field); its examples load once uncommented; `config show` prints the settings in
effect and where each came from, never the token; a bad file stops a command at start (exit 2) in words."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

from omeconsole.core.config import TOKEN_SOURCES, ConfigError, Settings, load_settings
from omeconsole.core.config_check import validate_config_file
from omeconsole.core.config_template import COMMENTS, config_template
from omeconsole.core.schedule.model import load_schedules, load_templates

PROGRAM = Path(sys.executable).with_name("omeconsole")
TOKEN = "tok-3f9a-never-shown"


def run(*argv: str, config: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The program with `config` as its config file and no OME_* variables but those given."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
    return subprocess.run([str(PROGRAM), *argv], capture_output=True, text=True, timeout=60,
                          env={**clean, "OMECONSOLE_CONFIG": str(config), **env})


def every_field(model: type[BaseModel], prefix: str = "") -> list[tuple[str, str]]:
    """(dotted name, key in the file) of every field of the model and of the tables it holds (the items of
    a table's own lists, such as `history.tiers`, are inline values there)."""
    found = []
    for key, field in model.model_fields.items():
        name = field.alias or key
        found.append((f"{prefix}{name}", name))
        inner = field.annotation
        args = getattr(inner, "__args__", ())
        items = [a for a in (inner, *args) if isinstance(a, type) and issubclass(a, BaseModel)]
        if items and not prefix:
            found.extend(every_field(items[0], f"{prefix}{name}."))
    return found


def test_config_init_writes_every_setting_with_its_default_and_loads_back_to_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "new" / "omeconsole" / "config.toml"
    done = run("config", "init", config=path)
    assert (done.returncode, done.stdout.strip()) == (0, str(path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    text = path.read_text(encoding="utf-8")
    written = tomllib.loads(text)
    assert {"interval", "request_budget", "theme", "confirm", "history", "alert_notices", "keymap"} <= set(written)
    assert load_settings(environ={}, path=path, warn=lambda _m: None) == Settings()
    assert validate_config_file(path) == []
    checked = run("config", "validate", config=path)
    assert (checked.returncode, checked.stdout.strip()) == (0, f"{path}: valid"), checked.stderr

    again = run("config", "init", config=path)
    assert again.returncode == 2 and "exists; nothing written" in again.stderr
    assert path.read_text(encoding="utf-8") == text


def test_the_written_file_names_every_field_of_the_model_each_with_a_comment() -> None:
    text = config_template()
    for dotted, key in every_field(Settings):
        word = re.escape(key)
        named = re.compile(rf"^(# )?{word} = .+ # \S|^#   also {word}: \S|^\[{word}\] +# \S|^# \[\[{word}\]\]$",
                           re.MULTILINE)
        assert named.search(text), f"{dotted} is not in the file written by config init"
    for source in TOKEN_SOURCES:
        assert re.search(rf"^# {source} = .+ # \S", text, re.MULTILINE), source
    fields = {dotted for dotted, _key in every_field(Settings)}
    assert set(COMMENTS) - fields == set(TOKEN_SOURCES) - {"token"}, "a comment for a setting that is gone"
    for table in ("[profiles.", "[fleets.", "[[alerts]]", "[[webhooks]]", "[[id3_templates]]", "[keymap]",
                  "[templates.", "[[schedules]]"):
        assert table in text, table


def test_the_commented_examples_load_once_uncommented(tmp_path: Path) -> None:
    uncommented = re.sub(r"^# (?=\[|[\w-]+ = )", "", config_template(), flags=re.MULTILINE)
    path = tmp_path / "config.toml"
    path.write_text(uncommented, encoding="utf-8")
    data = tomllib.loads(uncommented)
    assert validate_config_file(path) == []  # every table: the top level, alerts, webhooks, profiles.prod
    assert run("config", "validate", str(path), config=path).returncode == 0  # the keymap's ids too
    assert data["alerts"][0]["kind"] == "ingest_stopped" and data["webhooks"][0]["name"] == "ops"
    assert data["fleets"]["live"]["servers"] == ["prod"] and "prod" in data["profiles"]
    templates = load_templates(data, path)
    assert templates["spot"].duration_s == 30.0
    assert [schedule.name for schedule in load_schedules(data, path, templates)] == ["news-breaks"]


def test_config_show_prints_each_setting_and_where_it_came_from_never_the_token(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'interval = 2\nprofile = "prod"\n[confirm]\ncue_in = false\n[profiles.prod]\n'
                    f'api_url = "http://ome.example:8081"\ntoken = "{TOKEN}"\nrequest_budget = 5\n'
                    '[[alerts]]\nname = "quiet"\nkind = "no_viewers"\n')
    path.chmod(0o600)
    shown = run("config", "show", "--read-only", config=path, OME_PUBLISHER_URL="http://ome.example:3334")
    assert shown.returncode == 0, shown.stderr
    lines = {line.split(" = ")[0]: line for line in shown.stdout.splitlines() if " = " in line}
    table = f"# file {path} [profiles.prod]"
    assert lines["api_url"].startswith('api_url = "http://ome.example:8081"') and lines["api_url"].endswith(table)
    assert lines["request_budget"].startswith("request_budget = 5.0") and lines["request_budget"].endswith(table)
    assert lines["interval"].startswith("interval = 2.0") and lines["interval"].endswith(f"# file {path}")
    assert lines["publisher_url"].endswith("# environment OME_PUBLISHER_URL")
    assert lines["read_only"].startswith("read_only = true") and lines["read_only"].endswith("# flag --read-only")
    assert lines["confirm.cue_in"].endswith(f"# file {path}") and lines["confirm.cue_out"].endswith("# default")
    assert lines["timeout"].startswith("timeout = 5.0") and lines["timeout"].endswith("# default")
    assert '"quiet"' in lines["alerts"]
    assert lines["token"].endswith(f"{table} token") and "not shown" in lines["token"]
    lists, tables = {"alerts", "webhooks", "id3_templates"}, {"confirm", "history", "alert_notices"}
    expected = {dotted for dotted, _key in every_field(Settings)
                if dotted not in tables and not (dotted.split(".")[0] in lists and "." in dotted)}
    assert set(lines) == expected  # every setting, a table's keys each on a line, a list as one line
    assert TOKEN not in shown.stdout + shown.stderr

    by_env = run("config", "show", config=path, OME_ACCESS_TOKEN=TOKEN + "-env", OME_API_URL="http://a:1")
    assert "# environment OME_ACCESS_TOKEN" in by_env.stdout and "# environment OME_API_URL" in by_env.stdout
    by_flag = run("config", "show", "--token", TOKEN + "-flag", "--profile", "prod", config=path)
    assert "# flag --token" in by_flag.stdout and "# flag --profile" in by_flag.stdout
    for done in (by_env, by_flag):
        assert done.returncode == 0 and TOKEN not in done.stdout + done.stderr


def test_config_show_without_a_file_is_every_default(tmp_path: Path) -> None:
    shown = run("config", "show", config=tmp_path / "none.toml")
    assert shown.returncode == 0 and "(not found)" in shown.stdout
    settings = [line for line in shown.stdout.splitlines() if " = " in line]
    assert settings and all(line.endswith("# default") for line in settings), settings
    assert any(line.startswith("publisher_url = (none: playlists are read from \"http://127.0.0.1:3333\")")
               for line in settings)


def test_a_bad_file_stops_a_command_at_start_naming_file_table_and_key_in_words(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'token = "{TOKEN}"\n[profiles.prod]\ninterval = "fast"\nintervall = 2\n')
    path.chmod(0o600)
    for argv in (("--profile", "prod", "ls"), ("config", "show", "--profile", "prod"), ("--profile", "prod")):
        done = run(*argv, config=path)
        assert done.returncode == 2, (argv, done.stderr)
        assert f"{path} [profiles.prod]: unknown key 'intervall' (did you mean 'interval'?)" in done.stderr
        assert TOKEN not in done.stdout + done.stderr
    path.write_text('[profiles.prod]\ninterval = "fast"\n')
    done = run("--profile", "prod", "ls", config=path)
    assert done.returncode == 2 and f"{path} [profiles.prod]: interval: must be a number" in done.stderr
    assert "Input should" not in done.stderr and "pydantic" not in done.stderr


def test_a_bad_value_given_by_a_flag_names_the_flag_not_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.prod]\napi_url = "http://ome.example:8081"\ninterval = 0\n')
    with pytest.raises(ConfigError) as raised:
        load_settings({"confirm_timeout": 0}, profile="prod", environ={}, path=path, warn=lambda _m: None)
    problems = str(raised.value).split("; ")
    assert "--confirm-timeout: confirm_timeout: must be greater than 0" in problems
    assert f"{path} [profiles.prod]: interval: must be greater than 0.05" in problems
