"""The protocol as a JSON Schema and as TypeScript types, generated from the message definitions.

One source: the client messages' fields and checkers (``messages``, each checker carrying the JSON
Schema of what it accepts) and the server messages' Structs (``server_messages``, through msgspec's
schema generator). ``python -m arbiter.protocol.schema`` writes both files next to SPEC.md, where
they are published; tests/protocol/test_schema.py checks that they are up to date, that each
checker and its schema agree, and that every frame of real games validates.

A decoded msgpack map is what the schema describes, as JSON would hold it; msgpack tells integers
from floats where JSON cannot, so an ``integer`` is a msgpack integer (``1.0`` is refused).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from . import (
    ladder,  # noqa: F401  (registers the ladder's messages)
    learning,  # noqa: F401  (registers takebacks' and hints' messages)
)
from .messages import _SCHEMAS, PROTOCOL_VERSION, json_schema_of
from .server_messages import SERVER_MESSAGES, SHAPES

HERE = Path(__file__).resolve().parent
SCHEMA_FILE = HERE / "protocol.schema.json"
TYPESCRIPT_FILE = HERE / "protocol.d.ts"
REF = "#/$defs/{name}"


def client_message_schemas() -> dict[str, dict[str, Any]]:
    """Each client message type's schema, by its class name."""
    out = {}
    for kind, schema in _SCHEMAS.items():
        properties: dict[str, Any] = {"type": {"const": kind}}
        for f in dataclasses.fields(schema.cls):
            field_schema = dict(json_schema_of(f.metadata["check"]))
            if f.metadata["doc"]:
                field_schema["description"] = f.metadata["doc"]
            properties[f.name] = field_schema
        out[schema.cls.__name__] = {
            "title": schema.cls.__name__,
            "description": f"The client message `{kind}` (SPEC.md, Client messages).",
            "type": "object",
            "properties": properties,
            "required": ["type", *sorted(schema.required)],
            "additionalProperties": False,
        }
    return out


def server_message_schemas() -> dict[str, dict[str, Any]]:
    """Each server message type's schema, by its Struct's name (msgspec writes them from the annotations),
    and the shared objects their nested maps have."""
    _, components = msgspec.json.schema_components([*SERVER_MESSAGES.values(), *SHAPES.values()], ref_template=REF)
    for kind, cls in SERVER_MESSAGES.items():
        components[cls.__name__]["description"] = f"The server message `{kind}` (SPEC.md, Server messages)."
    for name in SHAPES:
        components[name]["description"] = f"A shared object of server messages (SPEC.md, Shared objects): {name}."
    return components


def protocol_schema() -> dict[str, Any]:
    """The whole protocol: ``$defs`` holds every message; ``ClientMessage`` and ``ServerMessage`` are the
    two directions, each a choice among its messages by ``type``."""
    clients, servers = client_message_schemas(), server_message_schemas()
    clash = clients.keys() & servers.keys()
    assert not clash, f"a client and a server message share a name: {clash}"

    def choice(names: Iterable[str], direction: str) -> dict[str, Any]:
        return {
            "description": f"Any message a {direction} sends.",
            "oneOf": [{"$ref": REF.format(name=n)} for n in names],
        }

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"The Arbiter protocol, version {PROTOCOL_VERSION}",
        "description": (
            "Every message of the Arbiter protocol (SPEC.md) as the msgpack map it is on the wire, in both "
            "directions. Validate a client's message against #/$defs/ClientMessage and a server's against "
            "#/$defs/ServerMessage. An integer is a msgpack integer, never a float. Generated from "
            "arbiter.protocol by `python -m arbiter.protocol.schema`: do not edit."
        ),
        "anyOf": [{"$ref": REF.format(name="ClientMessage")}, {"$ref": REF.format(name="ServerMessage")}],
        "$defs": {
            "ClientMessage": choice(clients, "client"),
            "ServerMessage": choice((cls.__name__ for cls in SERVER_MESSAGES.values()), "server"),
            **clients,
            **servers,
        },
    }


# --- TypeScript ------------------------------------------------------------------------------------
def typescript(schema: dict[str, Any]) -> str:
    """The schema's definitions as TypeScript declarations: one interface per message, a union per direction."""
    lines = [
        f"// {schema['title']}: every message as TypeScript types (SPEC.md is the reference).",
        "// Generated from protocol.schema.json by `python -m arbiter.protocol.schema`: do not edit.",
        "// An integer is a msgpack integer: send whole numbers as integers, never as floats.",
        "",
    ]
    for name, definition in schema["$defs"].items():
        if "oneOf" in definition:
            union = " | ".join(_ts_type(option) for option in definition["oneOf"])
            lines += [f"/** {definition['description']} */", f"export type {name} = {union};", ""]
            continue
        lines.append(f"/** {definition['description']} */")
        lines.append(f"export interface {name} {{")
        required = set(definition.get("required", ()))
        for field, field_schema in definition["properties"].items():
            if "description" in field_schema:
                lines.append(f"  /** {field_schema['description']} */")
            optional = "" if field in required else "?"
            lines.append(f"  {field}{optional}: {_ts_type(field_schema)};")
        lines += ["}", ""]
    return "\n".join(lines)


def _ts_type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(option) for option in schema["enum"])
    if "anyOf" in schema:
        return " | ".join(_ts_type(option) for option in schema["anyOf"])
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return "number"
    if kind in ("string", "boolean", "null"):
        return str(kind)
    if kind == "array":
        items = schema.get("items")
        inner = "unknown" if items is None else _ts_type(items)
        return f"({inner})[]" if " " in inner else f"{inner}[]"
    if kind == "object":
        properties = schema.get("properties")
        if properties is None:
            extra = schema.get("additionalProperties")
            value = _ts_type(extra) if isinstance(extra, dict) else "unknown"
            return f"Record<string, {value}>"
        required = set(schema.get("required", ()))
        fields = "; ".join(f"{k}{'' if k in required else '?'}: {_ts_type(v)}" for k, v in properties.items())
        return f"{{ {fields} }}"
    return "unknown"


def rendered() -> dict[Path, str]:
    """Each published file and its text."""
    schema = protocol_schema()
    return {SCHEMA_FILE: json.dumps(schema, indent=2) + "\n", TYPESCRIPT_FILE: typescript(schema)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arbiter.protocol.schema",
        description="Write the protocol's JSON Schema and TypeScript types (next to SPEC.md, or into --out).",
    )
    parser.add_argument("--out", type=Path, help="the folder to write them to (default: the package's own)")
    args = parser.parse_args(argv)
    for path, text in rendered().items():
        target = path if args.out is None else args.out / path.name
        target.write_text(text, encoding="utf-8")
        print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
