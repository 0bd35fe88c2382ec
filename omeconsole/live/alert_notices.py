"""How the console tells of alerts that start firing to an operator who is not looking at it.

One notice per alert pass that made alerts fire (several firings of one pass are one notice, so a
server going down with fifty streams rings once); the evaluator's hysteresis makes each firing happen
once, so no alert is ever announced twice for one firing. The notice's title and body are built from
outside text (rule names from the config, node names from the server): control and bidi characters
become visible escapes (`core/text.visible`), the length is bounded, and the escape sequences' own
separators are removed, so nothing in a name can end the sequence or start another.

Where a desktop notification goes (`[alert_notices] desktop`):
- `notify-send`: libnotify's command (a desktop session's notification daemon); argv, never a shell;
- `osc777`: `ESC ] 777 ; notify ; title ; body ST`, shown by foot, Ghostty, WezTerm, rxvt-unicode (its
  notify extension) and VTE terminals that carry the patch;
- `osc9`: `ESC ] 9 ; text ST`, shown by iTerm2, Ghostty, WezTerm, kitty and Windows Terminal;
- `auto`: notify-send where it is installed, else OSC 777.
Terminals that know neither sequence ignore it.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from omeconsole.core.alerts.state import Alert
from omeconsole.core.text import visible

DesktopMode = Literal["off", "auto", "notify-send", "osc777", "osc9"]
TITLE_CHARS = 80
BODY_CHARS = 240
NOTIFY_SEND_TIMEOUT_S = 5.0
_ST = "\x1b\\"


def _clean(text: str, limit: int) -> str:
    """Outside text made safe inside an OSC string: printable only, no `;` (the field separator), at most
    `limit` characters (escapes included)."""
    cleaned = visible(text, limit).replace(";", ",")
    return cleaned if len(cleaned) <= limit else cleaned[:limit - 1] + "…"


@dataclass(frozen=True)
class Notice:
    """One desktop notification: title and body already made safe and bounded."""

    title: str
    body: str
    urgent: bool

    @classmethod
    def of(cls, firing: Sequence[Alert]) -> Notice:
        """The notice for the alerts one pass made fire (one or more)."""
        first = firing[0]
        urgent = any(alert.severity == "critical" for alert in firing)
        if len(firing) == 1:
            where = str(first.key.path) if first.key.path is not None else first.key.server
            return cls(_clean(f"omeconsole {first.severity}: {first.key.rule}", TITLE_CHARS),
                       _clean(f"{where}: {first.detail or first.summary}", BODY_CHARS), urgent)
        rules = ", ".join(dict.fromkeys(alert.key.rule for alert in firing))
        return cls(_clean(f"omeconsole: {len(firing)} alerts firing", TITLE_CHARS), _clean(rules, BODY_CHARS),
                   urgent)


def osc777(notice: Notice) -> str:
    return f"\x1b]777;notify;{notice.title};{notice.body}{_ST}"


def osc9(notice: Notice) -> str:
    return f"\x1b]9;{notice.title}: {notice.body}{_ST}"


def resolve_mode(mode: DesktopMode) -> DesktopMode:
    """`auto` made concrete for this machine."""
    if mode == "auto":
        return "notify-send" if shutil.which("notify-send") else "osc777"
    return mode


async def notify_send(notice: Notice) -> None:
    """Runs `notify-send` with the notice as arguments (no shell); a failure or a hang is given up quietly."""
    process = await asyncio.create_subprocess_exec(
        "notify-send", "--app-name=omeconsole", f"--urgency={'critical' if notice.urgent else 'normal'}", "--",
        notice.title, notice.body, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL)
    try:
        await asyncio.wait_for(process.wait(), NOTIFY_SEND_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
