"""Where the screens live and how they reach each other: every full screen of the console is defined
under `omeconsole/ui/screens/`, and a screen module imports another screen module only to extend one of
its classes (`NodeScreen(LiveScreen)`); to open a screen it posts a request the app routes
(`ui/open_requests.py`). The modal send dialogs stay with the ad-ops flows that push them (`ui/adops`)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

from textual.screen import ModalScreen, Screen

import omeconsole.ui

UI = Path(omeconsole.ui.__file__).parent
SCREENS = UI / "screens"


def _ui_modules() -> list[str]:
    return [info.name for info in pkgutil.walk_packages([str(UI)], "omeconsole.ui.")
            if not info.name.endswith("__main__")]


def test_every_full_screen_is_defined_under_ui_screens() -> None:
    elsewhere = set()
    for name in _ui_modules():
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (cls.__module__ == name and issubclass(cls, Screen) and not issubclass(cls, ModalScreen)
                    and not name.startswith("omeconsole.ui.screens.")):
                elsewhere.add(f"{name}.{cls.__name__}")
    assert elsewhere == set()


def _screen_imports_not_extended(source: str) -> set[str]:
    """The names a screen module imports from other screen modules without extending them."""
    tree = ast.parse(source)
    imported = {alias.asname or alias.name
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("omeconsole.ui.screens.")
                for alias in node.names}
    extended = {base.id for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                for base in node.bases if isinstance(base, ast.Name)}
    return imported - extended


def test_screens_import_each_other_only_to_extend_a_class() -> None:
    opened = {path.name: _screen_imports_not_extended(path.read_text()) for path in sorted(SCREENS.glob("*.py"))}
    assert {name: names for name, names in opened.items() if names} == {}


def test_the_check_sees_a_screen_opened_by_import() -> None:
    """Not vacuous: a screen that imports another to push it is found."""
    source = ("from omeconsole.ui.screens.live_screen import LiveScreen\n"
              "class Opener(LiveScreen):\n"
              "    def action_alerts(self) -> None:\n"
              "        from omeconsole.ui.screens.alerts import AlertsScreen\n"
              "        self.app.push_screen(AlertsScreen(self.live))\n")
    assert _screen_imports_not_extended(source) == {"AlertsScreen"}
