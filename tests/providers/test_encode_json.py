"""`encode_json`: whole JSON request bodies with the media base64 streamed into the output."""

from __future__ import annotations

import base64
import binascii
import importlib.util
import io
import json
import os
import threading
import tracemalloc
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from PIL import Image
from pydantic import BaseModel
from tests.conftest import make_wav

import mediablocks as mb
from mediablocks.encoding import encode, encode_json
from mediablocks.providers import (
    PROVIDERS,
    TRANSLATORS,
    EncodeOptions,
    InvalidOptionError,
    MediaSink,
)
from mediablocks.providers._json import CHUNK, write_json

AVAILABLE = [
    name
    for name in PROVIDERS
    if importlib.util.find_spec(f"mediablocks.providers.{TRANSLATORS[name][0]}") is not None
]


def jpeg_of_size(size: int) -> bytes:
    """A real JPEG header (from Pillow) followed by incompressible bytes, ``size`` bytes long."""
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "purple").save(buffer, "JPEG")
    head = buffer.getvalue()
    return head + os.urandom(max(0, size - len(head)))


def history_with(*blocks: Any) -> list[Any]:
    return [mb.SystemMessage.text("sys"), mb.UserMessage(content=["look", *blocks])]


# -- the output is the JSON encoding, media included ------------------------------------------


def test_body_is_the_fields_then_the_json_encoding_with_real_base64(png_bytes: bytes) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    body = encode_json(history_with(image), "openai", model="gpt-4o", max_tokens=10)
    parsed = json.loads(body)
    assert list(parsed) == ["model", "max_tokens", "messages"]
    url = parsed["messages"][1]["content"][1]["image_url"]["url"]
    assert url == "data:image/png;base64," + base64.b64encode(png_bytes).decode("ascii")
    assert parsed == {"model": "gpt-4o", "max_tokens": 10, **encode(history_with(image), "openai")}


@pytest.mark.parametrize("name", AVAILABLE)
def test_every_available_translator_gives_the_same_body_as_its_json_target(
    name: str, jpeg_bytes: bytes
) -> None:
    if not mb.limits_for(name).image_types:
        pytest.skip(f"{name} takes no images")
    history = history_with(mb.ImageBlock.from_bytes(jpeg_bytes))
    parsed = json.loads(encode_json(history, name))
    assert parsed == encode(history, name, target="json")
    assert base64.b64encode(jpeg_bytes).decode() in json.dumps(parsed)


@pytest.mark.parametrize(
    "size", [0, 1, 2, 3, 4, 5, CHUNK - 1, CHUNK, CHUNK + 1, CHUNK + 2, 3 * CHUNK + 1]
)
def test_base64_is_exact_for_every_length_around_the_chunk_size(size: int) -> None:
    data = jpeg_of_size(size) if size >= 700 else None
    block: Any
    if data is None:
        data = b"%PDF-1.4\n" + os.urandom(size)  # a PDF signature, then arbitrary bytes
        block = mb.FileBlock.from_bytes(data, filename="x.pdf")
        expected = "data:application/pdf;base64," + base64.b64encode(data).decode()
        path = ("file", "file_data")
    else:
        block = mb.ImageBlock.from_bytes(data)
        expected = "data:image/jpeg;base64," + base64.b64encode(data).decode()
        path = ("image_url", "url")
    part = json.loads(encode_json(mb.UserMessage(content=[block]), "openai"))["messages"][0]
    assert part["content"][0][path[0]][path[1]] == expected


def test_bare_base64_fields_are_streamed_too(wav_bytes: bytes) -> None:
    body = json.loads(encode_json(mb.UserMessage.with_audio(None, [wav_bytes]), "openai"))
    audio = body["messages"][0]["content"][0]["input_audio"]
    assert audio == {"data": base64.b64encode(wav_bytes).decode(), "format": "wav"}


def test_one_block_used_twice_is_written_twice(png_bytes: bytes) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    parsed = json.loads(
        encode_json([mb.UserMessage(content=[image, "and again", image])], "openai")
    )
    urls = [p["image_url"]["url"] for p in parsed["messages"][0]["content"] if "image_url" in p]
    assert len(urls) == 2
    assert urls[0] == urls[1] == "data:image/png;base64," + base64.b64encode(png_bytes).decode()


def test_text_is_utf8_and_placeholder_lookalikes_in_user_text_stay_text(png_bytes: bytes) -> None:
    sneaky = "\ue000mediablocks-media-0\ue001 and \ue000mediablocks-media-"
    text = f'grüße {sneaky} \u2028 "quoted" \\ end'
    image = mb.ImageBlock.from_bytes(png_bytes)
    body = encode_json([mb.UserMessage(content=[text, image])], "openai")
    assert "grüße".encode() in body  # UTF-8, not \\u escapes
    parts = json.loads(body)["messages"][0]["content"]
    assert parts[0] == {"type": "text", "text": text}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


def test_each_sink_has_its_own_unguessable_token() -> None:
    first, second = MediaSink(), MediaSink()
    assert first.token != second.token
    assert first.token.startswith("\ue000")
    assert json.dumps(first.add(object(), "base64"), ensure_ascii=False)[1:-1] == (
        first.token + "0\ue001"
    )  # written literally by json.dumps, so the placeholder can be found in its output


def test_cached_base64_is_reused_instead_of_encoding_again(
    png_bytes: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    cached, _ = image.to_base64()
    calls: list[int] = []
    real = binascii.b2a_base64

    def counting(data: Any, *, newline: bool = True) -> bytes:
        calls.append(len(data))
        return real(data, newline=newline)

    monkeypatch.setattr(binascii, "b2a_base64", counting)
    body = json.loads(encode_json(mb.UserMessage(content=[image]), "openai"))
    assert calls == []
    assert body["messages"][0]["content"][0]["image_url"]["url"].endswith(cached)


def test_url_media_are_fetched_under_the_given_policy(png_bytes: bytes) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "audio/wav")
            self.send_header("Content-Length", str(len(wav)))
            self.end_headers()
            self.wfile.write(wav)

        def log_message(self, *args: Any) -> None:
            pass

    wav = make_wav(0.02)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/clip.wav"
        message = mb.UserMessage(content=[mb.AudioBlock.from_url(url)])
        with pytest.raises(mb.BlockedURLError):
            encode_json(message, "openai")
        options = EncodeOptions(policy=mb.FetchPolicy(allow_private=True))
        body = json.loads(encode_json(message, "openai", options=options))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert body["messages"][0]["content"][0]["input_audio"]["data"] == base64.b64encode(wav).decode(
        "ascii"
    )


def test_options_apply_but_the_target_is_always_json() -> None:
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[mb.ThinkingBlock(thinking="hmm"), mb.TextBlock(text="a")]),
    ]
    options = EncodeOptions(target="sdk", thinking="text")
    body = json.loads(encode_json(history, "openai", options=options))
    assert body["messages"][1]["content"][0] == {"type": "text", "text": "hmm"}


# -- fields -----------------------------------------------------------------------------------


def test_fields_that_the_messages_produce_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match=r"messages come from the messages"):
        encode_json(mb.UserMessage.text("hi"), "openai", messages=[])


def test_a_dict_given_as_options_is_the_request_field_of_that_name() -> None:
    if "ollama" not in AVAILABLE:
        pytest.skip("the ollama translator is not written yet")
    body = json.loads(encode_json(mb.UserMessage.text("hi"), "ollama", options={"seed": 1}))
    assert body["options"] == {"seed": 1}
    assert body["messages"][0]["content"] == "hi"


def test_pydantic_fields_are_written_as_json_and_other_objects_refused() -> None:
    class Format(BaseModel):
        type: str = "json_object"
        note: str | None = None

    body = json.loads(encode_json(mb.UserMessage.text("hi"), "openai", response_format=Format()))
    assert body["response_format"] == {"type": "json_object"}
    with pytest.raises(InvalidOptionError, match=r"a set cannot be written as JSON"):
        encode_json(mb.UserMessage.text("hi"), "openai", stop={"x"})
    with pytest.raises(InvalidOptionError, match=r"raw bytes"):
        encode_json(mb.UserMessage.text("hi"), "openai", user=b"ana")
    with pytest.raises(InvalidOptionError, match=r"not valid JSON"):
        encode_json(mb.UserMessage.text("hi"), "openai", temperature=float("nan"))


def test_write_json_without_media_is_plain_compact_json() -> None:
    assert write_json({"a": [1, "é"]}, MediaSink()) == '{"a":[1,"é"]}'.encode()


# -- memory -------------------------------------------------------------------------------------


def test_the_output_is_built_in_place_without_whole_base64_copies() -> None:
    data = jpeg_of_size(6 * 1024 * 1024)
    image = mb.ImageBlock.from_bytes(data)
    message = mb.UserMessage(content=[image])
    encode_json(message, "openai")  # warm up imports and caches that are not per call
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        body = encode_json(message, "openai")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    base64_size = (len(data) + 2) // 3 * 4
    assert len(body) < base64_size + 200
    # The output itself is 4/3 of the payload; a second full copy would make it 8/3.
    assert peak - before < 1.45 * len(data)
    assert image.source.cached_base64() is None  # the block's cache was not filled either
