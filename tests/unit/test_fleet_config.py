"""`[fleets.NAME]` in the config: each server its profile's own settings, and mistakes that say what is wrong."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from omeconsole.core.config import ConfigError, load_settings
from omeconsole.core.fleet.settings import FleetSettings, load_fleet, load_servers

CONFIG = """
request_budget = 30
interval = 2.0

[profiles.origin]
api_url = "http://origin.example:8081"
token = "origin-token"

[profiles.edge-1]
api_url = "https://edge1.example:8082"
token_file = "{token_file}"
interval = 0.5

[profiles.edge-2]
api_url = "http://edge2.example:8081"
token_command = ["{python}", "-c", "print('edge-two-token')"]

[profiles.edge-1-again]
api_url = "https://EDGE1.example:8082/"
token = "x"

[fleets.live]
servers = ["origin", "edge-1", "edge-2"]

[fleets.cheap]
servers = ["edge-2"]
request_budget = 5
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    token_file = tmp_path / "edge1.token"
    token_file.write_text("edge-one-token\n")
    token_file.chmod(0o600)
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.format(token_file=token_file, python=sys.executable))
    path.chmod(0o600)
    return path


def fleet(path: Path, name: str = "live", flags: dict[str, object] | None = None,
          env: dict[str, str] | None = None, warnings: list[str] | None = None) -> FleetSettings:
    return load_fleet(name, flags, environ=env or {}, path=path, warn=(warnings if warnings is not None else []).append)


def with_fleets(config: Path, tables: str) -> Path:
    config.write_text(config.read_text() + tables)
    return config


def test_each_server_has_its_own_profiles_url_token_and_settings(config: Path) -> None:
    warnings: list[str] = []
    live = fleet(config, warnings=warnings)
    assert live.name == "live" and live.profiles == ("origin", "edge-1", "edge-2")
    assert [s.api_url for s in live.servers] == ["http://origin.example:8081", "https://edge1.example:8082",
                                                 "http://edge2.example:8081"]
    assert [s.token_value() for s in live.servers] == ["origin-token", "edge-one-token", "edge-two-token"]
    assert [s.interval for s in live.servers] == [2.0, 0.5, 2.0]  # a profile's own settings are its own
    assert live.request_budget == 30.0  # the file's budget, now for the whole fleet
    assert live.server("edge-1").profile == "edge-1"
    assert fleet(config, "cheap").request_budget == 5.0
    assert warnings == []
    assert load_settings({}, environ={}, path=config, warn=warnings.append).api_url  # [fleets] is no stray setting
    assert warnings == []


def test_flags_that_name_one_server_are_refused_and_its_variables_ignored(config: Path) -> None:
    for flag, value in (("api_url", "http://x:1"), ("token", "t"), ("profile", "origin")):
        with pytest.raises(ConfigError, match="cannot be used with --fleet"):
            fleet(config, flags={flag: value})
    warnings: list[str] = []
    live = fleet(config, flags={"read_only": True, "insecure": True},
                 env={"OME_API_URL": "http://elsewhere:1", "OME_ACCESS_TOKEN": "env-token"}, warnings=warnings)
    assert [s.token_value() for s in live.servers] == ["origin-token", "edge-one-token", "edge-two-token"]
    assert all(s.read_only and s.insecure for s in live.servers)
    assert live.servers[0].api_url == "http://origin.example:8081"
    assert warnings == ["OME_API_URL, OME_ACCESS_TOKEN ignored for fleet 'live': each server's URL and token come "
                        "from its profile"]  # once, not once per server
    assert "env-token" not in " ".join(warnings)


@pytest.mark.parametrize(("tables", "words"), [
    ('[fleets.bad]\nservers = ["origin", "nobody"]\n',
     "[fleets.bad]: no profile named 'nobody' in {path} (profiles: edge-1, edge-1-again, edge-2, origin)"),
    ('[fleets.bad]\nservers = ["origin", "edge-2", "origin"]\n', "[fleets.bad]: 'origin' is listed twice"),
    ("[fleets.bad]\nservers = []\n", "[fleets.bad]: servers is empty"),
    ("[fleets.bad]\nrequest_budget = 3\n", "[fleets.bad]: servers must be a list of profile names"),
    ('[fleets.bad]\nservers = "origin"\n', "[fleets.bad]: servers must be a list of profile names"),
    ('[fleets.bad]\nservers = ["origin", 3]\n', "servers must be a list of profile names"),
    ('[fleets.bad]\nservers = ["edge-1", "edge-1-again"]\n',
     "'edge-1' and 'edge-1-again' are the same server (edge1.example:8082)"),
    ('[fleets.bad]\nservers = ["origin"]\nrequest_budget = 0\n', "request_budget must be a number"),
    ('[fleets.bad]\nservers = ["origin"]\nrequest_budget = true\n', "request_budget must be a number"),
    ("[fleets]\nbad = 3\n", "[fleets.bad] must be a table"),
])
def test_mistakes_name_the_fleet_the_profile_and_the_file(config: Path, tables: str, words: str) -> None:
    with pytest.raises(ConfigError) as raised:
        fleet(with_fleets(config, tables), "bad")
    assert words.format(path=config) in str(raised.value)


def test_a_profile_in_a_fleet_cannot_hold_what_its_node_names_use(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles."a:b"]\napi_url = "http://a:1"\n[fleets.f]\nservers = ["a:b"]\n')
    with pytest.raises(ConfigError, match="'a:b' cannot name a server of a fleet"):
        fleet(path, "f")


def test_an_unknown_fleet_lists_the_known_ones_and_an_unknown_key_is_an_error_naming_the_nearest(
        config: Path) -> None:
    with pytest.raises(ConfigError, match=r"no fleet named 'nope' .* \(fleets: cheap, live\)"):
        fleet(config, "nope")
    with pytest.raises(ConfigError, match=r"\[fleets.odd\]: unknown key 'server' \(did you mean 'servers'\?\)"):
        fleet(with_fleets(config, '[fleets.odd]\nserver = ["origin"]\n'), "odd")


def test_servers_named_on_the_command_line_have_the_same_checks(config: Path) -> None:
    servers = load_servers(["edge-2", "origin"], {}, environ={}, path=config, warn=lambda _: None)
    assert [s.profile for s in servers] == ["edge-2", "origin"]
    with pytest.raises(ConfigError, match="'origin' is listed twice"):
        load_servers(["origin", "origin"], {}, environ={}, path=config, warn=lambda _: None)
    with pytest.raises(ConfigError, match="no profile named 'ghost'"):
        load_servers(["ghost"], {}, environ={}, path=config, warn=lambda _: None)
    with pytest.raises(ConfigError, match="--api-url names one server and cannot be used with --servers"):
        load_servers(["origin"], {"api_url": "http://x:1"}, environ={}, path=config, warn=lambda _: None)


def test_a_single_server_is_a_fleet_of_one(config: Path) -> None:
    settings = load_settings({}, profile="edge-2", environ={}, path=config, warn=lambda _: None)
    one = FleetSettings.single(settings)
    assert one.profiles == ("edge-2",) and one.servers == (settings,) and one.request_budget == 30.0
    anonymous = FleetSettings.single(settings.model_copy(update={"profile": None}))
    assert anonymous.profiles == ("edge2.example:8081",)
