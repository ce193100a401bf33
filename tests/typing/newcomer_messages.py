"""A newcomer's messages in every shape the docs name, a stream and a checkpoint. Type-checked,
not run."""

from __future__ import annotations

import mediablocks as mb

history: list[mb.Message] = mb.prepare([("system", "Be brief."), ("user", "hi")], "openai")
fields = mb.encode("hello", "anthropic")
same = mb.encode([{"role": "user", "content": "hello"}], "anthropic")
request = mb.Request(messages=[("user", "hi")], model="gpt-4.1")
problems: list[mb.Problem] = mb.validate(("user", "hi"), "bedrock")
count: int = mb.estimate_tokens([("user", "hi"), "and more"], "gemini")
checkpoint: str = mb.dump_messages([("user", "hi"), ("assistant", "hello")])
restored: list[mb.Message] = mb.load_messages(checkpoint)
flat: list[mb.FlatItem] = mb.normalize_messages([("user", "hi")])
back: list[mb.Message] = mb.regroup_messages(flat)
text: str = mb.pretty(["hi", ("assistant", "hello")])
reply: mb.AssistantMessage = mb.from_stream([], "bedrock-harness")
call = mb.ToolCallBlock(id="c1", name="search", args={"q": "x"}, kind="function")
label: str | None = call.kind
limits: mb.LengthLimits = mb.set_length_limits("vllm", max_string=100_000)
try:
    mb.encode(history, "openai")
except mb.MediaBlocksError as error:
    print(error.code, error.http_status, error.block)
print(fields, same, request, problems, count, restored, back, text, reply, label, limits)
