"""The pages a visitor sees: the console (textual-serve's page script and xterm.js), the login, and refusals.

Every page says the session's terms: read-only or sending, the cap on sessions, the idle timeout. Nothing
from outside is written into them but our own numbers and the title we compose (escaped).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

STYLE = """
body { margin: 0; background: #0c181f; color: rgba(255, 255, 255, 0.95);
       font-family: menlo, monospace; height: 100vh; display: flex; flex-direction: column; overflow: hidden; }
#terms { padding: 2px 8px; font-size: 13px; background: #12232d; flex: none;
         white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#console { flex: 1; position: relative; min-height: 0; }
.textual-terminal { position: absolute; inset: 0; opacity: 0; }
body.-first-byte .textual-terminal { opacity: 1; }
.notice { margin: 48px auto; max-width: 640px; padding: 24px; background: #12232d; }
#ended { display: none; }
body.-closed #ended { display: block; position: absolute; inset: 0; z-index: 10; background: #0c181f; }
body.-closed #console { display: none; }
input, button { font: inherit; padding: 4px 8px; }
.error { color: #ff8080; font-weight: bold; }
"""

WEBSOCKET_URL_SCRIPT = """
document.getElementById("terminal").dataset.sessionWebsocketUrl =
  (location.protocol === "https:" ? "wss:" : "ws:") + "//" + location.host + "/ws";
"""
"""The websocket on the page's own host and scheme (behind a TLS proxy too), set before the page script runs."""


@dataclass(frozen=True)
class Terms:
    """What every page tells the visitor about the session it gives."""

    title: str
    allow_sends: bool
    max_sessions: int
    idle_timeout_s: float

    def text(self, open_sessions: int) -> str:
        return f"{self.title} · {self.conditions(open_sessions)}"

    def conditions(self, open_sessions: int) -> str:
        """The session's terms without the title (which names the server)."""
        mode = "sends allowed" if self.allow_sends else "read-only: cue-out, cue-in and ID3 are refused"
        return (f"{mode} · session {open_sessions + 1} of at most {self.max_sessions} · "
                f"ends after {_duration(self.idle_timeout_s)} without a key press")

    @property
    def idle(self) -> str:
        return _duration(self.idle_timeout_s)


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute" + ("" if minutes == 1 else "s")
    return f"{seconds:g} s"


def _page(title: str, body: str, head: str = "") -> str:
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{escape(title)}</title>{head}'
            f"<style>{STYLE}</style></head>\n<body>{body}</body></html>\n")


def console_page(terms: Terms, open_sessions: int) -> str:
    head = '<link rel="stylesheet" href="/static/css/xterm.css"><script src="/static/js/textual.js"></script>'
    body = (f'<div id="terms">{escape(terms.text(open_sessions))}</div>'
            '<div id="console"><div id="terminal" class="textual-terminal" data-font-size="16"></div></div>'
            f'<div id="ended"><div class="notice"><p>This console session has ended: the console quit, nothing '
            f"was typed for {escape(terms.idle)}, the server stopped, or all {terms.max_sessions} sessions were "
            'in use.</p><p><a href="/">Open a new session</a></p></div></div>'
            f"<script>{WEBSOCKET_URL_SCRIPT}</script>")
    return _page(terms.title, body, head)


def login_page(terms: Terms, *, wrong: bool) -> str:
    error = '<p class="error" id="wrong">Wrong password: no console.</p>' if wrong else ""
    # Before the password, the page names no server: only "omeconsole".
    body = (f'<div class="notice"><h1>omeconsole</h1>{error}'
            '<form method="post" action="/login"><label>Password or token '
            '<input type="password" name="password" autocomplete="current-password" autofocus></label> '
            '<button type="submit">Open the console</button></form>'
            f"<p>{escape(terms.conditions(0))}</p></div>")
    return _page("omeconsole", body)


def full_page(terms: Terms) -> str:
    body = (f'<div class="notice" id="full"><h1>{escape(terms.title)}</h1><p>All {terms.max_sessions} console '
            "sessions are in use (the cap of this server). Try again when one ends: an idle session ends after "
            f'{escape(terms.idle)}.</p><p><a href="/">Try again</a></p></div>')
    return _page(terms.title, body)
