"""Encode speed and memory: one large image into provider messages and request bodies.

For 1, 10 and 40 MiB images (random bytes behind a real PNG header, so MIME detection works and
nothing compresses), each row does the whole job starting from the bytes in memory, and is
compared with ``binascii.b2a_base64`` of the same bytes measured in the same run:

- mediablocks: ``mb.encode([UserMessage], provider)`` for the OpenAI Chat data-URI image part
  and the Anthropic base64 image block, ``mb.encode_json(...)`` for a whole request body, and the
  same message encoded again (the block's base64 is reused, asserted below);
- langchain-core, pydantic-ai, llama-index and instructor doing the same through their own APIs
  (the row says which API; a library that is not installed gets a "not installed" row).

Every block is built fresh before each timed run (not timed), so nothing is served from a cache
unless the row says so. Run from the repository root, in the benchmark venv (see README.md):

    .bench-venv/bin/python benchmarks/bench_encode.py [--sizes 1,10,40] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import json
import os
import struct
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from _common import Case, MiB, measure, mebibytes, median, milliseconds, table

import mediablocks as mb

PNG = "image/png"
PROMPT = "Describe this image."
ANTHROPIC_MODEL = "claude-sonnet-4-5"
OPENAI_MODEL = "gpt-4o"

# Targets from the issues: time and peak extra memory as multiples of the baseline / payload.
TARGETS: dict[str, tuple[float, float]] = {
    "mediablocks openai data-URI part": (1.6, 2.7),
    "mediablocks anthropic block": (1.3, 2.7),
    "mediablocks encode_json anthropic": (1.2, 1.5),
    "mediablocks encode_json openai": (1.2, 1.5),
}


STR_FLOOR = "stdlib b2a_base64 + .decode()"
"""The least any code pays for base64 as a Python str: the encoding plus one copy into the str."""


def png_of_size(size: int) -> bytes:
    """A PNG signature and a valid IHDR chunk, then random bytes up to ``size``."""
    header = struct.pack(">IIBBBBB", 4096, 4096, 8, 2, 0, 0, 0)
    ihdr = struct.pack(">I", len(header)) + b"IHDR" + header
    ihdr += struct.pack(">I", zlib.crc32(b"IHDR" + header))
    head = b"\x89PNG\r\n\x1a\n" + ihdr
    return head + os.urandom(size - len(head))


# -- checks: each case's result must really carry the image -----------------------------------


def _largest_text(value: Any) -> str | bytes:
    """The longest str or bytes anywhere in a nested result (where the base64 ends up)."""
    best: str | bytes = ""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes)):
            if len(item) > len(best):
                best = item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif hasattr(item, "__dict__"):
            stack.extend(vars(item).values())
    return best


def carries(expected: str, *, data_uri: bool = False) -> Callable[[Any], None]:
    """A check that the result holds exactly ``expected`` base64 (as a data URI if asked)."""

    def check(result: Any) -> None:
        text = _largest_text(result)
        if isinstance(text, bytes):
            text = text.decode("ascii", "replace")
        wanted = f"data:{PNG};base64,{expected}" if data_uri else expected
        if wanted not in text:
            raise AssertionError(f"the result does not carry the image ({len(text)} chars)")

    return check


# -- mediablocks --------------------------------------------------------------------------------


def _mb_message(data: bytes) -> list[Any]:
    return [mb.UserMessage(content=[mb.TextBlock(text=PROMPT), mb.ImageBlock.from_bytes(data)])]


def _anthropic_image(encoded: dict[str, Any]) -> Any:
    return encoded["messages"][0]["content"][1]["source"]["data"]


def mediablocks_cases(data: bytes, b64: str) -> list[Case]:
    def again() -> tuple[list[Any], str]:
        messages = _mb_message(data)
        return messages, _anthropic_image(mb.encode(messages, "anthropic"))

    def check_again(result: tuple[dict[str, Any], str]) -> None:
        encoded, first = result
        if _anthropic_image(encoded) is not first:
            raise AssertionError("the block's base64 was computed again, not reused")
        carries(b64)(first)

    return [
        Case(
            "mediablocks openai data-URI part",
            lambda messages: mb.encode(messages, "openai"),
            lambda: _mb_message(data),
            carries(b64, data_uri=True),
            api="mb.encode(messages, 'openai')",
        ),
        Case(
            "mediablocks anthropic block",
            lambda messages: mb.encode(messages, "anthropic"),
            lambda: _mb_message(data),
            carries(b64),
            api="mb.encode(messages, 'anthropic')",
        ),
        Case(
            "mediablocks anthropic, same message again",
            lambda state: (mb.encode(state[0], "anthropic"), state[1]),
            again,
            check_again,
            api="mb.encode again: base64 reused",
        ),
        Case(
            "mediablocks encode_json anthropic",
            lambda messages: mb.encode_json(
                messages, "anthropic", model=ANTHROPIC_MODEL, max_tokens=1024
            ),
            lambda: _mb_message(data),
            carries(b64),
            api="mb.encode_json -> body bytes",
        ),
        Case(
            "mediablocks encode_json openai",
            lambda messages: mb.encode_json(messages, "openai", model=OPENAI_MODEL),
            lambda: _mb_message(data),
            carries(b64, data_uri=True),
            api="mb.encode_json -> body bytes",
        ),
    ]


# -- the standard library: what any code pays ---------------------------------------------------


def stdlib_cases(data: bytes, b64: str) -> list[Case]:
    def json_body(raw: bytes) -> bytes:
        image = base64.b64encode(raw).decode("ascii")
        source = {"type": "base64", "media_type": PNG, "data": image}
        content = [{"type": "text", "text": PROMPT}, {"type": "image", "source": source}]
        body = {"model": ANTHROPIC_MODEL, "max_tokens": 1024}
        body["messages"] = [{"role": "user", "content": content}]
        return json.dumps(body).encode("utf-8")

    return [
        Case(
            STR_FLOOR,
            lambda raw: binascii.b2a_base64(raw, newline=False).decode("ascii"),
            lambda: data,
            carries(b64),
            api="the floor for a str result",
        ),
        Case(
            "stdlib json.dumps body",
            json_body,
            lambda: data,
            carries(b64),
            api="b64encode + json.dumps().encode()",
        ),
    ]


# -- other libraries, through their own APIs ----------------------------------------------------


def langchain_cases(data: bytes, b64: str) -> list[Case]:
    from langchain_core.messages import HumanMessage
    from langchain_core.messages.utils import convert_to_openai_messages

    def message(raw: bytes) -> Any:
        # The user base64-encodes: langchain's image content block holds base64 text.
        image = {"type": "image", "base64": base64.b64encode(raw).decode(), "mime_type": PNG}
        return HumanMessage(content=[{"type": "text", "text": PROMPT}, image])

    cases = [
        Case(
            "langchain-core openai data-URI part",
            lambda raw: convert_to_openai_messages([message(raw)]),
            lambda: data,
            carries(b64, data_uri=True),
            api="HumanMessage + convert_to_openai_messages",
        )
    ]
    try:
        from langchain_anthropic import ChatAnthropic
    except ImportError:
        cases.append(not_installed("langchain-anthropic anthropic block"))
    else:
        model = ChatAnthropic(model=ANTHROPIC_MODEL, api_key="unused")  # type: ignore[call-arg]
        cases.append(
            Case(
                "langchain-anthropic anthropic block",
                lambda raw: model._get_request_payload([message(raw)]),
                lambda: data,
                carries(b64),
                api="ChatAnthropic._get_request_payload (private; what .invoke runs)",
            )
        )
    return cases


def pydantic_ai_cases(data: bytes, b64: str) -> list[Case]:
    from pydantic_ai.messages import BinaryContent, ModelRequest, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    def request(raw: bytes) -> list[Any]:
        part = UserPromptPart(content=[PROMPT, BinaryContent(data=raw, media_type=PNG)])
        return [ModelRequest(parts=[part])]

    cases: list[Case] = []
    try:
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider
    except ImportError:
        cases.append(not_installed("pydantic-ai openai data-URI part"))
    else:
        openai_model = OpenAIChatModel(OPENAI_MODEL, provider=OpenAIProvider(api_key="unused"))
        parameters = ModelRequestParameters()
        cases.append(
            Case(
                "pydantic-ai openai data-URI part",
                lambda raw: asyncio.run(openai_model._map_messages(request(raw), parameters)),
                lambda: data,
                carries(b64, data_uri=True),
                api="OpenAIChatModel._map_messages (private)",
            )
        )
    try:
        from anthropic import AsyncAnthropic
        from anthropic._utils import prepare_request_data
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider
    except ImportError:
        cases.append(not_installed("pydantic-ai anthropic block"))
    else:
        client = AsyncAnthropic(api_key="unused")
        anthropic_model = AnthropicModel(
            ANTHROPIC_MODEL, provider=AnthropicProvider(anthropic_client=client)
        )

        async def anthropic_body(raw: bytes) -> Any:
            parameters = ModelRequestParameters()
            _, messages = await anthropic_model._map_message(request(raw), parameters, {})
            # pydantic-ai hands the SDK a BytesIO; the SDK base64-encodes it while preparing
            # the request, so that step is part of the work.
            body = {"model": ANTHROPIC_MODEL, "max_tokens": 1024, "messages": messages}
            return prepare_request_data(body, location="body")

        cases.append(
            Case(
                "pydantic-ai anthropic block",
                lambda raw: asyncio.run(anthropic_body(raw)),
                lambda: data,
                carries(b64),
                api="AnthropicModel._map_message (private) + SDK prepare",
            )
        )
    return cases


def llama_index_cases(data: bytes, b64: str) -> list[Case]:
    from llama_index.core.base.llms.types import ChatMessage, ImageBlock, TextBlock

    def message(raw: bytes) -> Any:
        return ChatMessage(role="user", blocks=[TextBlock(text=PROMPT), ImageBlock(image=raw)])

    cases: list[Case] = []
    try:
        from llama_index.llms.openai.utils import to_openai_message_dicts
    except ImportError:
        cases.append(not_installed("llama-index openai data-URI part"))
    else:
        cases.append(
            Case(
                "llama-index openai data-URI part",
                lambda raw: to_openai_message_dicts([message(raw)]),
                lambda: data,
                carries(b64, data_uri=True),
                api="ImageBlock(image=bytes) + to_openai_message_dicts",
            )
        )
    try:
        from llama_index.llms.anthropic.utils import messages_to_anthropic_messages
    except ImportError:
        cases.append(not_installed("llama-index anthropic block"))
    else:
        cases.append(
            Case(
                "llama-index anthropic block",
                lambda raw: messages_to_anthropic_messages([message(raw)]),
                lambda: data,
                carries(b64),
                api="ImageBlock(image=bytes) + messages_to_anthropic_messages",
            )
        )
    return cases


def instructor_cases(data: bytes, b64: str) -> list[Case]:
    from instructor import Image, Mode

    return [
        Case(
            "instructor openai data-URI part",
            lambda raw: Image.autodetect(raw).to_openai(Mode.TOOLS),
            lambda: data,
            carries(b64, data_uri=True),
            api="Image.autodetect(bytes).to_openai",
        ),
        Case(
            "instructor anthropic block",
            lambda raw: Image.autodetect(raw).to_anthropic(),
            lambda: data,
            carries(b64),
            api="Image.autodetect(bytes).to_anthropic",
        ),
    ]


LIBRARIES: list[tuple[str, Callable[[bytes, str], list[Case]]]] = [
    ("langchain-core", langchain_cases),
    ("pydantic-ai", pydantic_ai_cases),
    ("llama-index", llama_index_cases),
    ("instructor", instructor_cases),
]


def not_installed(name: str) -> Case:
    case = Case(name, lambda _: None)
    case.error = "not installed"
    return case


# -- running and reporting ----------------------------------------------------------------------


def all_cases(data: bytes, b64: str, libraries: bool) -> tuple[Case, list[Case]]:
    baseline = Case(
        "baseline binascii.b2a_base64",
        lambda raw: binascii.b2a_base64(raw, newline=False),
        lambda: data,
        carries(b64),
        api="bytes out, newline=False",
    )
    cases = [baseline, *stdlib_cases(data, b64), *mediablocks_cases(data, b64)]
    for library, make in LIBRARIES if libraries else []:
        try:
            cases.extend(make(data, b64))
        except ImportError:
            cases.append(not_installed(library))
    return baseline, cases


def report(size: int, baseline: Case, cases: Sequence[Case]) -> tuple[str, list[str]]:
    """The table for one image size, and the targets it misses."""
    base = median(baseline)
    by_name = {case.name: case for case in cases}
    floor_case = by_name[STR_FLOOR]
    floor = median(floor_case) / base if floor_case.error is None else float("nan")
    rows = []
    misses = []
    for case in cases:
        if case.error is not None:
            rows.append([case.name, case.error, "", "", "", ""])
            continue
        took = median(case)
        peak = case.peak or 0
        time_ratio = took / base
        memory_ratio = peak / size
        rows.append(
            [
                case.name,
                milliseconds(took),
                f"{time_ratio:.2f}x",
                mebibytes(peak),
                f"{memory_ratio:.2f}x",
                case.api,
            ]
        )
        target = TARGETS.get(case.name)
        if target and (time_ratio > target[0] or memory_ratio > target[1]):
            note = "" if "encode_json" in case.name else f"; a str costs {floor:.2f}x here"
            misses.append(
                f"{case.name} at {size // MiB} MiB: {time_ratio:.2f}x time (target "
                f"{target[0]}x{note}), {memory_ratio:.2f}x memory (target {target[1]}x)"
            )
    headers = ["case", "ms (median)", "vs b2a", "peak MiB", "peak/payload", "API used"]
    return table(headers, rows), misses


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,40", help="image sizes in MiB (default 1,10,40)")
    parser.add_argument(
        "--rounds", type=int, default=0, help="timed runs per case (default: 21, 9, 7)"
    )
    parser.add_argument(
        "--no-libs", action="store_true", help="mediablocks and the stdlib only (quick)"
    )
    args = parser.parse_args(argv)
    misses: list[str] = []
    for mib in (int(part) for part in args.sizes.split(",")):
        size = mib * MiB
        data = png_of_size(size)
        b64 = binascii.b2a_base64(data, newline=False).decode("ascii")
        baseline, cases = all_cases(data, b64, not args.no_libs)
        measure(cases, args.rounds or {1: 21, 10: 9}.get(mib, 7))
        if baseline.error is not None:
            raise SystemExit(f"the baseline failed: {baseline.error}")
        text, missed = report(size, baseline, cases)
        print(
            f"\nEncode one {mib} MiB PNG (time: median; memory: tracemalloc peak)\n{text}",
            flush=True,
        )
        misses += missed
    print()
    if misses:
        print("Targets missed in this run (see benchmarks/README.md):\n  " + "\n  ".join(misses))
    else:
        print("mediablocks met every target in this run (see benchmarks/README.md).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
