"""JSON schemas for tools and structured output, made acceptable to each provider.

`inline_refs` resolves local ``$ref`` pointers (``#/$defs/...``) into the schema, for providers
that refuse references. `to_gemini_schema` keeps Gemini's OpenAPI subset and lists every keyword
it had to drop or loosen, so the caller hears what was lost. `to_strict_schema` makes a schema
fit OpenAI's strict mode (every property required, optional ones nullable, no extra
properties).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ..errors import UnsupportedSettingError

__all__ = [
    "from_gemini_schema",
    "inline_refs",
    "portable_schema",
    "to_gemini_schema",
    "to_strict_schema",
]

_MAX_DEPTH = 32

_GEMINI_KEYS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "items",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "propertyOrdering",
        "anyOf",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "default",
        "example",
        "minProperties",
        "maxProperties",
    }
)
_GEMINI_FORMATS = {"string": {"enum", "date-time"}, "number": {"float", "double"}}
_GEMINI_FORMATS["integer"] = {"int32", "int64"}


def inline_refs(schema: dict[str, Any], where: str = "schema") -> dict[str, Any]:
    """``schema`` with every local ``$ref`` replaced by what it points to, ``$defs`` removed.

    A recursive reference cannot be inlined: it raises `UnsupportedSettingError` naming it.
    """
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            defs.update({f"#/{key}/{name}": value for name, value in schema[key].items()})

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in seen:
                raise UnsupportedSettingError(
                    f"{where}: the reference {ref} is recursive and cannot be inlined"
                )
            if ref not in defs:
                raise UnsupportedSettingError(f"{where}: unresolvable reference {ref}")
            target = walk(defs[ref], (*seen, ref))
            rest = {k: walk(v, seen) for k, v in node.items() if k != "$ref"}
            return {**target, **rest}
        return {
            key: walk(value, seen)
            for key, value in node.items()
            if key not in ("$defs", "definitions")
        }

    result = walk(schema, ())
    assert isinstance(result, dict)
    return result


def to_gemini_schema(
    schema: dict[str, Any], where: str = "schema"
) -> tuple[dict[str, Any], list[str]]:
    """Gemini's schema subset for ``schema``, and what was lost (one line per dropped keyword).

    References are inlined; ``const`` becomes a one-value ``enum``; a ``["T", "null"]`` type or
    an ``anyOf`` with ``null`` becomes ``nullable``; ``oneOf`` becomes ``anyOf`` (reported:
    exclusivity is lost); ``allOf`` of objects is merged. Anything else Gemini refuses
    (``additionalProperties``, ``not``, ``exclusiveMinimum``, ``$schema``...) is dropped and
    reported.
    """
    lost: list[str] = []
    flat = inline_refs(schema, where)

    def walk(node: Any, path: str, depth: int) -> dict[str, Any]:
        if depth > _MAX_DEPTH:
            raise UnsupportedSettingError(f"{where}: schema nested deeper than {_MAX_DEPTH}")
        if not isinstance(node, dict):
            lost.append(f"{path}: {node!r} is not a schema object (replaced by any value)")
            return {}
        node = dict(node)
        out: dict[str, Any] = {}
        if "allOf" in node:
            parts = node.pop("allOf")
            for part in parts if isinstance(parts, list) else []:
                if isinstance(part, dict):
                    for key, value in part.items():
                        if key == "properties" and isinstance(value, dict):
                            node.setdefault("properties", {}).update(value)
                        elif key == "required" and isinstance(value, list):
                            node["required"] = [*node.get("required", []), *value]
                        else:
                            node.setdefault(key, value)
        if "oneOf" in node:
            lost.append(f"{path}: oneOf sent as anyOf (only one must match is not enforced)")
            node["anyOf"] = [*node.get("anyOf", []), *node.pop("oneOf")]
        if "const" in node:
            node["enum"] = [node.pop("const")]
        kind = node.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            if len(kinds) < len(kind):
                out["nullable"] = True
            if len(kinds) == 1:
                node["type"] = kinds[0]
            else:
                node.pop("type")
                node["anyOf"] = [{"type": k} for k in kinds]
        if isinstance(node.get("anyOf"), list):
            options = node["anyOf"]
            real = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            if len(real) < len(options):
                out["nullable"] = True
            if len(real) == 1 and isinstance(real[0], dict):
                node.pop("anyOf")
                node = {**real[0], **node}
                return {**walk(node, path, depth + 1), **out}
            node["anyOf"] = real
        for key, value in node.items():
            here = f"{path}.{key}"
            if key == "properties" and isinstance(value, dict):
                out[key] = {n: walk(s, f"{path}.{n}", depth + 1) for n, s in value.items()}
            elif key == "items":
                out[key] = walk(value, f"{path}[]", depth + 1)
            elif key == "anyOf" and isinstance(value, list):
                out[key] = [walk(o, f"{path}|{i}", depth + 1) for i, o in enumerate(value)]
            elif key == "enum":
                if isinstance(value, list) and all(isinstance(v, str) for v in value):
                    out[key] = value
                else:
                    lost.append(f"{here}: enum of non-strings {value!r} (Gemini takes strings)")
            elif key == "format":
                if value in _GEMINI_FORMATS.get(str(node.get("type")).lower(), set()):
                    out[key] = value
                else:
                    lost.append(f"{here}: format {value!r} is not one Gemini takes")
            elif key == "examples" and isinstance(value, list) and value:
                out["example"] = value[0]
            elif key in _GEMINI_KEYS:
                out[key] = value
            elif key != "$schema":
                lost.append(f"{here}: {value!r} (Gemini's schema has no {key!r})")
        return out

    return walk(flat, where, 0), lost


def to_strict_schema(schema: dict[str, Any], where: str = "schema") -> dict[str, Any]:
    """``schema`` for OpenAI's strict mode: every object lists all its properties as required
    (the optional ones become nullable, their defaults dropped; the order ``required`` had is
    kept) and refuses extra properties."""
    out = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if (
            kind == "object"
            or (isinstance(kind, list) and "object" in kind)
            or "properties" in node
        ):
            properties = node.setdefault("properties", {})
            if not isinstance(properties, dict):
                raise UnsupportedSettingError(f"{where}: properties is not an object")
            given_required = node.get("required", [])
            if not isinstance(given_required, list):
                raise UnsupportedSettingError(f"{where}: required is not a list")
            required = {name for name in given_required if isinstance(name, str)}
            for name, prop in properties.items():
                if name not in required and isinstance(prop, dict):
                    prop.pop("default", None)
                    if "$ref" in prop or "anyOf" in prop:
                        options = prop.pop("anyOf", None) or [{"$ref": prop.pop("$ref")}]
                        if not any(o.get("type") == "null" for o in options):
                            options = [*options, {"type": "null"}]
                        prop["anyOf"] = options
                    elif isinstance(prop.get("type"), str):
                        prop["type"] = [prop["type"], "null"]
                    elif isinstance(prop.get("type"), list) and "null" not in prop["type"]:
                        prop["type"] = [*prop["type"], "null"]
            given = [
                name for name in given_required if isinstance(name, str) and name in properties
            ]
            node["required"] = [*given, *(name for name in properties if name not in given)]
            extra = node.get("additionalProperties")
            if extra not in (None, False):
                raise UnsupportedSettingError(
                    f"{where}: strict mode refuses additionalProperties={extra!r}"
                )
            node["additionalProperties"] = False
        for key, value in node.items():
            if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
                for sub in value.values():
                    walk(sub)
            elif isinstance(value, (dict, list)) and key != "enum":
                walk(value)
        node.pop("default", None)

    walk(out)
    return out


_NAMED_SCHEMAS = ("properties", "$defs", "definitions", "patternProperties")


def to_ollama_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's parameters in the shape ollama-python's ``Tool.Function.Parameters`` models.

    Its property type has ``type``, ``items``, ``description`` and ``enum`` only, so the SDK
    drops the rest when it serialises a tool. ``title`` (an annotation pydantic writes for every
    field, with no effect on validation) is left out, and a ``default`` is said in the
    description (``"The city. (default: 1)"``) so the model still learns it. Property names are
    the caller's and never touched.
    """

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "default":
                continue
            if key in _NAMED_SCHEMAS and isinstance(value, dict):
                out[key] = {name: walk(item) for name, item in value.items()}
            else:
                out[key] = walk(value)
        if "default" in node:
            said = f"(default: {json.dumps(node['default'])})"
            text = out.get("description")
            out["description"] = f"{text} {said}" if isinstance(text, str) and text else said
        return out

    walked: dict[str, Any] = walk(schema)
    return walked


_GEMINI_TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def portable_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as JSON Schema every provider reads: a schema written in Gemini's OpenAPI
    subset (upper-case type names, ``nullable``) is converted (`from_gemini_schema`), any other
    is returned as it is."""
    return from_gemini_schema(schema) if _gemini_only(schema, 0) else schema


def _gemini_only(node: Any, depth: int) -> bool:
    """True when a schema uses Gemini's OpenAPI forms: an upper-case type name or ``nullable``."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, list):
        return any(_gemini_only(item, depth + 1) for item in node)
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    if "nullable" in node or (isinstance(kind, str) and kind in _GEMINI_TYPES):
        return True
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            if any(_gemini_only(item, depth + 1) for item in value.values()):
                return True
        elif (key in ("items", "additionalProperties", "not") or key in _SCHEMA_LISTS) and (
            _gemini_only(value, depth + 1)
        ):
            return True
    return False


def from_gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A Gemini ``Schema`` (the OpenAPI subset of ``parameters`` and ``responseSchema``) as JSON
    Schema, for other providers: its upper-case type names (``OBJECT``, ``STRING``) in lower
    case, and ``nullable: true`` as a ``null`` type (or a ``null`` choice beside ``anyOf``).
    Every other keyword (``format``, ``enum``, ``propertyOrdering``...) is kept as written;
    property names are the caller's and never touched."""

    def walk(node: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise UnsupportedSettingError(f"Gemini schema nested deeper than {_MAX_DEPTH}")
        if isinstance(node, list):
            return [walk(item, depth + 1) for item in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {name: walk(item, depth + 1) for name, item in value.items()}
            elif key == "type" and isinstance(value, str) and value.upper() in _GEMINI_TYPES:
                out[key] = value.lower()
            elif key in ("items", "additionalProperties", "not") or key in _SCHEMA_LISTS:
                out[key] = walk(value, depth + 1)
            elif key != "nullable":
                out[key] = value
        if node.get("nullable") is True:
            kind = out.get("type")
            if isinstance(kind, str):
                out["type"] = [kind, "null"]
            elif isinstance(out.get("anyOf"), list):
                out["anyOf"] = [*out["anyOf"], {"type": "null"}]
            else:
                out["nullable"] = True
        elif "nullable" in node:
            out["nullable"] = node["nullable"]
        return out

    converted: dict[str, Any] = walk(schema, 0)
    return converted
