"""The Cohere v2 translator, checked against the installed ``cohere`` SDK's own models and sent
through the real SDK client to a local server."""

from __future__ import annotations

import base64
import json
from typing import Any

import cohere
import pytest
from cohere import types as ct
from cohere.v2.types.v2chat_response import V2ChatResponse
from cohere.v2.types.v2chat_stream_response import V2ChatStreamResponse
from pydantic import BaseModel
from tests.conftest import (
    make_jpeg,
    make_pdf,
    make_png,
    make_wav,
    model_keys,
    serve,
    tool_call_history,
    type_adapter,
)

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers._options import EncodeOptions
from mediablocks.providers.cohere import from_cohere, to_cohere
from mediablocks.providers.cohere.stream import CohereFolder

MESSAGE_MODELS: dict[str, type[BaseModel]] = {
    "system": ct.SystemChatMessageV2,
    "user": ct.UserChatMessageV2,
    "assistant": ct.AssistantChatMessageV2,
    "tool": ct.ToolChatMessageV2,
}


def check_messages(messages: list[dict[str, Any]]) -> None:
    """Each message against cohere's own model, refusing keys the model would ignore."""
    for message in messages:
        model = MESSAGE_MODELS[message["role"]]
        model.model_validate(message)
        unknown = set(message) - model_keys(model)
        assert not unknown, f"{model.__name__} has no field(s) {unknown}"


def test_text_images_and_a_text_document_go_as_cohere_takes_them() -> None:
    png = make_png()
    notes = mb.FileBlock.from_bytes(b"Revenue grew 12% in Q3.", "text/plain", filename="q3.txt")
    messages = [
        mb.SystemMessage.text("Be brief."),
        mb.UserMessage(content=["What does the chart say?", mb.ImageBlock.from_bytes(png), notes]),
    ]
    fields = to_cohere(messages)
    check_messages(fields["messages"])
    assert fields["messages"][0] == {"role": "system", "content": "Be brief."}
    user = fields["messages"][1]["content"]
    assert user[0] == {"type": "text", "text": "What does the chart say?"}
    url = user[1]["image_url"]["url"]
    assert base64.b64decode(url.split(",", 1)[1]) == png
    assert url.startswith("data:image/png;base64,")
    [document] = fields["documents"]
    ct.Document.model_validate(document)
    assert document["data"] == {"title": "q3.txt", "text": "Revenue grew 12% in Q3."}


def test_tool_calls_and_results_round_trip() -> None:
    history = tool_call_history()
    fields = to_cohere(history)
    check_messages(fields["messages"])
    assistant = fields["messages"][1]
    assert [call["function"]["name"] for call in assistant["tool_calls"]] == ["weather"] * 2
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert assistant["tool_calls"][1]["function"]["arguments"] == "{city: Rome"
    tools = [m for m in fields["messages"] if m["role"] == "tool"]
    assert [t["tool_call_id"] for t in tools] == ["call_1", "call_2"]
    back = from_cohere(fields)
    calls = back[1].tool_calls
    assert [(c.id, c.args, c.raw_args) for c in calls] == [
        ("call_1", {"city": "Paris"}, None),
        ("call_2", {}, "{city: Rome"),
    ]
    results = [b for m in back for b in m.content if isinstance(b, mb.ToolResultBlock)]
    assert [r.tool_call_id for r in results] == ["call_1", "call_2"]
    assert results[0].content == "sunny"


def test_a_response_with_thinking_plan_citations_and_calls_decodes_and_replays() -> None:
    response = {
        "id": "resp_1",
        "finish_reason": "TOOL_CALL",
        "message": {
            "role": "assistant",
            "tool_plan": "I will look up the weather.",
            "content": [
                {"type": "thinking", "thinking": "The user wants weather."},
                {"type": "text", "text": "Paris is sunny."},
            ],
            "citations": [{"start": 0, "end": 5, "text": "Paris", "type": "TEXT_CONTENT"}],
            "tool_calls": [
                {
                    "id": "tc_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        "usage": {"tokens": {"input_tokens": 12.0, "output_tokens": 7.0}, "cached_tokens": 3.0},
    }
    V2ChatResponse.model_validate(response)
    [reply] = from_cohere(response)
    assert isinstance(reply, mb.AssistantMessage)
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (12, 7)
    assert reply.usage.cache_read_tokens == 3
    assert [c.name for c in reply.tool_calls] == ["weather"]
    assert reply.thinking[0].thinking == "The user wants weather."
    # Sent back to Cohere, the plan, thinking, citations and call are all where they were.
    [message] = to_cohere([reply])["messages"]
    check_messages([message])
    assert message["tool_plan"] == "I will look up the weather."
    assert message["content"][0] == {"type": "thinking", "thinking": "The user wants weather."}
    assert message["citations"] == response["message"]["citations"]
    [sent] = message["tool_calls"]
    assert (sent["id"], sent["function"]["name"]) == ("tc_1", "weather")
    assert json.loads(sent["function"]["arguments"]) == {"city": "Paris"}


def test_what_cohere_cannot_take_raises_naming_the_block() -> None:
    wav = mb.AudioBlock.from_bytes(make_wav())
    with pytest.raises(UnsupportedBlockError, match=r"AudioBlock.*message 0, block 0"):
        to_cohere([mb.UserMessage(content=[wav])])
    pdf = mb.FileBlock.from_bytes(make_pdf())
    with pytest.raises(UnsupportedBlockError, match="documents='text'"):
        to_cohere([mb.UserMessage(content=[pdf])])


def test_media_in_tool_results_moves_to_a_user_message_or_raises() -> None:
    jpeg = make_jpeg()
    result = mb.ToolResultBlock(
        tool_call_id="tc_1", content=[mb.TextBlock(text="here"), mb.ImageBlock.from_bytes(jpeg)]
    )
    call = mb.ToolCallBlock(id="tc_1", name="photo", args={})
    history = [mb.AssistantMessage(content=[call]), mb.ToolMessage(content=[result])]
    messages = to_cohere(history)["messages"]
    check_messages(messages)
    assert messages[1] == {
        "role": "tool",
        "tool_call_id": "tc_1",
        "content": [{"type": "text", "text": "here"}],
    }
    assert messages[2]["role"] == "user"
    assert messages[2]["content"][1]["type"] == "image_url"
    with pytest.raises(UnsupportedBlockError, match="tool_result_media"):
        to_cohere(history, EncodeOptions(tool_result_media="error"))


def test_other_providers_thinking_is_dropped_or_sent_as_text() -> None:
    foreign = mb.ThinkingBlock(thinking="hmm", signature="sig", provider="anthropic")
    message = mb.AssistantMessage(content=[foreign, mb.TextBlock(text="ok")])
    assert to_cohere([message])["messages"][0]["content"] == [{"type": "text", "text": "ok"}]
    as_text = to_cohere([message], EncodeOptions(thinking="text"))["messages"][0]["content"]
    assert as_text[0] == {"type": "text", "text": "hmm"}


def test_the_sdk_sends_what_encode_built_to_a_local_server() -> None:
    reply = {
        "id": "r1",
        "finish_reason": "COMPLETE",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "A red square."}]},
    }
    with serve(match_prefix=True) as (base, handler):
        handler.routes["/v2/chat"] = ("application/json", json.dumps(reply).encode())
        client = cohere.ClientV2(api_key="test", base_url=base)
        fields = to_cohere([mb.UserMessage.with_images("what is this?", [make_png()])])
        response = client.chat(model="command-a-vision-07-2025", **fields)
        [(method, path, body)] = handler.seen
    sent = json.loads(body)
    assert (method, path) == ("POST", "/v2/chat")
    assert sent["messages"] == fields["messages"]
    [decoded] = from_cohere(response)
    assert isinstance(decoded, mb.AssistantMessage)
    assert decoded.content == [mb.TextBlock(text="A red square.")]


def test_a_stream_folds_into_the_same_reply_as_the_response() -> None:
    events: list[dict[str, Any]] = [
        {"type": "message-start", "id": "r9", "delta": {"message": {"role": "assistant"}}},
        {
            "type": "content-start",
            "index": 0,
            "delta": {"message": {"content": {"type": "text", "text": ""}}},
        },
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "Hel"}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "lo"}}}},
        {"type": "content-end", "index": 0},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "Look it up."}}},
        {
            "type": "tool-call-start",
            "index": 0,
            "delta": {
                "message": {
                    "tool_calls": {
                        "id": "tc_9",
                        "type": "function",
                        "function": {"name": "weather", "arguments": ""},
                    }
                }
            },
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": '{"city":'}}}},
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": '"Rome"}'}}}},
        },
        {"type": "tool-call-end", "index": 0},
        {
            "type": "message-end",
            "delta": {
                "finish_reason": "TOOL_CALL",
                "usage": {"tokens": {"input_tokens": 5.0, "output_tokens": 4.0}},
            },
        },
    ]
    for event in events:  # each event is one the SDK itself would yield
        type_adapter(V2ChatStreamResponse).validate_python(event)
    folder = CohereFolder()
    for event in events:
        folder.add(event)
    [reply] = from_cohere(folder.response())
    assert isinstance(reply, mb.AssistantMessage)
    assert reply.response_id == "r9"
    assert [b.text for b in reply.content if isinstance(b, mb.TextBlock)] == [
        "Look it up.",
        "Hello",
    ]
    assert [(c.id, c.args) for c in reply.tool_calls] == [("tc_9", {"city": "Rome"})]
    assert reply.usage is not None
    assert reply.usage.output_tokens == 4


@pytest.mark.parametrize("index", [10**9, -1, 1e308, "0", None, [0]])
def test_a_stream_index_from_the_wire_never_allocates(index: Any) -> None:
    folder = CohereFolder()
    event = {"type": "content-delta", "index": index, "delta": {"message": {"content": {}}}}
    with pytest.raises(DecodeError, match="index"):
        folder.add(event)


@pytest.mark.parametrize(
    "payload",
    [
        {"messages": [{"role": ["user"], "content": "x"}]},
        {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
        {"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}]},
        {"messages": "nope"},
        {"finish_reason": "COMPLETE", "message": ["x"]},
        42,
    ],
)
def test_malformed_payloads_raise_decode_error(payload: Any) -> None:
    with pytest.raises(DecodeError):
        from_cohere(payload)
