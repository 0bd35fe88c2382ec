"""Colours come from the stylesheets: no console module builds a style from `App.theme_variables` or redraws on
`theme_changed_signal`. A widget lists the palette's component classes and reads them (`ui/palette`); the
one place a colour leaves Rich styles, the chart's RGB triplets for plotext, reads the component style too.
Read from the source's syntax tree, so a comment or a docstring naming them does not count."""

from __future__ import annotations

import ast
from pathlib import Path

import omeconsole

FORBIDDEN = {"theme_variables", "theme_changed_signal"}


def _uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{path.name}:{node.lineno} {node.attr}"
            for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN]


def test_no_module_styles_from_theme_variables_or_follows_the_theme_signal() -> None:
    root = Path(omeconsole.__file__).parent
    found = [use for path in sorted(root.rglob("*.py")) for use in _uses(path)]
    assert found == [], "colours come from component classes (ui/palette.py), not from:\n" + "\n".join(found)


def test_the_scan_sees_a_use_but_not_a_mention(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('"""Not from theme_variables."""\n# nor theme_changed_signal\n'
                       'colour = app.theme_variables.get("muted", "")\n', encoding="utf-8")
    assert _uses(planted) == ["planted.py:3 theme_variables"]
