"""Conversion in `prepare` against the command-line tools doing the same job, in one run.

Each row of ``CASES`` converts one synthetic input with mediablocks and with a command-line
baseline using the same codec settings; the ratios are mediablocks' median wall and CPU time
over the baseline's (the baseline includes its process start, as a caller shelling out would
pay it). On a shared machine compare CPU time: wall time also counts waiting for a core.
Peak memory is measured in a fresh process per case: the growth of the resident set size during
one conversion (sampled every millisecond from /proc, so FFmpeg's C allocations count), shown in
MiB and as a multiple of the output's size. Inputs of two lengths show memory does not grow
with the input.

A baseline whose tool is not on PATH is skipped with a note. To add a case (say, PDF pages
against ``pdftoppm``), append a `ConvertCase` to ``CASES``: a name, a function making the input
file, the mediablocks call, and the baseline command.

Run by hand: ``python benchmarks/bench_convert.py [--rounds 5] [--only audio]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

MiB = 1024 * 1024


@dataclass(frozen=True)
class ConvertCase:
    """``make(path)`` writes the input; ``ours(data)`` returns the output size in bytes;
    ``baseline(input, folder)`` is the command line writing the same output into ``folder``."""

    name: str
    make: Callable[[Path], None]
    ours: Callable[[bytes], int]
    baseline: Callable[[Path, Path], list[str]]
    tool: str = "ffmpeg"
    suffix: str = ".bin"


# -- inputs (synthesised with PyAV, so the benchmark needs nothing but the [av] extra) ------------


def _tone(seconds: float, rate: int = 48000) -> list[object]:
    import av
    import numpy as np

    frames = []
    step = 960
    for start in range(0, int(seconds * rate), step):
        t = (np.arange(start, start + step) / rate).astype(np.float32)
        wave = 0.3 * np.sin(2 * np.pi * (220 + 40 * np.sin(t / 3)) * t)
        wave += 0.05 * np.random.default_rng(start).standard_normal(step).astype(np.float32)
        frame = av.AudioFrame.from_ndarray(wave.reshape(1, -1).astype(np.float32), "flt", "mono")
        frame.sample_rate = rate
        frames.append(frame)
    return frames


def make_voice_note(seconds: float) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        import av

        with av.open(str(path), "w", format="webm") as output:
            stream = output.add_stream("libopus", rate=48000)
            stream.layout = "mono"
            stream.bit_rate = 24_000
            for frame in _tone(seconds):
                for packet in stream.encode(frame):
                    output.mux(packet)
            output.mux(stream.encode(None))

    return make


def make_video(
    seconds: float, codec: str, size: tuple[int, int] = (640, 360)
) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        import av
        import numpy as np

        rate = 24
        with av.open(str(path), "w", format="mov" if codec == "libx265" else "mp4") as output:
            video = output.add_stream(codec, rate=rate)
            video.width, video.height, video.pix_fmt = size[0], size[1], "yuv420p"
            video.options = {"preset": "ultrafast", "crf": "30"}
            if codec == "libx265":
                video.codec_tag = "hvc1"
                video.options["x265-params"] = "log-level=error"
            audio = output.add_stream("aac", rate=48000)
            audio.layout = "mono"
            x = np.arange(size[0])[None, :]
            y = np.arange(size[1])[:, None]
            sound = iter(_tone(seconds))
            samples = 0
            for index in range(int(seconds * rate)):
                shade = ((x + 4 * index) ^ (y + 2 * index)) % 256
                rgb = np.stack([shade, (shade * 3) % 256, 255 - shade], axis=-1).astype(np.uint8)
                frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
                frame.pts, frame.time_base = index, Fraction(1, rate)
                output.mux(video.encode(frame))
                while samples < (index + 1) * 48000 / rate:
                    chunk = next(sound)
                    chunk.pts, chunk.time_base = samples, Fraction(1, 48000)
                    samples += chunk.samples
                    output.mux(audio.encode(chunk))
            output.mux(video.encode(None))
            output.mux(audio.encode(None))

    return make


# -- what mediablocks runs ------------------------------------------------------------------------


def ours_audio(data: bytes) -> int:
    from mediablocks.convert.audio import AudioTarget, convert_audio

    result = convert_audio(
        data, AudioTarget(frozenset({"audio/mpeg"})), mime_type="audio/webm", what="bench"
    )
    return sum(len(piece.data) for piece in result.pieces)


def ours_frames(data: bytes, interval: float | None = 1.0) -> int:
    from mediablocks.convert.video import sample_frames

    sampled = sample_frames(data, what="bench", max_frames=30, interval=interval, max_side=640)
    return sum(len(frame.data) for frame in sampled.frames)


def ours_transcode(data: bytes) -> int:
    from mediablocks.convert.video import transcode_video

    return len(transcode_video(data, mime_type="video/quicktime", what="bench").data)


FFMPEG = ["ffmpeg", "-nostdin", "-v", "error", "-y"]

CASES: list[ConvertCase] = [
    ConvertCase(
        "audio 60 s Opus WebM -> MP3 48 kHz mono 64k",
        make_voice_note(60),
        ours_audio,
        lambda src, out: [
            *FFMPEG,
            "-i",
            str(src),
            "-vn",
            "-c:a",
            "libmp3lame",
            "-b:a",
            "64k",
            "-compression_level",
            "7",
            "-ar",
            "48000",
            "-ac",
            "1",
            "-f",
            "mp3",
            str(out / "out.mp3"),
        ],
        suffix=".webm",
    ),
    ConvertCase(
        "audio 300 s Opus WebM -> MP3 48 kHz mono 64k",
        make_voice_note(300),
        ours_audio,
        lambda src, out: [
            *FFMPEG,
            "-i",
            str(src),
            "-vn",
            "-c:a",
            "libmp3lame",
            "-b:a",
            "64k",
            "-compression_level",
            "7",
            "-ar",
            "48000",
            "-ac",
            "1",
            "-f",
            "mp3",
            str(out / "out.mp3"),
        ],
        suffix=".webm",
    ),
    ConvertCase(
        "frames 30 s H.264 640x360 -> 30 JPEG (1/s)",
        make_video(30, "libx264"),
        ours_frames,
        lambda src, out: [
            *FFMPEG,
            "-i",
            str(src),
            "-an",
            "-vf",
            "fps=1",
            "-q:v",
            "4",
            str(out / "f%03d.jpg"),
        ],
        suffix=".mp4",
    ),
    ConvertCase(
        "frames 90 s H.264 640x360 -> 30 JPEG (spread, 1/3 s)",
        make_video(90, "libx264"),
        functools.partial(ours_frames, interval=None),
        lambda src, out: [
            *FFMPEG,
            "-i",
            str(src),
            "-an",
            "-vf",
            "fps=1/3",
            "-q:v",
            "4",
            str(out / "f%03d.jpg"),
        ],
        suffix=".mp4",
    ),
    ConvertCase(
        "transcode 10 s HEVC MOV -> H.264/AAC MP4",
        make_video(10, "libx265"),
        ours_transcode,
        lambda src, out: [
            *FFMPEG,
            "-i",
            str(src),
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-crf",
            "28",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-b:a",
            "96k",
            "-ar",
            "48000",
            "-f",
            "mp4",
            str(out / "out.mp4"),
        ],
        suffix=".mov",
    ),
]


# -- measuring ------------------------------------------------------------------------------------


def _peak_in_child(case_index: int, source: Path) -> dict[str, float]:
    """Peak RSS growth of one conversion, measured in a fresh interpreter."""
    command = [sys.executable, __file__, "--memory-child", str(case_index), str(source)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize()


def _memory_child(case_index: int, source: str) -> None:
    """Peak resident memory above the start, sampled every millisecond during one conversion
    (sees FFmpeg's C allocations, which tracemalloc does not). Linux only (/proc)."""
    case = CASES[case_index]
    data = Path(source).read_bytes()
    # Imports are not the conversion's memory.
    import av  # noqa: F401

    import mediablocks.convert.audio
    import mediablocks.convert.video  # noqa: F401

    before = _rss()
    peak = before
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _rss())
            time.sleep(0.001)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        size = case.ours(data)
    finally:
        done.set()
        sampler.join()
    peak = max(peak, _rss())
    print(json.dumps({"growth": peak - before, "output": size}))


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _median_cost(run: Callable[[], object], rounds: int, who: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system, all threads; ``who`` is
    RUSAGE_SELF for in-process work, RUSAGE_CHILDREN for a command). CPU time is what to
    compare on a shared machine, where waiting for a core inflates wall time at random."""
    walls, cpus = [], []
    for _ in range(rounds):
        start, cpu = time.perf_counter(), _cpu(who)
        run()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu(who) - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _row(
    case: ConvertCase,
    size: int,
    ours: tuple[float, float],
    baseline: tuple[float, float] | None,
    memory: dict[str, float],
) -> str:
    line = f"| {case.name} | {size / 1024:,.0f} KiB | "
    line += f"{ours[0] * 1000:,.0f} / {ours[1] * 1000:,.0f} ms | "
    if baseline is None:
        line += f"({case.tool} not on PATH) | - | "
    else:
        line += f"{baseline[0] * 1000:,.0f} / {baseline[1] * 1000:,.0f} ms | "
        line += f"{ours[0] / baseline[0]:.2f}x / {ours[1] / baseline[1]:.2f}x | "
    growth, output = memory["growth"], memory["output"]
    return line + (
        f"{growth / MiB:.1f} MiB | {growth / max(output, 1):.1f}x of {output / 1024:,.0f} KiB |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    parser.add_argument("--memory-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        _memory_child(int(args.memory_child[0]), args.memory_child[1])
        return
    print(
        "| case | input | mediablocks wall / CPU | CLI wall / CPU | ratio wall / CPU "
        "| peak RSS growth | x output |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-convert-") as folder:
        base = Path(folder)
        for index, case in enumerate(CASES):
            if args.only not in case.name:
                continue
            source = base / f"input{index}{case.suffix}"
            case.make(source)
            data = source.read_bytes()
            case.ours(data)  # warm-up
            ours = _median_cost(
                functools.partial(case.ours, data), args.rounds, resource.RUSAGE_SELF
            )
            baseline = None
            if shutil.which(case.tool):
                out = base / f"out{index}"
                out.mkdir()
                command = case.baseline(source, out)
                subprocess.run(command, check=True)  # warm-up (page cache)
                run = functools.partial(subprocess.run, command, check=True)
                baseline = _median_cost(run, args.rounds, resource.RUSAGE_CHILDREN)
            memory = _peak_in_child(index, source)
            print(_row(case, len(data), ours, baseline, memory), flush=True)
    print(f"\n{os.cpu_count()} CPUs; median of {args.rounds} rounds; inputs synthesised with PyAV.")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    main()
