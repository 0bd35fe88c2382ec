"""`omeconsole/ui` holds Textual code only: every module under it imports Textual (or Rich), itself or
through the ui modules it imports. Headless glue (threads, sqlite, asyncio tasks, listener registries)
belongs below it, in `omeconsole/live` or `omeconsole/core`, where the "Only the UI knows Textual"
contract keeps Textual out. Read from the import graph that import-linter checks (grimp), with the
imports under `if TYPE_CHECKING:` counted."""

from __future__ import annotations

from pathlib import Path

import grimp

import omeconsole

UI_KITS = ("textual", "textual_plotext", "rich")


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("omeconsole", include_external_packages=True, cache_dir=None)


def _headless_ui_modules(graph: grimp.ImportGraph) -> set[str]:
    """The ui modules that reach no Textual or Rich through themselves and the ui modules they import."""
    ui = set(graph.find_descendants("omeconsole.ui"))
    textual_using = {m for m in ui
                     if any(i.split(".")[0] in UI_KITS for i in graph.find_modules_directly_imported_by(m))}
    grown = True
    while grown:
        more = {m for m in ui - textual_using if graph.find_modules_directly_imported_by(m) & textual_using}
        textual_using |= more
        grown = bool(more)
    return ui - textual_using


def _is_empty_package(module: str) -> bool:
    path = Path(omeconsole.__file__).parent.joinpath(*module.split(".")[1:], "__init__.py")
    return path.exists() and not path.read_text().strip()


def test_every_ui_module_uses_textual() -> None:
    headless = {m for m in _headless_ui_modules(_graph()) if not _is_empty_package(m)}
    assert headless == set(), f"headless modules under omeconsole/ui (move them to omeconsole/live or core): {headless}"


def test_the_check_sees_a_headless_module() -> None:
    """The check is not vacuous: a module under ui importing only the core is found."""
    graph = _graph()
    graph.add_module("omeconsole.ui.headless_probe")
    graph.add_import(importer="omeconsole.ui.headless_probe", imported="omeconsole.core.clock")
    assert "omeconsole.ui.headless_probe" in _headless_ui_modules(graph)
