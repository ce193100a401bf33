"""A user's program, as a new user writes it: an image and a PDF to seven official SDKs, a
two-call tool loop, a streamed reply and `prepare`.

Never run by the tests (every call would need the network and keys); type-checked by
``tests/test_typing_user_program.py`` with ``mypy --strict`` and ``pyright`` (strict), which must
both report 0 errors. ``assert_type`` pins that each SDK call keeps its own return type after
``**mb.encode(...)``, and that mediablocks' results are precise (never ``Any``).
"""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import boto3
import ollama
from anthropic.types import Message as AnthropicMessage
from anthropic.types import ToolParam
from google import genai
from google.genai.types import GenerateContentResponse
from mistralai.client import Mistral
from mistralai.client.models import ChatCompletionResponse
from mypy_boto3_bedrock_runtime.type_defs import ConverseResponseTypeDef
from openai import OpenAI
from openai.types.chat import ChatCompletion
from openai.types.responses import Response
from typing_extensions import assert_type

import mediablocks as mb

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
photo = mb.ImageBlock.from_path(TESTDATA / "image" / "photo.jpg")
report = mb.media_block(TESTDATA / "document" / "report.pdf")
question = mb.UserMessage(content=["What do the photo and the report show?", photo, report])
conversation: list[mb.Message] = [mb.SystemMessage(content="Answer in one line."), question]


def ask_openai_chat() -> str:
    client = OpenAI()
    fields = mb.encode(mb.prepare(conversation, "openai"), "openai")
    completion = client.chat.completions.create(model="gpt-5", **fields)
    assert_type(completion, ChatCompletion)
    return mb.decode_response(completion, "openai").text


def ask_openai_responses() -> str:
    client = OpenAI()
    response = client.responses.create(model="gpt-5", **mb.encode(conversation, "responses"))
    assert_type(response, Response)
    return response.output_text


def ask_anthropic() -> int:
    client = anthropic.Anthropic()
    fitted = mb.prepare(conversation, "anthropic")
    if mb.estimate_tokens(fitted, "anthropic") + mb.estimate_tokens(photo, "anthropic") > 100_000:
        return 0
    fields = mb.encode(fitted, "anthropic")
    message = client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, **fields)
    assert_type(message, AnthropicMessage)
    reply = mb.decode_response(message, "anthropic")
    return reply.usage.output_tokens if reply.usage else 0


def ask_gemini() -> str | None:
    client = genai.Client()
    fields = mb.encode(conversation, "gemini")
    response = client.models.generate_content(model="gemini-2.5-flash", **fields)
    assert_type(response, GenerateContentResponse)
    return response.text


def ask_bedrock() -> str:
    # boto3-stubs types only the services installed: the other overloads of boto3.client are
    # partly unknown to pyright, which is boto3's typing, not this program's.
    client = boto3.client("bedrock-runtime", region_name="us-east-1")  # pyright: ignore[reportUnknownMemberType]
    fields = mb.encode(mb.prepare(conversation, "bedrock"), "bedrock")
    response = client.converse(modelId="us.anthropic.claude-sonnet-4-5-20250929-v1:0", **fields)
    assert_type(response, ConverseResponseTypeDef)
    return response["stopReason"]


def ask_mistral() -> str | None:
    client = Mistral(api_key="...")
    fields = mb.encode(conversation, "mistral")
    response = client.chat.complete(model="mistral-medium-latest", **fields)
    assert_type(response, ChatCompletionResponse)
    return mb.decode_response(response, "mistral").stop_reason


def ask_ollama() -> str:
    only_the_photo = [mb.UserMessage(content=["What is in this photo?", photo])]
    fields = mb.encode(only_the_photo, "ollama")
    # ollama.chat's ``tools`` parameter takes a bare ``Callable``, partly unknown to pyright.
    response = ollama.chat(model="gemma3", **fields)  # pyright: ignore[reportUnknownMemberType]
    assert_type(response, ollama.ChatResponse)
    return mb.decode_response(response, "ollama").text


WEATHER: ToolParam = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def tool_loop() -> str:
    """Two calls: the model asks for a tool, gets its result, answers."""
    client = anthropic.Anthropic()
    history: list[mb.Message] = [mb.UserMessage(content="Is it raining in Paris?")]
    for _ in range(2):
        message = client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=1024,
            tools=[WEATHER],
            **mb.encode(history, "anthropic"),
        )
        reply = mb.decode_response(message, "anthropic")
        history.append(reply)
        if not reply.tool_calls:
            return reply.text
        for call in reply.tool_calls:
            city = str(call.args.get("city", "?"))
            result = json.dumps({"city": city, "rain": False})
            history.append(mb.ToolMessage.from_result(call.id, result, name=call.name))
    return "no answer"


def streamed() -> mb.AssistantMessage:
    client = OpenAI()
    stream = client.chat.completions.create(
        model="gpt-5", stream=True, **mb.encode(conversation, "openai")
    )
    reply = mb.from_stream(stream, "openai")
    assert_type(reply, mb.AssistantMessage)
    return reply


def typed_helpers(reply: mb.AssistantMessage) -> float:
    """The typed helpers: narrowing content to media, joined text, usage without None checks,
    a frozen message extended, a history validated against the request's tools, a cost."""
    images = question.media(mb.ImageBlock)
    assert_type(images, list[mb.ImageBlock])
    every = question.media()
    assert_type(every, list[mb.MediaBlock])
    sizes = [image.read()[:4] for image in images]
    assert_type(question.text, str)
    assert_type(reply.usage_or_zero.output_tokens, int)
    follow_up = question.with_content("And the second page?", report)
    assert_type(follow_up, mb.UserMessage)
    assert_type(follow_up.content, tuple[mb.Block, ...])
    weather = mb.Tool(name="get_weather", description="d", parameters={"type": "object"})
    problems = mb.validate([*conversation, reply], "anthropic", tools=[weather])
    assert_type(problems, list[mb.Problem])
    priced = reply.usage_or_zero.priced(mb.Prices(input=3.0, output=15.0))
    single = mb.block_to_message(photo)
    assert_type(single, mb.Message)
    results = [r.media(mb.ImageBlock) for r in single.content if isinstance(r, mb.ToolResultBlock)]
    assert_type(results, list[list[mb.ImageBlock]])
    return (priced.cost.total if priced.cost else 0.0) + len(sizes)


def replayed(body: str) -> list[mb.Message]:
    """A stored request body read back: every message, of every role."""
    messages = mb.decode(body, "openai")
    return [m for m in messages if isinstance(m, (mb.UserMessage, mb.AssistantMessage))]


if __name__ == "__main__":
    print(ask_openai_chat(), ask_anthropic(), tool_loop(), streamed().text)
