"""Endpoints declared at run time (`mb.register_profile`): five OpenAI-compatible servers that
mediablocks does not ship, each declared with its documented limits. `prepare` output holds
only what each declares; `encode` output passes the openai SDK's own types and goes through the
SDK to a real server on 127.0.0.1; the capability matrix, limits, tokens and decoding know
each name."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import TESTDATA, check_typed_dict, image_bytes, serve

import mediablocks as mb
from mediablocks.providers.registry import limits_for

openai = pytest.importorskip("openai")
pytest.importorskip("av")
from openai.types.chat import (  # noqa: E402
    ChatCompletionAssistantMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
)

PROFILES: dict[str, dict[str, Any]] = {
    # https://www.alibabacloud.com/help/en/model-studio/vision (OpenAI-compatible mode:
    # image_url and video_url parts; images up to 10 MB)
    "dashscope-qwen": {
        "image_types": ["jpeg", "png", "webp"],
        "max_image_bytes": 10_000_000,
        "video": "video_url",
        "video_types": ["mp4"],
        "source": "https://www.alibabacloud.com/help/en/model-studio/vision",
    },
    # https://platform.moonshot.ai/docs/guide/use-kimi-vision-model (base64 images: png, jpeg,
    # webp, gif; kimi-k2.5 reads video_url; no audio)
    "kimi": {
        "image_types": ["png", "jpeg", "webp", "gif"],
        "video": "video_url",
        "video_types": ["mp4", "mpeg", "mov", "webm"],
        "fetches_urls": False,
        "source": "https://platform.moonshot.ai/docs/guide/use-kimi-vision-model",
    },
    # LM Studio's OpenAI-compatible server: base64 images (JPEG, PNG, WebP) for vision
    # models, no audio, no video, no files (https://lmstudio.ai/docs/app/api/endpoints/openai)
    "lmstudio-server": {
        "image_types": ["jpeg", "png", "webp"],
        "video": None,
        "fetches_urls": False,
        "source": "https://lmstudio.ai/docs/app/api/endpoints/openai",
    },
    # LocalAI (https://localai.io/features/gpt-vision/): image_url with URLs or base64, audio
    # through input_audio (WAV) for audio models; video as frames
    "localai": {
        "image_types": ["jpeg", "png"],
        "audio": ["wav"],
        "video": "frames",
        "max_images": 8,
        "source": "https://localai.io/features/gpt-vision/",
    },
    # Cloudflare Workers AI, OpenAI-compatible endpoint, Llama 3.2 Vision: one image per
    # request as a data URI (https://developers.cloudflare.com/workers-ai/configuration/
    # open-ai-compatibility/)
    "workers-ai": {
        "image_types": ["jpeg", "png"],
        "max_images": 1,
        "max_image_side": 1120,
        "video": None,
        "tool_result_media": None,
        "fetches_urls": False,
        "source": "https://developers.cloudflare.com/workers-ai/",
    },
}

MESSAGES_BY_ROLE = {
    "system": ChatCompletionSystemMessageParam,
    "user": ChatCompletionUserMessageParam,
    "assistant": ChatCompletionAssistantMessageParam,
    "tool": ChatCompletionToolMessageParam,
}


@pytest.fixture(autouse=True)
def declared() -> Iterator[None]:
    for name, keys in PROFILES.items():
        mb.register_profile(name, **keys)
    yield
    for name in PROFILES:
        mb.unregister_profile(name)


def _history(images: int = 3) -> list[mb.Message]:
    """Images (WebP, a 1600 px PNG, HEIC: the first ``images``), speech, a VP9 WebM video."""
    big = image_bytes("PNG", size=(1600, 1200), color="navy")
    pictures = [
        mb.ImageBlock.from_bytes(big),
        mb.ImageBlock.from_bytes(image_bytes("WEBP", size=(40, 30))),
        mb.ImageBlock.from_path(TESTDATA / "image" / "photo.heic"),
    ][:images]
    return [
        mb.SystemMessage.text("be brief"),
        mb.UserMessage(
            content=[
                mb.TextBlock(text="look and listen"),
                *pictures,
                mb.AudioBlock.from_path(TESTDATA / "audio" / "voice-memo.m4a"),
                mb.VideoBlock.from_path(TESTDATA / "video" / "vp9-opus.webm"),
            ]
        ),
    ]


def _media(messages: list[mb.Message]) -> list[mb.MediaBlock]:
    return [b for m in messages for b in m.content if isinstance(b, mb.MediaBlock)]


def _kind(block: mb.MediaBlock) -> str:
    return {"image": "image", "audio": "audio", "video": "video"}.get(block.type, "document")


def _words(block: mb.AudioBlock) -> str:
    return "the words"


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_prepare_holds_only_what_the_profile_declares(name: str) -> None:
    limits = limits_for(name)
    prepared, report = mb.prepare_with_report(
        _history(images=limits.max_images or 3),
        name,
        transcriber=_words,
        stand_in_cache=mb.MemoryStandInCache(),
        unsupported="note",
        max_frames=2,
    )
    media = _media(prepared)
    assert media
    for block in media:
        assert block.mime_type in limits.types_for(_kind(block)), (name, block.describe())
        if isinstance(block, mb.ImageBlock) and limits.max_image_bytes is not None:
            assert len(block.read()) <= limits.max_image_bytes
    images = [b for b in media if isinstance(b, mb.ImageBlock)]
    if limits.max_images is not None:
        assert len(images) <= limits.max_images
    videos = [e for e in report.blocks if e.block.startswith("VideoBlock")]
    assert videos[0].changed == ("video/webm" not in limits.video_types)
    if limits.max_image_side:
        import io

        from PIL import Image

        for image in images:
            width, height = Image.open(io.BytesIO(image.read())).size
            assert max(width, height) <= limits.max_image_side
    kinds = {b.type for b in media}
    assert ("audio" in kinds) == bool(limits.audio_types)
    assert ("video" in kinds) == bool(limits.video_types)
    texts = [b.text for m in prepared for b in m.content if isinstance(b, mb.TextBlock)]
    if not limits.audio_types:
        assert any("voice-memo.m4a" in t and "transcript] the words" in t for t in texts)


def test_workers_ai_takes_one_image_so_the_rest_are_a_problem() -> None:
    with pytest.raises(mb.DoesNotFitError, match="workers-ai"):
        mb.prepare(_history(), "workers-ai", transcriber=_words, max_frames=1)


@pytest.mark.parametrize("name", sorted(set(PROFILES) - {"workers-ai"}))
def test_encoded_request_passes_the_openai_sdk_types_and_the_sdk(name: str) -> None:
    prepared = mb.prepare(
        _history(), name, transcriber=_words, stand_in_cache=mb.MemoryStandInCache(), max_frames=2
    )
    fields = mb.encode(prepared, name)
    videos = 0
    for message in fields["messages"]:
        parts = message["content"] if isinstance(message["content"], list) else []
        for part in parts:
            if part["type"] == "video_url":  # vLLM / OpenRouter / DashScope part, no SDK type
                assert set(part) == {"type", "video_url"}
                assert set(part["video_url"]) == {"url"}
                assert part["video_url"]["url"].startswith("data:video/")
                videos += 1
        plain = {
            **message,
            **({"content": [p for p in parts if p["type"] != "video_url"]} if parts else {}),
        }
        check_typed_dict(MESSAGES_BY_ROLE[message["role"]], plain)
    assert videos == (1 if PROFILES[name].get("video") == "video_url" else 0)
    reply = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "seen"},
            }
        ],
    }
    with serve() as (url, handler):
        handler.routes["/v1/chat/completions"] = ("application/json", json.dumps(reply).encode())
        client = openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0)
        completion = client.chat.completions.create(model="m", **fields)
        (_, _, body) = handler.seen[0]
    assert json.loads(body)["messages"] == json.loads(json.dumps(fields["messages"]))
    decoded = mb.decode_response(completion, name)
    assert decoded.text == "seen"
    assert decoded.provider == name


def test_encode_refuses_what_a_profile_does_not_declare() -> None:
    audio = mb.AudioBlock.from_path(TESTDATA / "audio" / "pcm16.wav")
    with pytest.raises(mb.UnsupportedBlockError, match=r"kimi cannot carry.*no audio input"):
        mb.encode([mb.UserMessage(content=[audio])], "kimi")
    gif = mb.ImageBlock.from_bytes(image_bytes("GIF"))
    with pytest.raises(mb.UnsupportedBlockError, match="dashscope-qwen"):
        mb.encode([mb.UserMessage(content=[gif])], "dashscope-qwen")


def test_a_server_fetching_no_url_gets_url_media_inlined() -> None:
    png = image_bytes("PNG")
    with serve() as (url, handler):
        handler.routes["/cat.png"] = ("image/png", png)
        block = mb.ImageBlock.from_url(url + "/cat.png")
        policy = mb.FetchPolicy(allow_private=True)
        inlined = mb.encode([mb.UserMessage(content=[block])], "kimi", policy=policy)
        kept = mb.encode([mb.UserMessage(content=[block])], "dashscope-qwen", policy=policy)
    assert inlined["messages"][0]["content"][0]["image_url"]["url"].startswith("data:image/png")
    assert kept["messages"][0]["content"][0]["image_url"]["url"] == url + "/cat.png"


def test_tool_result_media_follows_the_declaration() -> None:
    image = mb.ImageBlock.from_bytes(image_bytes("PNG"))
    history = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="shot", args={})]),
        mb.ToolMessage(content=[mb.ToolResultBlock(tool_call_id="c1", content=[image])]),
    ]
    moved = mb.encode(history, "localai")["messages"]
    assert moved[-1]["role"] == "user"
    assert moved[-1]["content"][1]["type"] == "image_url"
    with pytest.raises(mb.UnsupportedBlockError, match="tool"):
        mb.encode(history, "workers-ai")


def test_each_profile_has_its_row_in_the_capability_matrix() -> None:
    matrix = mb.capability_matrix()
    rows = {line.split("|")[1].strip(): line for line in matrix.splitlines()[2:]}
    assert "MP4 (`video_url`)" in rows["dashscope-qwen"]
    assert "as JPEG frames" in rows["localai"]
    assert rows["localai"].split("|")[3].strip() == "WAV"
    assert rows["workers-ai"].split("|")[6].strip() == "—"
    assert {"openai-chat", "vllm"} <= set(rows)


def test_limits_tokens_validation_and_decoding_know_the_name() -> None:
    assert limits_for("dashscope-qwen").max_image_bytes == 10_000_000
    assert limits_for("dashscope-qwen", "qwen3-vl-plus").model == "qwen3-vl-plus"
    image = mb.ImageBlock.from_bytes(image_bytes("PNG", size=(512, 512)))
    assert mb.estimate_tokens([mb.UserMessage(content=[image])], "kimi") > 0
    assert mb.validate([mb.UserMessage.text("hi")], "kimi") == []
    request = {"messages": [{"role": "user", "content": "hi"}]}
    assert mb.decode(request, "localai")[0].content[0] == mb.TextBlock(text="hi")


def test_from_a_dict_and_a_json_file(tmp_path: Path) -> None:
    declared = {"name": "json-server", "image_types": ["png"], "max_image_bytes": 1000}
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(declared))
    try:
        entry = mb.register_profile(path)
        assert entry.name == "json-server"
        assert limits_for("json-server").image_types == frozenset({"image/png"})
        entry = mb.register_profile({**declared, "name": "dict-server", "audio": ["mp3"]})
        assert limits_for("dict-server").audio_types == frozenset({"audio/mpeg"})
    finally:
        mb.unregister_profile("json-server")
        mb.unregister_profile("dict-server")
    with pytest.raises(mb.UnknownProviderError):
        limits_for("json-server")


@pytest.mark.parametrize(
    ("keys", "match"),
    [
        ({"image_types": ["tiff"]}, "cannot be carried"),
        ({"audio": ["flac"]}, "cannot be carried"),
        ({"documents": ["docx"]}, "cannot be carried"),
        ({"video": "stream"}, "video must be"),
        ({"video": "frames"}, "needs 'jpeg'"),
        ({"max_image_bytes": -1}, "max_image_bytes"),
        ({"max_image_bytes": True}, "max_image_bytes"),
        ({"image_type": ["png"]}, "unknown key"),
        ({"fetches_urls": "no"}, "fetches_urls"),
        ({"video": "video_url", "video_types": ["png"]}, "not video"),
    ],
)
def test_a_wrong_declaration_names_the_key(keys: dict[str, Any], match: str) -> None:
    with pytest.raises(mb.InvalidOptionError, match=match):
        mb.register_profile("broken-server", **keys)


def test_shipped_names_cannot_be_taken_and_names_cannot_clash() -> None:
    with pytest.raises(mb.InvalidOptionError, match="mediablocks' own provider"):
        mb.register_profile("vllm")
    with pytest.raises(mb.InvalidOptionError, match="already declared"):
        mb.register_profile("kimi")
    mb.register_profile("kimi", image_types=["png"], replace=True)
    assert limits_for("kimi").image_types == frozenset({"image/png"})


def test_a_shipped_alias_can_name_your_own_declaration_until_forgotten() -> None:
    assert mb.limits_for("lmstudio").provider == "llama-cpp"
    mb.register_profile("lmstudio", image_types=["jpeg", "png", "webp"], fetches_urls=False)
    try:
        assert mb.limits_for("lmstudio").provider == "lmstudio"
        assert "image/webp" in mb.limits_for("lmstudio").image_types
        assert mb.limits_for("lm-studio").provider == "llama-cpp"  # the other alias stays
    finally:
        assert mb.unregister_profile("lmstudio")
    assert mb.limits_for("lmstudio").provider == "llama-cpp"
    assert not mb.unregister_profile("lmstudio")


def test_replace_puts_your_declaration_in_a_shipped_providers_place() -> None:
    mb.register_profile("vllm", image_types=["jpeg"], video="frames", replace=True)
    try:
        assert mb.limits_for("vllm").video_types == frozenset()
        video = mb.VideoBlock.from_path(TESTDATA / "video" / "h264-aac.mp4")
        with pytest.raises(mb.UnsupportedBlockError, match="vllm"):
            mb.encode([mb.UserMessage(content=[video])], "vllm")
    finally:
        mb.unregister_profile("vllm")
    assert "video/mp4" in mb.limits_for("vllm").video_types
    fields = mb.encode([mb.UserMessage(content=[video])], "vllm")
    assert fields["messages"][0]["content"][0]["type"] == "video_url"
