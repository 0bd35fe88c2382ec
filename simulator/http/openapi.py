"""The OpenAPI 3 document of the management API, served at /v1/openapi.json (enough to drive a fuzzer)."""

from __future__ import annotations

from typing import Any

from simulator.http.event_validation import Edition
from simulator.world.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS

_TIME = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$"}
_INT = {"type": "integer", "minimum": 0}
_TEXT_FRAME = {"type": "string", "pattern": "^[Tt][A-Za-z0-9]{3}$"}


def _counters(keys: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "object", "required": list(keys), "properties": {k: _INT for k in keys},
            "additionalProperties": False}


def _envelope(response: dict[str, Any] | None) -> dict[str, Any]:
    properties: dict[str, Any] = {"message": {"type": "string"}, "statusCode": {"type": "integer"}}
    required = ["message", "statusCode"]
    if response is not None:
        properties["response"] = response
        required.append("response")
    return {"type": "object", "required": required, "properties": properties, "additionalProperties": False}


_ERROR = {"description": "Error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _responses(ok: dict[str, Any], *errors: int) -> dict[str, Any]:
    responses: dict[str, Any] = {"200": {"description": "OK", "content": {"application/json": {"schema": ok}}}}
    for status in (401, *errors):
        responses[str(status)] = _ERROR
    return responses


_EXAMPLE_NAMES = {"vhost": "default", "app": "app", "stream": "stream"}  # present in the demo scenario


def _one_of_words(*words: str) -> dict[str, Any]:
    """A string equal to one of `words` in any letter case (the server compares case-insensitively)."""
    alternatives = "|".join("".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in w) for w in words)
    return {"type": "string", "pattern": f"^({alternatives})$"}


def _name(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "example": _EXAMPLE_NAMES[name],
            "schema": {"type": "string", "minLength": 1}}


def openapi_document(edition: Edition) -> dict[str, Any]:
    def ref(name: str) -> dict[str, Any]:
        return {"$ref": f"#/components/schemas/{name}"}

    stats_v2 = _envelope(ref("StatsRecord"))
    stats_v1 = _envelope(ref("StatsRecordV1"))
    names = _envelope({"type": "array", "items": {"type": "string"}})
    vhost, app, stream = _name("vhost"), _name("app"), _name("stream")
    action_ok = _envelope(None)
    paths: dict[str, Any] = {
        "/v1/version": {"get": {"operationId": "version", "responses": _responses(_envelope(ref("Version")))}},
        "/v1/vhosts": {"get": {"operationId": "listVhosts", "responses": _responses(names)}},
        "/v1/vhosts/{vhost}/apps": {
            "get": {"operationId": "listApps", "parameters": [vhost], "responses": _responses(names, 404)}},
        "/v1/vhosts/{vhost}/apps/{app}/streams": {
            "get": {"operationId": "listStreams", "parameters": [vhost, app], "responses": _responses(names, 404)}},
        "/v1/vhosts/{vhost}/apps/{app}/streams/{stream}": {
            "get": {"operationId": "streamInfo", "parameters": [vhost, app, stream],
                    "responses": _responses(_envelope({"type": "object"}), 404)}},
        "/v1/stats/current/vhosts/{vhost}": {
            "get": {"operationId": "statsV1Vhost", "parameters": [vhost], "responses": _responses(stats_v1, 404)}},
        "/v1/stats/current/vhosts/{vhost}/apps/{app}": {
            "get": {"operationId": "statsV1App", "parameters": [vhost, app],
                    "responses": _responses(stats_v1, 404)}},
        "/v1/stats/current/vhosts/{vhost}/apps/{app}/streams/{stream}": {
            "get": {"operationId": "statsV1Stream", "parameters": [vhost, app, stream],
                    "responses": _responses(stats_v1, 404)}},
        "/v1/vhosts/{vhost}/apps/{app}/streams/{stream}:sendEvent": {
            "post": {"operationId": "sendEvent", "parameters": [vhost, app, stream],
                     "requestBody": {"required": True, "content": {"application/json": {"schema": ref("EventSet")}}},
                     "responses": _responses(action_ok, 400, 404, 413)}},
        "/v1/vhosts/{vhost}/apps/{app}/streams/{stream}:sendEvents": {
            "post": {"operationId": "sendEvents", "parameters": [vhost, app, stream],
                     "requestBody": {"required": True, "content": {"application/json": {
                         "schema": {"type": "array", "minItems": 1, "items": ref("EventSet")}}}},
                     "responses": _responses(
                         action_ok if edition == "enterprise" else {"type": "array", "items": ref("ActionResult")},
                         400, 404, 413)}},
    }
    if edition == "enterprise":
        paths.update({
            "/v2/stats/current/vhosts/{vhost}": {
                "get": {"operationId": "statsVhost", "parameters": [vhost], "responses": _responses(stats_v2, 404)}},
            "/v2/stats/current/vhosts/{vhost}/apps/{app}": {
                "get": {"operationId": "statsApp", "parameters": [vhost, app],
                        "responses": _responses(stats_v2, 404)}},
            "/v2/stats/current/vhosts/{vhost}/apps/{app}/streams/{stream}": {
                "get": {"operationId": "statsStream", "parameters": [vhost, app, stream],
                        "responses": _responses(stats_v2, 404)}},
        })
    v1_keys = ("avgThroughputIn", "avgThroughputOut", "lastThroughputIn", "lastThroughputOut", "maxThroughputIn",
               "maxThroughputOut", "maxTotalConnections", "totalBytesIn", "totalBytesOut", "totalConnections")
    v1_times = ("createdTime", "lastRecvTime", "lastSentTime", "lastUpdatedTime", "maxTotalConnectionTime")
    schemas: dict[str, Any] = {
        "Error": {"type": "object", "required": ["message", "statusCode"], "additionalProperties": False,
                  "properties": {"message": {"type": "string", "pattern": r"^\[HTTP\] [\s\S]* \(\d{3}\)$"},
                                 "statusCode": {"type": "integer"}}},
        "Version": {"type": "object", "required": ["gitVersion", "version"],
                    "properties": {"gitVersion": {"type": "string"}, "version": {"type": "string"}}},
        "ActionResult": {"type": "object", "required": ["message", "statusCode"],
                         "properties": {"message": {"type": "string"}, "statusCode": {"type": "integer"}}},
        "StatsRecord": {
            "type": "object", "additionalProperties": False,
            "required": ["createdTime", "lastUpdatedTime", "providers", "publishers"],
            "properties": {
                "createdTime": _TIME, "lastUpdatedTime": _TIME,
                "providers": {"type": "object", "additionalProperties": False, "required": [
                    "avgThroughputIn", "connections", "lastRecvTime", "lastThroughputIn", "maxThroughputIn",
                    "totalBytesIn"], "properties": {
                    "avgThroughputIn": _INT, "connections": _counters(PROVIDER_PROTOCOLS), "lastRecvTime": _TIME,
                    "lastThroughputIn": _INT, "maxThroughputIn": _INT, "totalBytesIn": _INT}},
                "publishers": {"type": "object", "additionalProperties": False, "required": [
                    "avgThroughputOut", "connections", "lastSentTime", "lastThroughputOut", "maxThroughputOut",
                    "maxTotalConnectionTime", "maxTotalConnections", "totalBytesOut", "totalConnections"],
                    "properties": {
                    "avgThroughputOut": _INT, "connections": _counters(PUBLISHER_PROTOCOLS),
                    "lastSentTime": _TIME, "lastThroughputOut": _INT, "maxThroughputOut": _INT,
                    "maxTotalConnectionTime": _TIME, "maxTotalConnections": _INT, "totalBytesOut": _INT,
                    "totalConnections": _INT}},
            },
        },
        "StatsRecordV1": {
            "type": "object", "additionalProperties": False,
            "required": [*v1_keys, *v1_times, "connections"],
            "properties": {**{k: _INT for k in v1_keys}, **{k: _TIME for k in v1_times},
                           "connections": _counters(PUBLISHER_PROTOCOLS)},
        },
        "CueEventSet": {
            "type": "object", "required": ["eventFormat", "events"],
            "properties": {
                "eventFormat": _one_of_words("cue"),
                "urgent": {"type": "boolean", "nullable": True},
                "events": {"type": "array", "minItems": 1, "items": {"oneOf": [
                    {"type": "object", "required": ["cueType", "duration"],
                     "properties": {"cueType": _one_of_words("out"),
                                    "duration": {"type": "integer", "minimum": 1, "maximum": 86_400_000}}},
                    {"type": "object", "required": ["cueType"], "properties": {"cueType": _one_of_words("in")}},
                ]}},
            },
        },
        "Id3EventSet": {
            "type": "object", "required": ["eventFormat", "events"],
            "description": "eventTarget is an alias of eventType: send one of them (both must then agree).",
            "not": {"required": ["eventType", "eventTarget"]},
            "properties": {
                "eventFormat": _one_of_words("id3v2"),
                "eventType": _one_of_words("video", "audio", "event"),
                "eventTarget": _one_of_words("video", "audio", "event"),
                "urgent": {"type": "boolean", "nullable": True},
                "events": {"type": "array", "minItems": 1, "items": {"oneOf": [
                    {"type": "object", "required": ["frameType"],
                     "properties": {"frameType": _TEXT_FRAME, "info": {"type": "string"}, "data": {"type": "string"}}},
                    {"type": "object", "required": ["frameType"],
                     "properties": {"frameType": _one_of_words("priv"),
                                    "info": {"type": "string", "pattern": "^[\\u0001-\\u00ff]*$"},  # Latin-1, no NUL
                                    "data": {"type": "string"}}},
                ]}},
            },
        },
        "EventSet": {"oneOf": [{"$ref": "#/components/schemas/CueEventSet"},
                               {"$ref": "#/components/schemas/Id3EventSet"}]},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "OvenMediaEngine management API (omeconsole simulator)", "version": "1",
                 "description": "Authorization: Basic base64(<access token>). Edition: " + edition},
        "servers": [{"url": "/"}],
        "security": [{"accessToken": []}],
        "components": {"securitySchemes": {"accessToken": {"type": "http", "scheme": "basic"}}, "schemas": schemas},
        "paths": paths,
    }
