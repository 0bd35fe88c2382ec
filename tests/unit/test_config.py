"""Settings: flags > environment > profile > file defaults; token sources; warnings; clear errors."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from textual.theme import BUILTIN_THEMES

from omeconsole.core.config import ConfigError, config_path, load_settings, publisher_base

CONFIG = """
interval = 2.0
profile = "staging"
token = "top-level-token"

[confirm]
cue_out = false

[profiles.staging]
api_url = "https://staging.example:8082"
publisher_url = "https://staging.example:3334"

[profiles.prod]
api_url = "https://prod.example:8082"
token_file = "{token_file}"
request_budget = 5

[profiles.cmd]
api_url = "https://cmd.example:8082"
token_command = ["{python}", "-c", "print('token-from-command')"]
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    token_file = tmp_path / "prod.token"
    token_file.write_text("token-from-file\n")
    token_file.chmod(0o600)
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.format(token_file=token_file, python=sys.executable))
    path.chmod(0o600)
    return path


def load(path: Path, flags: dict[str, object] | None = None, env: dict[str, str] | None = None,
         warnings: list[str] | None = None, profile: str | None = None):  # type: ignore[no-untyped-def]
    sink = warnings if warnings is not None else []
    return load_settings(flags, profile=profile, environ=env or {}, path=path, warn=sink.append)


def test_defaults_without_a_file(tmp_path: Path) -> None:
    settings = load(tmp_path / "missing.toml")
    assert settings.api_url == "http://127.0.0.1:8081"
    assert settings.token is None and settings.interval == 1.0 and settings.request_budget == 20.0
    assert settings.confirm.cue_out is True


def test_default_profile_and_file_defaults(config_file: Path) -> None:
    settings = load(config_file)
    assert settings.profile == "staging"
    assert settings.api_url == "https://staging.example:8082"
    assert settings.publisher_url == "https://staging.example:3334"
    assert settings.interval == 2.0 and settings.confirm.cue_out is False
    assert settings.token_value() == "top-level-token"


def test_profile_token_file_and_command(config_file: Path) -> None:
    prod = load(config_file, profile="prod")
    assert prod.token_value() == "token-from-file" and prod.request_budget == 5
    cmd = load(config_file, {"profile": "cmd"})
    assert cmd.token_value() == "token-from-command" and cmd.api_url == "https://cmd.example:8082"


def test_flags_beat_environment_beat_file(config_file: Path) -> None:
    env = {"OME_API_URL": "http://env:8081", "OME_ACCESS_TOKEN": "env-token", "OME_PUBLISHER_URL": "http://env:3333"}
    from_env = load(config_file, env=env)
    assert (from_env.api_url, from_env.token_value(), from_env.publisher_url) == \
        ("http://env:8081", "env-token", "http://env:3333")
    from_flags = load(config_file, {"api_url": "http://flag:1", "token": "flag-token", "insecure": True}, env=env)
    assert (from_flags.api_url, from_flags.token_value(), from_flags.insecure) == ("http://flag:1", "flag-token", True)


def test_unknown_profile_lists_the_known_ones(config_file: Path) -> None:
    with pytest.raises(ConfigError, match=r"no profile named 'nope'.*cmd, prod, staging"):
        load(config_file, profile="nope")


@pytest.mark.parametrize(("mode", "words"), [(0o644, "can be read by"), (0o604, "can be read by"),
                                             (0o620, "can be changed by"), (0o602, "can be changed by"),
                                             (0o666, "can be read and changed by")])
def test_a_config_others_can_read_or_change_is_warned_about(config_file: Path, mode: int, words: str) -> None:
    # Changed matters as much as read: the file's token_command runs as the operator.
    config_file.chmod(mode)
    warnings: list[str] = []
    load(config_file, warnings=warnings)
    assert any(words in w and "other users" in w and "chmod 600" in w for w in warnings), warnings
    config_file.chmod(0o600)
    quiet: list[str] = []
    load(config_file, warnings=quiet)
    assert quiet == []


def test_token_file_from_flag_and_environment_and_one_source_per_layer(config_file: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "flag.token"
    token_file.write_text("token-from-flag-file\n")
    token_file.chmod(0o600)
    assert load(config_file, {"token_file": str(token_file)}).token_value() == "token-from-flag-file"
    env = {"OME_ACCESS_TOKEN_FILE": str(token_file)}
    assert load(config_file, env=env).token_value() == "token-from-flag-file"
    assert load(config_file, {"token": "flag"}, env=env).token_value() == "flag"  # flags beat the environment
    with pytest.raises(ConfigError, match="either --token or --token-file"):
        load(config_file, {"token": "a", "token_file": str(token_file)})
    with pytest.raises(ConfigError, match="OME_ACCESS_TOKEN and OME_ACCESS_TOKEN_FILE"):
        load(config_file, env={**env, "OME_ACCESS_TOKEN": "b"})
    with pytest.raises(ConfigError, match="cannot read token_file"):
        load(config_file, env={"OME_ACCESS_TOKEN_FILE": str(tmp_path / "missing")})


def test_a_huge_or_binary_token_file_is_refused_without_showing_it(config_file: Path, tmp_path: Path) -> None:
    huge = tmp_path / "huge.token"
    huge.write_bytes(b"x" * (64 * 1024 + 1))
    binary = tmp_path / "binary.token"
    binary.write_bytes(b"\xff\xfe secret")
    with pytest.raises(ConfigError, match="larger than"):
        load(config_file, {"token_file": str(huge)})
    with pytest.raises(ConfigError, match="not UTF-8") as caught:
        load(config_file, {"token_file": str(binary)})
    assert "secret" not in str(caught.value)


def test_the_publisher_url_rule(config_file: Path) -> None:
    assert load(config_file).publisher_base() == "https://staging.example:3334"  # configured
    assert publisher_base("https://ome.example:8082/") == "https://ome.example:3333"
    assert publisher_base("http://user:pw@[::1]:8081") == "http://[::1]:3333"
    assert publisher_base("http://a:8081", "http://b:4444/") == "http://b:4444"


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("interval = = 2\n")
    path.chmod(0o600)
    with pytest.raises(ConfigError, match=r"config\.toml: not valid TOML"):
        load(path)


def test_invalid_values_are_explained_without_echoing_the_token(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('interval = -1\nrequest_budget = "lots"\n')
    path.chmod(0o600)
    with pytest.raises(ConfigError) as caught:
        load(path, {"token": "super-secret-value"})
    assert "interval" in str(caught.value) and "request_budget" in str(caught.value)
    assert "super-secret-value" not in str(caught.value)


def test_a_failing_token_command_does_not_leak_its_output(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'token_command = ["{sys.executable}", "-c", "print(\'leaky\'); raise SystemExit(3)"]\n')
    path.chmod(0o600)
    with pytest.raises(ConfigError, match="exit status 3") as caught:
        load(path)
    assert "leaky" not in str(caught.value)


def test_an_unknown_key_is_an_error_naming_the_nearest_known_key(tmp_path: Path) -> None:
    """Issue 27: a misspelt key only warned, and the setting silently kept its default."""
    path = tmp_path / "config.toml"
    path.write_text("intervall = 3\n")
    path.chmod(0o600)
    with pytest.raises(ConfigError, match=r"unknown key 'intervall' \(did you mean 'interval'\?\)"):
        load(path, warnings=[])


def test_config_path_honours_the_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(tmp_path / "x.toml"))
    assert config_path() == tmp_path / "x.toml"
    monkeypatch.delenv("OMECONSOLE_CONFIG")
    assert config_path().name == "config.toml" and "omeconsole" in str(config_path())


def test_the_settings_repr_hides_the_token(tmp_path: Path) -> None:
    settings = load(tmp_path / "none.toml", {"token": "hidden-token"})
    assert "hidden-token" not in repr(settings) and "hidden-token" not in str(settings)
    assert settings.token_value() == "hidden-token"


def test_the_default_theme_is_the_consoles_own_and_textual_names_still_work(tmp_path: Path) -> None:
    shipped = {tomllib.loads(p.read_text("utf-8"))["name"]: p.name
               for p in (Path(__file__).parents[2] / "omeconsole" / "themes").glob("*.toml")}
    default = load(tmp_path / "missing.toml").theme
    assert default == "ome-dark" and shipped.get(default) == "dark.toml"
    path = tmp_path / "config.toml"
    for name in BUILTIN_THEMES:
        path.write_text(f'theme = "{name}"\n')
        assert load(path).theme == name
