"""The one place that knows textual-serve's insides (pinned exactly in pyproject.toml and requirements.lock).

textual-serve has no hook for a child's environment, its static files' folder, or authentication. We use its
page script and its `AppService` (one console process behind one websocket) and give the child's environment
through `AppService._build_environment`, a private method, and read its `_task` and `_process` (to know when a
console ended, to kill one that does not quit): the version is checked at import so that an upgrade
fails loudly here instead of silently passing a token through argv or not at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from importlib.metadata import version
from pathlib import Path

import textual_serve
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

SUPPORTED_VERSION = "1.1.3"
INSTALLED_VERSION = version("textual-serve")
if INSTALLED_VERSION != SUPPORTED_VERSION:  # pragma: no cover - only with another installed version
    raise ImportError(f"omeconsole serve needs textual-serve {SUPPORTED_VERSION} (installed: {INSTALLED_VERSION}); "
                      f"reinstall with: pip install textual-serve=={SUPPORTED_VERSION}")

STATIC_PATH = Path(textual_serve.__file__).resolve().parent / "static"
"""xterm.js and textual-serve's page script, served as they are."""


class ConsoleProcess(AppService):
    """One console process, its screen written to the websocket; `environment` is added to the child's own
    (the access token travels there, never in the command line that `ps` shows)."""

    def __init__(self, command: str, *, environment: Mapping[str, str], removed: tuple[str, ...],
                 write_bytes: Callable[[bytes], Awaitable[None]], write_str: Callable[[str], Awaitable[None]],
                 close: Callable[[], Awaitable[None]]) -> None:
        super().__init__(command, write_bytes=write_bytes, write_str=write_str, close=close,
                         download_manager=DownloadManager())
        self._added = dict(environment)
        self._removed = removed

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        for name in self._removed:
            environment.pop(name, None)
        environment.update(self._added)
        return environment

    async def ended(self) -> None:
        """Until the console's output has ended (it quit or died); waiting is cancellable, the reading is not."""
        if self._task is not None:
            await asyncio.shield(self._task)

    def kill(self) -> None:
        """Ends a console that did not quit when asked (textual-serve only asks)."""
        process = self._process
        if process is not None and process.returncode is None:
            process.kill()
