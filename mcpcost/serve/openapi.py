"""The OpenAPI 3.1 description of the ``mcpcost serve`` API, served at ``OPENAPI_PATH``.

One document, built here from the same constants the endpoints use (the transports, the body
cap, the method word), so the description and the service cannot drift apart silently; a test
validates the document against the OpenAPI 3.1 schema and the service's answers against it.
"""

from __future__ import annotations

from typing import Any, Final

from mcpcost.core.status import Status
from mcpcost.serve.api import MAX_BODY_BYTES, MAX_URL_CHARS, METHOD, REMOTE_TRANSPORTS
from mcpcost.version import __version__

OPENAPI_PATH: Final = "/openapi.json"
_REF = "#/components/schemas/"

NULLABLE_INT: Final = {"type": ["integer", "null"], "minimum": 0}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF + name}


def _json(schema: dict[str, Any], description: str, **headers: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }
    if headers:
        out["headers"] = {
            name: {"$ref": f"#/components/headers/{ref}"} for name, ref in headers.items()
        }
    return out


def _schemas() -> dict[str, Any]:
    tool = {
        "type": "object",
        "required": ["name", "tokens", "descriptionTokens", "inputSchemaTokens"],
        "properties": {
            "name": {"type": "string"},
            "tokens": {"type": "integer", "minimum": 0},
            "descriptionTokens": {"type": "integer", "minimum": 0},
            "inputSchemaTokens": {"type": "integer", "minimum": 0},
        },
    }
    session = {
        "type": ["object", "null"],
        "description": "deferred-load/v1: tool names and server instructions, what a client "
        "that defers tool definitions loads at session start; isFloor when the "
        "instructions were not captured",
        "required": ["toolNameTokens", "instructionsTokens", "total", "isFloor"],
        "properties": {
            "toolNameTokens": {"type": "integer", "minimum": 0},
            "instructionsTokens": NULLABLE_INT,
            "total": {"type": "integer", "minimum": 0},
            "isFloor": {"type": "boolean"},
        },
    }
    measurement = {
        "type": "object",
        "description": "The public fields of one measurement: o200k_base tokens of the "
        "canonical tools/list bytes. status says what happened; an auth wall is a status.",
        "required": [
            "method",
            "status",
            "totalTokens",
            "toolCount",
            "canonicalSha256",
            "tools",
            "sessionStart",
            "methodologyVersion",
            "encoding",
            "measuredAt",
            "timeoutMs",
        ],
        "properties": {
            "method": {"const": METHOD, "description": "always exact: never an estimate"},
            "status": {"enum": [str(s) for s in Status]},
            "totalTokens": NULLABLE_INT,
            "toolCount": NULLABLE_INT,
            "canonicalSha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$"},
            "tools": {"type": "array", "items": _ref("ToolTokens")},
            "sessionStart": _ref("SessionStart"),
            "methodologyVersion": {"type": "string"},
            "encoding": {"type": "string"},
            "measuredAt": {"type": "string", "format": "date-time"},
            "timeoutMs": {"type": "integer", "minimum": 0},
            "transport": {"type": ["string", "null"]},
            "protocolVersion": {"type": "string"},
            "notes": {"type": "string", "description": "why, for a status without a number"},
        },
    }
    measured = {
        "allOf": [
            _ref("Measurement"),
            {
                "type": "object",
                "required": ["url", "transportRequested"],
                "properties": {
                    "url": {"type": "string", "description": "the URL measured, secrets masked"},
                    "transportRequested": {"enum": [str(t) for t in REMOTE_TRANSPORTS]},
                },
            },
        ]
    }
    server = {
        "allOf": [
            _ref("Measurement"),
            {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        ]
    }
    dataset = {
        "type": "object",
        "description": "The published tree's results/data.json as it is, or (without one) "
        "the dataset built from its measurements, described by these properties. The "
        "X-Mcpcost-Dataset header says which (published or built).",
        "properties": {
            "builtFrom": {"type": "string"},
            "datasetVersion": {"type": "string"},
            "methodologyVersion": {"type": "string"},
            "encoding": {"type": "string"},
            "entryCount": {"type": "integer", "minimum": 0},
            "coverage": {"type": "object", "additionalProperties": {"type": "integer"}},
            "entries": {
                "type": "array",
                "description": "spec/dataset.schema.json describes each entry",
                "items": {
                    "type": "object",
                    "required": ["name", "status"],
                    "properties": {
                        "name": {"type": "string"},
                        "status": {"enum": [str(s) for s in Status]},
                    },
                },
            },
        },
    }
    error = {
        "type": "object",
        "required": ["error", "message"],
        "properties": {
            "error": {
                "enum": [
                    "bad-request",
                    "too-large",
                    "slow-body",
                    "address-refused",
                    "busy",
                    "rate-limited",
                    "not-found",
                    "method-not-allowed",
                    "no-tree",
                    "stopping",
                    "internal",
                ]
            },
            "message": {"type": "string", "description": "one line"},
        },
    }
    health = {
        "type": "object",
        "required": ["status", "version", "methodologyVersion", "measuring", "maxConcurrent"],
        "properties": {
            "status": {"const": "ok"},
            "version": {"type": "string"},
            "methodologyVersion": {"type": "string"},
            "measuring": {"type": "integer", "minimum": 0},
            "maxConcurrent": {"type": "integer", "minimum": 1},
            "dataset": {"enum": ["published", "built", None]},
        },
    }
    request = {
        "type": "object",
        "required": ["url"],
        "additionalProperties": False,
        "properties": {
            "url": {"type": "string", "maxLength": MAX_URL_CHARS, "format": "uri"},
            "transport": {"enum": [str(t) for t in REMOTE_TRANSPORTS], "default": "auto"},
        },
    }
    return {
        "ToolTokens": tool,
        "SessionStart": session,
        "Measurement": measurement,
        "MeasuredServer": measured,
        "ServerRecord": server,
        "Dataset": dataset,
        "Error": error,
        "Health": health,
        "MeasureRequest": request,
    }


def _headers() -> dict[str, Any]:
    def header(description: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"description": description, "schema": schema}

    return {
        "RetryAfter": header("seconds before asking again", {"type": "integer", "minimum": 1}),
        "ETag": header("the representation's entity tag", {"type": "string"}),
        "CacheControl": header("how long the answer may be reused", {"type": "string"}),
        "XCache": header(
            "hit: the cached answer; shared: another caller's measurement; miss: measured now",
            {"enum": ["hit", "shared", "miss"]},
        ),
        "XDataset": header("published or built", {"enum": ["published", "built"]}),
    }


def _measure_responses() -> dict[str, Any]:
    return {
        "200": _json(
            _ref("MeasuredServer"),
            "Measured, or a status saying why there is no number",
            **{"Cache-Control": "CacheControl", "X-Cache": "XCache"},
        ),
        "400": _json(_ref("Error"), "The request names no valid https URL or transport"),
        "403": _json(_ref("Error"), "The address policy refuses the URL's host"),
        "408": _json(_ref("Error"), "The request body did not arrive in time"),
        "413": _json(_ref("Error"), f"The request body is larger than {MAX_BODY_BYTES} bytes"),
        "429": _json(
            _ref("Error"),
            "Every measuring slot is taken, or this client is past its rate limit",
            **{"Retry-After": "RetryAfter"},
        ),
    }


def _preflight(operation_id: str) -> dict[str, Any]:
    return {
        "operationId": operation_id,
        "summary": "CORS preflight: any origin; GET and POST; Content-Type and If-None-Match",
        "responses": {"204": {"description": "Allowed"}},
    }


def openapi_document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 document."""
    url_param = {
        "name": "url",
        "in": "query",
        "required": True,
        "schema": {"type": "string", "maxLength": MAX_URL_CHARS},
    }
    transport_param = {
        "name": "transport",
        "in": "query",
        "required": False,
        "schema": {"enum": [str(t) for t in REMOTE_TRANSPORTS], "default": "auto"},
    }
    conditional = {
        "name": "If-None-Match",
        "in": "header",
        "required": False,
        "schema": {"type": "string"},
    }
    cached = {"ETag": "ETag", "Cache-Control": "CacheControl"}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "mcpcost serve",
            "version": __version__,
            "description": "What an MCP server's tool definitions cost in a model's context, "
            "measured on demand with the exact o200k_base tokenizer, and the published "
            "dataset. Every answer carries Access-Control-Allow-Origin: * and "
            "X-Mcpcost-Version.",
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "paths": {
            "/api/measure": {
                "get": {
                    "operationId": "measureGet",
                    "summary": "Measure one remote MCP server",
                    "parameters": [url_param, transport_param],
                    "responses": _measure_responses(),
                },
                "post": {
                    "operationId": "measurePost",
                    "summary": "Measure one remote MCP server",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": _ref("MeasureRequest")},
                            # the measure page's form: answered with that page (text/html)
                            "application/x-www-form-urlencoded": {"schema": _ref("MeasureRequest")},
                        },
                    },
                    "responses": _measure_responses(),
                },
                "options": _preflight("measurePreflight"),
            },
            "/data.json": {
                "get": {
                    "operationId": "dataset",
                    "summary": "The published dataset",
                    "parameters": [conditional],
                    "responses": {
                        "200": _json(
                            _ref("Dataset"),
                            "The dataset",
                            **cached,
                            **{"X-Mcpcost-Dataset": "XDataset"},
                        ),
                        "304": {"description": "Not modified (If-None-Match matched the ETag)"},
                        "404": _json(_ref("Error"), "The service serves no published tree"),
                    },
                },
                "options": _preflight("datasetPreflight"),
            },
            "/api/servers/{name}": {
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "get": {
                    "operationId": "server",
                    "summary": "One published server's measurement",
                    "parameters": [conditional],
                    "responses": {
                        "200": _json(_ref("ServerRecord"), "The server's measurement", **cached),
                        "304": {"description": "Not modified (If-None-Match matched the ETag)"},
                        "404": _json(_ref("Error"), "No such server in the published tree"),
                    },
                },
                "options": _preflight("serverPreflight"),
            },
            "/healthz": {
                "get": {
                    "operationId": "health",
                    "summary": "Liveness",
                    "responses": {"200": _json(_ref("Health"), "The service answers")},
                }
            },
            OPENAPI_PATH: {
                "get": {
                    "operationId": "openapi",
                    "summary": "This document",
                    "responses": {"200": _json({"type": "object"}, "The OpenAPI document")},
                }
            },
        },
        "components": {"schemas": _schemas(), "headers": _headers()},
    }
