"""What an install gives: the console, the CLI and the exporter without the simulator's dependencies; the
simulator's extra pinned where we subclass a library's private class; themes shipped as package data.

A console-only install is imitated in a subprocess that makes the simulator's dependencies unimportable
(`sys.modules[name] = None` makes `import name` raise ModuleNotFoundError, as a missing package does).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import omeconsole
from omeconsole.ui.textual_compat import WRITTEN_FOR
from omeconsole.ui.themes import BUILTIN_THEME_DIR

SIMULATOR_ONLY = ("numpy", "threefive", "httptools", "uvloop")
ROOT = Path(__file__).resolve().parents[2]
BLOCK = f"import sys\nfor name in {SIMULATOR_ONLY!r}: sys.modules[name] = None\n"


def run_python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "OMECONSOLE_CONFIG": str(tmp_path / "none.toml")}
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, env=env,
                          timeout=120, check=False)


def test_the_console_the_cli_and_the_exporter_import_without_the_simulator_s_dependencies(tmp_path: Path) -> None:
    done = run_python("import omeconsole.cli.main, omeconsole.cli.console_start, omeconsole.ui.app, "
                      "omeconsole.cli.exporter_cmd, omeconsole.exporter.service, omeconsole.cli.sends\n"
                      "print('imported')", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported"


def test_the_demo_without_the_simulator_s_dependencies_names_the_extra_to_install(tmp_path: Path) -> None:
    done = run_python("from omeconsole.cli.main import main\nraise SystemExit(main(['demo']))", tmp_path)
    assert done.returncode == 1
    assert "pip install 'omeconsole[simulator]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_simulator_command_without_its_dependencies_names_the_extra_to_install(tmp_path: Path) -> None:
    done = run_python("from simulator.entry import main\nraise SystemExit(main())", tmp_path)
    assert done.returncode == 2
    assert "pip install 'omeconsole[simulator]'" in done.stderr and "is missing" in done.stderr


def _pinned(package: str) -> str:
    requirements = metadata.requires("omeconsole") or []
    pins = [r for r in requirements if r.startswith(package) and "==" in r]
    assert pins, f"{package} is not pinned exactly in the package's requirements: {requirements}"
    return pins[0].split("==", 1)[1].split(";", 1)[0].strip()


def test_libraries_whose_private_classes_we_extend_are_installed_at_their_exact_pin() -> None:
    # simulator/http/limits.py subclasses uvicorn's HttpToolsProtocol.
    assert metadata.version("uvicorn") == _pinned("uvicorn")


def test_textual_is_a_range_and_the_lock_file_pins_a_version_its_compatibility_module_was_written_for() -> None:
    # ui/textual_compat.py reaches into Textual's private Strip only on the versions it lists (test_gc_policy.py).
    requirements = [r for r in metadata.requires("omeconsole") or [] if re.match(r"textual[<>=!~ ]", r)]
    assert requirements and all("==" not in r and ">=" in r and "<" in r for r in requirements), requirements
    # textual-serve is reached into (serve/compat.py overrides a private method): pinned exactly.
    serve = [r for r in metadata.requires("omeconsole") or [] if r.startswith("textual-serve")]
    assert serve == ["textual-serve==1.1.3"], serve
    locked = [line for line in (ROOT / "requirements.lock").read_text().splitlines() if line.startswith("textual==")]
    assert locked == [f"textual=={metadata.version('textual')}"]
    assert metadata.version("textual") in WRITTEN_FOR


def test_the_simulator_s_dependencies_are_an_extra_not_the_console_s() -> None:
    requirements = metadata.requires("omeconsole") or []
    for name in ("numpy", "threefive"):
        found = [r for r in requirements if r.startswith(name)]
        assert found and all('extra == "simulator"' in r for r in found), found
    standard = [r for r in requirements if r.startswith("uvicorn[standard]")]
    assert standard and all('extra == "simulator"' in r for r in standard)


def test_themes_are_package_data_found_inside_the_package() -> None:
    package_dir = Path(omeconsole.__file__).resolve().parent
    assert BUILTIN_THEME_DIR.resolve().is_relative_to(package_dir)
    names = sorted(p.stem for p in BUILTIN_THEME_DIR.glob("*.toml"))
    assert len(names) >= 4, names
