"""The Gemini translator, checked against the installed ``google-genai`` SDK's pydantic types."""

from __future__ import annotations

import base64
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from google import genai
from google.genai import types as gt
from tests.conftest import (
    PUBLIC_TESTDATA,
    TESTDATA,
    RouteHandler,
    b64,
    image_bytes,
    make_jpeg,
    make_pdf,
    make_png,
    make_wav,
    serve,
    without_raw,
)

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers._options import EncodeOptions, MediaSink
from mediablocks.providers.gemini import AUDIO_TYPES, from_gemini, to_gemini
from mediablocks.sources import Base64Source, BytesSource, FileIdSource, URLSource

# Tiny audio clips made from one 20 ms 440 Hz sine (sox -n -r 8000 -c 1 -b 16 s.wav synth 0.02
# sine 440), then: ffmpeg -c:a libmp3lame -b:a 8k s.mp3; ffmpeg -c:a aac -b:a 8k -f adts s.aac;
# sox s.wav s.aiff; sox s.wav s.flac; and a 50 ms clip: ffmpeg -c:a libvorbis -q:a 0 c.ogg.
MP3_B64 = (
    "SUQzBAAAAAAAI1RTU0UAAAAPAAADTGF2ZjU5LjI3LjEwMAAAAAAAAAAAAAAA/+M4wAAAAAAAAAAAAEluZm8AAAAP"
    "AAAAAwAAAbAAqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV"
    "1dXV1dXV1dXV////////////////////////////////////////////AAAAAExhdmM1OS4zNwAAAAAAAAAAAAAA"
    "ACQD4AAAAAAAAAGw39WncwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/+MY"
    "xAAM8I7luAiSYKgAnbd/xjZjcbkBQA+bzvIITC4Jk/Ekh36PqWUQTtu/3f7lUW92IJOfuKUW33FKLb9H36H+sBS7"
    "/gDZ/+MYxAcMuIsCWBhGYJmZmDKSqWq8Y9mxYQETAJ4lhqdUeLRLDU6p5aShqdLDyyCU6tynlpKduVTalk/7LJWU"
    "MFFAYEUWY7Sc/+MYxA8JIKYsAADMCGihQGIPQBwLCojMxQW4qzULcV6m8VpMQU1FMy4xMDCqqqqqqqqqqqqqqqqq"
    "qqqqqqqqqqqqqqqqqqqq"
)
AAC_B64 = (
    "//FsQBj//N4CAExhdmM1OS4zNy4xMDAAAqBlF8xVZWb8b461dySJEIhCUH0+n0+n03PfSh76UJ86B50B7WE6wm/p"
    "6qogIgIgfiR6iPVENkQniE8Vx6rj1dwq7hPEyeK49Wk9WIq7mT9zJ4rq6tJ6sQruE/czqiurq0nqxXV3Xz9zOqK6"
    "urT01aVq7r5+5lcV1dWnpq0rq7r5+5nVEytGnpq0rV3Xz9zOruZXVp6atK6u6+fuZXEytGnpq0rViufuvriZWjT0"
    "8P/xbEAX3/wBIDKL5mZlZnPea6u5ISERBABkzrJlsmWzK1z5WoETwOcy3OYPZZ6OeJRnOah7K1z5WueKfc5zbnOa"
    "h7K1z5WudCoHObc5zUPZWufK1zoVA5zbnOZbMrXPla50K3Oc25zmoZla58rXPErc5zbnOahmVrnytc8SoHObc5zL"
    "ZM1z5WueJW5zm3Oc1DJmufK1zxKgc5tznNQyZrnytc8SoEc25zmoZMvnytc6FQI5tznMtky+fK1zxK4="
)
AIFF_B64 = (
    "Rk9STQAAAZBBSUZGQ09NVAAAABoAAecpdpYAAAAQUHJvY2Vzc2VkIGJ5IFNvWENPTU0AAAASAAEAAACgABBAC/oA"
    "AAAAAAAAU1NORAAAAUgAAAAAAAAAAANIHgk5zE12WNFY9085O4ohWAK45DjImLPlp9ymiq+LwkfcIPpeGSc1D0qg"
    "V2hZ1lGlP9AmaQiB6YvNS7b7qVyl7a00vjXXDPStE7MwWEdQVdFaM1PmQ7AreA4e7xjSELp5qxilxKsYunnSEO8Y"
    "Dh0reUOvU+daMVXTR00wWhOv9LHXCL44rS+l8alZtv/NR+mOCH8maz/PUadZ1ldnSqI1Cxks+lbcKcI6r5qmeafw"
    "s87Is+QcAtchNjuuTxFZIlihTa45hB6T//7hccZ6slWnXabfsO/EUN7L/Scb6DdHTDpYBlmSUFo91CPHBbvmwcsI"
    "tU2oqqYarmfAJ9mb938WbzLBSPJWvVnyUvdBmSkuCxDsmM9XuQqp0qYxq7W8ttQi8kQQjS5BRURVF1okVOFFtC2R"
    "EYjw7dX4uiCvpp7S"
)
FLAC_B64 = (
    "ZkxhQwAAACIQABAAAACjAACjAfQA8AAAAKDoKoyzbe5N76SP27its4MqAwAAEgAAAAAAAAAAAAAAAAAAAAAAoIQA"
    "AEQgAAAAcmVmZXJlbmNlIGxpYkZMQUMgMS40LjIgMjAyMjEwMjIBAAAAGAAAAENvbW1lbnQ9UHJvY2Vzc2VkIGJ5"
    "IFNvWP/4ZAgAnzdMA0geCTnMTXZY0Vj3Tzm0ojfGURJhCS54iUiQGx6lRQOMj3TF2F+OnotpMtUphxnEGETmpPJN"
    "pLbpyCBhhuIRXtaSSSa9hTnCDiHGir89/jUwf4YU4cxxGGvVlmtJuYNwhhQRxU8lPu8EZI6RKXQ5JpBC3eEeMg6E"
    "30ssiu5K5KZlJTG5LqUl2rfeomSfmtT+7mj/uLRllA4qcss="
)
OGG_B64 = (
    "T2dnUwACAAAAAAAAAABj/uTFAAAAAAnAkOMBHgF2b3JiaXMAAAAAAUAfAAAAAAAAsDYAAAAAAACZAU9nZ1MAAAAA"
    "AAAAAAAAY/7kxQEAAAAMKHtTC0D///////////+1A3ZvcmJpcw0AAABMYXZmNTkuMjcuMTAwAQAAAB8AAABlbmNv"
    "ZGVyPUxhdmM1OS4zNy4xMDAgbGlidm9yYmlzAQV2b3JiaXMSQkNWAQAAAQAMUhQhJRlTSmMIlVJSKQUdY1BbRx1j"
    "1DlGIWQQU4hJGaV7TyqVWErIEVJYKUUdU0xTSZVSlilFHWMUU0ghU9YxZaFzFEuGSQklbE2udBZL6JljljFGHWPO"
    "WkqdY9YxRR1jUlJJoXMYOmYlZBQ6RsXoYnwwOpWiQii+x95S6S2FiluKvdcaU+sthBhLacEIYXPttdXcSmrFGGOM"
    "McbF4lMogtCQVQAAAQAAQAQBQkNWAQAKAADCUAxFUYDQkFUAQAYAgAAURXEUx3EcR5IkywJCQ1YBAEAAAAIAACiO"
    "4SiSI0mSZFmWZVmWpnmWqLmqL/uuLuuu7eq6DoSGrAQAyAAAGIYhh95JzJBTkEkmKVXMOQih9Q455RRk0lLGmGKM"
    "Uc6QUwwxBTGG0CmFENROOaUMIghDSJ1kziBLPejgYuc4EBqyIgCIAgAAjEGMIcaQcwxKBiFyjknIIETOOSmdlExK"
    "KK20lkkJLZXWIueclE5KJqW0FlLLpJTWQisFAAAEOAAABFgIhYasCACiAAAQg5BSSCnElGJOMYeUUo4px5BSzDnF"
    "mHKMMeggVMwxyByESCnFGHNOOeYgZAwq5hyEDDIBAAABDgAAARZCoSErAoA4AQCDJGmapWmiaGmaKHqmqKqiKKqq"
    "5Xmm6ZmmqnqiqaqmqrquqaqubHmeaXqmqKqeKaqqqaqua6qq64qqasumq9q26aq27MqybruyrNueqsq2qbqybqqu"
    "bbuybOuuLNu65Hmq6pmm63qm6bqq69qy6rqy7Zmm64qqK9um68qy68q2rcqyrmum6bqiq9quqbqy7cqubbuyrPum"
    "6+q26sq6rsqy7tu2rvuyrQu76Lq2rsqurquyrOuyLeu2bNtCyfNU1TNN1/VM03VV17Vt1XVtWzNN1zVdV5ZF1XVl"
    "1ZV1XXVlW/dM03VNV5Vl01VlWZVl3XZlV5dF17VtVZZ9XXVlX5dt3fdlWdd903V1W5Vl21dlWfdlXfeFWbd93VNV"
    "WzddV9dN19V9W9d9YbZt3xddV9dV2daFVZZ139Z9ZZh1nTC6rq6rtuzrqizrvq7rxjDrujCsum38rq0Lw6vrxrHr"
    "vq7cvo9q277w6rYxvLpuHLuwG7/t+8axqaptm66r66Yr67ps675v67pxjK6r66os+7rqyr5v67rw674vDKPr6roq"
    "y7qw2rKvy7ouDLuuG8Nq28Lu2rpwzLIuDLfvK8evC0PVtoXh1XWjq9vGbwvD0jd2vgAAgAEHAIAAE8pAoSErAoA4"
    "AQAGIQgVYxAqxiCEEFIKIaRUMQYhYw5KxhyUEEpJIZTSKsYgZI5JyByTEEpoqZTQSiilpVBKS6GU1lJqLabUWgyh"
    "tBRKaa2U0lpqKbbUUmwVYxAy56RkjkkopbRWSmkpc0xKxqCkDkIqpaTSSkmtZc5JyaCj0jlIqaTSUkmptVBKa6GU"
    "1kpKsaXSSm2txRpKaS2k0lpJqbXUUm2ttVojxiBkjEHJnJNSSkmplNJa5pyUDjoqmYOSSimplZJSrJiT0kEoJYOM"
    "SkmltZJKK6GU1kpKsYVSWmut1ZhSSzWUklpJqcVQSmuttRpTKzWFUFILpbQWSmmttVZrai22UEJroaQWSyoxtRZj"
    "ba3FGEppraQSWympxRZbja21WFNLNZaSYmyt1dhKLTnWWmtKLdbSUoyttZhbTLnFWGsNJbQWSmmtlNJaSq3F1lqt"
    "oZTWSiqxlZJabK3V2FqMNZTSYikptZBKbK21WFtsNaaWYmyx1VhSizHGWHNLtdWUWouttVhLKzXGGGtuNeVSAADA"
    "gAMAQIAJZaDQkJUAQBQAAGAMY4xBaBRyzDkpjVLOOSclcw5CCCllzkEIIaXOOQiltNQ5B6GUlEIpKaUUWyglpdZa"
    "LAAAoMABACDABk2JxQEKDVkJAEQBACDGKMUYhMYgpRiD0BijFGMQKqUYcw5CpRRjzkHIGHPOQSkZY85BJyWEEEIp"
    "pYQQQiillAIAAAocAAACbNCUWByg0JAVAUAUAABgDGIMMYYgdFI6KRGETEonpZESWgspZZZKiiXGzFqJrcTYSAmt"
    "hdYyayXG0mJGrcRYYioAAOzAAQDswEIoNGQlAJAHAEAYoxRjzjlnEGLMOQghNAgx5hyEECrGnHMOQggVY845ByGE"
    "zjnnIIQQQueccxBCCKGDEEIIpZTSQQghhFJK6SCEEEIppXQQQgihlFIKAAAqcAAACLBRZHOCkaBCQ1YCAHkAAIAx"
    "SjknJaVGKcYgpBRboxRjEFJqrWIMQkqtxVgxBiGl1mLsIKTUWoy1dhBSai3GWkNKrcVYa84hpdZirDXX1FqMtebc"
    "e2otxlpzzrkAANwFBwCwAxtFNicYCSo0ZCUAkAcAQCCkFGOMOYeUYowx55xDSjHGmHPOKcYYc8455xRjjDnnnHOM"
    "Meecc845xphzzjnnnHPOOeegg5A555xz0EHonHPOOQghdM455xyEEAoAACpwAAAIsFFkc4KRoEJDVgIA4QAAgDGU"
    "UkoppZRSSqijlFJKKaWUUgIhpZRSSimllFJKKaWUUkoppZRSSimllFJKKaWUUkoppZRSSimllFJKKaWUUkoppZRS"
    "SimllFJKKaWUUkoppZRSSimllFJKKaWUUkoppZRSSimllFJKKaWUUkoppZRSSimllFJKKaWUUkoplVJKKaWUUkop"
    "pZRSSimlACDfCgcA/wcbZ1hJOiscDS40ZCUAEA4AABjDGISMOSclpYYxCKV0TkpJJTWMQSilcxJSSimD0FpqpaTS"
    "UkoZhJRiCyGVlFoKpbRWaymptZRSKCnFGktKqaXWMuckpJJaS622mDkHpaTWWmqtxRBCSrG11lJrsXVSUkmttdZa"
    "bS2klFprLcbWYmwlpZZaa6nF1lpMqbUWW0stxtZiS63F2GKLMcYaCwDgbnAAgEiwcYaVpLPC0eBCQ1YCACEBAAQy"
    "SjnnnIMQQgghUoox56CDEEIIIURKMeacgxBCCCGEjDHnIIQQQgihlJAx5hyEEEIIIYRSOucghFBKCaWUUkrnHIQQ"
    "QgillFJKCSGEEEIopZRSSikhhBBKKaWUUkopJYQQQiillFJKKaWEEEIopZRSSimllBBCKKWUUkoppZQSQgihlFJK"
    "KaWUUkIIpZRSSimllFJKKCGEUkoppZRSSgkllFJKKaWUUkopIZRSSimllFJKKaUAAIADBwCAACPoJKPKImw04cID"
    "EAAAAAIAAkwAgQGCglEIAoQRCAAAAAAACAD4AABICoCIiGjmDA4QEhQWGBocHiAiJAAAAAAAAAAAAAAAAARPZ2dT"
    "AASQAQAAAAAAAGP+5MUCAAAAXfVY4QMWExiyoFWNTfIG9hUABICoqKGihuWvgBkAvqGZczdeAcAWAAAAQFhhG46v"
    "AK6ZmbfCG/gaABIAAGKMcGr3UAe4A/14DA=="
)

AUDIO_CLIPS = {
    "mp3": base64.b64decode(MP3_B64),
    "aac": base64.b64decode(AAC_B64),
    "aiff": base64.b64decode(AIFF_B64),
    "flac": base64.b64decode(FLAC_B64),
    "ogg": base64.b64decode(OGG_B64),
    "wav": make_wav(0.02),
}
AUDIO_WIRE_TYPES = {
    "mp3": "audio/mpeg",
    "aac": "audio/aac",
    "aiff": "audio/aiff",
    "flac": "audio/flac",
    "ogg": "audio/ogg",
    "wav": "audio/wav",
}
MP4 = PUBLIC_TESTDATA / "fixture-imovie.mp4"
HEIC = PUBLIC_TESTDATA / "fixture-mif1.heic"
DOCX = PUBLIC_TESTDATA / "fixture-office365.docx"
FREE_FORM = frozenset({"args", "response", "part_metadata", "partMetadata"})
LOCAL = mb.FetchPolicy(allow_private=True)


# -- helpers ----------------------------------------------------------------------------------


def _keys(value: Any) -> Iterator[str]:
    """Every dict key in ``value``, except inside tool arguments and results (the caller's)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            if key not in FREE_FORM:
                yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


def _check_turns(contents: list[dict[str, Any]], response_key: str) -> None:
    roles = [c["role"] for c in contents]
    assert set(roles) <= {"user", "model"}
    assert all(a != b for a, b in itertools.pairwise(roles)), (
        f"turns of one role not merged: {roles}"
    )
    for content in contents:
        assert set(content) == {"role", "parts"}
        assert content["parts"], "no empty turn is sent"
        kinds = [response_key in part for part in content["parts"]]
        if any(kinds):
            assert content["role"] == "user"
            first_other = kinds.index(False) if False in kinds else len(kinds)
            assert not any(kinds[first_other:]), "function responses must lead the turn"


def check_sdk(fields: dict[str, Any]) -> None:
    """SDK kwargs: snake_case, raw bytes, each content, part and the config valid for the SDK."""
    assert set(fields) <= {"contents", "config"}
    bad = [key for key in _keys(fields) if re.search(r"[A-Z]", key)]
    assert not bad, f"camelCase keys in SDK fields: {bad}"
    _check_turns(fields["contents"], "function_response")
    for content in fields["contents"]:
        gt.Content.model_validate(content)  # the SDK's models forbid unknown fields
        for part in content["parts"]:
            gt.Part.model_validate(part)
            if "inline_data" in part:
                assert isinstance(part["inline_data"]["data"], bytes), "the SDK takes raw bytes"
            if isinstance(part.get("thought_signature"), str):
                raise AssertionError("the SDK takes thought signatures as bytes")
    if "config" in fields:
        assert set(fields["config"]) == {"system_instruction"}
        gt.GenerateContentConfig.model_validate(fields["config"])


def check_json(body: dict[str, Any]) -> None:
    """REST JSON: camelCase, base64 text, and what the SDK parses as the API's JSON."""
    assert set(body) <= {"contents", "systemInstruction"}
    bad = [key for key in _keys(body) if "_" in key]
    assert not bad, f"snake_case keys in REST JSON: {bad}"
    text = json.dumps(body)  # no bytes anywhere
    _check_turns(body["contents"], "functionResponse")
    for content in body["contents"]:
        gt.Content.model_validate_json(json.dumps(content))
    if "systemInstruction" in body:
        gt.Content.model_validate_json(json.dumps(body["systemInstruction"]))
    assert json.loads(text) == body


def encode(messages: list[Any], **options: Any) -> dict[str, Any]:
    fields = to_gemini(messages, EncodeOptions(**options))
    check_sdk(fields)
    return fields


def encode_rest(messages: list[Any], **options: Any) -> dict[str, Any]:
    body = to_gemini(messages, EncodeOptions(target="json", **options))
    check_json(body)
    return body


def view(block: Any) -> Any:
    """What a block means, independent of how it was built (media: bytes and type)."""
    if isinstance(block, mb.MediaBlock):
        source = block.source
        if isinstance(source, FileIdSource):
            return (block.type, "file_id", source.file_id, source.provider)
        if isinstance(source, URLSource):
            return (block.type, "url", source.url)
        return (block.type, block.read(), block.mime_type)
    if isinstance(block, mb.ToolResultBlock):
        content = block.content
        shown = content if isinstance(content, str) else [view(b) for b in content]
        return ("tool_result", block.tool_call_id, block.name, shown, block.is_error)
    return block.model_dump()


def views(messages: list[Any]) -> list[tuple[str, list[Any]]]:
    return [(m.role, [view(b) for b in m.content]) for m in messages]


def sig(text: str) -> str:
    """A thought signature as mediablocks keeps it: base64 text."""
    return b64(text.encode())


def parts_of(fields: dict[str, Any], turn: int) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = fields["contents"][turn]["parts"]
    return parts


@pytest.fixture
def server() -> Iterator[tuple[str, type[RouteHandler]]]:
    """A real HTTP server on 127.0.0.1 with routes the test fills in; a route serves every path
    under it (the SDK adds the model and method to its base URL)."""
    with serve(match_prefix=True) as running:
        yield running


# A generateContent response as the REST API returns it (checked by the SDK's own model below):
# a thought summary, code execution, text with a signature, and a signed parallel call.
RESPONSE: dict[str, Any] = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Working out the forecast.", "thought": True},
                    {"executableCode": {"language": "PYTHON", "code": "print(21 + 3)"}},
                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "24\n"}},
                    {"text": "Let me check both cities.", "thoughtSignature": sig("sig-text")},
                    {
                        "functionCall": {
                            "id": "fc_paris",
                            "name": "get_forecast",
                            "args": {"city": "Paris", "days": 3},
                        },
                        "thoughtSignature": sig("sig-call"),
                    },
                    {
                        "functionCall": {
                            "id": "fc_rome",
                            "name": "get_forecast",
                            "args": {"city": "Rome", "days": 3},
                        }
                    },
                ],
            },
            "finishReason": "STOP",
            "index": 0,
            "safetyRatings": [
                {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}
            ],
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 1200,
        "candidatesTokenCount": 80,
        "thoughtsTokenCount": 300,
        "cachedContentTokenCount": 1000,
        "toolUsePromptTokenCount": 20,
        "totalTokenCount": 1600,
    },
    "modelVersion": "gemini-3-pro-preview",
    "responseId": "resp_9xQ2",
}


# -- system, roles and turns ------------------------------------------------------------------


def test_system_goes_into_config_for_the_sdk_and_system_instruction_for_json() -> None:
    history = [mb.SystemMessage.text("be brief"), mb.UserMessage.text("hi")]
    assert encode(history) == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "config": {"system_instruction": {"parts": [{"text": "be brief"}]}},
    }
    assert encode_rest(history) == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "systemInstruction": {"parts": [{"text": "be brief"}]},
    }
    assert "config" not in encode([mb.UserMessage.text("hi")])
    assert "systemInstruction" not in encode_rest([mb.UserMessage.text("hi")])


def test_system_refuses_media_naming_position_and_provider(png_bytes: bytes) -> None:
    system = mb.SystemMessage(content=["look", mb.ImageBlock.from_bytes(png_bytes)])
    with pytest.raises(UnsupportedBlockError) as caught:
        to_gemini([mb.UserMessage.text("x"), system])
    message = str(caught.value)
    assert message.startswith("gemini cannot carry ImageBlock")
    assert "message 1, block 1" in message
    assert "text only" in message


def test_roles_map_turns_merge_and_session_messages_are_skipped() -> None:
    fields = encode(
        [
            mb.UserMessage.text("a"),
            mb.CustomMessage(custom_type="note"),
            mb.UserMessage.text("b"),
            mb.AssistantMessage.text("c"),
            mb.AssistantMessage.text("d"),
            mb.AssistantMessage(content=[mb.ThinkingBlock(thinking="x", provider="openai")]),
            mb.UserMessage(content=[mb.TextBlock(text=""), mb.TextBlock(text="e")]),
        ]
    )
    assert fields["contents"] == [
        {"role": "user", "parts": [{"text": "a"}, {"text": "b"}]},
        {"role": "model", "parts": [{"text": "c"}, {"text": "d"}]},
        {"role": "user", "parts": [{"text": "e"}]},
    ]


# -- media ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")]
)
def test_images_go_inline_as_bytes_for_the_sdk_and_base64_for_json(fmt: str, mime: str) -> None:
    data = image_bytes(fmt)
    history = [mb.UserMessage.with_images("what is this?", [data])]
    part = parts_of(encode(history), 0)[1]
    assert part == {"inline_data": {"mime_type": mime, "data": data}}
    rest = parts_of(encode_rest(history), 0)[1]
    assert rest == {"inlineData": {"mimeType": mime, "data": b64(data)}}
    for payload in (encode(history), encode_rest(history)):
        [message] = from_gemini(payload)
        image = message.content[1]
        assert isinstance(image, mb.ImageBlock)
        assert isinstance(image.source, (BytesSource, Base64Source))
        assert (image.read(), image.mime_type) == (data, mime)


def test_heic_photos_are_sent_as_is() -> None:
    block = mb.ImageBlock.from_path(HEIC)
    part = parts_of(encode([mb.UserMessage(content=[block])]), 0)[0]
    assert part["inline_data"]["mime_type"] in ("image/heic", "image/heif")
    assert part["inline_data"]["data"] == HEIC.read_bytes()


@pytest.mark.parametrize("fmt", ["GIF", "BMP"])
def test_other_image_types_raise_naming_position_and_pointing_at_prepare(fmt: str) -> None:
    block = mb.ImageBlock.from_bytes(image_bytes(fmt))
    with pytest.raises(UnsupportedBlockError) as caught:
        to_gemini([mb.UserMessage.text("hi"), mb.UserMessage(content=["look", block])])
    message = str(caught.value)
    assert message.startswith("gemini cannot carry ImageBlock")
    assert "(message 1, block 1)" in message
    assert "mb.prepare(messages, 'gemini')" in message


@pytest.mark.parametrize("kind", sorted(AUDIO_CLIPS))
def test_every_documented_audio_format_goes_inline_and_decodes_back(kind: str) -> None:
    data = AUDIO_CLIPS[kind]
    block = mb.AudioBlock.from_bytes(data)
    fields = encode([mb.UserMessage.with_audio("transcribe", [block])])
    inline = parts_of(fields, 0)[1]["inline_data"]
    assert inline["mime_type"] in AUDIO_TYPES
    assert inline["mime_type"] == AUDIO_WIRE_TYPES[kind]
    assert inline["data"] is block.read()  # the block's one buffer, not a copy
    back = from_gemini(encode_rest([mb.UserMessage(content=[block])]))[0].content[0]
    assert isinstance(back, mb.AudioBlock)
    assert back.read() == data


def test_audio_types_gemini_refuses_raise() -> None:
    block = mb.AudioBlock.from_bytes(b"\x00\x01" * 64, "audio/x-ms-wma")
    with pytest.raises(UnsupportedBlockError, match=r"AudioBlock.*message 0, block 0.*WAV, MP3"):
        to_gemini([mb.UserMessage(content=[block])])


def test_video_goes_inline_and_unknown_containers_raise() -> None:
    video = mb.VideoBlock.from_path(MP4)
    fields = encode([mb.UserMessage(content=["summarise", video])])
    assert parts_of(fields, 0)[1] == {
        "inline_data": {"mime_type": "video/mp4", "data": MP4.read_bytes()}
    }
    back = from_gemini(fields)[0].content[1]
    assert view(back) == ("video", MP4.read_bytes(), "video/mp4")
    odd = mb.VideoBlock.from_path(TESTDATA / "video" / "h264-flac.mkv")  # Matroska: not taken
    with pytest.raises(UnsupportedBlockError, match=r"VideoBlock.*message 0, block 0.*MP4"):
        to_gemini([mb.UserMessage(content=[odd])])


def test_pdf_and_text_documents_go_inline_and_office_files_raise() -> None:
    pdf = make_pdf()
    notes = "line one\nünïcode — two\n".encode()
    csv = b"a,b\n1,2\n"
    blocks = [
        mb.FileBlock.from_bytes(pdf, filename="q3.pdf"),
        mb.FileBlock.from_bytes(notes, "text/plain"),
        mb.FileBlock.from_bytes(csv, "text/csv"),
    ]
    body = encode_rest([mb.UserMessage(content=blocks)])
    assert [p["inlineData"]["mimeType"] for p in parts_of(body, 0)] == [
        "application/pdf",
        "text/plain",
        "text/csv",
    ]
    back = from_gemini(body)[0].content
    assert [view(b) for b in back] == [
        ("file", pdf, "application/pdf"),
        ("file", notes, "text/plain"),
        ("file", csv, "text/csv"),
    ]
    docx = mb.FileBlock.from_path(DOCX)
    with pytest.raises(UnsupportedBlockError) as caught:
        to_gemini([mb.UserMessage(content=["x", docx])])
    assert "gemini cannot carry FileBlock" in str(caught.value)
    assert "(message 0, block 1)" in str(caught.value)
    assert "wordprocessingml" in str(caught.value)


def test_media_in_model_turns_is_allowed(png_bytes: bytes) -> None:
    drawn = mb.ImageBlock.from_bytes(png_bytes)
    signed = drawn.model_copy(update={"provider_data": {"gemini": {"thought_signature": "c2ln"}}})
    fields = encode([mb.UserMessage.text("draw"), mb.AssistantMessage(content=["here", signed])])
    assert parts_of(fields, 1)[1] == {
        "inline_data": {"mime_type": "image/png", "data": png_bytes},
        "thought_signature": b"sig",
    }
    back = from_gemini(fields)[1].content[1]
    assert back.provider_data == {"gemini": {"thought_signature": "c2ln"}}


def test_media_sink_gets_placeholders_instead_of_base64(png_bytes: bytes) -> None:
    sink = MediaSink()
    image = mb.ImageBlock.from_bytes(png_bytes)
    pdf = mb.FileBlock.from_bytes(make_pdf())
    body = to_gemini(
        [mb.UserMessage(content=[image, pdf])], EncodeOptions(target="json", media_sink=sink)
    )
    data = [p["inlineData"]["data"] for p in parts_of(body, 0)]
    assert all(d.startswith(sink.token) for d in data)
    assert [item[0] for item in sink.items] == [image, pdf]


# -- URLs and file ids ------------------------------------------------------------------------


def test_http_urls_are_downloaded_by_default(server: tuple[str, Any]) -> None:
    base, handler = server
    png = make_png((5, 7))
    handler.routes["/cat"] = ("application/octet-stream", png)
    block = mb.ImageBlock.from_url(base + "/cat")
    fields = encode([mb.UserMessage(content=[block])], policy=LOCAL)
    assert parts_of(fields, 0)[0] == {"inline_data": {"mime_type": "image/png", "data": png}}
    assert [m for m, p, _ in handler.seen] == ["GET"]


def test_urls_go_as_file_data_when_asked_and_decode_to_url_blocks() -> None:
    url = "https://example.com/photos/cat.png"
    history = [mb.UserMessage(content=[mb.ImageBlock.from_url(url)])]
    fields = encode(history, url_media="url")
    assert parts_of(fields, 0) == [{"file_data": {"file_uri": url, "mime_type": "image/png"}}]
    rest = encode_rest(history, url_media="url")
    assert parts_of(rest, 0) == [{"fileData": {"fileUri": url, "mimeType": "image/png"}}]
    [message] = from_gemini(rest)
    [back] = message.content
    assert isinstance(back, mb.ImageBlock)
    assert back.source == history[0].content[0].source  # type: ignore[union-attr]
    # Remembered as Gemini's file_data, so it goes back that way even without url_media="url".
    assert back.provider_data == {"gemini": {"as_file_uri": True}}
    assert parts_of(encode([message]), 0) == [
        {"file_data": {"file_uri": url, "mime_type": "image/png"}}
    ]


def test_youtube_gs_and_file_api_uris_go_as_file_data_by_default() -> None:
    youtube = "https://www.youtube.com/watch?v=9hE5-98ZeCg"
    gs = "gs://cloud-samples/video/ad.mp4"
    file_api = "https://generativelanguage.googleapis.com/v1beta/files/abc-123"
    blocks = [
        mb.VideoBlock.from_url(youtube),
        mb.VideoBlock.from_file_id(gs, provider="gemini"),
        mb.FileBlock.from_file_id(file_api, "application/pdf", provider="gemini"),
        mb.FileBlock.from_url(file_api, "application/pdf"),
    ]
    fields = encode([mb.UserMessage(content=blocks)])
    assert parts_of(fields, 0) == [
        {"file_data": {"file_uri": youtube}},
        {"file_data": {"file_uri": gs, "mime_type": "video/mp4"}},
        {"file_data": {"file_uri": file_api, "mime_type": "application/pdf"}},
        {"file_data": {"file_uri": file_api, "mime_type": "application/pdf"}},
    ]
    back = from_gemini(fields)[0].content
    assert [view(b) for b in back] == [
        ("video", "url", youtube),
        ("video", "file_id", gs, "gemini"),
        ("file", "file_id", file_api, "gemini"),
        ("file", "file_id", file_api, "gemini"),
    ]
    assert back[:3] == blocks[:3]


def test_other_providers_file_ids_raise() -> None:
    foreign = mb.ImageBlock.from_file_id("file-abc", "image/png", provider="openai")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*openai file id"):
        to_gemini([mb.UserMessage(content=[foreign])])
    unknown = mb.FileBlock.from_file_id("gs://b/report.docx", provider="gemini")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*wordprocessingml"):
        to_gemini([mb.UserMessage(content=[unknown])])


# -- thinking and thought signatures ----------------------------------------------------------


def test_own_thoughts_are_replayed_with_signatures_and_others_follow_the_option() -> None:
    own = mb.ThinkingBlock(thinking="plan", signature=sig("s1"), provider="gemini")
    foreign = mb.ThinkingBlock(thinking="claude plan", signature="x", provider="anthropic")
    text = mb.TextBlock(text="answer", provider_data={"gemini": {"thought_signature": sig("s2")}})
    alien_text = mb.TextBlock(text="hi", provider_data={"anthropic": {"cache_control": {}}})
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[own, foreign, text, alien_text]),
    ]
    assert parts_of(encode(history), 1) == [
        {"text": "plan", "thought": True, "thought_signature": b"s1"},
        {"text": "answer", "thought_signature": b"s2"},
        {"text": "hi"},
    ]
    assert parts_of(encode_rest(history, thinking="text"), 1) == [
        {"text": "plan", "thought": True, "thoughtSignature": sig("s1")},
        {"text": "claude plan"},
        {"text": "answer", "thoughtSignature": sig("s2")},
        {"text": "hi"},
    ]
    back = from_gemini(encode(history))[1].content
    assert back[:2] == [own, text]


def test_a_signature_on_an_empty_text_part_is_kept_on_that_part() -> None:
    # Gemini may close a reply with an empty text part that only carries the signature.
    parts = [{"text": "Hello"}, {"text": "", "thoughtSignature": sig("tail")}]
    [message] = from_gemini([{"role": "model", "parts": parts}])
    assert message.content[1] == mb.TextBlock(
        text="", provider_data={"gemini": {"thought_signature": sig("tail")}}
    )
    assert parts_of(encode_rest([message]), 0) == parts


def test_signatures_on_every_kind_of_part_survive_both_spellings() -> None:
    signed = {
        "text": {"text": "t"},
        "thought": {"text": "th", "thought": True},
        "call": {"functionCall": {"id": "c1", "name": "f", "args": {}}},
        "image": {"inlineData": {"mimeType": "image/jpeg", "data": b64(make_jpeg())}},
        "raw": {"executableCode": {"language": "PYTHON", "code": "1"}},
    }
    parts = [{**part, "thoughtSignature": sig(name)} for name, part in signed.items()]
    [message] = from_gemini({"contents": [{"role": "model", "parts": parts}]})
    assert parts_of(encode_rest([message]), 0) == parts
    sdk_parts = parts_of(encode([message]), 0)
    assert [p["thought_signature"] for p in sdk_parts] == [name.encode() for name in signed]


def test_signature_bytes_from_the_sdk_become_base64_text() -> None:
    part = gt.Part(
        function_call=gt.FunctionCall(id="c", name="f", args={}), thought_signature=b"\xff\x00"
    )
    [message] = from_gemini([gt.Content(role="model", parts=[part])])
    assert message.content[0].provider_data == {"gemini": {"thought_signature": "/wA="}}
    assert parts_of(encode([message]), 0)[0]["thought_signature"] == b"\xff\x00"


# -- tools ------------------------------------------------------------------------------------


def test_calls_and_results_round_trip_with_ids_names_and_results_first() -> None:
    paris = mb.ToolCallBlock(id="fc_1", name="weather", args={"city": "Paris", "n": [1, 2]})
    rome = mb.ToolCallBlock(id="fc_2", name="lookup", args={})
    history = [
        mb.UserMessage.text("weather?"),
        mb.AssistantMessage(content=[mb.TextBlock(text="checking"), paris, rome]),
        mb.UserMessage.text("also, hurry"),
        mb.ToolMessage.from_result("fc_1", "sunny, 24C"),
        mb.ToolMessage.from_result("fc_2", "not found", is_error=True),
    ]
    fields = encode(history)
    assert parts_of(fields, 1)[1:] == [
        {
            "function_call": {
                "name": "weather",
                "args": {"city": "Paris", "n": [1, 2]},
                "id": "fc_1",
            }
        },
        {"function_call": {"name": "lookup", "args": {}, "id": "fc_2"}},
    ]
    assert parts_of(fields, 2) == [
        {
            "function_response": {
                "name": "weather",
                "response": {"output": "sunny, 24C"},
                "id": "fc_1",
            }
        },
        {"function_response": {"name": "lookup", "response": {"error": "not found"}, "id": "fc_2"}},
        {"text": "also, hurry"},
    ]
    back = from_gemini(encode_rest(history))
    assert [m.role for m in back] == ["user", "assistant", "tool", "user"]
    expected = [
        history[0],
        history[1],
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(tool_call_id="fc_1", content="sunny, 24C", name="weather"),
                mb.ToolResultBlock(
                    tool_call_id="fc_2", content="not found", is_error=True, name="lookup"
                ),
            ]
        ),
        history[2],
    ]
    assert views(back) == views(expected)


def test_calls_without_ids_are_linked_by_name_and_sent_back_without_ids() -> None:
    contents = [
        {"role": "user", "parts": [{"text": "weather in Paris and Rome?"}]},
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "weather", "args": {"city": "Paris"}}},
                {"functionCall": {"name": "weather", "args": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "weather", "response": {"output": "sunny"}}},
                {"functionResponse": {"name": "weather", "response": {"output": "rain"}}},
            ],
        },
    ]
    decoded = from_gemini(contents)
    calls = decoded[1].tool_calls
    results = decoded[2].results
    assert len({c.id for c in calls}) == 2
    assert [r.tool_call_id for r in results] == [c.id for c in calls]
    assert [r.text for r in results] == ["sunny", "rain"]
    assert encode_rest(decoded)["contents"] == contents


def test_json_function_responses_are_kept_exactly() -> None:
    response = {"result": {"temp": 21.5, "unit": "C"}, "sources": ["met"]}
    contents = [
        {"role": "model", "parts": [{"functionCall": {"id": "a", "name": "f", "args": {}}}]},
        {
            "role": "user",
            "parts": [{"functionResponse": {"id": "a", "name": "f", "response": response}}],
        },
    ]
    decoded = from_gemini(contents)
    result = decoded[1].results[0]
    assert json.loads(result.text) == response  # other providers see the JSON as text
    assert encode_rest(decoded)["contents"] == contents


def test_tool_result_media_goes_in_function_response_parts(png_bytes: bytes) -> None:
    pdf = make_pdf()
    result = mb.ToolResultBlock(
        tool_call_id="fc_9",
        name="screenshot",
        content=[
            mb.TextBlock(text="here"),
            mb.ImageBlock.from_bytes(png_bytes),
            mb.FileBlock.from_bytes(pdf),
        ],
    )
    fields = encode([mb.ToolMessage(content=[result])])
    [part] = parts_of(fields, 0)
    assert part == {
        "function_response": {
            "name": "screenshot",
            "response": {"output": "here"},
            "id": "fc_9",
            "parts": [
                {"inline_data": {"mime_type": "image/png", "data": png_bytes}},
                {"inline_data": {"mime_type": "application/pdf", "data": pdf}},
            ],
        }
    }
    gt.FunctionResponse.model_validate(part["function_response"])
    rest = encode_rest([mb.ToolMessage(content=[result])])
    gt.FunctionResponse.model_validate_json(json.dumps(parts_of(rest, 0)[0]["functionResponse"]))
    [back] = from_gemini(rest)
    assert views([back]) == views([mb.ToolMessage(content=[result])])


def test_other_media_in_tool_results_moves_into_the_user_turn_or_raises() -> None:
    clip = mb.AudioBlock.from_bytes(AUDIO_CLIPS["wav"])
    result = mb.ToolResultBlock(
        tool_call_id="fc_3", name="record", content=[mb.TextBlock(text="done"), clip]
    )
    history = [mb.ToolMessage(content=[result]), mb.UserMessage.text("what did you hear?")]
    parts = parts_of(encode(history), 0)
    assert parts == [
        {"function_response": {"name": "record", "response": {"output": "done"}, "id": "fc_3"}},
        {"text": "Media returned by tool call fc_3:"},
        {"inline_data": {"mime_type": "audio/wav", "data": AUDIO_CLIPS["wav"]}},
        {"text": "what did you hear?"},
    ]
    with pytest.raises(UnsupportedBlockError) as caught:
        to_gemini(history, EncodeOptions(tool_result_media="error"))
    assert "AudioBlock" in str(caught.value)
    assert "message 0, block 0" in str(caught.value)
    assert "'fc_3'" in str(caught.value)


def test_results_take_their_name_from_the_call_or_raise_without_one() -> None:
    history = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c7", name="search", args={"q": "x"})]),
        mb.ToolMessage.from_result("c7", "3 hits"),
    ]
    assert parts_of(encode(history), 1)[0]["function_response"]["name"] == "search"
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*name.*'c7'"):
        to_gemini([history[1]])


def test_invalid_arguments_and_misplaced_blocks_raise() -> None:
    bad = mb.ToolCallBlock(id="t1", name="f", raw_args='{"city": "Par')
    with pytest.raises(UnsupportedBlockError, match=r"message 1, block 0.*requires an object"):
        to_gemini([mb.UserMessage.text("q"), mb.AssistantMessage(content=[bad])])
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*assistant"):
        to_gemini([mb.UserMessage(content=[mb.ToolCallBlock(id="t", name="f")])])
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*tool results only"):
        to_gemini([mb.ToolMessage(content=["text"])])
    result = mb.ToolResultBlock(tool_call_id="t", name="f")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*tool or user"):
        to_gemini([mb.AssistantMessage(content=[result])])


# -- raw parts and unmodelled fields ----------------------------------------------------------


def test_unknown_parts_become_raw_blocks_and_go_back_verbatim() -> None:
    parts = [
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        {"videoMetadata": {"startOffset": "1s"}},
    ]
    [message] = from_gemini([{"role": "model", "parts": parts}])
    assert message.content == [mb.RawBlock(provider="gemini", data=p) for p in parts]
    assert parts_of(encode_rest([message]), 0) == parts
    assert parts_of(encode([message]), 0) == [
        {"executable_code": {"language": "PYTHON", "code": "print(1)"}},
        {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        {"video_metadata": {"start_offset": "1s"}},
    ]
    foreign = mb.RawBlock(provider="anthropic", data={"type": "server_tool_use"})
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*anthropic content"):
        to_gemini([mb.UserMessage(content=[foreign])])


def test_unmodelled_fields_of_known_parts_stay_on_their_part() -> None:
    video = {
        "fileData": {"fileUri": "gs://b/clip.mp4", "mimeType": "video/mp4"},
        "videoMetadata": {"startOffset": "10s", "endOffset": "20s", "fps": 2},
        "mediaResolution": {"level": "MEDIA_RESOLUTION_HIGH"},
    }
    call = {"functionCall": {"id": "c", "name": "f", "args": {"camelKey": 1}, "willContinue": True}}
    [user, model] = from_gemini(
        [{"role": "user", "parts": [video]}, {"role": "model", "parts": [call]}]
    )
    assert user.content[0].provider_data == {
        "gemini": {
            "video_metadata": {"start_offset": "10s", "end_offset": "20s", "fps": 2},
            "media_resolution": {"level": "MEDIA_RESOLUTION_HIGH"},
        }
    }
    assert model.content[0].args == {"camelKey": 1}  # the caller's keys are never respelled
    body = encode_rest([user, model])
    assert body["contents"] == [
        {"role": "user", "parts": [video]},
        {"role": "model", "parts": [call]},
    ]
    sdk = encode([user, model])
    assert parts_of(sdk, 0)[0]["video_metadata"] == {
        "start_offset": "10s",
        "end_offset": "20s",
        "fps": 2,
    }
    assert parts_of(sdk, 1)[0]["function_call"]["args"] == {"camelKey": 1}


# -- responses --------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["rest", "sdk_object", "sdk_dump"])
def test_a_response_decodes_with_usage_stop_reason_thoughts_and_raw_parts(form: str) -> None:
    sdk_response = gt.GenerateContentResponse.model_validate(RESPONSE)
    payload: Any = {
        "rest": RESPONSE,
        "sdk_object": sdk_response,
        "sdk_dump": sdk_response.model_dump(),  # snake_case, bytes, enums
    }[form]
    [reply] = from_gemini(payload)
    assert isinstance(reply, mb.AssistantMessage)
    assert reply.provider == "gemini"
    assert reply.model == "gemini-3-pro-preview"
    assert reply.response_id == "resp_9xQ2"
    assert reply.provider_stop_reason == "STOP"
    assert without_raw(reply.usage) == mb.Usage(
        input_tokens=1200 + 20,
        output_tokens=80 + 300,
        cache_read_tokens=1000,
        reasoning_tokens=300,
    )
    assert reply.usage.total_tokens == RESPONSE["usageMetadata"]["totalTokenCount"]
    kinds = [type(b).__name__ for b in reply.content]
    assert kinds == [
        "ThinkingBlock",
        "RawBlock",
        "RawBlock",
        "TextBlock",
        "ToolCallBlock",
        "ToolCallBlock",
    ]
    assert reply.content[0].provider == "gemini"
    assert reply.content[3].for_provider("gemini") == {"thought_signature": sig("sig-text")}
    assert reply.tool_calls[0].id == "fc_paris"
    assert reply.tool_calls[0].for_provider("gemini") == {"thought_signature": sig("sig-call")}
    assert reply.metadata["gemini"]["safety_ratings"][0]["probability"] == "NEGLIGIBLE"
    # Sent back, every part is what the API returned, signatures on the same parts.
    body = encode_rest([mb.UserMessage.text("weather in Paris and Rome?"), reply])
    assert parts_of(body, 1) == RESPONSE["candidates"][0]["content"]["parts"]


def test_a_blocked_prompt_decodes_to_an_empty_reply_with_the_reason() -> None:
    [reply] = from_gemini(
        {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 7}}
    )
    assert reply.content == []
    assert reply.provider_stop_reason == "SAFETY"
    assert without_raw(reply.usage) == mb.Usage(input_tokens=7)


def test_a_streamed_reply_folds_and_decodes_with_its_signatures() -> None:
    from mediablocks.streaming import from_stream

    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "lo"}]}}]},
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {
                                "functionCall": {"id": "c1", "name": "f", "args": {"x": 1}},
                                "thoughtSignature": sig("s"),
                            }
                        ],
                    },
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 4},
        },
    ]
    as_sdk = [gt.GenerateContentResponse.model_validate(c) for c in chunks]
    for events in (chunks, as_sdk):
        reply = from_stream(events, "gemini")
        assert reply.text == "Hello"
        assert reply.tool_calls[0].args == {"x": 1}
        assert reply.tool_calls[0].for_provider("gemini") == {"thought_signature": sig("s")}
        assert reply.provider_stop_reason == "STOP"
        assert without_raw(reply.usage) == mb.Usage(input_tokens=5, output_tokens=4)


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        (42, "not a Gemini payload"),
        ({"foo": 1}, "not a Gemini payload"),
        ([{"role": "robot", "parts": [{"text": "x"}]}], "content 0 has role 'robot'"),
        (
            [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}],
            "part 0: function_call has no name",
        ),
        (
            [
                {
                    "role": "user",
                    "parts": [
                        {"text": "x"},
                        {"inlineData": {"mimeType": "image/png", "data": "@@"}},
                    ],
                }
            ],
            "content 0, part 1",
        ),
        (
            [
                {
                    "role": "user",
                    "parts": [
                        {"inlineData": {"mimeType": "image/png", "data": b64(b"%PDF-1.4 x")}}
                    ],
                }
            ],
            "content 0, part 0.*not image",
        ),
        (
            [{"role": "model", "parts": [{"text": "x", "thoughtSignature": "not base64!"}]}],
            "thought_signature",
        ),
    ],
)
def test_malformed_payloads_raise_decode_errors(payload: Any, match: str) -> None:
    with pytest.raises(DecodeError, match=match):
        from_gemini(payload)


def test_request_shapes_the_sdk_accepts_decode() -> None:
    kwargs = {
        "model": "gemini-x",
        "contents": ["first", {"text": "second"}, {"role": "model", "parts": [{"text": "ok"}]}],
        "config": {"system_instruction": "rules", "temperature": 0.2},
    }
    system, user, model = from_gemini(kwargs)
    assert (system.role, system.text) == ("system", "rules")
    assert (user.role, [b.text for b in user.content]) == ("user", ["first", "second"])
    assert (model.role, model.text) == ("assistant", "ok")
    [only] = from_gemini({"contents": "just text"})
    assert (only.role, only.text) == ("user", "just text")


# -- through the real SDK client against a local server ---------------------------------------


def test_the_sdk_sends_our_fields_and_its_response_decodes(server: tuple[str, Any]) -> None:
    base, handler = server
    handler.routes["/v1"] = ("application/json", json.dumps(RESPONSE).encode())
    png = make_png((4, 4))
    pdf = make_pdf()
    history = [
        mb.SystemMessage.text("You are terse."),
        mb.UserMessage(
            content=[
                "What is in these?",
                mb.ImageBlock.from_bytes(png),
                mb.FileBlock.from_bytes(pdf),
            ]
        ),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="hmm", signature=sig("t"), provider="gemini"),
                mb.ToolCallBlock(
                    id="c1",
                    name="ocr",
                    args={"page": 1},
                    provider_data={"gemini": {"thought_signature": sig("c")}},
                ),
            ]
        ),
        mb.ToolMessage.from_result(
            "c1", [mb.TextBlock(text="text found"), mb.ImageBlock.from_bytes(png)]
        ),
    ]
    fields = encode(history)
    client = genai.Client(api_key="test-key", http_options=gt.HttpOptions(base_url=base))
    response = client.models.generate_content(model="gemini-x", **fields)
    method, path, body = handler.seen[-1]
    assert method == "POST"
    assert path.endswith("/models/gemini-x:generateContent")
    sent = json.loads(
        body
    )  # the SDK's own spelling: camelCase outside, snake inside, url-safe base64
    back = from_gemini(sent)
    assert views(back) == views(history[:3]) + views(
        [
            mb.ToolMessage.from_result(
                "c1", [mb.TextBlock(text="text found"), mb.ImageBlock.from_bytes(png)], name="ocr"
            )
        ]
    )
    [reply] = from_gemini(response)
    assert reply.response_id == RESPONSE["responseId"]
    assert [c.name for c in reply.tool_calls] == ["get_forecast", "get_forecast"]


# -- round trip -------------------------------------------------------------------------------


def full_history(png: bytes) -> list[Any]:
    return [
        mb.SystemMessage.text("sys"),
        mb.UserMessage(
            content=[
                "look",
                mb.ImageBlock.from_bytes(png),
                mb.AudioBlock.from_bytes(AUDIO_CLIPS["mp3"]),
                mb.VideoBlock.from_path(MP4),
                mb.FileBlock.from_bytes(make_pdf()),
                mb.FileBlock.from_bytes(b"plain notes\n", "text/plain"),
                mb.VideoBlock.from_url("https://youtu.be/9hE5-98ZeCg"),
                mb.FileBlock.from_file_id("gs://bucket/paper.pdf", provider="gemini"),
            ]
        ),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="t", signature=sig("t"), provider="gemini"),
                mb.TextBlock(
                    text="calling", provider_data={"gemini": {"thought_signature": sig("x")}}
                ),
                mb.ToolCallBlock(
                    id="c9",
                    name="f",
                    args={"a": 1},
                    provider_data={"gemini": {"thought_signature": sig("y")}},
                ),
                mb.ToolCallBlock(id="c10", name="g", args={}),
                mb.RawBlock(
                    provider="gemini", data={"executableCode": {"language": "PYTHON", "code": "1"}}
                ),
            ]
        ),
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(tool_call_id="c9", content="done", name="f"),
                mb.ToolResultBlock(
                    tool_call_id="c10",
                    content=[mb.TextBlock(text="see"), mb.ImageBlock.from_bytes(png)],
                    name="g",
                ),
            ]
        ),
        mb.AssistantMessage.text("bye"),
    ]


@pytest.mark.parametrize("target", ["sdk", "json"])
def test_decode_of_encode_gives_the_history_back(png_bytes: bytes, target: str) -> None:
    history = full_history(png_bytes)
    fields = encode(history) if target == "sdk" else encode_rest(history)
    back = from_gemini(fields)
    assert views(back) == views(history)
    # Text, thoughts, calls, signatures and raw parts come back as the very same blocks.
    assert back[2].content == history[2].content
    assert back[3].content[0] == history[3].content[0]
    assert back[1].content[6:] == history[1].content[6:]  # the YouTube URL and the gs:// file


# -- through mb.encode / mb.decode / mb.encode_json -------------------------------------------


def test_the_registry_uses_this_translator(png_bytes: bytes) -> None:
    from mediablocks.encoding import encode as registry_encode
    from mediablocks.providers import decode as registry_decode

    history = full_history(png_bytes)
    fields = registry_encode(history, "gemini")
    assert fields == to_gemini(history)
    check_sdk(fields)
    body = registry_encode(history, "google", target="json")
    check_json(body)
    assert views(registry_decode(json.dumps(body).encode(), "gemini")) == views(history)


def test_encode_json_streams_the_media_into_a_valid_body(png_bytes: bytes) -> None:
    from mediablocks.encoding import encode_json

    pdf = make_pdf()
    history = [
        mb.SystemMessage.text("sys"),
        mb.UserMessage(
            content=["see", mb.ImageBlock.from_bytes(png_bytes), mb.FileBlock.from_bytes(pdf)]
        ),
    ]
    config = {"temperature": 0.1}
    body = json.loads(encode_json(history, "gemini", generationConfig=config))
    assert body["generationConfig"] == config
    check_json({k: v for k, v in body.items() if k in ("contents", "systemInstruction")})
    image, document = parts_of(body, 0)[1:]
    assert base64.b64decode(image["inlineData"]["data"]) == png_bytes
    assert base64.b64decode(document["inlineData"]["data"]) == pdf
    assert body["systemInstruction"] == {"parts": [{"text": "sys"}]}
