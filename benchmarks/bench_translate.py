"""Translating a long history between providers, against a copy-only translator.

The history: 200 Anthropic messages (user and assistant turns, a tool call and its result every
tenth turn) holding 20 base64 images of 1 MiB each, as a request body's ``messages`` list. Each
case turns it into OpenAI Chat ``messages``:

- ``mediablocks``: ``mb.encode(mb.decode(history, "anthropic"), "openai-chat")``;
- ``llm-babel``: ``llm_transform.registry.translate("anthropic-messages", "openai-chat", body)``,
  a translator that copies base64 text through and never looks at the bytes (installed from
  ``benchmarks/requirements.txt``; a "not installed" row otherwise);
- ``copy floor``: the images' base64 text put into data URIs by plain string concatenation, the
  least any translator to OpenAI Chat must do.

Also measured (issue 21): a 2,000-message text-only history to OpenAI Chat (the fixed cost per
message; the floor builds one list per message), and the image history as OpenAI Chat messages to
Gemini with the default SDK target and with ``target="json"`` (the floor splits each data URI into
``inline_data``). Goal: mediablocks at most 1.5x llm-babel on every case.

Also measured: one 10 MiB data URI to bytes through ``parse_data_uri`` against
``binascii.a2b_base64`` on the same text, time and peak memory as multiples of the payload.

Run from the repository root: ``python benchmarks/bench_translate.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import io
import os
import random
import sys
from collections.abc import Sequence
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Case, MiB, measure, mebibytes, median, milliseconds, table

import mediablocks as mb
from mediablocks.datauri import parse_data_uri


def _jpeg(size: int, seed: int) -> bytes:
    """A real JPEG of about ``size`` bytes: random noise so it does not compress away."""
    from PIL import Image

    rng = random.Random(seed)
    side = 600
    while True:
        image = Image.frombytes("RGB", (side, side), rng.randbytes(side * side * 3))
        out = io.BytesIO()
        image.save(out, "JPEG", quality=90)
        if out.tell() >= size:
            return out.getvalue()
        side += 100


def history(images: int = 20, messages: int = 200, image_size: int = MiB) -> list[dict[str, Any]]:
    """An Anthropic ``messages`` list with ``images`` base64 JPEGs spread over ``messages``."""
    photo = base64.b64encode(_jpeg(image_size, 1)).decode("ascii")
    every = max(1, messages // images)
    out: list[dict[str, Any]] = []
    for index in range(messages):
        if index % 2 == 0:
            content: list[dict[str, Any]] = [{"type": "text", "text": f"question {index} " * 20}]
            if index % every == 0 and sum(1 for _ in _images(out)) < images:
                # A distinct string per image, as a real history has (no shared cache).
                text = photo[:-8] + base64.b64encode(index.to_bytes(6, "big")).decode()
                source = {"type": "base64", "media_type": "image/jpeg", "data": text}
                content.append({"type": "image", "source": source})
            if index % 10 == 4:
                content = [
                    {"type": "tool_result", "tool_use_id": f"call_{index - 1}", "content": "42"}
                ]
            out.append({"role": "user", "content": content})
        else:
            content = [{"type": "text", "text": f"answer {index} " * 40}]
            if index % 10 == 3:
                content.append(
                    {"type": "tool_use", "id": f"call_{index}", "name": "f", "input": {"x": index}}
                )
            out.append({"role": "assistant", "content": content})
    return out


def _images(messages: list[dict[str, Any]]) -> Any:
    for message in messages:
        for part in message["content"]:
            if part.get("type") == "image":
                yield part


def _count_data_uris(messages: Any) -> int:
    found = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
                found += url.startswith("data:image/jpeg;base64,")
    return found


def translate_cases(body: dict[str, Any], images: int) -> list[Case]:
    def check(result: Any) -> None:
        messages = result["messages"] if isinstance(result, dict) else result
        assert _count_data_uris(messages) == images, "every image must arrive as a data URI"

    def ours(_: Any) -> Any:
        return mb.encode(mb.decode(body, "anthropic"), "openai-chat")

    def floor(_: Any) -> Any:
        out = []
        for message in body["messages"]:
            parts = []
            for part in message["content"]:
                if part["type"] == "image":
                    source = part["source"]
                    url = f"data:{source['media_type']};base64," + source["data"]
                    parts.append({"type": "image_url", "image_url": {"url": url}})
                else:
                    parts.append(part)
            out.append({"role": message["role"], "content": parts})
        return out

    cases = [
        Case("copy floor (concatenation only)", floor, check=check),
        Case("mediablocks decode + encode", ours, check=check),
    ]
    try:
        from llm_transform import registry

        def babel(_: Any) -> Any:
            return registry.translate("anthropic-messages", "openai-chat", body)

        cases.append(Case("llm-babel translate", babel, check=check))
    except ImportError:
        cases.append(Case("llm-babel translate", lambda _: None, api="not installed"))
        cases[-1].error = "not installed"
    return cases


def text_history(messages: int) -> list[dict[str, Any]]:
    """The same history shape with no images (``messages`` turns): the per-message fixed cost."""
    out = history(images=1, messages=messages, image_size=1024)
    for message in out:
        message["content"] = [part for part in message["content"] if part["type"] != "image"]
    return out


def text_cases(body: dict[str, Any]) -> list[Case]:
    """A text-only history to OpenAI Chat: the per-message cost with no media to move."""

    def check(result: Any) -> None:
        messages = result["messages"] if isinstance(result, dict) else result
        assert len(messages) >= len(body["messages"])

    def floor(_: Any) -> Any:
        return [{"role": m["role"], "content": list(m["content"])} for m in body["messages"]]

    cases = [
        Case("copy floor (one list per message)", floor, check=check),
        Case(
            "mediablocks decode + encode",
            lambda _: mb.encode(mb.decode(body, "anthropic"), "openai-chat"),
            check=check,
        ),
    ]
    cases.append(_babel_case("anthropic-messages", "openai-chat", body, check))
    return cases


def gemini_cases(body: dict[str, Any], images: int) -> list[Case]:
    """The image history from OpenAI Chat to Gemini, with the default (SDK) target and JSON."""
    chat = {"messages": mb.encode(mb.decode(body, "anthropic"), "openai-chat")["messages"]}

    def count_inline(result: Any) -> int:
        contents = result["contents"] if isinstance(result, dict) else result
        found = 0
        for content in contents:
            parts = content.get("parts", []) if isinstance(content, dict) else content.parts
            for part in parts:
                inline = (
                    part.get("inline_data") or part.get("inlineData")
                    if isinstance(part, dict)
                    else part.inline_data
                )
                found += inline is not None
        return found

    def check(result: Any) -> None:
        assert count_inline(result) == images, "every image must arrive inline"

    def floor(_: Any) -> Any:
        contents = []
        for message in chat["messages"]:
            parts: list[dict[str, Any]] = []
            content = message.get("content")
            for part in content if isinstance(content, list) else []:
                if part.get("type") == "image_url":
                    url = part["image_url"]["url"]
                    mime, _, data = url[5:].partition(";base64,")
                    parts.append({"inline_data": {"mime_type": mime, "data": data}})
                elif part.get("type") == "text":
                    parts.append({"text": part["text"]})
            contents.append(
                {"role": "model" if message["role"] == "assistant" else "user", "parts": parts}
            )
        return {"contents": contents}

    cases = [
        Case("copy floor (split the data URIs)", floor, check=check),
        Case(
            "mediablocks decode + encode (SDK target)",
            lambda _: mb.encode(mb.decode(chat, "openai-chat"), "gemini"),
            check=check,
        ),
        Case(
            "mediablocks decode + encode (JSON target)",
            lambda _: mb.encode(mb.decode(chat, "openai-chat"), "gemini", target="json"),
            check=check,
        ),
    ]

    def check_babel(result: Any) -> None:
        uris = [
            part["fileData"]["fileUri"]
            for content in result["contents"]
            for part in content["parts"]
            if "fileData" in part
        ]
        assert len(uris) == images
        assert all(uri.startswith("data:") for uri in uris)

    babel = _babel_case("openai-chat", "gemini", chat, check_babel)
    # llm-babel 0.3 puts each data URI in fileData.fileUri, which Gemini does not take (inline
    # base64 goes in inlineData): its row copies the URIs through and splits nothing.
    babel.name = "llm-babel translate (data URIs as fileData)"
    cases.append(babel)
    return cases


def _babel_case(source: str, target: str, body: dict[str, Any], check: Any) -> Case:
    try:
        from llm_transform import registry
    except ImportError:
        case = Case("llm-babel translate", lambda _: None, api="not installed")
        case.error = "not installed"
        return case
    return Case(
        "llm-babel translate", lambda _: registry.translate(source, target, body), check=check
    )


def data_uri_cases(size: int) -> list[Case]:
    payload = _jpeg(size, 2)
    text = base64.b64encode(payload).decode("ascii")
    uri = "data:image/jpeg;base64," + text

    def check(result: Any) -> None:
        assert result == payload

    return [
        Case("binascii.a2b_base64(text)", lambda _: binascii.a2b_base64(text), check=check),
        Case("parse_data_uri(uri).data", lambda _: parse_data_uri(uri).data, check=check),
        Case(
            "ImageBlock.from_data_uri(uri).read()",
            lambda _: mb.ImageBlock.from_data_uri(uri).read(),
            check=check,
        ),
    ]


def report(cases: list[Case], payload: int) -> str:
    base = median(cases[0]) if cases[0].times else None
    rows = []
    for case in cases:
        if case.error is not None:
            rows.append([case.name, case.error[:60], "", "", ""])
            continue
        time = median(case)
        rows.append(
            [
                case.name,
                milliseconds(time),
                f"{time / base:.2f}x" if base else "",
                mebibytes(case.peak or 0),
                f"{(case.peak or 0) / payload:.2f}x",
            ]
        )
    return table(["case", "median ms", "vs first row", "peak MiB", "peak / payload"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--images", type=int, default=20)
    args = parser.parse_args(argv)

    body = {"messages": history(args.images)}
    payload = sum(len(part["source"]["data"]) for part in _images(body["messages"]))
    cases = translate_cases(body, args.images)
    measure(cases, args.rounds)
    print(f"200-message Anthropic history, {args.images} x 1 MiB images -> OpenAI Chat")
    print(report(cases, payload))
    print()
    text_body = {"messages": text_history(2000)}
    plain = text_cases(text_body)
    measure(plain, args.rounds)
    print("2,000-message Anthropic history, text only -> OpenAI Chat")
    print(report(plain, 1))
    print()
    to_gemini = gemini_cases(body, args.images)
    measure(to_gemini, args.rounds)
    print(f"the same {args.images}-image history as OpenAI Chat -> Gemini")
    print(report(to_gemini, payload))
    print()
    uri_cases = data_uri_cases(10 * MiB)
    measure(uri_cases, args.rounds)
    print("10 MiB data URI -> bytes")
    print(report(uri_cases, 10 * MiB))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
