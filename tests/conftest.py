"""Shared fixtures: the bundled test data, small media made with real encoders, a local HTTP
server, and checks of payloads against the SDKs' own types."""

from __future__ import annotations

import base64
import functools
import io
import json
import threading
import wave
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pydantic import TypeAdapter

import mediablocks as mb

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"
PUBLIC_TESTDATA = TESTDATA / "public"  # MIT-licensed real-world files (notice: public/LICENSE)


def load_manifest() -> dict[str, dict[str, Any]]:
    """testdata/manifest.json: relative path -> what the encoder made (empty if absent)."""
    manifest = TESTDATA / "manifest.json"
    if not manifest.exists():
        return {}
    data: dict[str, dict[str, Any]] = json.loads(manifest.read_text())
    return data


def make_png(size: tuple[int, int] = (32, 24), mode: str = "RGB", color: Any = "red") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, "PNG")
    return buffer.getvalue()


def make_jpeg(size: tuple[int, int] = (32, 24), color: Any = "blue") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def image_bytes(fmt: str, size: tuple[int, int] = (12, 9), color: Any = "green") -> bytes:
    """A small image in any format Pillow writes (``"PNG"``, ``"WEBP"``, ``"GIF"``...)."""
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, fmt)
    return buffer.getvalue()


def make_pdf() -> bytes:
    """A real one-page PDF (Pillow's PDF writer)."""
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(buffer, "PDF")
    return buffer.getvalue()


def make_bmp() -> bytes:
    """A BMP image: a format most providers refuse."""
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "green").save(buffer, "BMP")
    return buffer.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def make_wav(seconds: float = 0.1, rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x00\x01" * int(seconds * rate))
    return buffer.getvalue()


def pyav_audio(
    seconds: int,
    container: str,
    codec: str,
    second_of_sound: Callable[[int], tuple[Any, str]],
    rate: int = 16000,
    layout: str = "mono",
) -> bytes:
    """``seconds`` of audio at ``rate`` Hz in ``layout`` encoded by PyAV as ``container`` with
    ``codec`` (the test is skipped without PyAV). ``second_of_sound(n)`` gives second ``n``: its
    samples, an array of shape ``(1, rate)`` (``(1, 2 * rate)``, interleaved, for a packed
    ``"stereo"`` format), and their PyAV sample format (``"s16"``, ``"flt"``...)."""
    av = pytest.importorskip("av")
    buffer = io.BytesIO()
    with av.open(buffer, "w", format=container) as output:
        stream = output.add_stream(codec, rate=rate, layout=layout)
        for second in range(seconds):
            samples, sample_format = second_of_sound(second)
            frame = av.AudioFrame.from_ndarray(samples, format=sample_format, layout=layout)
            frame.sample_rate, frame.pts = rate, second * rate
            for packet in stream.encode(frame):
                output.mux(packet)
        for packet in stream.encode(None):
            output.mux(packet)
    return buffer.getvalue()


@pytest.fixture
def png_bytes() -> bytes:
    return make_png()


@pytest.fixture
def jpeg_bytes() -> bytes:
    return make_jpeg()


@pytest.fixture
def wav_bytes() -> bytes:
    return make_wav()


def tool_call_history() -> list[Any]:
    """Two tool calls (the second with arguments that are not JSON) and their results, one as
    text and one as a list of text blocks, between user and assistant text."""
    return [
        mb.UserMessage.text("weather in Paris and Rome?"),
        mb.AssistantMessage(
            content=[
                mb.TextBlock(text="checking"),
                mb.ToolCallBlock(id="call_1", name="weather", args={"city": "Paris"}),
                mb.ToolCallBlock(id="call_2", name="weather", args={}, raw_args="{city: Rome"),
            ]
        ),
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(tool_call_id="call_1", content="sunny", name="weather"),
                mb.ToolResultBlock(
                    tool_call_id="call_2",
                    content=[mb.TextBlock(text="bad"), mb.TextBlock(text="arguments")],
                    name="weather",
                ),
            ]
        ),
        mb.AssistantMessage.text("Paris is sunny."),
    ]


# -- a local HTTP server ----------------------------------------------------------------------


class RouteHandler(BaseHTTPRequestHandler):
    """Serves ``routes`` (path -> (content type, body)), 404 elsewhere, and records requests:
    ``seen`` holds ``(method, path, body)``, ``hits`` the paths."""

    routes: dict[str, tuple[str, bytes]] = {}
    seen: list[tuple[str, str, bytes]] = []
    hits: list[str] = []
    match_prefix = False
    """True: a route serves every path that starts with it (for SDK endpoints with queries)."""
    reply_headers: dict[str, str] = {}

    def _route(self) -> tuple[str, bytes] | None:
        if self.match_prefix:
            route = next((r for r in self.routes if self.path.startswith(r)), None)
            return self.routes[route] if route else None
        return self.routes.get(self.path)

    def _reply(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.seen.append((self.command, self.path, body))
        self.hits.append(self.path)
        found = self._route()
        content_type, payload = found or ("text/plain", b"not found")
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in self.reply_headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    do_GET = _reply
    do_POST = _reply

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def serve(**settings: Any) -> Iterator[tuple[str, type[RouteHandler]]]:
    """A real HTTP server on 127.0.0.1: ``(base URL, handler class)``; the test fills in
    ``handler.routes``. ``settings`` override `RouteHandler` attributes (``match_prefix``...)."""
    handler = type("Handler", (RouteHandler,), {"routes": {}, "seen": [], "hits": [], **settings})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server() -> Iterator[tuple[str, type[RouteHandler]]]:
    """A real HTTP server on 127.0.0.1 with routes the test fills in."""
    with serve() as running:
        yield running


# -- payloads against the SDKs' own types -----------------------------------------------------


def typed_dict_keys(typed_dict: Any) -> frozenset[str]:
    """Every key a TypedDict declares, required or not."""
    return frozenset(typed_dict.__required_keys__ | typed_dict.__optional_keys__)


@functools.cache
def type_adapter(typed: Any) -> TypeAdapter[Any]:
    """A pydantic adapter per SDK type, built once (they are slow to build)."""
    return TypeAdapter(typed)


def check_typed_dict(typed_dict: Any, value: dict[str, Any]) -> None:
    """Validate with the SDK's TypedDict, and refuse keys it does not have at any depth
    (pydantic ignores them, in nested TypedDicts too)."""
    type_adapter(typed_dict).validate_python(value)
    problem = unknown_keys(typed_dict, value, typed_dict.__name__)
    assert problem is None, problem


def _unwrap(annotation: Any) -> Any:
    """``Required[X]``, ``NotRequired[X]``, ``ReadOnly[X]``, ``Annotated[X, ...]`` -> ``X``."""
    import typing

    import typing_extensions

    wrappers = {
        typing.Annotated,
        typing_extensions.Required,
        typing_extensions.NotRequired,
        typing_extensions.ReadOnly,
        typing.Required,
        typing.NotRequired,
    }
    while typing.get_origin(annotation) in wrappers:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _shape(annotation: Any) -> type | None:
    """``dict`` for TypedDicts and mappings, ``list`` for sequences, ``str``... for the rest;
    None for ``Any`` (fits everything)."""
    import collections.abc
    import typing

    import typing_extensions

    if annotation is Any or annotation is object:
        return None
    if typing_extensions.is_typeddict(annotation) or typing.is_typeddict(annotation):
        return dict
    origin = typing.get_origin(annotation) or annotation
    if origin in (dict, collections.abc.Mapping, typing.Mapping):
        return dict
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence):
        return list
    return origin if isinstance(origin, type) else type(None)


def unknown_keys(annotation: Any, value: Any, path: str) -> str | None:
    """Where ``value`` holds a key that no TypedDict of ``annotation`` declares (recursing into
    lists and into the one union member that fits), or None when every key is known."""
    import collections.abc
    import types
    import typing

    import typing_extensions

    annotation = _unwrap(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        arms = [_unwrap(arm) for arm in typing.get_args(annotation)]
        if isinstance(value, (dict, list)):  # only arms of the same shape can hold it
            arms = [arm for arm in arms if _shape(arm) in (type(value), None)] or arms
        found = [unknown_keys(arm, value, path) for arm in arms]
        return None if any(item is None for item in found) else found[0]
    if typing_extensions.is_typeddict(annotation) or typing.is_typeddict(annotation):
        if not isinstance(value, dict):
            return f"{path}: {type(value).__name__}, not {annotation.__name__}"
        hints = typing.get_type_hints(annotation, include_extras=True)
        unknown = set(value) - set(hints)
        if unknown:
            return f"{path}: {annotation.__name__} has no key(s) {sorted(unknown)}"
        for key, item in value.items():
            problem = unknown_keys(hints[key], item, f"{path}.{key}")
            if problem is not None:
                return problem
        return None
    iterables = (
        list,
        collections.abc.Iterable,
        collections.abc.Sequence,
        typing.Iterable,
        typing.Sequence,
    )
    if origin in iterables and isinstance(value, list):
        (item_type,) = typing.get_args(annotation)[:1] or (Any,)
        for index, item in enumerate(value):
            problem = unknown_keys(item_type, item, f"{path}[{index}]")
            if problem is not None:
                return problem
        return None
    if origin is typing_extensions.Literal or origin is typing.Literal:
        return None if value in typing.get_args(annotation) else f"{path}: {value!r} not allowed"
    return None


def model_keys(model: type[Any]) -> set[str]:
    """Every field name (by alias) of an SDK pydantic model."""
    return {field.alias or name for name, field in model.model_fields.items()}


def without_raw(usage: Any) -> Any:
    """A decoded `Usage` without the provider's raw record, to compare the normalised numbers."""
    assert usage is not None
    assert usage.raw, "a decoded usage keeps the provider's own numbers"
    return usage.model_copy(update={"raw": {}})
