"""The share of (file, provider) pairs of ``testdata/`` that `prepare` makes sendable, per kind.

For every image, audio, video, document and text file in ``testdata/manifest.json`` and every
provider, one `prepare` call on a message holding just that file: a pair is sendable when it
returns, not when it raises `DoesNotFitError`. Run it against any source tree to compare before
and after a change:

    PYTHONPATH=src python benchmarks/sendable_share.py [--why]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from mediablocks import (
    AudioBlock,
    FileBlock,
    ImageBlock,
    MediaBlock,
    MediaBlocksError,
    UserMessage,
    VideoBlock,
    prepare,
)
from mediablocks.providers.registry import limits_for

PROVIDERS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
)
TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
KINDS: dict[str, type[MediaBlock]] = {
    "image": ImageBlock,
    "audio": AudioBlock,
    "video": VideoBlock,
    "document": FileBlock,
    "text": FileBlock,
}


def main() -> None:
    manifest = json.loads((TESTDATA / "manifest.json").read_text())
    sendable: Counter[str] = Counter()
    total: Counter[str] = Counter()
    takes: Counter[str] = Counter()  # pairs whose provider takes the kind in some form
    refusals: list[str] = []
    for path, entry in sorted(manifest.items()):
        kind = entry["kind"]
        if kind not in KINDS:
            continue
        block_type = KINDS[kind]
        for provider in PROVIDERS:
            total[kind] += 1
            limits = limits_for(provider)
            if kind == "image":
                takes[kind] += bool(limits.image_types)
            elif kind == "audio":
                takes[kind] += bool(limits.audio_types)
            elif kind == "video":
                takes[kind] += bool(limits.video_types or limits.image_types)
            else:
                takes[kind] += 1  # every provider takes text
            try:
                prepare([UserMessage(content=[block_type.from_path(TESTDATA / path)])], provider)
            except MediaBlocksError as exc:
                reason = str(exc).splitlines()[-1].split(": ", 1)[-1][:110]
                refusals.append(f"  {path} -> {provider}: {type(exc).__name__}: {reason}")
                continue
            sendable[kind] += 1
    for kind in KINDS:
        share = sendable[kind] / total[kind] if total[kind] else 0.0
        print(
            f"{kind}: {sendable[kind]}/{total[kind]} pairs sendable ({share:.0%}); "
            f"{takes[kind]} pairs have a provider taking {kind} in some form"
            + {"video": " (or images)", "document": " (or text, or images)"}.get(kind, "")
        )
    if "--why" in sys.argv:
        print("not sendable:")
        print("\n".join(refusals))


if __name__ == "__main__":
    main()
