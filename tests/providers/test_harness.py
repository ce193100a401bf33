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
