"""Fuzz the image path by hand: mutated real images through `fit_image` and `prepare_block`.

Run from the repository root: ``python benchmarks/fuzz_images.py [COUNT] [SEED]`` (default 3000
inputs, seed 1). Every image in ``testdata/image/`` (and ``testdata/bad/``) is cut, bit-flipped,
overwritten, spliced or has bytes duplicated, then fitted for a random provider. The promise:
only `MediaBlocksError` escapes, and whatever `fit_image` returns decodes. It prints the inputs
tried per target and every escape (with the seed and index to replay it).
"""

from __future__ import annotations

import io
import random
import sys
import traceback
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from mediablocks.errors import MediaBlocksError
from mediablocks.images import ImageTarget, fit_image
from mediablocks.media import ImageBlock
from mediablocks.preparing import prepare_block
from mediablocks.providers.registry import limits_for

ROOT = Path(__file__).resolve().parent.parent / "testdata"
PROVIDERS = ["anthropic", "openai", "gemini", "bedrock", "mistral", "ollama"]
BOMB_LIMIT = 4_000_000


def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(max(1, len(out)))
        action = rng.choice(["cut", "flip", "set", "duplicate", "delete", "insert"])
        if action == "cut":
            out = out[: max(8, at)]
        elif action == "flip" and out:
            out[at] ^= 1 << rng.randrange(8)
        elif action == "set" and out:
            out[at] = rng.choice([0x00, 0xFF, 0x7F, 0x80, 0x01])
        elif action == "duplicate":
            out[at:at] = out[at : at + rng.randint(1, 64)]
        elif action == "delete":
            del out[at : at + rng.randint(1, 64)]
        else:
            out[at:at] = rng.randbytes(rng.randint(1, 16))
    return bytes(out)


def main(count: int, seed: int) -> int:
    files = sorted(p for folder in ("image", "bad") for p in (ROOT / folder).iterdir())
    files = [
        p
        for p in files
        if p.suffix
        in (
            ".jpg",
            ".png",
            ".gif",
            ".webp",
            ".tif",
            ".bmp",
            ".ico",
            ".psd",
            ".jp2",
            ".j2k",
            ".avif",
            ".heic",
        )
    ]
    rng = random.Random(seed)
    tried = {"fit_image": 0, "prepare_block": 0}
    escapes = 0
    for index in range(count):
        source = rng.choice(files)
        data = mutate(source.read_bytes(), rng)
        provider = rng.choice(PROVIDERS)
        target = ImageTarget.from_limits(limits_for(provider), max_bytes=rng.choice([None, 50_000]))
        for name in tried:
            tried[name] += 1
            try:
                if name == "fit_image":
                    fitted = fit_image(data, target, max_image_pixels=BOMB_LIMIT)
                    with Image.open(io.BytesIO(fitted.data)) as image:
                        image.load()
                else:
                    block = ImageBlock.from_bytes(data)
                    prepare_block(block, provider, max_image_pixels=BOMB_LIMIT)
            except MediaBlocksError:
                pass
            except Exception:
                escapes += 1
                print(f"ESCAPE {name} seed={seed} index={index} from {source.name} ({provider})")
                traceback.print_exc(limit=3)
    for name, number in tried.items():
        print(f"{name:<14}: {number} inputs tried")
    print(f"escapes       : {escapes}")
    return 1 if escapes else 0


if __name__ == "__main__":
    args = [int(arg) for arg in sys.argv[1:3]]
    sys.exit(main(*(args + [3000, 1][len(args) :])))
