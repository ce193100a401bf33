"""A document's Anthropic ``context``, ``citations`` setting and title (Gemini), and a reply's
citations, are never lost silently on the way to a provider with no place for them: raised by
default, dropped and reported with ``unsupported="drop"``."""

from __future__ import annotations

import pytest
from tests.conftest import b64, make_pdf

import mediablocks as mb
from mediablocks.errors import UnsupportedBlockError

DOCUMENT = {
    "role": "user",
    "content": [
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": b64(make_pdf())},
            "title": "Annual report",
            "context": "Written by the finance team",
            "citations": {"enabled": True},
        },
        {"type": "text", "text": "Summarise."},
    ],
}
CITED_REPLY = {
    "role": "assistant",
    "content": [
        {
            "type": "text",
            "text": "Revenue grew.",
            "citations": [
                {
                    "type": "page_location",
                    "cited_text": "Revenue grew 5%",
                    "document_index": 0,
                    "document_title": "Annual report",
                    "start_page_number": 1,
                    "end_page_number": 2,
                }
            ],
        }
    ],
}
TARGETS = ["openai-chat", "openai-responses", "gemini", "mistral", "groq"]


@pytest.mark.parametrize("provider", TARGETS)
def test_document_context_and_citation_setting_raise_or_are_reported(provider: str) -> None:
    messages = mb.decode({"messages": [DOCUMENT]}, "anthropic")
    if provider == "groq":  # takes no PDF at all
        with pytest.raises(UnsupportedBlockError, match="groq"):
            mb.encode(messages, provider, unsupported="drop")
        return
    with pytest.raises(UnsupportedBlockError, match="document context"):
        mb.encode(messages, provider)
    _, report = mb.encode_with_report(messages, provider, unsupported="drop")
    title = ["the anthropic document title 'Annual report'"] if provider == "gemini" else []
    assert [d.what.split(" of ")[0] for d in report.dropped] == [
        "the anthropic document context",
        "the anthropic document citations",
        *title,
    ]
    assert {d.message for d in report.dropped} == {0}


def test_bedrock_takes_an_anthropic_documents_notes() -> None:
    messages = mb.decode({"messages": [DOCUMENT]}, "anthropic")
    _, report = mb.encode_with_report(messages, "bedrock", unsupported="drop")
    assert not report


@pytest.mark.parametrize("provider", TARGETS)
def test_a_replys_citations_raise_or_are_reported(provider: str) -> None:
    messages = mb.decode(
        {"messages": [{"role": "user", "content": "Report?"}, CITED_REPLY]}, "anthropic"
    )
    with pytest.raises(UnsupportedBlockError, match="anthropic citations"):
        mb.encode(messages, provider)
    fields, report = mb.encode_with_report(messages, provider, unsupported="drop")
    assert [d.what for d in report.dropped] == ["the anthropic citations of a text block"]
    assert "cited_text" not in str(fields)


def test_openai_chat_citations_moving_elsewhere_are_reported() -> None:
    reply = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": "See X.",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url_citation": {
                                "url": "https://x.org",
                                "title": "X",
                                "start_index": 4,
                                "end_index": 5,
                            },
                        }
                    ],
                },
            }
        ],
    }
    messages = [mb.UserMessage.text("Where?"), *mb.decode(reply, "openai-chat")]
    _, report = mb.encode_with_report(messages, "anthropic", unsupported="drop")
    assert [d.what for d in report.dropped] == ["the openai-chat citations of a text block"]
    _, same = mb.encode_with_report(messages, "openai-chat", unsupported="drop")
    assert not same


def titled(title: str) -> list[mb.Message]:
    part = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": b64(make_pdf())},
        "title": title,
    }
    return mb.decode({"messages": [{"role": "user", "content": [part]}]}, "anthropic")


@pytest.mark.parametrize("title", ["Annual report", "Reports/2024: Q3", "Q3 report v2"])
def test_a_document_title_going_to_gemini_raises_or_is_reported(title: str) -> None:
    messages = titled(title)
    with pytest.raises(UnsupportedBlockError, match=r"document title .*message 0, block 0"):
        mb.encode(messages, "gemini")
    fields, report = mb.encode_with_report(messages, "gemini", unsupported="drop")
    [dropped] = report.dropped
    assert dropped.what.startswith(f"the anthropic document title {title!r} of FileBlock")
    assert (dropped.message, dropped.position) == (0, 0)
    assert title not in str(fields)
    # Every provider with a place for it still gets the exact title.
    assert mb.encode(messages, "anthropic")["messages"][0]["content"][0]["title"] == title


@pytest.mark.parametrize(
    "block",
    [
        mb.FileBlock.from_bytes(make_pdf(), filename="report.pdf"),
        *titled("Q3 report.pdf")[0].content,  # a title that is a plain filename is one
    ],
)
def test_a_plain_filename_goes_to_gemini_without_a_report(block: mb.FileBlock) -> None:
    messages = [mb.UserMessage(content=[block, mb.TextBlock(text="Summarise.")])]
    fields, report = mb.encode_with_report(messages, "gemini")
    assert not report
    assert fields["contents"][0]["parts"][0]["inline_data"]["mime_type"] == "application/pdf"
    # Back through Anthropic the filename is its title, and still only a filename.
    again = mb.decode(mb.encode(messages, "anthropic"), "anthropic")
    assert not mb.encode_with_report(again, "gemini")[1]
