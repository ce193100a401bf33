"""Same-provider round trips of recorded traffic, and the equivalences providers document.

Each JSON file beside this module holds bodies that real clients sent or received (the providers'
API reference examples, the official SDKs' own test fixtures), with where they came from. A
request round trip is ``decode_request`` then ``encode_request(..., target="json")``; a reply
round trip ``decode_response`` then ``encode_response``; a stream is folded (`mb.from_stream`)
and compared with the final message. The result is compared with the recorded body exactly, or
under `normalised`: rewrites that only change a body into a form its provider documents as the
same (each rule says where).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mediablocks as mb
from mediablocks.errors import MediaBlocksError
from mediablocks.providers.registry import provider_entry

HERE = Path(__file__).resolve().parent

CHAT_STYLE = frozenset({"openai-chat", "mistral", "cohere"})
"""Formats whose message ``content`` is a string or a list of typed parts."""


@dataclass(frozen=True)
class Case:
    """One recorded body: where it is, what it is, and what the file says about it."""

    provider: str
    kind: str  # "request", "reply" or "stream"
    file: str
    index: int
    body: Any
    expected: dict[str, str] | None = None
    """What the file says this body gives instead of a round trip (``outcome``: refused or
    lossy, ``detail``: text the outcome's detail holds, ``why``: the justification)."""

    @property
    def name(self) -> str:
        return f"{self.file}:{self.kind}{self.index}"


def cases() -> Iterator[Case]:
    """Every recorded body of every file, in a stable order."""
    for path in sorted(HERE.glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        provider = data["provider"]
        expected: dict[str, dict[str, str]] = data.get("expected", {})
        where = f"{path.parent.name}/{path.stem}"
        for kind, key in (("request", "requests"), ("reply", "replies"), ("stream", "streams")):
            for index, body in enumerate(data.get(key, [])):
                noted = expected.get(f"{kind}{index}")
                yield Case(provider, kind, where, index, body, noted)


# -- the equivalences --------------------------------------------------------------------------


def _base(provider: str) -> str:
    entry = provider_entry(provider)
    return entry.profile.base if entry.profile is not None else entry.name


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _one_text_as_list(message: Any) -> Any:
    """``content: "hi"`` as ``[{"type": "text", "text": "hi"}]``.

    OpenAI Chat: a message's content is "the text contents of the message" or "an array of
    content parts" (API reference, chat/create ``messages[].content``); Mistral and Cohere take
    the same two forms. Anthropic: "a single string is shorthand for an array of one text
    content block" (Messages API reference, ``messages[].content``), and the same for ``system``.
    """
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        return {**message, "content": [_text_part(message["content"])]}
    return message


def _snake(key: str) -> str:
    out = []
    for char in key:
        if char.isupper():
            out.append("_" + char.lower())
        else:
            out.append(char)
    return "".join(out)


_FREE_FORM = frozenset({"args", "response", "parameters", "parameters_json_schema"})
_FREE_FORM |= {"response_json_schema", "response_schema", "properties", "part_metadata"}


def _standard_base64(text: str) -> str:
    """Protobuf JSON "accepts either standard or URL-safe base64 encoding with/without
    paddings" for bytes (https://protobuf.dev/programming-guides/json/): compared as standard
    base64 with padding."""
    import base64

    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))
    except ValueError:
        return text
    return base64.b64encode(raw).decode()


def _snake_keys(value: Any) -> Any:
    """Gemini: every field in either spelling. The REST API's JSON is proto3 JSON, whose parsers
    "accept both the lowerCamelCase name and the original proto field name"
    (https://protobuf.dev/programming-guides/json/); the caller's own keys (tool arguments and
    schemas' property names) are data and keep their spelling."""
    if isinstance(value, list):
        return [_snake_keys(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = _snake(key)
        out[name] = item if name in _FREE_FORM else _snake_keys(item)
        if name in ("data", "thought_signature") and isinstance(item, str):
            out[name] = _standard_base64(item)
    return out


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, dict) else value


def _lone_objects_as_lists(body: Any) -> Any:
    """Gemini: ``contents``, a content's ``parts`` and ``tools`` given as one object are read as
    a list of that object. The REST quickstarts of Google's own Gemini cookbook send all three
    that way (quickstarts/rest/System_instructions_REST.ipynb, Function_calling_REST.ipynb)."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    for key in ("contents", "tools"):
        if key in out:
            out[key] = _as_list(out[key])
    if isinstance(out.get("contents"), list):
        out["contents"] = [
            {**c, "parts": _as_list(c["parts"])} if isinstance(c, dict) and "parts" in c else c
            for c in out["contents"]
        ]
    for key in ("system_instruction", "systemInstruction"):
        content = out.get(key)
        if isinstance(content, dict) and "parts" in content:
            out[key] = {**content, "parts": _as_list(content["parts"])}
    return out


def _turns_merged(messages: list[Any]) -> list[Any]:
    """Anthropic: "consecutive user or assistant turns in your request will be combined into a
    single turn" (Messages API reference, ``messages``)."""
    out: list[Any] = []
    for message in messages:
        previous = out[-1] if out else None
        same = isinstance(previous, dict) and isinstance(message, dict)
        if same and previous["role"] == message.get("role"):
            out[-1] = {**previous, "content": [*previous["content"], *message["content"]]}
        else:
            out.append(message)
    return out


def _null_content_as_absent(message: Any) -> Any:
    """OpenAI Chat: an assistant message's ``content`` is "Required unless ``tool_calls`` or
    ``function_call`` is specified" (API reference, chat/create ``messages[].content``): beside
    them, ``null`` and no content say the same."""
    assistant = isinstance(message, dict) and message.get("role") == "assistant"
    if assistant and "content" in message and message["content"] is None:
        return {k: v for k, v in message.items() if k != "content"}
    return message


def _parsed_arguments(value: Any) -> Any:
    """Tool-call ``arguments`` are JSON text ("the arguments to call the function with, as
    generated by the model in JSON format", chat/create and responses API references): two
    texts holding the same JSON value say the same, whatever their spacing or escapes."""
    if isinstance(value, list):
        return [_parsed_arguments(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "arguments" and isinstance(item, str):
            try:
                out[key] = {"json": json.loads(item)}
                continue
            except ValueError:
                pass
        out[key] = _parsed_arguments(item)
    return out


def _image_detail_auto(value: Any) -> Any:
    """OpenAI Responses: an ``input_image``'s ``detail`` "defaults to ``auto``" (API reference,
    responses/create ``input_image.detail``): absent and ``auto`` say the same."""
    if isinstance(value, list):
        return [_image_detail_auto(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: _image_detail_auto(item) for key, item in value.items()}
    if out.get("type") == "input_image":
        out.setdefault("detail", "auto")
    return out


def _empty_content_as_absent(message: Any) -> Any:
    """Ollama: the server reads each message into ``api.Message``, whose ``Content`` is a plain
    string (ollama/ollama ``api/types.go``), so a message without content has empty content."""
    if isinstance(message, dict) and message.get("content", "") == "":
        return {k: v for k, v in message.items() if k != "content"}
    return message


def normalised(provider: str, kind: str, body: Any) -> Any:
    """``body`` rewritten into one of the forms its provider documents as the same."""
    base = _base(provider)
    body = json.loads(json.dumps(body))
    if base in CHAT_STYLE | {"openai-responses"}:
        body = _parsed_arguments(body)
    if base == "openai-responses" and kind == "request":
        body = _image_detail_auto(body)
    if base == "ollama" and kind == "request" and isinstance(body.get("messages"), list):
        body["messages"] = [_empty_content_as_absent(m) for m in body["messages"]]
    if kind == "request" and base in CHAT_STYLE | {"anthropic"} and isinstance(body, dict):
        if isinstance(body.get("messages"), list):
            body["messages"] = [_one_text_as_list(m) for m in body["messages"]]
            if base != "anthropic":
                body["messages"] = [_null_content_as_absent(m) for m in body["messages"]]
            else:
                body["messages"] = _turns_merged(body["messages"])
        if base == "anthropic" and isinstance(body.get("system"), str):
            body["system"] = [_text_part(body["system"])]
    if base == "gemini":
        body = _snake_keys(_lone_objects_as_lists(body) if kind == "request" else body)
    return body


# -- the round trips ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """``exact``, ``equivalent``, ``refused`` (a `MediaBlocksError`), ``lossy`` (written back
    different) or ``escape`` (any other exception)."""

    status: str
    detail: str = ""


def run(case: Case) -> Outcome:
    """The round trip of one case, classified."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            if case.kind == "stream":
                return _stream(case)
            out = _written_back(case)
    except MediaBlocksError as exc:
        return Outcome("refused", f"{type(exc).__name__}: {exc}")
    except Exception as exc:
        return Outcome("escape", f"{type(exc).__name__}: {exc}")
    out = json.loads(json.dumps(out))
    if out == case.body:
        return Outcome("exact")
    written, recorded = (normalised(case.provider, case.kind, v) for v in (out, case.body))
    if written == recorded:
        return Outcome("equivalent")
    return Outcome("lossy", first_difference(recorded, written))


def _written_back(case: Case) -> Any:
    if case.kind == "request":
        request = mb.decode_request(case.body, case.provider)
        return mb.encode_request(request, case.provider, target="json")
    reply = mb.decode_response(case.body, case.provider)
    return mb.encode_response(reply, case.provider)


def _stream(case: Case) -> Outcome:
    folded = mb.from_stream(case.body["events"], case.provider)
    final = mb.decode_response(case.body["final"], case.provider)
    left, right = _comparable(folded), _comparable(final)
    if left == right:
        return Outcome("exact")
    return Outcome("lossy", first_difference(right, left))


def _comparable(message: mb.AssistantMessage) -> dict[str, Any]:
    """What a stream must deliver, whichever way its chunks were cut: the text, the reasoning
    text, the tool calls, the stop reason, the token counts, the model and the response id."""
    usage = message.usage
    return {
        "text": message.text,
        "thinking": "".join(b.thinking for b in message.content if isinstance(b, mb.ThinkingBlock)),
        "tool_calls": [(c.id, c.name, c.args) for c in message.tool_calls],
        "stop_reason": (message.stop_reason, message.provider_stop_reason),
        "usage": None if usage is None else usage.model_dump(exclude={"raw", "cost"}),
        "model": message.model,
        "response_id": message.response_id,
    }


def first_difference(expected: Any, got: Any, path: str = "$") -> str:
    """Where two JSON values first differ, for a readable failure."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in list(expected) + [k for k in got if k not in expected]:
            if key not in got:
                return f"{path}.{key}: missing (recorded {_short(expected[key])})"
            if key not in expected:
                return f"{path}.{key}: added ({_short(got[key])})"
            if expected[key] != got[key]:
                return first_difference(expected[key], got[key], f"{path}.{key}")
    if isinstance(expected, list) and isinstance(got, list):
        for index, (left, right) in enumerate(zip(expected, got, strict=False)):
            if left != right:
                return first_difference(left, right, f"{path}[{index}]")
        if len(expected) != len(got):
            return f"{path}: {len(expected)} items recorded, {len(got)} written"
    return f"{path}: recorded {_short(expected)}, written {_short(got)}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."
