"""A reply written back for the provider it came from keeps its reasoning and citations:
``decode(encode_response(m, p), p)`` has the same blocks and notes as ``m``."""

from __future__ import annotations

from typing import Any

import pytest

import mediablocks as mb

REPLIES: dict[str, dict[str, Any]] = {
    "anthropic": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 7},
        "content": [
            {"type": "thinking", "thinking": "Let me think.", "signature": "sig=="},
            {
                "type": "text",
                "text": "Paris.",
                "citations": [
                    {
                        "type": "char_location",
                        "cited_text": "Paris is",
                        "document_index": 0,
                        "document_title": "Doc",
                        "start_char_index": 0,
                        "end_char_index": 8,
                    }
                ],
            },
        ],
    },
    "openai-chat": {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "logprobs": None,
                "message": {
                    "role": "assistant",
                    "content": "Paris.",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url_citation": {
                                "url": "https://x.org",
                                "title": "X",
                                "start_index": 0,
                                "end_index": 6,
                            },
                        }
                    ],
                },
            }
        ],
    },
    "deepseek": {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "deepseek-reasoner",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "logprobs": None,
                "message": {
                    "role": "assistant",
                    "content": "Paris.",
                    "reasoning_content": "Thinking hard.",
                },
            }
        ],
    },
    "openai-responses": {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-5",
        "status": "completed",
        "output": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Thought."}],
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": "Paris.",
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": "https://x.org",
                                "title": "X",
                                "start_index": 0,
                                "end_index": 6,
                            }
                        ],
                    }
                ],
            },
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    },
    "gemini": {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Hmm.", "thought": True},
                        {"text": "Paris.", "thoughtSignature": "c2ln"},
                    ],
                },
                "finishReason": "STOP",
                "index": 0,
                "citationMetadata": {
                    "citations": [{"startIndex": 0, "endIndex": 6, "uri": "https://x.org"}]
                },
            }
        ],
        "modelVersion": "gemini-3",
    },
    "bedrock": {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"reasoningContent": {"reasoningText": {"text": "Hmm.", "signature": "sig"}}},
                    {
                        "citationsContent": {
                            "content": [{"text": "Paris."}],
                            "citations": [
                                {
                                    "title": "Doc",
                                    "sourceContent": [{"text": "Paris is"}],
                                    "location": {
                                        "documentChar": {"documentIndex": 0, "start": 0, "end": 8}
                                    },
                                }
                            ],
                        }
                    },
                ],
            }
        },
        "stopReason": "end_turn",
        "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
        "metrics": {"latencyMs": 1},
    },
    "mistral": {
        "id": "m1",
        "object": "chat.completion",
        "created": 1,
        "model": "magistral",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": [{"type": "text", "text": "Hmm."}]},
                        {"type": "text", "text": "Paris."},
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    },
    "ollama": {
        "model": "qwen3",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "Paris.", "thinking": "Hmm."},
        "done": True,
        "done_reason": "stop",
    },
    "cohere": {
        "id": "c",
        "finish_reason": "COMPLETE",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Hmm."},
                {"type": "text", "text": "Paris."},
            ],
            "citations": [
                {
                    "start": 0,
                    "end": 6,
                    "text": "Paris.",
                    "sources": [
                        {
                            "type": "document",
                            "id": "d1",
                            "document": {"id": "d1", "text": "Paris is"},
                        }
                    ],
                }
            ],
        },
    },
}


@pytest.mark.parametrize("provider", sorted(REPLIES))
def test_a_same_provider_reply_keeps_reasoning_and_citations(provider: str) -> None:
    message = mb.decode(REPLIES[provider], provider)[0]
    assert isinstance(message, mb.AssistantMessage)
    assert any(isinstance(b, mb.ThinkingBlock) for b in message.content) or provider in (
        "openai-chat",
    )
    again = mb.decode(mb.encode_response(message, provider), provider)[0]
    assert again.content == message.content
    assert again.metadata == message.metadata


def test_deepseek_reasoning_goes_back_under_its_own_field() -> None:
    message = mb.decode(REPLIES["deepseek"], "deepseek")[0]
    reply = mb.encode_response(message, "deepseek")["choices"][0]["message"]
    assert reply["reasoning_content"] == "Thinking hard."


def test_openai_chat_citations_go_back_as_message_annotations() -> None:
    from openai.types.chat import ChatCompletion

    message = mb.decode(REPLIES["openai-chat"], "openai-chat")[0]
    body = mb.encode_response(message, "openai-chat")
    parsed = ChatCompletion.model_validate(body)
    annotations = parsed.choices[0].message.annotations
    assert annotations is not None
    assert annotations[0].url_citation.url == "https://x.org"
