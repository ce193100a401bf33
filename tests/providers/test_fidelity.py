"""Fidelity rules every translator shares, and per-provider gaps found on realistic payloads."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.chat import ChatCompletionDeveloperMessageParam
from tests.conftest import check_typed_dict

import mediablocks as mb
from mediablocks.errors import UnsupportedBlockError

VIDEO = "testdata/video/h264-aac.mp4"
PROVIDERS = [
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
]

SEARCH = mb.RawBlock(
    provider="anthropic",
    data={
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "web_search",
        "input": {"query": "weather"},
    },
)


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p != "anthropic"])
def test_another_providers_server_tool_block_raises_or_is_dropped_with_a_report(
    provider: str,
) -> None:
    history = [
        mb.UserMessage.text("Weather?"),
        mb.AssistantMessage(content=[SEARCH, mb.TextBlock(text="Sunny.")]),
        mb.UserMessage.text("Thanks"),
    ]
    with pytest.raises(UnsupportedBlockError, match="anthropic"):
        mb.encode(history, provider)
    fields, report = mb.encode_with_report(history, provider, unsupported="drop")
    assert "server_tool_use" not in str(fields)
    assert "Sunny." in str(fields)
    [dropped] = report.dropped
    assert (dropped.what, dropped.message, dropped.position) == (
        "anthropic block server_tool_use",
        1,
        0,
    )


def test_the_same_block_still_replays_to_its_own_provider_when_dropping() -> None:
    history = [mb.UserMessage.text("Weather?"), mb.AssistantMessage(content=[SEARCH])]
    fields, report = mb.encode_with_report(history, "anthropic", unsupported="drop")
    assert fields["messages"][1]["content"] == [SEARCH.data]
    assert not report


def test_a_drop_without_a_report_warns() -> None:
    history = [mb.UserMessage.text("Hi"), mb.AssistantMessage(content=[SEARCH])]
    with pytest.warns(mb.providers._report.DroppedWarning, match="server_tool_use"):
        mb.encode(history, "gemini", unsupported="drop")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_signed_thinking_block_without_a_provider_is_refused_loudly(provider: str) -> None:
    thought = mb.ThinkingBlock(thinking="hmm", signature="EqQBCgIYAhIM")
    history = [mb.UserMessage.text("Hi"), mb.AssistantMessage(content=[thought, "Hello"])]
    with pytest.raises(UnsupportedBlockError, match="must name the provider"):
        mb.encode(history, provider)
    signed = thought.model_copy(update={"provider": "anthropic"})
    fields = mb.encode([history[0], mb.AssistantMessage(content=[signed, "Hello"])], "anthropic")
    assert fields["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "hmm",
        "signature": "EqQBCgIYAhIM",
    }


def test_encode_json_applies_the_same_rules() -> None:
    history: list[Any] = [mb.UserMessage.text("Hi"), mb.AssistantMessage(content=[SEARCH])]
    with pytest.raises(UnsupportedBlockError):
        mb.encode_json(history, "openai", model="gpt-5")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_assistant_turn_of_only_dropped_thinking_is_not_sent_anywhere(provider: str) -> None:
    foreign = mb.ThinkingBlock(thinking="plan", signature="sig", provider="someone-else")
    history = [
        mb.UserMessage.text("Hi"),
        mb.AssistantMessage(content=[foreign]),
        mb.UserMessage.text("Again"),
    ]
    fields = mb.encode(history, provider)
    entries = fields.get("messages") or fields.get("contents") or fields.get("input")
    assert isinstance(entries, list)
    roles = [entry.get("role") for entry in entries]
    assert "assistant" not in roles
    assert "model" not in roles
    assert "Again" in str(entries)


def test_openai_chat_developer_messages_stay_developer() -> None:
    body = {
        "messages": [
            {"role": "developer", "content": "Think hard."},
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
        ]
    }
    decoded = mb.decode(body, "openai")
    assert [m.role for m in decoded] == ["system", "system", "user"]
    messages = mb.encode(decoded, "openai")["messages"]
    assert [m["role"] for m in messages] == ["developer", "system", "user"]
    check_typed_dict(ChatCompletionDeveloperMessageParam, messages[0])
    from_responses = mb.decode(
        {"input": [{"role": "developer", "content": "Think hard."}]}, "openai-responses"
    )
    assert mb.encode(from_responses, "openai")["messages"][0]["role"] == "developer"


def test_mistral_prefix_on_the_last_assistant_message_round_trips() -> None:
    from mistralai.client import models as mm

    body = {
        "messages": [
            {"role": "user", "content": "Write a haiku"},
            {"role": "assistant", "content": "Autumn moon", "prefix": True},
        ]
    }
    decoded = mb.decode(body, "mistral")
    assert decoded[1].metadata == {"mistral": {"prefix": True}}
    messages = mb.encode(decoded, "mistral")["messages"]
    assert messages[1] == {"role": "assistant", "content": "Autumn moon", "prefix": True}
    mm.AssistantMessage.model_validate(messages[1])


def test_anthropic_url_documents_get_no_invented_title() -> None:
    part = {
        "type": "document",
        "source": {"type": "url", "url": "https://example.com/a/report.pdf"},
    }
    body = {"messages": [{"role": "user", "content": [part]}]}
    decoded = mb.decode(body, "anthropic")
    assert mb.encode(decoded, "anthropic")["messages"][0]["content"] == [part]
    titled = {**part, "title": "Annual report"}
    again = mb.decode({"messages": [{"role": "user", "content": [titled]}]}, "anthropic")
    assert mb.encode(again, "anthropic")["messages"][0]["content"] == [titled]
    built = mb.FileBlock.from_url("https://example.com/a/report.pdf", "application/pdf")
    sent = mb.encode([mb.UserMessage(content=[built])], "anthropic")["messages"][0]["content"]
    assert sent[0]["title"] == "report.pdf"  # a block you built keeps its filename as title


def test_anthropic_keeps_a_mid_conversation_system_message_in_place() -> None:
    from anthropic import types as at
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    history = [
        mb.SystemMessage.text("Be brief."),
        mb.UserMessage.text("Hi"),
        mb.AssistantMessage(content="Hello"),
        mb.SystemMessage.text("From now on answer in French."),
        mb.UserMessage.text("Weather?"),
    ]
    fields = mb.encode(history, "anthropic")
    assert fields["system"] == "Be brief."
    assert [m["role"] for m in fields["messages"]] == ["user", "assistant", "system", "user"]
    assert fields["messages"][2] == {"role": "system", "content": "From now on answer in French."}
    check_typed_dict(at.SystemMessageParam, fields["messages"][2])
    check_typed_dict(MessageCreateParamsNonStreaming, {"model": "m", "max_tokens": 5, **fields})
    back = mb.decode(fields, "anthropic")
    assert [m.role for m in back] == [m.role for m in history]


@pytest.mark.parametrize("target", ["sdk", "json"])
def test_gemini_https_file_data_goes_back_as_file_data_unfetched(target: str) -> None:
    # 192.0.2.0/24 is TEST-NET: any attempt to fetch it would fail the test.
    uri = "https://192.0.2.10/clips/talk.mp4"
    body = {
        "contents": [
            {"role": "user", "parts": [{"file_data": {"file_uri": uri, "mime_type": "video/mp4"}}]}
        ]
    }
    decoded = mb.decode(body, "gemini")
    fields = mb.encode(decoded, "gemini", target=target)  # type: ignore[arg-type]
    part = fields["contents"][0]["parts"][0]
    key, uri_key = ("file_data", "file_uri") if target == "sdk" else ("fileData", "fileUri")
    assert part[key][uri_key] == uri
    assert "as_file_uri" not in str(fields)


def test_bedrock_server_tool_use_and_result_keep_their_type_both_ways() -> None:
    from tests.providers.test_bedrock import validate

    body = {
        "messages": [
            {"role": "user", "content": [{"text": "search"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "toolUse": {
                            "toolUseId": "t1",
                            "name": "web_search",
                            "input": {"q": "x"},
                            "type": "server_tool_use",
                        }
                    },
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "content": [{"text": "r"}],
                            "type": "web_search_result",
                        }
                    },
                    {"text": "done"},
                ],
            },
        ]
    }
    decoded = mb.decode(body, "bedrock")
    fields = mb.encode(decoded, "bedrock")
    assert fields == body
    validate(fields)
    plain = mb.ToolResultBlock(tool_call_id="t1", content="r")
    with pytest.raises(UnsupportedBlockError, match="server tool"):
        mb.encode([mb.UserMessage.text("hi"), mb.AssistantMessage(content=[plain])], "bedrock")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_compaction_summary_is_sent_only_when_asked(provider: str) -> None:
    history = [
        mb.CompactionSummaryMessage(summary="The user asked about cats; we listed three."),
        mb.UserMessage.text("And dogs?"),
    ]
    skipped = mb.encode(history, provider)
    assert "listed three" not in str(skipped)
    rendered = mb.encode(history, provider, compaction="user")
    assert "Summary of the earlier conversation:\\nThe user asked about cats" in str(rendered)


AUDIO_REPLY = {
    "choices": [
        {
            "message": {
                "role": "assistant",
                "content": None,
                "audio": {
                    "id": "audio_1",
                    "data": "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=",
                    "expires_at": 1,
                    "transcript": "Hello there",
                },
            },
            "finish_reason": "stop",
        }
    ]
}


@pytest.mark.parametrize("provider", ["gemini", "bedrock", "mistral"])
def test_an_assistant_audio_replys_transcript_goes_along(provider: str) -> None:
    [reply] = mb.decode(AUDIO_REPLY, "openai")
    history = [mb.UserMessage.text("hi"), reply, mb.UserMessage.text("again")]
    fields = mb.encode(history, provider)
    assert "Hello there" in str(fields)
    back = mb.decode(fields, provider)
    assert "Hello there" in back[1].text
    again = mb.encode(history, "openai")["messages"][1]
    assert again["audio"] == {"id": "audio_1"}  # its own provider replays it by id, no text added
    assert again["content"] is None


def _pdf_b64() -> str:
    import base64
    from pathlib import Path

    return base64.b64encode(Path("testdata/document/report.pdf").read_bytes()).decode("ascii")


def test_document_context_and_citations_move_between_anthropic_and_bedrock() -> None:
    data = _pdf_b64()
    bedrock_body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "document": {
                            "format": "pdf",
                            "name": "Q3 report",
                            "source": {"bytes": data},
                            "context": "quarterly numbers",
                            "citations": {"enabled": True},
                        }
                    }
                ],
            }
        ]
    }
    to_anthropic = mb.encode(mb.decode(bedrock_body, "bedrock"), "anthropic")
    part = to_anthropic["messages"][0]["content"][0]
    assert (part["context"], part["citations"]) == ("quarterly numbers", {"enabled": True})
    anthropic_body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": data},
                        "title": "Q3 report",
                        "context": "quarterly numbers",
                        "citations": {"enabled": True},
                    }
                ],
            }
        ]
    }
    to_bedrock = mb.encode(mb.decode(anthropic_body, "anthropic"), "bedrock", target="json")
    document = to_bedrock["messages"][0]["content"][0]["document"]
    assert (document["context"], document["citations"]) == ("quarterly numbers", {"enabled": True})
    from tests.providers.test_bedrock import validate

    validate(mb.encode(mb.decode(anthropic_body, "anthropic"), "bedrock"))


def test_gemini_video_clip_settings_are_not_lost_silently_going_to_bedrock() -> None:
    import base64
    from pathlib import Path

    clip = {"start_offset": "1s", "end_offset": "2s", "fps": 2}
    data = base64.b64encode(Path(VIDEO).read_bytes()).decode("ascii")
    body = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "inline_data": {"mime_type": "video/mp4", "data": data},
                        "video_metadata": clip,
                    }
                ],
            }
        ]
    }
    decoded = mb.decode(body, "gemini")
    assert mb.encode(decoded, "gemini")["contents"][0]["parts"][0]["video_metadata"] == clip
    with pytest.raises(UnsupportedBlockError, match="clip settings"):
        mb.encode(decoded, "bedrock")
    fields, report = mb.encode_with_report(decoded, "bedrock", unsupported="drop")
    assert "video" in fields["messages"][0]["content"][0]
    assert "clip settings" in report.dropped[0].what
