"""Profiles: OpenAI-compatible endpoints and Anthropic on Bedrock and Vertex, each a registry
entry over a shared translator with its own limits, checked with the official SDKs against a
local server."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam
from tests.conftest import (
    check_typed_dict,
    image_bytes,
    make_pdf,
    make_png,
    make_wav,
    serve,
    type_adapter,
)

import mediablocks as mb
from mediablocks.errors import UnsupportedBlockError, UnsupportedSettingError
from mediablocks.providers.registry import REGISTRY, provider_entry

OPENAI_COMPATIBLE = ["azure-openai", "deepseek", "xai", "groq", "openrouter", "vllm", "llama-cpp"]
REPLY = {
    "id": "c1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "finish_reason": "stop",
            "message": {
                "role": "assistant",
                "content": "A red square.",
                "reasoning_content": "It is red.",
            },
        }
    ],
}


def _question(image: bytes | None = None) -> list[mb.Message]:
    if image is None:
        return [mb.UserMessage.text("hello")]
    return [mb.UserMessage.with_images("what is this?", [image])]


@pytest.mark.parametrize("name", OPENAI_COMPATIBLE)
def test_each_openai_compatible_profile_is_sent_by_the_openai_sdk(name: str) -> None:
    takes_images = bool(mb.limits_for(name).image_types)
    messages = _question(make_png() if takes_images else None)
    fields = mb.encode(messages, name)
    for message in fields["messages"]:
        type_adapter(ChatCompletionMessageParam).validate_python(message)
    with serve(match_prefix=True) as (base, handler):
        handler.routes["/v1/chat/completions"] = ("application/json", json.dumps(REPLY).encode())
        client = openai.OpenAI(api_key="test", base_url=base + "/v1")
        response = client.chat.completions.create(model="m", **fields)
        [(_, path, body)] = handler.seen
    assert path == "/v1/chat/completions"
    assert json.loads(body)["messages"] == fields["messages"]
    [reply] = mb.decode(response, name)
    assert isinstance(reply, mb.AssistantMessage)
    assert reply.content[-1] == mb.TextBlock(text="A red square.")
    assert reply.thinking[0].thinking == "It is red."


@pytest.mark.parametrize(
    ("name", "block", "why"),
    [
        ("deepseek", mb.ImageBlock.from_bytes(make_png()), "takes no image input"),
        ("xai", mb.ImageBlock.from_bytes(image_bytes("WEBP")), "image/jpeg, image/png"),
        ("groq", mb.ImageBlock.from_bytes(image_bytes("GIF")), "takes image/jpeg"),
        ("groq", mb.AudioBlock.from_bytes(b"RIFF\0\0\0\0WAVEfmt "), "takes no audio input"),
    ],
)
def test_a_profile_refuses_what_its_endpoint_does_not_take(
    name: str, block: mb.MediaBlock, why: str
) -> None:
    with pytest.raises(UnsupportedBlockError, match=rf"{name} cannot carry.*block 0.*{why}"):
        mb.encode([mb.UserMessage(content=[block])], name)
    # OpenAI itself takes it: only the profile refuses.
    if not isinstance(block, mb.AudioBlock):
        assert mb.encode([mb.UserMessage(content=[block])], "openai-chat")["messages"]


def test_llama_cpp_inlines_url_images_that_openai_would_send_as_urls() -> None:
    png = make_png()
    policy = mb.FetchPolicy(allow_private=True)
    with serve() as (base, handler):
        handler.routes["/cat.png"] = ("image/png", png)
        block = mb.ImageBlock.from_url(base + "/cat.png")
        messages = [mb.UserMessage(content=["look", block])]
        as_openai = mb.encode(messages, "openai-chat")["messages"][0]["content"][1]
        inlined = mb.encode(messages, "lm-studio", policy=policy)["messages"][0]["content"][1]
    assert as_openai["image_url"]["url"] == base + "/cat.png"
    assert inlined["image_url"]["url"].startswith("data:image/png;base64,")


def test_profiles_have_their_own_limits_and_share_the_base_parts() -> None:
    assert mb.limits_for("groq").max_images == 5
    assert mb.limits_for("groq").provider == "groq"
    assert mb.limits_for("azure").image_types == mb.limits_for("openai").image_types
    assert "x.ai" in mb.limits_for("xai").source_of("max_image_bytes")
    entry = provider_entry("deepseek")
    assert entry.profile is not None
    assert entry.profile.base == "openai-chat"
    assert entry.part("stream") is provider_entry("openai-chat").part("stream")
    assert provider_entry("anthropic-vertex").part("tokens").__name__.endswith("anthropic.tokens")


def test_a_stream_from_a_profile_folds_with_the_base_fold() -> None:
    chunks: list[dict[str, Any]] = [
        {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [c]}
        for c in (
            {"index": 0, "delta": {"role": "assistant", "reasoning_content": "hm"}},
            {"index": 0, "delta": {"content": "Hi"}},
            {"index": 0, "delta": {}, "finish_reason": "stop"},
        )
    ]
    reply = mb.from_stream(chunks, "deepseek")
    assert reply.content[-1] == mb.TextBlock(text="Hi")
    assert reply.thinking[0].thinking == "hm"


@pytest.mark.parametrize(
    ("name", "version"),
    [("anthropic-bedrock", "bedrock-2023-05-31"), ("anthropic-vertex", "vertex-2023-10-16")],
)
def test_anthropic_platforms_keep_the_content_and_change_the_envelope(
    name: str, version: str
) -> None:
    messages = [mb.SystemMessage.text("brief"), *_question(make_png())]
    assert mb.encode(messages, name) == mb.encode(messages, "anthropic")
    body = mb.encode(messages, name, target="json")
    assert body["anthropic_version"] == version
    assert {k: v for k, v in body.items() if k != "anthropic_version"} == mb.encode(
        messages, "anthropic", target="json"
    )
    decoded = [m.content for m in mb.decode(body, name)]
    assert decoded == [m.content for m in mb.decode(mb.encode(messages, "anthropic"), "anthropic")]
    stored = mb.FileBlock.from_file_id("file_1", "application/pdf", provider="anthropic")
    with pytest.raises(UnsupportedBlockError, match="Files API"):
        mb.encode([mb.UserMessage(content=[stored])], name)


ANTHROPIC_REPLY = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude",
    "content": [{"type": "text", "text": "A red square."}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 4},
}


def test_anthropic_bedrock_fields_go_through_the_bedrock_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key in ("AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    fields = mb.encode(_question(make_png()), "anthropic-bedrock")
    with serve(match_prefix=True) as (base, handler):
        handler.routes["/model/"] = ("application/json", json.dumps(ANTHROPIC_REPLY).encode())
        client = anthropic.AnthropicBedrock(
            aws_access_key="AKIDEXAMPLE",
            aws_secret_key="secret",
            aws_region="us-east-1",
            base_url=base,
        )
        response = client.messages.create(model="claude-x", max_tokens=10, **fields)
        [(_, path, body)] = handler.seen
    sent = json.loads(body)
    assert path.startswith("/model/claude-x/invoke")
    assert "anthropic_version" in sent  # the SDK puts its own in the body, as we do for JSON
    assert sent["messages"] == fields["messages"]
    [reply] = mb.decode(response, "anthropic-bedrock")
    assert isinstance(reply, mb.AssistantMessage)
    assert reply.content == [mb.TextBlock(text="A red square.")]


def test_anthropic_vertex_fields_go_through_the_vertex_client() -> None:
    fields = mb.encode(_question(make_png()), "anthropic-vertex")
    with serve(match_prefix=True) as (base, handler):
        handler.routes["/projects/"] = ("application/json", json.dumps(ANTHROPIC_REPLY).encode())
        client = anthropic.AnthropicVertex(
            region="us-east5", project_id="p", access_token="token", base_url=base
        )
        client.messages.create(model="claude-x", max_tokens=10, **fields)
        [(_, path, body)] = handler.seen
    sent = json.loads(body)
    assert ":rawPredict" in path
    assert "anthropic_version" in sent
    assert sent["messages"] == fields["messages"]


def test_every_profile_names_a_base_in_the_registry() -> None:
    names = {entry.name for entry in REGISTRY}
    for entry in REGISTRY:
        if entry.profile is not None:
            assert entry.profile.base in names
            assert entry.profile.differences, f"{entry.name} documents no difference"


@pytest.mark.parametrize(
    "block",
    [
        mb.FileBlock.from_bytes(make_pdf(), filename="a.pdf"),
        mb.AudioBlock.from_bytes(make_wav()),
    ],
)
def test_llama_cpp_refuses_what_its_capability_row_says_it_cannot_take(block: Any) -> None:
    with pytest.raises(UnsupportedBlockError, match="llama-cpp cannot carry"):
        mb.encode([mb.UserMessage(content=[block])], "llama-cpp")


def test_deepseek_gets_the_fields_it_documents() -> None:
    from openai.types.chat import completion_create_params

    request = mb.Request(
        messages=[mb.UserMessage.text("JSON please")],
        model="deepseek-chat",
        settings=mb.Settings(max_tokens=50, json_mode=True),
    )
    body = mb.encode_request(request, "deepseek")
    assert (body["max_tokens"], body["response_format"]) == (50, {"type": "json_object"})
    assert "max_completion_tokens" not in body
    check_typed_dict(completion_create_params.CompletionCreateParamsNonStreaming, body)
    assert mb.decode_request(body, "deepseek") == request
    refused = request.model_copy(update={"settings": mb.Settings(response_schema={})})
    with pytest.raises(UnsupportedSettingError, match="deepseek"):
        mb.encode_request(refused, "deepseek")
    # thinking mode takes an effort (low and medium run as high, per DeepSeek's guide)
    effort = request.model_copy(update={"settings": mb.Settings(reasoning_effort="high")})
    assert mb.encode_request(effort, "deepseek")["reasoning_effort"] == "high"


def test_deepseek_cache_hits_are_read() -> None:
    reply = {
        "id": "r",
        "object": "chat.completion",
        "created": 1,
        "model": "deepseek-chat",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "hi"},
            }
        ],
        "usage": {
            "prompt_tokens": 10,
            "completion_tokens": 2,
            "total_tokens": 12,
            "prompt_cache_hit_tokens": 8,
            "prompt_cache_miss_tokens": 2,
        },
    }
    usage = mb.decode(reply, "deepseek")[0].usage
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens) == (10, 8)


@pytest.mark.parametrize(
    ("model", "refused"),
    [
        ("grok-4-1-fast-reasoning", {"stop", "reasoning_effort", "presence_penalty"}),
        ("grok-3-mini", {"stop", "presence_penalty"}),
        ("grok-4-fast-non-reasoning", {"reasoning_effort"}),
    ],
)
def test_xai_reasoning_models_get_no_field_they_reject(model: str, refused: set[str]) -> None:
    settings = mb.Settings(stop="END", reasoning_effort="low", presence_penalty=0.5)
    request = mb.Request(messages=[mb.UserMessage.text("hi")], model=model, settings=settings)
    body, report = mb.encode_request_with_report(request, "xai", unsupported="drop")
    assert {d.what.removeprefix("setting ") for d in report.dropped} == refused
    assert not refused & set(body)
    with pytest.raises(UnsupportedSettingError, match=model):
        mb.encode_request(request, "xai")


def test_groq_counts_its_4_mb_base64_limit_per_request() -> None:
    limits = mb.limits_for("groq")
    assert (limits.max_request_bytes, limits.request_bytes_measure) == (4_000_000, "base64")
    assert limits.max_image_bytes == 20_000_000  # an image given by URL


def test_gemini_takes_100_mb_inline_per_request() -> None:
    assert mb.limits_for("gemini").max_request_bytes == 100_000_000
