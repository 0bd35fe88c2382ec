"""Which server the operator is on, in the words every screen, record and command shows.

Built once per session from the settings; the ad operations stamp every audit record with it, so a
send can always be traced to a server (`host:port`) and a profile, and demo sends are told apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def host_port(url: str) -> str:
    """`host:port` of a URL, without user info; the scheme's default port is written out."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "<unparseable url>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = port if port is not None else _DEFAULT_PORTS.get(parts.scheme)
    return f"{host}:{port}" if port is not None else host


@dataclass(frozen=True)
class ServerContext:
    """The management API's address, the profile it came from, and the modes that change what is sent."""

    api_url: str
    """The management API's base URL without user info."""
    profile: str | None
    read_only: bool
    demo: bool = False
    """True for the embedded simulator of `omeconsole demo`: its sends are not production sends."""

    @property
    def host(self) -> str:
        """`host:port` of the management API."""
        return host_port(self.api_url)
