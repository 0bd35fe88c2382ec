"""The screen as text, for tests that compare pictures (what a user reads, colours aside)."""

from __future__ import annotations

from typing import Any

from textual.app import App


def screen_text(app: App[Any]) -> str:
    """Every row of the screen in front as the terminal would show it (toasts and overlays included).
    Reads Textual's compositor (Textual 8.2.8) without clearing what it has still to draw."""
    compositor = app.screen._compositor
    chops = compositor._render_chops(compositor.size.region, lambda _y: True)
    return "\n".join("".join(strip.text for strip in chop.values()) for chop in chops)
