"""Bedrock AgentCore Harness: `Tool.to_harness` gives the ``inline_function`` entry and
`mb.harness_resume` the whole resume in one call, both checked by botocore's own validator
against the ``InvokeHarness`` input shape."""

from __future__ import annotations

from typing import Any

import botocore.session
import pytest
from botocore.validate import ParamValidator
from tests.conftest import make_png

import mediablocks as mb
from mediablocks.errors import InvalidOptionError, UnsupportedBlockError

INVOKE = (
    botocore.session.get_session()
    .get_service_model("bedrock-agentcore")
    .operation_model("InvokeHarness")
)


def validate(params: dict[str, Any]) -> None:
    call = {
        "harnessArn": "arn:aws:bedrock-agentcore:us-east-1:123456789012:harness/h-1",
        "runtimeSessionId": "s" * 40,
        **params,
    }
    report = ParamValidator().validate(call, INVOKE.input_shape)
    assert not report.has_errors(), report.generate_report()


def get_weather(city_name: str, days: int = 1) -> str:
    """Weather for a city.

    Args:
        city_name: The city.
        days: How many days.
    """
    return city_name


def test_a_tool_is_a_harness_inline_function() -> None:
    tool = mb.Tool.from_function(get_weather)
    entry = tool.to_harness()
    assert entry == {
        "type": "inline_function",
        "name": "get_weather",
        "config": {
            "inlineFunction": {"description": "Weather for a city.", "inputSchema": tool.parameters}
        },
    }
    validate({"tools": [entry], "messages": [{"role": "user", "content": [{"text": "Oslo?"}]}]})


def test_a_harness_tool_needs_a_description() -> None:
    with pytest.raises(InvalidOptionError, match="description"):
        mb.Tool(name="bare").to_harness()


def test_a_resume_is_one_call() -> None:
    results = mb.ToolMessage.from_results(
        [
            mb.ToolResultBlock(tool_call_id="tooluse_1", content="12C"),
            mb.ToolResultBlock(tool_call_id="tooluse_2", content="no such city", is_error=True),
        ]
    )
    resume = mb.harness_resume(results)
    validate(resume)
    [message] = resume["messages"]
    assert message["role"] == "user"
    assert [block["toolResult"]["status"] for block in message["content"]] == ["success", "error"]
    assert message["content"][0]["toolResult"] == {
        "toolUseId": "tooluse_1",
        "content": [{"text": "12C"}],
        "status": "success",
    }


def test_media_in_a_harness_result_raises() -> None:
    image = mb.ImageBlock.from_bytes(make_png())
    result = mb.ToolResultBlock(tool_call_id="t", content=[mb.TextBlock(text="map"), image])
    with pytest.raises(UnsupportedBlockError, match="text and JSON only"):
        mb.harness_resume([result])
    with pytest.raises(InvalidOptionError):
        mb.harness_resume([])


def paused_reply() -> mb.AssistantMessage:
    return mb.AssistantMessage(
        content=[
            mb.ThinkingBlock(thinking="Two cities.", signature="sig"),
            mb.TextBlock(text="Checking both."),
            mb.ToolCallBlock(id="tooluse_1", name="get_weather", args={"city_name": "Oslo"}),
            mb.ToolCallBlock(id="tooluse_2", name="get_weather", args={"city_name": "Nowhere"}),
        ]
    )


def two_results() -> mb.ToolMessage:
    return mb.ToolMessage.from_results(
        [
            mb.ToolResultBlock(tool_call_id="tooluse_1", content="12C"),
            mb.ToolResultBlock(tool_call_id="tooluse_2", content="no such city", is_error=True),
        ]
    )


def test_the_two_message_resume_is_one_call_and_passes_validate() -> None:
    reply, results = paused_reply(), two_results()
    # Converse itself refuses a conversation opening with the assistant; the harness resume
    # carries the paused turn first, and its own validate target accepts that.
    assert [p.code for p in mb.validate([reply, results], "bedrock")] == ["first-turn-not-user"]
    assert mb.validate([reply, results], "bedrock-harness") == []
    resume = mb.harness_resume(results, reply=reply)
    validate(resume)
    assistant, user = resume["messages"]
    assert assistant == {
        "role": "assistant",
        "content": [
            {"reasoningContent": {"reasoningText": {"text": "Two cities.", "signature": "sig"}}},
            {"text": "Checking both."},
            {
                "toolUse": {
                    "toolUseId": "tooluse_1",
                    "name": "get_weather",
                    "input": {"city_name": "Oslo"},
                }
            },
            {
                "toolUse": {
                    "toolUseId": "tooluse_2",
                    "name": "get_weather",
                    "input": {"city_name": "Nowhere"},
                }
            },
        ],
    }
    assert user == mb.harness_resume(results)["messages"][0]


def test_a_resume_whose_results_do_not_answer_the_reply_raises() -> None:
    only_one = mb.ToolResultBlock(tool_call_id="tooluse_1", content="12C")
    with pytest.raises(mb.HistoryError, match="tool-call-without-result") as caught:
        mb.harness_resume([only_one], reply=paused_reply())
    assert "tooluse_2" in str(caught.value)
    stray = mb.ToolResultBlock(tool_call_id="tooluse_9", content="?")
    with pytest.raises(mb.HistoryError, match="orphan-tool-result"):
        mb.harness_resume([*two_results().results, stray], reply=paused_reply())


def test_validate_bedrock_harness_flags_what_a_harness_message_cannot_carry() -> None:
    image = mb.ImageBlock.from_bytes(make_png())
    history = [
        mb.UserMessage(content=[mb.TextBlock(text="Look"), image]),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="t", name="zoom", args={})]),
        mb.ToolMessage.from_results(
            [mb.ToolResultBlock(tool_call_id="t", content=[mb.TextBlock(text="x"), image])]
        ),
    ]
    problems = mb.validate(history, "bedrock-harness")
    assert [(p.message_index, p.block_index, p.code) for p in problems] == [
        (0, 1, "unsupported-block"),
        (2, 0, "unsupported-block"),
    ]
    assert mb.validate(history, "bedrock") == []
    with pytest.raises(UnsupportedBlockError, match="redacted"):
        mb.harness_resume(
            mb.ToolMessage.from_result("t", "x"),
            reply=mb.AssistantMessage(
                content=[
                    mb.ThinkingBlock(redacted=True, redacted_data="abc"),
                    mb.ToolCallBlock(id="t", name="zoom", args={}),
                ]
            ),
        )
