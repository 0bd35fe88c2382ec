"""Reading an exporter's `/alerts` document (the wire of `omeconsole alerts`).

The document is data from another process, possibly another machine: its size is bounded, it must be
a JSON object with an `alerts` list of objects, and anything else is a ProtocolError. Its strings are
shown through the display rule by the caller, never raw.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from omeconsole.api.errors import ProtocolError, RequestTimeout, UnreachableError

MAX_DOCUMENT_BYTES = 8 * 1024 * 1024


async def fetch_alerts(exporter_url: str, *, timeout: float = 5.0,
                       transport: httpx.AsyncBaseTransport | None = None) -> dict[str, Any]:
    """GET `{exporter_url}/alerts`; the parsed document, or an OmeError saying what went wrong."""
    url = exporter_url.rstrip("/") + "/alerts"
    try:
        async with httpx.AsyncClient(timeout=timeout, transport=transport) as http, \
                http.stream("GET", url) as response:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_DOCUMENT_BYTES:
                    raise ProtocolError(f"{url}: the alerts document is larger than {MAX_DOCUMENT_BYTES} bytes")
            status = response.status_code
    except httpx.TimeoutException:
        raise RequestTimeout(f"{url}: no answer within {timeout:g} s") from None
    except httpx.HTTPError as error:
        raise UnreachableError(f"{url}: cannot connect ({type(error).__name__}); is `omeconsole exporter` "
                               "running there?") from None
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
