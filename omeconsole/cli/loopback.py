"""Whether a listening address stays on this machine: what the exporter and `serve` may bind without
authentication (anything else is refused or warned about by the command)."""

from __future__ import annotations

from ipaddress import ip_address


def is_loopback(host: str) -> bool:
    """`localhost` or a loopback IP (127.0.0.0/8, ::1); a name other than localhost is not."""
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False
