"""pydantic-ai messages through mediablocks and back, and the history processor fitting media for
a real ``Agent`` driven by pydantic-ai's own offline models."""

from __future__ import annotations

import io
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pydantic_ai")

from PIL import Image
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    AudioUrl,
    BinaryContent,
    CachePoint,
    DocumentUrl,
    ImageUrl,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    VideoUrl,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

import mediablocks as mb
from mediablocks.integrations.pydantic_ai_history import PrepareMediaHistory
from tests.conftest import TESTDATA, make_png
from tests.providers.kit import assert_sdk_types

PNG = (TESTDATA / "image" / "rgb.png").read_bytes()
WAV = (TESTDATA / "audio" / "pcm16.wav").read_bytes()
PDF = (TESTDATA / "document" / "report.pdf").read_bytes()


def history() -> list[Any]:
    return [
        ModelRequest(
            parts=[
                SystemPromptPart("Be brief."),
                UserPromptPart(
                    [
                        "What are these?",
                        BinaryContent(data=PNG, media_type="image/png"),
                        ImageUrl("https://example.org/a.png", vendor_metadata={"detail": "low"}),
                        AudioUrl("https://example.org/a.mp3"),
                        VideoUrl("https://example.org/a.mp4"),
                        DocumentUrl("https://example.org/a.pdf"),
                        CachePoint(),
                        BinaryContent(data=PDF, media_type="application/pdf"),
                    ]
                ),
            ],
            instructions="Answer in English.",
        ),
        ModelResponse(
            parts=[
                ThinkingPart("Look closer.", signature="c2ln", provider_name="anthropic"),
                TextPart("Zooming."),
                ToolCallPart("zoom", '{"x": 2}', tool_call_id="call_1"),
            ],
            model_name="claude-x",
            provider_name="anthropic",
            finish_reason="tool_call",
        ),
        ModelRequest(
            parts=[
                ToolReturnPart(
                    "zoom", ["zoomed", BinaryContent(data=PNG, media_type="image/png")], "call_1"
                ),
                ToolReturnPart("zoom", {"scale": 2}, "call_2"),
            ]
        ),
        ModelResponse(parts=[TextPart("A photo.")], model_name="claude-x"),
    ]


def dumped(messages: list[Any]) -> Any:
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json")


def test_a_history_goes_through_mediablocks_and_back_unchanged() -> None:
    original = history()
    back = mb.to_pydantic_ai(mb.from_pydantic_ai(original))
    assert dumped(back) == dumped(original)
    again = mb.to_pydantic_ai(mb.from_pydantic_ai(dumped(original)))  # from stored JSON too
    assert dumped(again) == dumped(original)


def test_what_mediablocks_reads_from_pydantic_ai() -> None:
    read = mb.from_pydantic_ai(history())
    assert [m.role for m in read] == ["system", "system", "user", "assistant", "tool", "assistant"]
    assert read[0].text == "Answer in English."
    user = read[2]
    kinds = [type(b) for b in user.content]
    assert kinds == [
        mb.TextBlock,
        mb.ImageBlock,
        mb.ImageBlock,
        mb.AudioBlock,
        mb.VideoBlock,
        mb.FileBlock,
        mb.FileBlock,
    ]
    assert user.content[1].read() == PNG
    assert user.content[2].detail == "low"
    assert user.content[6].mime_type == "application/pdf"
    thinking, _, call = read[3].content
    assert (thinking.signature, thinking.provider) == ("c2ln", "anthropic")
    assert (call.id, call.name, call.args) == ("call_1", "zoom", {"x": 2})
    assert read[3].stop_reason == "tool_use"
    first, second = read[4].results
    assert first.media[0].read() == PNG
    assert second.text == '{"scale":2}'  # what pydantic-ai sends the model for a dict


def test_the_read_history_encodes_for_the_providers_sdks() -> None:
    read = mb.from_pydantic_ai(history())
    user = read[2]
    local = [b for b in user.content if not isinstance(b, (mb.AudioBlock, mb.VideoBlock))]
    read[2] = user.model_copy(update={"content": local})
    fields = assert_sdk_types("anthropic", read)
    assert fields["messages"][1]["content"][0]["signature"] == "c2ln"
    assert_sdk_types("openai-responses", mb.prepare(read, "openai-responses"))


def test_what_pydantic_ai_cannot_take_is_refused_by_name() -> None:
    with pytest.raises(mb.UnsupportedBlockError, match="tool's name"):
        mb.to_pydantic_ai([mb.ToolMessage.from_result("nowhere", "x")])
    with pytest.raises(mb.UnsupportedBlockError, match="system prompt"):
        mb.to_pydantic_ai([mb.SystemMessage(content=[mb.ImageBlock.from_bytes(PNG)])])
    with pytest.raises(mb.UnsupportedBlockError, match="raw block"):
        mb.to_pydantic_ai(
            [mb.AssistantMessage(content=[mb.RawBlock(provider="anthropic", data={"type": "x"})])]
        )
    with pytest.raises(mb.DecodeError):
        mb.from_pydantic_ai([{"kind": "nonsense"}])


def test_a_tool_result_takes_its_name_from_the_call_it_answers() -> None:
    messages = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="look")]),
        mb.ToolMessage.from_result("c1", [mb.ImageBlock.from_bytes(PNG)]),
    ]
    _, request = mb.to_pydantic_ai(messages)
    (part,) = request.parts
    assert part.tool_name == "look"
    assert part.content[0].data == PNG


# -- the history processor -------------------------------------------------------------------


def _screenshot_agent(processor: PrepareMediaHistory, seen: list[Any]) -> Agent[None, str]:
    shot = make_png((1280, 10000), color="white")

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("screenshot", {}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("A white page.")])

    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=[ProcessHistory(processor)])

    @agent.tool_plain
    def screenshot() -> BinaryContent:
        """A full-page screenshot."""
        return BinaryContent(data=shot, media_type="image/png")

    return agent


def _images(messages: list[Any]) -> list[BinaryContent]:
    found = []
    for message in messages:
        for part in message.parts:
            content = getattr(part, "content", None)
            for item in content if isinstance(content, list) else [content]:
                if isinstance(item, BinaryContent):
                    found.append(item)
    return found


def test_the_processor_fits_the_screenshot_for_the_agents_model() -> None:
    seen: list[Any] = []
    agent = _screenshot_agent(PrepareMediaHistory(provider="anthropic"), seen)
    result = agent.run_sync("Look at the page.")
    assert result.output == "A white page."
    (image,) = _images(seen[-1])
    width, height = Image.open(io.BytesIO(image.data)).size
    assert max(width, height) <= mb.limits_for("anthropic").max_image_side < 10000
    assert seen[-1][0] is seen[0][0]  # the request without media is passed on as it was


def test_the_processor_refuses_what_the_model_cannot_take_by_name() -> None:
    agent = _screenshot_agent(PrepareMediaHistory(provider="deepseek"), [])
    with pytest.raises(mb.DoesNotFitError, match="deepseek"):
        agent.run_sync("Look at the page.")


def test_the_processor_needs_a_provider_it_can_tell() -> None:
    agent: Agent[None, str] = Agent(
        TestModel(), capabilities=[ProcessHistory(PrepareMediaHistory())]
    )
    with pytest.raises(mb.InvalidOptionError, match="provider"):
        agent.run_sync("hi")


# -- properties ------------------------------------------------------------------------------

_items = st.one_of(
    st.text(max_size=10),
    st.sampled_from([PNG, WAV, PDF, make_png((2, 3))]).map(
        lambda data: BinaryContent(data=data, media_type=mb.detect_mime(data) or "")
    ),
    st.text("abc", min_size=1, max_size=4).map(lambda n: ImageUrl(f"https://example.org/{n}.png")),
    st.just(CachePoint()),
)


@settings(max_examples=50, deadline=None)
@given(
    prompts=st.lists(st.lists(_items, min_size=1, max_size=4), min_size=1, max_size=3),
    returned=st.lists(st.one_of(st.text(max_size=8), _items), max_size=3),
)
def test_any_prompt_and_tool_return_survive_the_round_trip(
    prompts: list[list[Any]], returned: list[Any]
) -> None:
    request = ModelRequest(parts=[UserPromptPart(items) for items in prompts])
    call = ModelResponse(parts=[ToolCallPart("t", {}, tool_call_id="c")])
    answer = ModelRequest(parts=[ToolReturnPart("t", returned, "c")])
    original = [request, call, answer]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        back = mb.to_pydantic_ai(mb.from_pydantic_ai(original))
    assert dumped(back) == dumped(original)
