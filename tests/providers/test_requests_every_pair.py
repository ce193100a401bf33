"""Every provider pair (17 x 16): a realistic request read from one provider and written for
another loses nothing silently (each setting, tool, tool choice, message and media block arrives
or is raised or reported), carries none of the source provider's own fields, and passes the
target SDK's own types."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel
from tests.conftest import check_typed_dict, make_pdf, make_png

import mediablocks as mb
from mediablocks.errors import MediaBlocksError, UnsupportedBlockError
from mediablocks.providers import PROVIDERS
from mediablocks.providers._schema import inline_refs, to_ollama_schema
from mediablocks.providers.registry import provider_entry


class DayInfo(BaseModel):
    week_day: str
    is_holiday: bool = False


class Forecast(BaseModel):
    """Forecast for a city."""

    city_name: str
    high_c: float
    day_info: DayInfo


TOOL = mb.Tool.from_model(Forecast, name="forecast")
SETTINGS = mb.Settings(
    max_tokens=300,
    temperature=0.5,
    top_p=0.9,
    top_k=40,
    stop=["END"],
    reasoning_effort="medium",
    seed=7,
    frequency_penalty=0.1,
    presence_penalty=0.2,
    parallel_tool_calls=False,
    response_schema={
        "type": "object",
        "properties": {"answer_text": {"type": "string"}},
        "required": ["answer_text"],
    },
)
# One field each provider has and no other (its own names: never copied to another body).
OWN_FIELD: dict[str, tuple[str, Any]] = {
    "openai-chat": ("service_tier", "flex"),
    "openai-responses": ("store", False),
    "anthropic": ("metadata", {"user_id": "u-1"}),
    "gemini": ("config", {"candidate_count": 1}),
    "bedrock": ("additionalModelRequestFields", {"top_k": 5}),
    "mistral": ("safe_prompt", True),
    "ollama": ("keep_alive", "5m"),
    "cohere": ("safety_mode", "STRICT"),
}


def _base(provider: str) -> str:
    entry = provider_entry(provider)
    return entry.profile.base if entry.profile is not None else entry.name


def _messages(media: frozenset[str]) -> list[mb.Message]:
    user: list[Any] = [mb.TextBlock(text="Forecast for this place?")]
    if "image" in media:
        user.append(mb.ImageBlock.from_bytes(make_png((8, 6), color="teal")))
    if "pdf" in media:
        user.append(mb.FileBlock.from_bytes(make_pdf(), filename="notes.pdf"))
    return [
        mb.SystemMessage.text("Be brief."),
        mb.UserMessage(content=user),
        mb.AssistantMessage(
            content=[
                mb.ToolCallBlock(
                    id="call_1",
                    name="forecast",
                    args={"city_name": "Paris", "high_c": 21.5, "day_info": {"week_day": "Mon"}},
                )
            ]
        ),
        mb.ToolMessage.from_result("call_1", '{"high_c": 21.5}', name="forecast"),
    ]


MEDIA_ORDER = (frozenset({"image", "pdf"}), frozenset({"image"}), frozenset())


def _encode(
    request: mb.Request, provider: str, **options: Any
) -> tuple[dict[str, Any], mb.EncodeReport, mb.Request, int]:
    """The body, its report, the request that went (media the provider refuses removed: each
    removal is an error the caller saw, not a silent drop) and the number of such errors."""
    errors = 0
    for media in MEDIA_ORDER:
        kept = request.model_copy(update={"messages": _keep(request.messages, media)})
        try:
            body, report = mb.encode_request_with_report(
                kept, provider, unsupported="drop", **options
            )
        except UnsupportedBlockError:
            errors += 1
            continue
        return body, report, kept, errors
    raise AssertionError(f"{provider} takes not even a text request")


def _keep(messages: list[mb.Message], media: frozenset[str]) -> list[mb.Message]:
    out: list[mb.Message] = []
    for message in messages:
        content = [
            block
            for block in message.content
            if not (isinstance(block, mb.ImageBlock) and "image" not in media)
            and not (isinstance(block, mb.FileBlock) and "pdf" not in media)
        ]
        out.append(message.model_copy(update={"content": content}))
    return out


@functools.cache
def source_request(provider: str) -> mb.Request:
    """The realistic request as ``provider`` would receive it, decoded from its body."""
    neutral = mb.Request(
        messages=_messages(MEDIA_ORDER[0]),
        tools=[TOOL],
        tool_choice="required",
        settings=SETTINGS,
        model="model-1",
    )
    body, _, _, _ = _encode(neutral, provider, target="json")
    key, value = OWN_FIELD[_base(provider)]
    if key in body and isinstance(body[key], dict):
        body[key] = {**body[key], **value}
    else:
        body[key] = value
    request = mb.decode_request(body, provider)
    assert request.extra, f"{provider}'s own field is kept in extra"
    # Claude on Bedrock/Vertex takes the model in the URL: the body has none to decode.
    return request.model_copy(update={"model": request.model or "model-1"})


def _media(request: mb.Request) -> list[str]:
    return [
        type(block).__name__
        for message in request.messages
        for block in message.content
        if isinstance(block, (mb.ImageBlock, mb.FileBlock))
    ]


def silent_drops(source: mb.Request, target: str) -> list[str]:
    """What ``source`` lost on the way to ``target`` with neither an error nor a report entry,
    and any field of the source provider found in the target's body."""
    body, report, sent, _ = _encode(source, target)
    reported = " | ".join(str(d) for d in report.dropped)
    back = mb.decode_request(body, target)
    lost: list[str] = []
    for name, value in sent.settings.given().items():
        if back.settings.given().get(name) != value and f"setting {name}" not in reported:
            lost.append(f"setting {name}")
    if [t.name for t in back.tools] != [t.name for t in sent.tools]:
        lost.append("tools")
    for tool, came in zip(sent.tools, back.tools, strict=False):
        forms = [tool.parameters, inline_refs(tool.parameters), to_ollama_schema(tool.parameters)]
        same = came.parameters in forms
        if not same and "schema keyword" not in reported:
            lost.append(f"schema of {tool.name}")
    if back.tool_choice != sent.tool_choice and "tool_choice" not in reported:
        lost.append("tool_choice")
    if _media(back) != _media(sent):
        lost.append(f"media {_media(sent)} -> {_media(back)}")
    texts = [m.text for m in sent.messages if m.text]
    if [m.text for m in back.messages if m.text] != texts:
        lost.append("message text")
    calls = [(c.name, c.args) for m in back.messages for c in getattr(m, "tool_calls", [])]
    if calls != [(c.name, c.args) for m in sent.messages for c in getattr(m, "tool_calls", [])]:
        lost.append("tool call arguments")
    for key in source.extra:
        if f"request field {key!r}" not in reported:
            lost.append(f"{source.provider} field {key!r} not reported")
    foreign = set(source.extra) - set(back.extra) - _TARGET_OWN.get(_base(target), set())
    if foreign & set(body):
        lost.append(f"{source.provider} fields in the body: {sorted(foreign & set(body))}")
    _sdk_checker(target)(body)
    return lost


_TARGET_OWN: dict[str, set[str]] = {"gemini": {"config"}}
"""Keys the target's own encoding writes that share a name with another provider's field."""


def _sdk_checker(provider: str) -> Callable[[dict[str, Any]], None]:
    base = _base(provider)
    if base == "openai-chat":
        from openai.types.chat import completion_create_params

        return functools.partial(
            check_typed_dict, completion_create_params.CompletionCreateParamsNonStreaming
        )
    if base == "openai-responses":
        from openai.types.responses import response_create_params

        return functools.partial(
            check_typed_dict, response_create_params.ResponseCreateParamsNonStreaming
        )
    if base == "anthropic":
        from tests.providers.test_anthropic_request import checked as check_anthropic

        return check_anthropic
    if base == "gemini":
        from google.genai import types as gt
        from tests.providers.test_gemini import check_sdk

        def check_gemini(body: dict[str, Any]) -> None:
            config = body.get("config", {})
            system = {k: v for k, v in config.items() if k == "system_instruction"}
            check_sdk({"contents": body["contents"], "config": system})
            gt.GenerateContentConfig.model_validate(config)  # forbids unknown fields

        return check_gemini
    if base == "bedrock":
        from tests.providers.test_bedrock import validate

        return lambda body: validate({k: v for k, v in body.items() if k != "modelId"})
    if base == "mistral":
        from tests.providers.test_mistral_request import checked as check_mistral

        return check_mistral
    if base == "ollama":
        from tests.providers.test_ollama_request import checked as check_ollama

        return check_ollama
    from tests.providers.test_cohere_request import checked as check_cohere

    return check_cohere


PAIRS = [(source, target) for source in PROVIDERS for target in PROVIDERS if source != target]


@pytest.mark.parametrize("source", PROVIDERS)
def test_no_provider_pair_drops_silently_or_leaks_fields(source: str) -> None:
    request = source_request(source)
    lost = {target: silent_drops(request, target) for target in PROVIDERS if target != source}
    assert {target: found for target, found in lost.items() if found} == {}


def test_every_pair_is_covered() -> None:
    assert len(PAIRS) == 17 * 16


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_source_request_survives_its_own_provider(provider: str) -> None:
    request = source_request(provider)
    body = mb.encode_request(request, provider, unsupported="drop")
    assert mb.decode_request(body, provider) == request


def test_another_providers_fields_raise_by_default() -> None:
    request = source_request("anthropic")
    with pytest.raises(MediaBlocksError, match="anthropic request field 'metadata'"):
        mb.encode_request(request, "openai-chat")
