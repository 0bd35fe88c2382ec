"""Theme files (TOML) turned into Textual `Theme` objects.

Colours live in `omeconsole/themes/*.toml` (package data) and in the user's `<config dir>/themes/`, never in
the stylesheets, so a user can restyle the console without touching code. A theme names the usual
Textual colours plus the console's own variables (state and rate colours); any it leaves out are
derived from its success/warning/primary/accent colours.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

DEFAULT_THEME = "ome-dark"
def _builtin_theme_dir() -> Path:
    """The package's own `themes/`: package data, a real folder whether installed or in a checkout."""
    return Path(str(resources.files("omeconsole") / "themes"))


BUILTIN_THEME_DIR = _builtin_theme_dir()


def user_theme_dir() -> Path:
    """Where users drop their own theme files (`$XDG_CONFIG_HOME/omeconsole/themes` on Linux)."""
    return Path(platformdirs.user_config_dir("omeconsole")) / "themes"


class ThemeFile(BaseModel):
    """What a theme file may hold; unknown keys are an error so typos are caught."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    primary: str
    secondary: str | None = None
    accent: str | None = None
    warning: str | None = None
    error: str | None = None
    success: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    dark: bool = True
    luminosity_spread: float = 0.15
    text_alpha: float = 0.95
    variables: dict[str, str] = Field(default_factory=dict)

    @field_validator(
        "primary", "secondary", "accent", "warning", "error", "success", "foreground", "background",
        "surface", "panel", "boost",
    )
    @classmethod
    def _colour(cls, value: str | None) -> str | None:
        if value is not None:
            _parse_colour(value)
        return value

    @field_validator("variables")
    @classmethod
    def _colours(cls, value: dict[str, str]) -> dict[str, str]:
        for colour in value.values():
            _parse_colour(colour)
        return value

    def to_theme(self) -> Theme:
        theme = Theme(
            name=self.name, primary=self.primary, secondary=self.secondary, accent=self.accent,
            warning=self.warning, error=self.error, success=self.success, foreground=self.foreground,
            background=self.background, surface=self.surface, panel=self.panel, boost=self.boost,
            dark=self.dark, luminosity_spread=self.luminosity_spread, text_alpha=self.text_alpha,
        )
        theme.variables = {**derived_variables(theme), **self.variables}
        return theme


def derived_variables(theme: Theme) -> dict[str, str]:
    """The console's own variables (state and rate colours) from a theme's usual colours: what a theme file
    leaves out, and what Textual's own themes get (`ui/palette.console_variable_defaults`)."""
    muted = theme.foreground or ("#A0A0A0" if theme.dark else "#505050")
    return {
        "muted": muted,
        "state-live": theme.success or theme.primary,
        "state-ended": muted,
        "state-stale": theme.warning or theme.accent or theme.primary,
        "state-unknown": muted,
        "rate-in": theme.primary,
        "rate-out": theme.accent or theme.secondary or theme.primary,
        "meter": theme.primary,
    }


def _parse_colour(value: str) -> None:
    try:
        Color.parse(value)
    except ColorParseError as exc:
        raise ValueError(f"not a colour: {value!r}") from exc


def contrast_ratio(foreground: str | Color, background: str | Color) -> float:
    """WCAG 2 contrast ratio of two opaque colours, from 1 (none) to 21 (black on white)."""
    lighter, darker = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _luminance(colour: str | Color) -> float:
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (colour if isinstance(colour, Color) else Color.parse(colour)).rgb
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


class ThemeFileError(ValueError):
    """A theme file that cannot be used, with the file named in the message."""


def load_theme_file(path: Path) -> Theme:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return ThemeFile.model_validate(data).to_theme()
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ThemeFileError(f"{path}: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ThemeFileError(f"{path}: {problems}") from exc


@dataclass(frozen=True)
class LoadedThemes:
    themes: list[Theme]
    problems: list[str]
    """One line per file that was skipped, for a notification; a bad user file never stops the app."""


def load_themes(directories: Iterable[Path]) -> LoadedThemes:
    """Every `*.toml` in the directories, in order; a later file with the same name replaces an earlier one."""
    by_name: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ThemeFileError as exc:
                problems.append(str(exc))
                continue
            by_name[theme.name] = theme
    return LoadedThemes(list(by_name.values()), problems)


def theme_directories() -> list[Path]:
    """Built-in themes first, then the user's (which may override a built-in by name)."""
    return [BUILTIN_THEME_DIR, user_theme_dir()]
