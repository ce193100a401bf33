"""A model named anywhere in a call counts: `encode_json(model=)`, `Request(model=)` and a batch
line's model refuse media of a kind that model takes in no form, naming the block and model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import TESTDATA, make_png

import mediablocks as mb

WAV = (TESTDATA / "audio" / "pcm16.wav").read_bytes()


def _voice() -> list[Any]:
    return [("user", ["transcribe", mb.media_block(WAV)])]


@pytest.mark.parametrize(
    "call",
    [
        lambda m, p: mb.encode_json(m, "openai", model="gpt-4.1"),
        lambda m, p: mb.encode_request(mb.Request(messages=m, model="gpt-4.1"), "openai"),
        lambda m, p: mb.write_batch([m], "openai", p, model="gpt-4.1"),
        lambda m, p: mb.write_batch([(m, {"model": "gpt-4.1"})], "openai", p),
        lambda m, p: mb.write_batch([mb.Request(messages=m, model="gpt-4.1")], "openai", p),
    ],
    ids=["encode_json", "encode_request", "write_batch", "batch fields", "batch Request"],
)
def test_a_model_without_audio_refuses_audio_by_name(call: Any, tmp_path: Path) -> None:
    out = tmp_path / "batch.jsonl"
    with pytest.raises(mb.UnsupportedBlockError, match=r"block 1: AudioBlock.*gpt-4\.1") as caught:
        call(_voice(), out)
    assert isinstance(caught.value.block, mb.AudioBlock)
    assert caught.value.http_status == 415
    assert not out.exists() or "input_audio" not in out.read_text()


def test_an_audio_model_or_no_model_keeps_the_wire_formats_own_rule(tmp_path: Path) -> None:
    body = json.loads(mb.encode_json(_voice(), "openai", model="gpt-4o-audio-preview"))
    assert body["messages"][0]["content"][1]["type"] == "input_audio"
    assert mb.encode(_voice(), "openai")["messages"][0]["content"][1]["type"] == "input_audio"
    out = tmp_path / "batch.jsonl"
    mb.write_batch([_voice()], "openai", out, model="gpt-4o-audio-preview")
    assert "input_audio" in out.read_text()


def test_images_go_to_any_chat_model() -> None:
    message = [("user", ["what is it", mb.media_block(make_png())])]
    body = json.loads(mb.encode_json(message, "openai", model="gpt-4.1"))
    assert body["messages"][0]["content"][1]["type"] == "image_url"


def test_claude_on_bedrock_refuses_video_inside_a_tool_result() -> None:
    clip = mb.VideoBlock.from_bytes((TESTDATA / "video" / "h264-aac.mp4").read_bytes())
    result = mb.ToolResultBlock(tool_call_id="t1", content=[clip])
    messages = [
        mb.UserMessage.text("film it"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="t1", name="film")]),
        mb.ToolMessage(content=[result]),
    ]
    model = "anthropic.claude-sonnet-4-5-20250929-v1:0"
    with pytest.raises(mb.UnsupportedBlockError, match=r"message 2, block 0: VideoBlock"):
        mb.encode_request(mb.Request(messages=messages, model=model), "bedrock")
