"""Reading an exporter's `/alerts` document (the wire of `omeconsole alerts`).

The document is data from another process, possibly another machine: its size is bounded, it must be
a JSON object with an `alerts` list of objects, and anything else is a ProtocolError. Its strings are
shown through the display rule by the caller, never raw.
"""

from __future__ import annotations

import json
from typing import Any

from omeconsole.api.errors import ProtocolError, UnreachableError
from omeconsole.api.http import Cap, HttpTransport, Timeouts, Transport

MAX_DOCUMENT_BYTES = 8 * 1024 * 1024


async def fetch_alerts(exporter_url: str, *, timeout: float = 5.0,
                       transport: Transport | None = None) -> dict[str, Any]:
    """GET `{exporter_url}/alerts`; the parsed document, or an OmeError saying what went wrong."""
    url = exporter_url.rstrip("/") + "/alerts"
    http = transport or HttpTransport(timeouts=Timeouts.from_timeout(timeout))
    try:
        reply = await http.request("GET", url, cap=Cap(MAX_DOCUMENT_BYTES, "the alerts document's size"))
    except UnreachableError as error:
        raise UnreachableError(f"{error.message}; is `omeconsole exporter` running there?") from None
    finally:
        if transport is None:
            await http.aclose()
    status, body = reply.status, reply.body
    if status != 200:
        raise ProtocolError(f"{url}: answered {status}, not the alerts document", status)
    try:
        document = json.loads(bytes(body))
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"{url}: the answer is not JSON") from None
    alerts = document.get("alerts") if isinstance(document, dict) else None
    if not isinstance(alerts, list) or not all(isinstance(a, dict) for a in alerts):
        raise ProtocolError(f"{url}: the answer is not an alerts document")
    checked: dict[str, Any] = document
    return checked
