"""A newcomer's voice note and photo sent to three providers. Type-checked, not run."""

from __future__ import annotations

from pathlib import Path

import mediablocks as mb

photo = mb.media_block(Path("testdata/image/photo.jpg"))
voice = mb.media_block(Path("testdata/audio/voice-note.webm"))
blocks: list[mb.Block] = [mb.TextBlock(text="What is in the photo and the note?"), photo, voice]
question = mb.UserMessage(content=blocks)

for provider, model in (("gemini", None), ("openai", "gpt-4o-audio-preview"), ("bedrock", None)):
    prepared, report = mb.prepare_with_report([question], provider, model=model)
    assumed: bool = report.model_assumed
    changed: list[mb.BlockReport] = report.changed
    fields = mb.encode(prepared, provider)
    print(provider, assumed, len(changed), len(fields), mb.estimate_tokens(prepared, provider))

try:
    mb.prepare([question], "anthropic")
except mb.DoesNotFitError as error:
    for problem in error.problems:
        kind: str = problem.code
        block: object = problem.block
        print(kind, block, problem.http_status)
images: list[mb.ImageBlock] = question.media(mb.ImageBlock)
