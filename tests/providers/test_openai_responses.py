"""The OpenAI Responses translator, checked against the installed ``openai`` SDK's types."""

from __future__ import annotations

import json
from typing import Any, get_args, get_type_hints

import pytest
from openai.types.responses import (
    EasyInputMessageParam,
    Response,
    ResponseFunctionToolCallParam,
    ResponseInputFileContentParam,
    ResponseInputFileParam,
    ResponseInputImageContentParam,
    ResponseInputImageParam,
    ResponseInputItemParam,
    ResponseInputTextContentParam,
    ResponseInputTextParam,
    ResponseOutputMessageParam,
    ResponseOutputRefusalParam,
    ResponseOutputTextParam,
    ResponseReasoningItemParam,
    response_create_params,
)
from openai.types.responses.response_input_item_param import FunctionCallOutput
from openai.types.responses.response_input_item_param import Message as InputMessageParam
from openai.types.responses.response_output_text_param import Annotation
from openai.types.responses.response_reasoning_item_param import Summary
from pydantic import TypeAdapter, ValidationError
from tests.conftest import (
    RouteHandler,
    b64,
    check_typed_dict,
    make_bmp,
    make_jpeg,
    make_pdf,
    make_png,
    make_wav,
    tool_call_history,
    type_adapter,
    without_raw,
)

import mediablocks as mb
from mediablocks.encoding import encode, encode_json
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers import decode
from mediablocks.providers._options import EncodeOptions, MediaSink
from mediablocks.providers.openai_responses import from_openai_responses, to_openai_responses
from mediablocks.sources import FileIdSource, URLSource

# Message parts, function-call output parts and output message parts: type -> SDK TypedDict.
INPUT_PARTS: dict[str, Any] = {
    "input_text": ResponseInputTextParam,
    "input_image": ResponseInputImageParam,
    "input_file": ResponseInputFileParam,
}
OUTPUT_LIST_PARTS: dict[str, Any] = {
    "input_text": ResponseInputTextContentParam,
    "input_image": ResponseInputImageContentParam,
    "input_file": ResponseInputFileContentParam,
}
OUTPUT_PARTS: dict[str, Any] = {
    "output_text": ResponseOutputTextParam,
    "refusal": ResponseOutputRefusalParam,
}
ITEM = TypeAdapter(ResponseInputItemParam)
ANNOTATION = TypeAdapter(Annotation)
INPUT_FIELD = get_type_hints(response_create_params.ResponseCreateParamsNonStreaming)["input"]


# -- helpers ----------------------------------------------------------------------------------


def _item_type(item: dict[str, Any]) -> Any:
    kind = item.get("type")
    if kind == "message" and item["role"] == "assistant":
        return ResponseOutputMessageParam if "id" in item else EasyInputMessageParam
    if kind == "message":
        return InputMessageParam
    return {
        "function_call": ResponseFunctionToolCallParam,
        "function_call_output": FunctionCallOutput,
        "reasoning": ResponseReasoningItemParam,
    }.get(kind)


def check_items(items: list[dict[str, Any]]) -> None:
    """Every item and every part in it, one by one, against openai's own types.

    pydantic validates ``Iterable`` fields of TypedDicts lazily, so the parts are checked
    separately; the whole list is also checked as the ``input`` of a non-streaming create call.
    """
    for item in items:
        ITEM.validate_python(item)
        typed = _item_type(item)
        if typed is None:  # verbatim items: the SDK union above is the check
            continue
        check_typed_dict(typed, item)
        content = item.get("content")
        if item.get("type") == "message" and isinstance(content, list):
            parts = OUTPUT_PARTS if item["role"] == "assistant" else INPUT_PARTS
            for part in content:
                check_typed_dict(parts[part["type"]], part)
                for note in part.get("annotations", []):
                    ANNOTATION.validate_python(note)
        if item.get("type") == "function_call_output" and isinstance(item["output"], list):
            for part in item["output"]:
                check_typed_dict(OUTPUT_LIST_PARTS[part["type"]], part)
        if item.get("type") == "reasoning":
            for part in item["summary"]:
                check_typed_dict(Summary, part)
    type_adapter(INPUT_FIELD).validate_python(items)


def run(messages: list[Any], **options: Any) -> list[dict[str, Any]]:
    fields = to_openai_responses(messages, EncodeOptions(**options))
    assert set(fields) <= {"input", "instructions"}
    check_items(fields["input"])
    type_adapter(response_create_params.ResponseCreateParamsNonStreaming).validate_python(
        {"model": "gpt-5", **fields}
    )
    items: list[dict[str, Any]] = fields["input"]
    return items


def view(block: Any) -> Any:
    """What a block means, independent of how it was built (media: bytes, type and name)."""
    if isinstance(block, mb.MediaBlock):
        source = block.source
        if isinstance(source, FileIdSource):
            return (block.type, "file_id", source.file_id, block.filename)
        if isinstance(source, URLSource):
            return (block.type, "url", source.url)
        extra = (block.detail,) if isinstance(block, mb.ImageBlock) else ()
        return (block.type, block.read(), block.mime_type, block.filename, *extra)
    if isinstance(block, mb.ToolResultBlock):
        content = block.content
        shown = content if isinstance(content, str) else [view(b) for b in content]
        return ("tool_result", block.tool_call_id, shown, block.provider_data)
    return block.model_dump()


def views(messages: list[Any]) -> list[tuple[str, list[Any]]]:
    return [(m.role, [view(b) for b in m.content]) for m in messages]


def round_trip(history: list[Any], **options: Any) -> list[Any]:
    """Encode (checking every item against the SDK), decode, and compare meaning."""
    fields = to_openai_responses(history, EncodeOptions(**options))
    check_items(fields["input"])
    back = from_openai_responses(fields)
    assert views(back) == views(history)
    return back


LOCAL = mb.FetchPolicy(allow_private=True)


# -- roles and text ---------------------------------------------------------------------------


def test_messages_become_items_in_order() -> None:
    items = run(
        [
            mb.SystemMessage.text("be brief"),
            mb.UserMessage.text("hi"),
            mb.AssistantMessage.text("hello"),
        ]
    )
    assert items == [
        {
            "type": "message",
            "role": "system",
            "content": [{"type": "input_text", "text": "be brief"}],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "message", "role": "assistant", "content": "hello"},
    ]


def test_text_history_round_trips_with_block_boundaries() -> None:
    history = [
        mb.SystemMessage(content=["rule one", "rule two"]),
        mb.UserMessage(content=["one", "two"]),
        mb.AssistantMessage(content=["first", "second"]),
        mb.UserMessage.text("again"),
    ]
    back = round_trip(history)
    assert [m.text for m in back] == ["rule one\nrule two", "one\ntwo", "first\nsecond", "again"]
    assert isinstance(back[2], mb.AssistantMessage)
    assert back[2].provider == "openai-responses"


def test_developer_role_is_kept_when_the_message_says_so() -> None:
    developer = mb.SystemMessage(
        content=["house rules"], metadata={"openai-responses": {"role": "developer"}}
    )
    items = run([developer, mb.SystemMessage.text("plain"), mb.UserMessage.text("q")])
    assert [item["role"] for item in items] == ["developer", "system", "user"]
    back = from_openai_responses(items)
    assert isinstance(back[0], mb.SystemMessage)
    assert back[0].metadata == {"openai-responses": {"role": "developer"}}
    assert back[1].metadata == {}
    assert run(back) == items


def test_system_messages_mid_history_stay_in_place() -> None:
    items = run(
        [mb.UserMessage.text("a"), mb.SystemMessage.text("now be formal"), mb.UserMessage.text("b")]
    )
    assert [item["role"] for item in items] == ["user", "system", "user"]


def test_request_bodies_decode_with_instructions_and_string_input() -> None:
    body = {"model": "gpt-5", "instructions": "Answer in French.", "input": "Hello"}
    back = from_openai_responses(body)
    assert [(m.role, m.text) for m in back] == [("system", "Answer in French."), ("user", "Hello")]
    fields = to_openai_responses(back)
    assert fields == {"instructions": "Answer in French.", "input": "Hello"}  # as it came
    assert views(from_openai_responses(fields)) == views(back)
    hand_built = to_openai_responses([mb.UserMessage.text("Hello")])
    assert hand_built == {
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Hello"}],
            }
        ],
    }


def test_easy_messages_with_string_content_decode() -> None:
    back = from_openai_responses(
        [
            {"role": "developer", "content": "rules"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
        ]
    )
    assert [(type(m).__name__, m.text) for m in back] == [
        ("SystemMessage", "rules"),
        ("UserMessage", "hi"),
        ("AssistantMessage", "hello"),
    ]


def test_session_messages_are_not_sent() -> None:
    items = run(
        [
            mb.UserMessage.text("a"),
            mb.CustomMessage(custom_type="ui-note", data={"x": 1}),
            mb.AssistantMessage.text("b"),
        ]
    )
    assert [item["role"] for item in items] == ["user", "assistant"]


def test_system_messages_refuse_media_with_their_position() -> None:
    system = mb.SystemMessage(content=["look", mb.ImageBlock.from_bytes(make_png())])
    with pytest.raises(
        UnsupportedBlockError, match=r"openai-responses cannot carry ImageBlock.*message 1, block 1"
    ):
        to_openai_responses([mb.UserMessage.text("x"), system])


# -- images -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("maker", "mime"), [(make_png, "image/png"), (make_jpeg, "image/jpeg")])
def test_inline_images_are_data_uris_and_decode_to_the_same_bytes(maker: Any, mime: str) -> None:
    data = maker()
    low = mb.ImageBlock.from_bytes(data).model_copy(update={"detail": "low"})
    plain = mb.ImageBlock.from_bytes(data)
    items = run([mb.UserMessage(content=["what is this?", low, plain])])
    first, second = items[0]["content"][1:]
    assert first == {
        "type": "input_image",
        "detail": "low",
        "image_url": f"data:{mime};base64," + b64(data),
    }
    assert second["detail"] == "auto"  # required by the API's type; "auto" is its default
    round_trip([mb.UserMessage(content=["what is this?", low, plain])])


def test_newer_detail_levels_survive() -> None:
    part = {"type": "input_image", "detail": "original", "image_url": "https://example.com/a.png"}
    message = {"type": "message", "role": "user", "content": [part]}
    back = from_openai_responses([message])
    assert run(back) == [message]


def test_image_urls_are_passed_without_fetching(server: tuple[str, type[RouteHandler]]) -> None:
    base, handler = server
    history = [mb.UserMessage(content=[mb.ImageBlock.from_url(base + "/cat.png")])]
    items = run(history)
    assert items[0]["content"][0] == {
        "type": "input_image",
        "detail": "auto",
        "image_url": base + "/cat.png",
    }
    assert handler.hits == []
    round_trip(history)


def test_image_urls_are_inlined_on_request(server: tuple[str, type[RouteHandler]]) -> None:
    base, handler = server
    png = make_png()
    handler.routes["/cat"] = ("image/png", png)
    block = mb.ImageBlock.from_url(base + "/cat")
    items = run([mb.UserMessage(content=[block])], url_media="inline", policy=LOCAL)
    assert items[0]["content"][0]["image_url"] == "data:image/png;base64," + b64(png)
    assert handler.hits == ["/cat"]


def test_image_file_ids_go_out_and_foreign_ones_raise() -> None:
    ours = mb.ImageBlock.from_file_id("file-img", provider="openai")
    items = run([mb.UserMessage(content=[ours])])
    assert items[0]["content"][0] == {
        "type": "input_image",
        "detail": "auto",
        "file_id": "file-img",
    }
    round_trip([mb.UserMessage(content=[ours])])
    theirs = mb.ImageBlock.from_file_id("file_x", provider="anthropic")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*anthropic file"):
        to_openai_responses([mb.UserMessage(content=[theirs])])


def test_image_formats_openai_does_not_take_are_refused() -> None:
    bmp = mb.ImageBlock.from_bytes(make_bmp())
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 1.*image/bmp.*prepare"):
        to_openai_responses([mb.UserMessage(content=["x", bmp])])


# -- files, audio, video ----------------------------------------------------------------------


def test_pdf_is_an_input_file_with_a_data_uri_and_its_name() -> None:
    pdf = make_pdf()
    named = mb.FileBlock.from_bytes(pdf, filename="/home/ana/report.pdf")
    unnamed = mb.FileBlock.from_bytes(pdf)
    items = run([mb.UserMessage(content=[named, unnamed])])
    first, second = items[0]["content"]
    assert first == {
        "type": "input_file",
        "file_data": "data:application/pdf;base64," + b64(pdf),
        "filename": "report.pdf",
    }
    assert second["filename"] == "document.pdf"
    back = from_openai_responses(items)
    assert view(back[0].content[0]) == ("file", pdf, "application/pdf", "report.pdf")


def test_file_urls_and_file_ids_round_trip(server: tuple[str, type[RouteHandler]]) -> None:
    base, handler = server
    history = [
        mb.UserMessage(
            content=[
                mb.FileBlock.from_url(base + "/paper.pdf"),
                mb.FileBlock.from_file_id("file-123", "application/pdf", provider="openai"),
            ]
        )
    ]
    items = run(history)
    assert items[0]["content"] == [
        {"type": "input_file", "file_url": base + "/paper.pdf"},
        {"type": "input_file", "file_id": "file-123"},
    ]
    assert handler.hits == []
    round_trip(history)


def test_audio_is_refused_never_dropped() -> None:
    clip = mb.AudioBlock.from_bytes(make_wav(0.02))
    with pytest.raises(
        UnsupportedBlockError,
        match=r"openai-responses cannot carry AudioBlock\(.*bytes.*audio/wav\) "
        r"\(message 1, block 1\).*no audio input",
    ):
        to_openai_responses([mb.SystemMessage.text("s"), mb.UserMessage(content=["hear", clip])])


def test_the_sdk_has_no_audio_part_for_message_content() -> None:
    """Why audio raises: the SDK's input content union is text, image and file only."""
    content_union = get_type_hints(InputMessageParam)["content"]
    part_types = {t.__name__ for t in get_args(get_args(content_union)[0])}
    assert part_types == {
        "ResponseInputTextParam",
        "ResponseInputImageParam",
        "ResponseInputFileParam",
    }
    audio = {"type": "input_audio", "input_audio": {"data": b64(make_wav(0.01)), "format": "wav"}}
    with pytest.raises(ValidationError):
        TypeAdapter(InputMessageParam).validate_python({"role": "user", "content": [audio]})
    with pytest.raises(ValidationError):
        TypeAdapter(FunctionCallOutput).validate_python(
            {"type": "function_call_output", "call_id": "c", "output": [audio]}
        )


def test_audio_in_a_tool_result_is_refused_too() -> None:
    result = mb.ToolMessage.from_result("c1", [mb.AudioBlock.from_bytes(make_wav(0.01))])
    with pytest.raises(UnsupportedBlockError, match=r"AudioBlock.*message 0, block 0"):
        to_openai_responses([result])


def test_video_is_refused_with_its_position() -> None:
    video = mb.VideoBlock.from_url("https://example.com/clip.mp4")
    with pytest.raises(UnsupportedBlockError, match=r"VideoBlock.*message 0, block 1.*no video"):
        to_openai_responses([mb.UserMessage(content=["watch", video])])


def test_input_audio_parts_from_compatible_servers_are_kept_verbatim() -> None:
    part = {"type": "input_audio", "input_audio": {"data": b64(make_wav(0.01)), "format": "wav"}}
    message = {"type": "message", "role": "user", "content": [part]}
    (back,) = from_openai_responses([message])
    assert back.content == [
        mb.RawBlock(
            provider="openai-responses",
            data=part,
            provider_data={"openai-responses": {"slot": "part"}},
        )
    ]
    assert to_openai_responses([back])["input"] == [message]


# -- tool calls and results -------------------------------------------------------------------


def test_tool_calls_and_results_are_flat_items_and_round_trip() -> None:
    history = tool_call_history()
    items = run(history)
    assert [item["type"] for item in items] == [
        "message",
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
        "message",
    ]
    assert items[2] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "weather",
        "arguments": '{"city":"Paris"}',
    }
    assert items[3]["arguments"] == "{city: Rome"  # invalid JSON kept verbatim
    assert items[4] == {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}
    assert items[5]["output"] == [
        {"type": "input_text", "text": "bad"},
        {"type": "input_text", "text": "arguments"},
    ]
    back = from_openai_responses(items)
    assert views(back) == views(history)
    call = back[1].content[2]
    assert isinstance(call, mb.ToolCallBlock)
    assert call.raw_args == "{city: Rome"
    assert call.args == {}
    assert [r.name for r in back[2].content] == ["weather", "weather"]  # type: ignore[union-attr]


def test_media_in_tool_results_go_natively() -> None:
    png, pdf = make_png(), make_pdf()
    history = [
        mb.UserMessage.text("screenshot please"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="call_s", name="shot", args={})]),
        mb.ToolMessage.from_result(
            "call_s",
            [
                mb.TextBlock(text="here"),
                mb.ImageBlock.from_bytes(png),
                mb.FileBlock.from_bytes(pdf, filename="r.pdf"),
            ],
            name="shot",
        ),
    ]
    items = run(history, tool_result_media="error")  # nothing needs moving: no error
    output = items[2]["output"]
    assert [part["type"] for part in output] == ["input_text", "input_image", "input_file"]
    assert output[1]["image_url"] == "data:image/png;base64," + b64(png)
    assert output[2]["file_data"] == "data:application/pdf;base64," + b64(pdf)
    round_trip(history)


def test_tool_results_in_a_user_message_go_first() -> None:
    history = [
        mb.UserMessage.text("go"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="f", args={"a": 1})]),
        mb.UserMessage(content=[mb.ToolResultBlock(tool_call_id="c1", content="done"), "thanks"]),
    ]
    items = run(history)
    assert [item["type"] for item in items[2:]] == ["function_call_output", "message"]
    back = from_openai_responses(items)
    assert [m.role for m in back] == ["user", "assistant", "tool", "user"]


def test_tool_call_item_ids_and_unmodelled_keys_survive() -> None:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_9",
        "name": "lookup",
        "namespace": "crm",
        "arguments": '{"q": "x"}',
        "status": "completed",
    }
    output = {"type": "function_call_output", "id": "fco_1", "call_id": "call_9", "output": "ok"}
    back = from_openai_responses([item, output])
    call = back[0].content[0]
    assert isinstance(call, mb.ToolCallBlock)
    assert call.args == {"q": "x"}
    assert call.for_provider("openai-responses")["item"] == {
        "id": "fc_1",
        "namespace": "crm",
        "status": "completed",
    }
    again = run(back)
    assert again[0] == {**item, "arguments": '{"q":"x"}'}
    assert again[1] == output
    assert back[1].content[0].name == "lookup"  # type: ignore[union-attr]


def test_tool_calls_in_user_messages_are_refused() -> None:
    call = mb.ToolCallBlock(id="c", name="f")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*assistant"):
        to_openai_responses([mb.UserMessage(content=[call])])


# -- reasoning --------------------------------------------------------------------------------


REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [
        {"type": "summary_text", "text": "**Plan** add the numbers"},
        {"type": "summary_text", "text": "Then check"},
    ],
    "encrypted_content": "gAAAAABopaque==",
}


def test_own_reasoning_is_replayed_verbatim_with_id_and_encrypted_content() -> None:
    reply = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "4", "annotations": []}],
    }
    back = from_openai_responses([{"role": "user", "content": "2+2?"}, REASONING, reply])
    thinking = back[1].content[0]
    assert isinstance(thinking, mb.ThinkingBlock)
    assert thinking.thinking == "**Plan** add the numbers\n\nThen check"
    assert thinking.signature == "gAAAAABopaque=="
    assert thinking.provider == "openai-responses"
    items = run(back)
    assert items[1] == REASONING
    assert items[2] == reply


def test_edited_reasoning_text_goes_out_as_one_summary() -> None:
    (message,) = from_openai_responses([REASONING])
    thinking = message.content[0]
    edited = thinking.model_copy(update={"thinking": "shorter"})  # type: ignore[union-attr]
    (item,) = run([mb.AssistantMessage(content=[edited])])
    assert item["summary"] == [{"type": "summary_text", "text": "shorter"}]
    assert item["id"] == "rs_1"
    assert item["encrypted_content"] == "gAAAAABopaque=="


def test_reasoning_with_only_encrypted_content_or_only_content_round_trips() -> None:
    hidden = {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "enc"}
    raw_text = {
        "type": "reasoning",
        "id": "rs_3",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "thinking out loud"}],
    }
    (message,) = from_openai_responses([hidden, raw_text])
    first, second = message.content
    assert (first.thinking, first.signature) == ("", "enc")  # type: ignore[union-attr]
    assert second.thinking == "thinking out loud"  # type: ignore[union-attr]
    assert run([message]) == [hidden, raw_text]


def test_foreign_thinking_is_dropped_or_sent_as_text() -> None:
    history = [
        mb.UserMessage.text("2+2?"),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="add them", signature="sig", provider="anthropic"),
                mb.TextBlock(text="4"),
            ]
        ),
    ]
    assert run(history)[1:] == [{"type": "message", "role": "assistant", "content": "4"}]
    assert run(history, thinking="text")[1:] == [
        {"type": "message", "role": "assistant", "content": "add them"},
        {"type": "message", "role": "assistant", "content": "4"},
    ]


def test_own_thinking_without_an_item_id_follows_the_option() -> None:
    block = mb.ThinkingBlock(thinking="hmm", provider="openai-responses")
    assert run([mb.AssistantMessage(content=[block])]) == []
    assert run([mb.AssistantMessage(content=[block])], thinking="text") == [
        {"type": "message", "role": "assistant", "content": "hmm"}
    ]


# -- assistant message items ------------------------------------------------------------------


def test_output_message_items_keep_id_status_phase_annotations_and_refusals() -> None:
    note = {
        "type": "url_citation",
        "url": "https://example.com",
        "title": "Example",
        "start_index": 4,
        "end_index": 15,
    }
    item = {
        "type": "message",
        "id": "msg_7",
        "role": "assistant",
        "status": "completed",
        "phase": "final_answer",
        "content": [
            {
                "type": "output_text",
                "text": "See example.com.",
                "annotations": [note],
                "logprobs": [],
            },
            {"type": "refusal", "refusal": "Not that part."},
        ],
    }
    (message,) = from_openai_responses([item])
    text, refusal = message.content
    assert isinstance(text, mb.TextBlock)
    assert text.annotations == [note]
    assert isinstance(refusal, mb.TextBlock)
    assert refusal.text == "Not that part."
    assert run([message]) == [item]


def test_text_blocks_of_different_items_stay_in_their_items() -> None:
    items = [
        {
            "type": "message",
            "id": "msg_a",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "one", "annotations": []}],
        },
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {
            "type": "message",
            "id": "msg_b",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "two", "annotations": []},
                {"type": "output_text", "text": "three", "annotations": []},
            ],
        },
    ]
    (message,) = from_openai_responses(items)
    assert [b.type for b in message.content] == ["text", "tool_call", "text", "text"]
    assert run([message]) == items


def test_assistant_media_are_refused() -> None:
    reply = mb.AssistantMessage(content=["see", mb.ImageBlock.from_bytes(make_png())])
    with pytest.raises(UnsupportedBlockError, match=r"message 1, block 1"):
        to_openai_responses([mb.UserMessage.text("draw"), reply])


# -- verbatim items -----------------------------------------------------------------------------


WEB_SEARCH = {
    "type": "web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {"type": "search", "query": "weather paris"},
}


def test_unknown_items_are_raw_blocks_sent_back_verbatim_in_order() -> None:
    reference = {"type": "item_reference", "id": "msg_old"}
    computer_output = {
        "type": "computer_call_output",
        "call_id": "cc_1",
        "output": {"type": "computer_screenshot", "image_url": "https://example.com/s.png"},
    }
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]},
        WEB_SEARCH,
        reference,
        computer_output,
        {"type": "message", "role": "assistant", "content": "done"},
    ]
    back = from_openai_responses(items)
    assert [m.role for m in back] == ["user", "assistant", "tool", "assistant"]
    assert back[1].content == [
        mb.RawBlock(provider="openai-responses", data=WEB_SEARCH),
        mb.RawBlock(provider="openai-responses", data=reference),
    ]
    assert back[2].content == [mb.RawBlock(provider="openai-responses", data=computer_output)]
    assert run(back) == items
    raw_history = [mb.UserMessage.text("q"), mb.AssistantMessage(content=[back[1].content[0]])]
    round_trip(raw_history)


def test_other_providers_raw_blocks_are_refused() -> None:
    raw = mb.RawBlock(provider="openai-chat", data={"type": "text", "text": "x"})
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*openai-chat content"):
        to_openai_responses([mb.AssistantMessage(content=[raw])])


def test_unmodelled_part_keys_survive() -> None:
    part = {
        "type": "input_text",
        "text": "long prefix",
        "prompt_cache_breakpoint": {"mode": "explicit"},
    }
    items = [
        {"type": "message", "role": "user", "content": [part, {"type": "input_text", "text": "q"}]}
    ]
    assert run(from_openai_responses(items)) == items


# -- responses --------------------------------------------------------------------------------


RESPONSE: dict[str, Any] = {
    "id": "resp_123",
    "object": "response",
    "created_at": 1_760_000_000,
    "model": "gpt-5-2025-08-07",
    "status": "completed",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        REASONING,
        WEB_SEARCH,
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
                {
                    "type": "output_text",
                    "text": "It is sunny (example.com).",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url": "https://example.com",
                            "title": "Example",
                            "start_index": 15,
                            "end_index": 26,
                        }
                    ],
                }
            ],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_w",
            "name": "weather",
            "arguments": '{"city": "Oslo"}',
            "status": "completed",
        },
    ],
    "usage": {
        "input_tokens": 120,
        "input_tokens_details": {"cached_tokens": 100, "cache_write_tokens": 0},
        "output_tokens": 30,
        "output_tokens_details": {"reasoning_tokens": 12},
        "total_tokens": 150,
    },
}


@pytest.mark.parametrize("form", ["dict", "object", "model_dump", "json"])
def test_responses_decode_with_usage_ids_and_every_item(form: str) -> None:
    sdk = Response.model_validate(RESPONSE)
    payload: Any = {
        "dict": RESPONSE,
        "object": sdk,
        "model_dump": sdk.model_dump(),
        "json": sdk.model_dump_json(),
    }[form]
    (message,) = decode(payload, "openai-responses")
    assert isinstance(message, mb.AssistantMessage)
    assert (message.provider, message.model, message.response_id, message.provider_stop_reason) == (
        "openai-responses",
        "gpt-5-2025-08-07",
        "resp_123",
        "completed",
    )
    assert without_raw(message.usage) == mb.Usage(
        input_tokens=120, output_tokens=30, cache_read_tokens=100, reasoning_tokens=12
    )
    assert [b.type for b in message.content] == ["thinking", "raw", "text", "tool_call"]
    thinking, search, text, call = message.content
    assert thinking.signature == "gAAAAABopaque=="  # type: ignore[union-attr]
    assert search.data["action"]["query"] == "weather paris"  # type: ignore[union-attr]
    assert text.annotations[0]["url"] == "https://example.com"  # type: ignore[union-attr]
    assert call == mb.ToolCallBlock(
        id="call_w",
        name="weather",
        args={"city": "Oslo"},
        provider_data={"openai-responses": {"item": {"id": "fc_1", "status": "completed"}}},
    )
    # The reply goes back as the next request's input: every item validated by the SDK's types.
    items = run([mb.UserMessage.text("weather?"), message])
    assert items[1] == REASONING
    assert items[2]["id"] == "ws_1"
    assert items[2]["action"]["query"] == "weather paris"
    assert items[3]["id"] == "msg_1"
    assert items[3]["content"][0]["annotations"][0]["end_index"] == 26
    assert items[4]["call_id"] == "call_w"


def test_incomplete_responses_say_why() -> None:
    response = {
        **RESPONSE,
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [REASONING],
    }
    (message,) = from_openai_responses(Response.model_validate(response))
    assert message.provider_stop_reason == "max_output_tokens"  # type: ignore[union-attr]
    assert message.metadata["openai-responses"]["status"] == "incomplete"


def test_a_streamed_response_decodes_through_the_accumulator() -> None:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_s", "model": "gpt-5"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_s", "summary": []},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "item_id": "rs_s",
            "summary_index": 0,
            "delta": "think",
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {
                "type": "message",
                "id": "msg_s",
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            },
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_s",
            "content_index": 0,
            "delta": "Hel",
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_s",
            "content_index": 0,
            "delta": "lo",
        },
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {
                "type": "function_call",
                "id": "fc_s",
                "call_id": "call_s",
                "name": "f",
                "arguments": "",
            },
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 2,
            "item_id": "fc_s",
            "delta": '{"a": 1}',
        },
    ]
    message = mb.from_stream(events, "openai-responses")
    assert [b.type for b in message.content] == ["thinking", "text", "tool_call"]
    assert message.thinking[0].thinking == "think"
    assert message.text == "Hello"
    assert message.tool_calls[0].args == {"a": 1}
    items = run([mb.UserMessage.text("hi"), message])  # a partial reply is still valid input
    assert items[1]["id"] == "rs_s"
    assert items[2]["status"] == "in_progress"


# -- registry, JSON and bad input -------------------------------------------------------------


@pytest.mark.parametrize("name", ["openai-responses", "responses"])
def test_registry_encode_and_decode(name: str) -> None:
    history = [mb.UserMessage.text("hello"), mb.AssistantMessage.text("hi there")]
    fields = encode(history, name)
    assert fields == to_openai_responses(history)
    back = decode(json.dumps(fields), name)
    assert [(m.role, m.text) for m in back] == [("user", "hello"), ("assistant", "hi there")]


def test_encode_json_streams_media_that_decodes_to_the_exact_bytes() -> None:
    png, pdf = make_png(), make_pdf()
    history = [
        mb.UserMessage(
            content=["look", mb.ImageBlock.from_bytes(png), mb.FileBlock.from_bytes(pdf)]
        ),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c", name="shot")]),
        mb.ToolMessage.from_result("c", [mb.ImageBlock.from_bytes(png)]),
    ]
    body = encode_json(history, "openai-responses", model="gpt-5", store=False)
    parsed = json.loads(body)
    assert parsed == {
        "model": "gpt-5",
        "store": False,
        **encode(history, "responses", target="json"),
    }
    check_items(parsed["input"])
    back = decode(body, "openai-responses")
    assert back[0].content[1].read() == png  # type: ignore[union-attr]
    assert back[0].content[2].read() == pdf  # type: ignore[union-attr]
    assert back[2].content[0].content[0].read() == png  # type: ignore[union-attr]


def test_media_sink_gets_placeholders_and_nothing_is_encoded_early() -> None:
    sink = MediaSink()
    image = mb.ImageBlock.from_bytes(make_png())
    items = to_openai_responses(
        [mb.UserMessage(content=[image])], EncodeOptions(target="json", media_sink=sink)
    )["input"]
    assert items[0]["content"][0]["image_url"].startswith(sink.token)
    assert [form for _, form in sink.items] == ["data_uri"]
    assert image.source.cached_base64() is None


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        ({"input": 7}, r"'input' is not a list"),
        ({"foo": 1}, r"expected a request"),
        ([{"role": "wizard", "content": "x"}], r"item 0 has role 'wizard'"),
        ([{"role": "user", "content": 7}], r"item 0: content is a int"),
        (
            [{"role": "user", "content": [{"type": "input_image", "detail": "auto"}]}],
            r"item 0, part 0: input_image has neither",
        ),
        (
            [{"role": "user", "content": [{"type": "input_image", "image_url": "data:x"}]}],
            r"item 0, part 0",
        ),
        ([{"type": "function_call_output", "output": "x"}], r"item 0: .*has no call_id"),
        ([{"type": "function_call", "call_id": "c", "arguments": "{}"}], r"has no name"),
        ({"instructions": ["x"]}, r"'instructions' is not a string"),
        (42, r"not an OpenAI Responses payload"),
    ],
)
def test_malformed_payloads_raise_decode_errors(payload: Any, match: str) -> None:
    with pytest.raises(DecodeError, match=match):
        from_openai_responses(payload)


def test_a_whole_history_round_trips() -> None:
    png = make_png()
    history = [
        mb.SystemMessage.text("You are terse."),
        mb.UserMessage(
            content=[
                "look",
                mb.ImageBlock.from_bytes(png),
                mb.FileBlock.from_bytes(make_pdf(), filename="a.pdf"),
            ]
        ),
        *tool_call_history()[1:],
    ]
    back = round_trip(history)
    assert all(m.provider == "openai-responses" for m in back if isinstance(m, mb.AssistantMessage))


def test_null_fields_are_dropped_except_those_the_api_requires() -> None:
    generated = {
        "type": "image_generation_call",
        "id": "ig_1",
        "status": "generating",
        "result": None,
        "revised_prompt": None,
    }
    (message,) = from_openai_responses({"object": "response", "output": [generated]})
    (raw,) = message.content
    assert isinstance(raw, mb.RawBlock)
    assert raw.data == {
        "type": "image_generation_call",
        "id": "ig_1",
        "status": "generating",
        "result": None,
    }
    assert run([message]) == [raw.data]


def test_thinking_in_user_messages_follows_the_option() -> None:
    note = mb.ThinkingBlock(thinking="my plan", provider="anthropic", signature="s")
    message = mb.UserMessage(content=[note, "question"])
    assert run([message])[0]["content"] == [{"type": "input_text", "text": "question"}]
    assert run([message], thinking="text")[0]["content"] == [
        {"type": "input_text", "text": "my plan"},
        {"type": "input_text", "text": "question"},
    ]


def test_a_single_item_decodes() -> None:
    (message,) = from_openai_responses(
        {"type": "function_call_output", "call_id": "c", "output": "x"}
    )
    assert isinstance(message, mb.ToolMessage)
    assert message.results[0].content == "x"


def test_assistant_text_without_an_item_id_keeps_only_what_its_form_allows() -> None:
    items = [
        {
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "phase": "commentary",
            "content": [{"type": "output_text", "text": "working on it", "annotations": []}],
        }
    ]
    (message,) = from_openai_responses(items)
    assert run([message]) == [
        {"type": "message", "role": "assistant", "content": "working on it", "phase": "commentary"}
    ]


def test_hand_built_openai_blocks_round_trip_exactly() -> None:
    mark = "openai-responses"
    reply = mb.AssistantMessage(
        content=[
            mb.ThinkingBlock(
                thinking="plan",
                signature="enc",
                provider=mark,
                provider_data={mark: {"item": {"id": "rs_x"}}},
            ),
            mb.TextBlock(
                text="hi", provider_data={mark: {"item": {"id": "m1", "status": "completed"}}}
            ),
            mb.ToolCallBlock(
                id="c1", name="f", args={"x": [1, 2]}, provider_data={mark: {"item": {"id": "fc"}}}
            ),
        ]
    )
    history = [mb.UserMessage.text("go"), reply]
    items = run(history)
    assert items[1] == {
        "type": "reasoning",
        "id": "rs_x",
        "summary": [{"type": "summary_text", "text": "plan"}],
        "encrypted_content": "enc",
    }
    back = from_openai_responses(items)
    assert back[1].content == reply.content


def test_sdk_output_items_mixed_with_dicts_decode_as_input() -> None:
    sdk = Response.model_validate(RESPONSE)
    items = [{"role": "user", "content": "weather?"}, *sdk.output]
    user, assistant = from_openai_responses(items)
    assert user.text == "weather?"
    assert [b.type for b in assistant.content] == ["thinking", "raw", "text", "tool_call"]
    again = run([user, assistant])
    assert again[1:] == run(from_openai_responses(RESPONSE))
