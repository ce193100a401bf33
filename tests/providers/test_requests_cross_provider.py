"""Whole requests for every provider: one tool defined once,
``decode_request(encode_request(r, p), p) == r``, and every provider pair (17 x 16) with a
realistic request: nothing dropped without an error or a report, no foreign field, SDK-valid."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from tests.conftest import check_typed_dict, make_pdf, make_png

import mediablocks as mb
from mediablocks.errors import MediaBlocksError, UnsupportedBlockError
from mediablocks.providers import PROVIDERS as ALL_PROVIDERS
from mediablocks.providers._portable import _DEFAULTS, SPELLINGS
from mediablocks.providers._schema import inline_refs, to_ollama_schema
from mediablocks.providers.registry import provider_entry

PROVIDERS = [
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
    "cohere",
]
# What each provider cannot honour (it raises for these unless unsupported="drop").
_PENALTIES = {"frequency_penalty", "presence_penalty"}
CANNOT: dict[str, set[str]] = {
    "anthropic": {"temperature", "top_p", "top_k", "seed", "json_mode", *_PENALTIES},
    "openai-chat": {"top_k"},
    "openai-responses": {"stop", "seed", "top_k", *_PENALTIES},
    "gemini": {"parallel_tool_calls"},
    "bedrock": {"tool_choice:none", "top_k", "seed", "json_mode", "parallel_tool_calls"}
    | _PENALTIES,
    "ollama": {"tool_choice:none", "tool_choice:required", "tool_choice:name"}
    | {"parallel_tool_calls"},
    "cohere": {"tool_choice:name", "parallel_tool_calls"},
}
# Where auto is the only default and has no field to come back from.
AUTO_UNSENT = ("ollama", "cohere")


def get_weather(city: str, days: int = 1) -> str:
    """Weather for a city.

    Args:
        city: The city.
        days: How many days ahead.
    """
    return city


TOOL = mb.Tool.from_function(get_weather)


def _choice_key(choice: str | None) -> str | None:
    if choice in (None, "auto"):
        return None
    return f"tool_choice:{'name' if choice == 'get_weather' else choice}"


def _as_sent(request: mb.Request, provider: str) -> mb.Request:
    """``request`` as ``provider`` carries it: Ollama's tool schemas have no titles and say
    defaults in the description (ollama-python's types model nothing else)."""
    if provider != "ollama":
        return request
    tools = [
        tool.model_copy(update={"parameters": to_ollama_schema(tool.parameters)})
        for tool in request.tools
    ]
    return request.model_copy(update={"tools": tools})


@st.composite
def requests(draw: st.DrawFn, provider: str) -> mb.Request:
    cannot = CANNOT.get(provider, set())
    choice = draw(st.sampled_from([None, "auto", "none", "required", "get_weather"]))
    if _choice_key(choice) in cannot or (provider in AUTO_UNSENT and choice == "auto"):
        choice = None  # auto is not sent there: no field carries it back
    # Anthropic's Messages API requires max_tokens: a JSON body without it is refused.
    required = provider.startswith("anthropic")
    values: dict[str, Any] = {
        "max_tokens": draw((st.nothing() if required else st.none()) | st.integers(1, 10_000)),
        "temperature": draw(st.none() | st.floats(0, 2)),
        "top_p": draw(st.none() | st.floats(0, 1)),
        "stop": draw(
            st.none() | st.lists(st.text("abcXYZ", min_size=1, max_size=5), min_size=1, max_size=3)
        ),
        "reasoning_effort": draw(st.none() | st.sampled_from(["low", "medium", "high"])),
        "response_schema": draw(
            st.none() | st.just({"type": "object", "properties": {"a": {"type": "string"}}})
        ),
        "seed": draw(st.none() | st.integers(0, 2**31)),
        "top_k": draw(st.none() | st.integers(1, 100)),
        "frequency_penalty": draw(st.none() | st.floats(-2, 2)),
        "presence_penalty": draw(st.none() | st.floats(-2, 2)),
        "parallel_tool_calls": draw(st.none() | st.booleans()),
    }
    if values["response_schema"] is None:
        values["json_mode"] = draw(st.none() | st.just(True))
    if provider == "anthropic" and values["parallel_tool_calls"] is not None:
        # Anthropic carries it inside tool_choice: an unset choice is sent as auto.
        choice = choice if choice not in (None, "none") else "auto"
    for name in cannot:
        values.pop(name, None)
    text = draw(st.text(min_size=1, max_size=20).filter(str.strip))
    messages: list[Any] = [mb.UserMessage.text(text)]
    if draw(st.booleans()):
        messages.insert(0, mb.SystemMessage.text("Be brief."))
    return mb.Request(
        messages=messages,
        tools=[TOOL] if draw(st.booleans()) or choice is not None else [],
        tool_choice=choice,
        settings=mb.Settings(**values),
        model=draw(st.none() | st.sampled_from(["m-1", "model-2"])),
    )


@pytest.mark.parametrize("provider", PROVIDERS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_a_request_survives_its_own_provider(provider: str, data: st.DataObject) -> None:
    request = data.draw(requests(provider))
    for target in ("sdk", "json"):
        body = mb.encode_request(request, provider, target=target)  # type: ignore[arg-type]
        decoded = mb.decode_request(body, provider)
        assert [m.text for m in decoded.messages] == [m.text for m in request.messages]
        assert decoded == _as_sent(request, provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_request_read_from_one_provider_goes_to_every_other(provider: str) -> None:
    body = {
        "model": "claude-x",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]}],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather for a city",
                "input_schema": TOOL.parameters,
            }
        ],
        "tool_choice": {"type": "auto"},
    }
    request = mb.decode_request(body, "anthropic")
    moved = mb.decode_request(mb.encode_request(request, provider), provider)
    assert moved.tools == _as_sent(request, provider).tools
    assert moved.settings.max_tokens == 100
    assert moved.tool_choice == (None if provider in AUTO_UNSENT else "auto")


# -- every provider pair (17 x 16): a realistic request read from one provider and written for
# another loses nothing silently (each setting, tool, tool choice, message and media block arrives
# or is raised or reported), carries none of the source provider's own fields, and passes the
# target SDK's own types.


class DayInfo(BaseModel):
    week_day: str
    is_holiday: bool = False


class Forecast(BaseModel):
    """Forecast for a city."""

    city_name: str
    high_c: float
    day_info: DayInfo


FORECAST_TOOL = mb.Tool.from_model(Forecast, name="forecast")
EVERY_SETTING = mb.Settings(
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
        tools=[FORECAST_TOOL],
        tool_choice="required",
        settings=EVERY_SETTING,
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
        moved = _moved(source, key, target, body)
        named = f"request field {key!r}" in reported or f"request field {key}" in reported
        if not named and not moved:
            lost.append(f"{source.provider} field {key!r} not reported")
    foreign = set(source.extra) - set(back.extra) - _TARGET_OWN.get(_base(target), set())
    if foreign & set(body):
        lost.append(f"{source.provider} fields in the body: {sorted(foreign & set(body))}")
    _sdk_checker(target)(body)
    return lost


def _moved(source: mb.Request, key: str, target: str, body: dict[str, Any]) -> bool:
    """True when a portable field (stream, user, metadata...) came out in the target's own
    spelling, or asked for nothing beyond the default (one candidate)."""
    assert source.provider is not None
    for name, spellings in SPELLINGS.items():
        path = spellings.get(_base(source.provider))
        if not isinstance(path, tuple):
            continue
        value: Any = None
        if path[0] == key:
            value = source.extra
            for part in path:
                value = value.get(part) if isinstance(value, dict) else None
        elif key == "config" and _base(source.provider) == "gemini":
            value = source.extra["config"].get(path[-1].replace("Count", "_count").lower())
        if value is None:
            continue
        if _DEFAULTS.get(name, object()) == value:
            return True  # asks for what every provider does anyway
        where = spellings.get(_base(target))
        if isinstance(where, tuple):
            found: Any = body
            for part in where:
                found = found.get(part) if isinstance(found, dict) else None
            if found is None and _base(target) == "gemini":
                found = body.get("config", {}).get("candidate_count")
            return bool(found == value)
    return False


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


PAIRS = [
    (source, target) for source in ALL_PROVIDERS for target in ALL_PROVIDERS if source != target
]


@pytest.mark.parametrize("source", ALL_PROVIDERS)
def test_no_provider_pair_drops_silently_or_leaks_fields(source: str) -> None:
    request = source_request(source)
    lost = {target: silent_drops(request, target) for target in ALL_PROVIDERS if target != source}
    assert {target: found for target, found in lost.items() if found} == {}


def test_every_pair_is_covered() -> None:
    assert len(PAIRS) == 17 * 16


@pytest.mark.parametrize("provider", ALL_PROVIDERS)
def test_the_source_request_survives_its_own_provider(provider: str) -> None:
    request = source_request(provider)
    body = mb.encode_request(request, provider, unsupported="drop")
    assert mb.decode_request(body, provider) == request


def test_another_providers_fields_raise_by_default() -> None:
    request = source_request("mistral").model_copy(update={"settings": mb.Settings()})
    with pytest.raises(MediaBlocksError, match="mistral request field 'safe_prompt'"):
        mb.encode_request(request, "openai-chat")


def test_anthropics_user_id_becomes_the_end_user_elsewhere() -> None:
    request = source_request("anthropic").model_copy(update={"settings": mb.Settings()})
    assert mb.encode_request(request, "openai-chat")["user"] == "u-1"
    assert mb.encode_request(request, "openai-responses")["user"] == "u-1"
