"""The exporter's HTTP face over prometheus_client's own exposition: gzip for a scraper that accepts it (the
same families once unpacked), `name[]` to scrape a few families, HEAD without a body, other methods
refused, `/alerts` as JSON."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import httpx
from alerts_support import exporter_rig
from prometheus_client.parser import text_string_to_metric_families as parse_text

from omeconsole.core.alerts.rules import AlertRule


async def test_gzip_name_filter_head_and_methods(tmp_path: Path) -> None:
    async with exporter_rig(tmp_path, rules=[AlertRule(kind="server_down")]) as rig:
        await rig.cycle(2)
        async with httpx.AsyncClient(base_url=rig.base_url, timeout=10) as http:
            plain = await http.get("/metrics", headers={"accept-encoding": "identity"})
            packed = await http.send(http.build_request("GET", "/metrics", headers={"accept-encoding": "gzip"}),
                                     stream=True)
            wire = b"".join([chunk async for chunk in packed.aiter_raw()])  # as it came, not unpacked
            await packed.aclose()
            some = await http.get("/metrics", params=[("name[]", "ome_up"), ("name[]", "ome_alerts_firing")])
            head = await http.head("/metrics")
            post = await http.post("/metrics", content=b"x")
            alerts = await http.get("/alerts")
            head_alerts = await http.head("/alerts")
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    families = {f.name for f in parse_text(plain.text)}
    assert {f.name for f in parse_text(gzip.decompress(wire).decode())} == families and len(families) > 10
    assert {f.name for f in parse_text(some.text)} == {"ome_up", "ome_alerts_firing"}
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == plain.headers["content-type"]
    assert post.status_code == 405 and post.headers["allow"] == "GET, HEAD"
    assert alerts.headers["content-type"] == "application/json"
    assert set(json.loads(alerts.text)) == {"generated_at", "alerts", "webhooks"}
    assert head_alerts.status_code == 200 and head_alerts.content == b""
