"""The README's key table is the bindings' own: generated from `ui/actions.py`, and equal to it."""

from __future__ import annotations

from pathlib import Path

from omeconsole.ui.actions import ACTIONS
from omeconsole.ui.key_table import key_table, with_key_table

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_key_table_is_the_one_the_bindings_make() -> None:
    readme = README.read_text(encoding="utf-8")
    assert with_key_table(readme) == readme, "run: .venv/bin/python -m omeconsole.ui.key_table README.md"


def test_the_table_lists_every_action_with_its_keys_and_keymap_id() -> None:
    table = key_table()
    rows = table.splitlines()[2:]
    assert len(rows) == len(ACTIONS)
    for action in ACTIONS.values():
        assert any(row.endswith(f"| `{action.id}` |") for row in rows), action.id
    assert "| `:` | Go to a host, application or stream by name" in table
    assert "| `ctrl+c` |" in table and "| `H` |" in table and "| `[` |" in table and "| `shift+←` |" in table
