"""Tables and lists that answer the keys k9s and lazygit users type without thinking: j/k move, g/G go to
the first and last row, as up/down, home/end and page up/down already do (Textual's own bindings)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType
from textual.widgets import DataTable, OptionList

from omeconsole.ui.actions import bindings


class KeyedTable(DataTable[object]):
    """A DataTable that also moves its cursor with j/k/g/G."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("row_down", "row_up", "row_first", "row_last")


class KeyedOptionList(OptionList):
    """An OptionList that also moves its highlight with j/k/g/G."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("option_down", "option_up", "option_first", "option_last")
