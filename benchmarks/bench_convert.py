"""Conversion in `prepare` against the command-line tools doing the same job, in one run.

Each row of ``CASES`` converts one synthetic input with mediablocks and with a command-line
baseline using the same codec settings; the ratios are mediablocks' median wall and CPU time
over the baseline's (the baseline includes its process start, as a caller shelling out would
pay it). On a shared machine compare CPU time: wall time also counts waiting for a core.

The audio cases run the path `prepare` takes: `walk` over one message holding the audio, for
a provider taking the case's types (``ProviderLimits`` made here), so the conversion runs as
an isolated job in a worker of the pool, its result's decode check runs too, and the output is
probed. Their CPU counts this process's and the workers': each reply carries the CPU its job
used in the worker (`Worker.call` is wrapped to add it up), and worker processes started during
the measured rounds are counted from /proc as a cross-check (column "workers started"). The
column "in-process CPU" is `convert_audio` alone in this process, the converter's own cost.
Peak memory is measured in a fresh process per case: the growth of the resident set size during
one conversion in process (sampled every millisecond from /proc, so FFmpeg's C allocations
count), shown in MiB and as a multiple of the output's size. Inputs of two lengths show memory
does not grow with the input.

PDF rasterisation renders every page of a 10- and a 40-page PDF (the LibreOffice page of
``testdata/document/report.pdf`` repeated with pypdfium2) at 150 dpi, against ``pdftoppm``
(poppler-utils) with the same resolution and JPEG quality. Pages are rendered one at a time, so
PDF memory is one page's RGB bitmap (1275 x 1651 x 3 = 6 MiB at 150 dpi) and the encoder's
buffers, the same for 10 pages as for 40.

A baseline whose tool is not on PATH is skipped with a note. To add a case, append a
`ConvertCase` to ``CASES``: a name, a function making the input file, the mediablocks call, and
the baseline command.

Run by hand: ``python benchmarks/bench_convert.py [--rounds 5] [--only audio] [--src TREE/src]``
(``--src``: measure another checkout, e.g. the tree before a change, with this script).
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
from typing import Any

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
    in_process: Callable[[bytes], int] | None = None
    """The converter alone in this process (memory and the in-process column); default: ours."""


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


def make_m4a(seconds: float) -> Callable[[Path], None]:
    """A phone voice memo: AAC-LC 44.1 kHz mono at 64 kbit/s in an M4A."""

    def make(path: Path) -> None:
        import av

        with av.open(str(path), "w", format="ipod") as output:
            stream = output.add_stream("aac", rate=44100)
            stream.layout = "mono"
            stream.bit_rate = 64_000
            resampler = av.AudioResampler(format="fltp", layout="mono", rate=44100)
            for frame in _tone(seconds):
                for chunk in resampler.resample(frame):
                    output.mux(stream.encode(chunk))
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


def ours_audio(
    accepted: frozenset[str], max_bytes: int | None = None, mime_type: str = "audio/webm"
) -> Callable[[bytes], int]:
    """`prepare`'s path for one audio block, for a provider taking ``accepted`` with a
    ``max_bytes`` limit: the isolated conversion job (the plan picks copy, FLAC, WAV or MP3),
    the decode check of what it made where `prepare` checks it, and the output's probe."""

    def run(data: bytes) -> int:
        from mediablocks.limits import ProviderLimits
        from mediablocks.media import AudioBlock, MediaBlock
        from mediablocks.messages import UserMessage
        from mediablocks.preparing.options import PrepareOptions
        from mediablocks.preparing.state import _Preparation
        from mediablocks.preparing.walk import walk

        limits = ProviderLimits("bench", audio_types=accepted, max_audio_bytes=max_bytes)
        block = AudioBlock.from_bytes(data, mime_type)
        run = _Preparation(limits, PrepareOptions())
        (message,), report = walk(run, [UserMessage(content=[block])])
        assert report.blocks[0].changes, "the audio went untouched: no conversion measured"
        media = [part for part in message.content if isinstance(part, MediaBlock)]
        return sum(len(part.read()) for part in media)

    return run


def in_process_audio(
    accepted: frozenset[str], max_bytes: int | None = None, mime_type: str = "audio/webm"
) -> Callable[[bytes], int]:
    """`convert_audio` alone, in this process (what the converter itself costs)."""

    def run(data: bytes) -> int:
        from mediablocks.convert.audio import AudioTarget, convert_audio

        target = AudioTarget(accepted, max_bytes=max_bytes)
        result = convert_audio(data, target, mime_type=mime_type, what="bench")
        return sum(len(piece.data) for piece in result.pieces)

    return run


def audio_case(
    name: str,
    make: Callable[[Path], None],
    accepted: frozenset[str],
    baseline: Callable[[Path, Path], list[str]],
    *,
    max_bytes: int | None = None,
    mime_type: str = "audio/webm",
    suffix: str = ".webm",
) -> ConvertCase:
    return ConvertCase(
        name,
        make,
        ours_audio(accepted, max_bytes, mime_type),
        baseline,
        suffix=suffix,
        in_process=in_process_audio(accepted, max_bytes, mime_type),
    )


def ffmpeg_audio(*codec: str) -> Callable[[Path, Path], list[str]]:
    """The ffmpeg command writing ``out/out.bin`` with ``codec`` (its arguments after -vn)."""
    return lambda src, out: [*FFMPEG, "-i", str(src), "-vn", *codec, str(out / "out.bin")]


def ours_frames(data: bytes, interval: float | None = 1.0) -> int:
    from mediablocks.convert.video import sample_frames

    sampled = sample_frames(data, what="bench", max_frames=30, interval=interval, max_side=640)
    return sum(len(frame.data) for frame in sampled.frames)


def ours_transcode(data: bytes) -> int:
    from mediablocks.convert.video import transcode_video

    return len(transcode_video(data, mime_type="video/quicktime", what="bench").data)


def make_pdf(pages: int) -> Callable[[Path], None]:
    """``pages`` copies of testdata/document/report.pdf's page (text, embedded fonts)."""

    def make(path: Path) -> None:
        import pypdfium2 as pdfium

        report = Path(__file__).resolve().parent.parent / "testdata/document/report.pdf"
        source = pdfium.PdfDocument(report.read_bytes())
        document = pdfium.PdfDocument.new()
        document.import_pages(source, [0] * pages)
        document.save(str(path))
        document.close()
        source.close()

    return make


def ours_pdf_pages(data: bytes, image_format: str = "jpeg") -> int:
    from mediablocks.convert.pdf import render_pages

    pages = render_pages(
        data,
        what="bench",
        max_pages=10_000,
        dpi=150,
        max_side=100_000,
        image_format=image_format,  # type: ignore[arg-type]
    )
    return sum(len(page.data) for page in pages)


def pdftoppm(image_format: str) -> Callable[[Path, Path], list[str]]:
    codec = ["-png"] if image_format == "png" else ["-jpeg", "-jpegopt", "quality=85"]
    return lambda src, out: ["pdftoppm", "-r", "150", *codec, str(src), str(out / "page")]


FFMPEG = ["ffmpeg", "-nostdin", "-v", "error", "-y"]

GEMINI_AUDIO = frozenset(
    {"audio/wav", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"}
)
OPENAI_AUDIO = frozenset({"audio/mpeg", "audio/wav"})
BEDROCK_OPUS = frozenset({"audio/opus", "audio/flac"})
SPEECH_MP3 = ("-c:a", "libmp3lame", "-b:a", "32k", "-compression_level", "7")
SPEECH = ("-ar", "16000", "-ac", "1")

CASES: list[ConvertCase] = [
    audio_case(
        "audio 60 s AAC M4A -> ADTS, stream copy (Gemini)",
        make_m4a(60),
        GEMINI_AUDIO,
        ffmpeg_audio("-c:a", "copy", "-f", "adts"),
        mime_type="audio/mp4",
        suffix=".m4a",
    ),
    audio_case(
        "audio 300 s AAC M4A -> ADTS, stream copy (Gemini)",
        make_m4a(300),
        GEMINI_AUDIO,
        ffmpeg_audio("-c:a", "copy", "-f", "adts"),
        mime_type="audio/mp4",
        suffix=".m4a",
    ),
    audio_case(
        "audio 300 s Opus WebM -> Ogg Opus, stream copy (Bedrock)",
        make_voice_note(300),
        BEDROCK_OPUS,
        ffmpeg_audio("-c:a", "copy", "-f", "ogg"),
    ),
    audio_case(
        "audio 60 s Opus WebM -> FLAC 48 kHz mono (Gemini)",
        make_voice_note(60),
        GEMINI_AUDIO,
        ffmpeg_audio(
            "-c:a",
            "flac",
            "-compression_level",
            "1",
            "-sample_fmt",
            "s16",
            "-ac",
            "1",
            "-f",
            "flac",
        ),
    ),
    audio_case(
        "audio 60 s Opus WebM -> WAV 48 kHz mono (OpenAI)",
        make_voice_note(60),
        OPENAI_AUDIO,
        ffmpeg_audio("-c:a", "pcm_s16le", "-ac", "1", "-f", "wav"),
    ),
    audio_case(
        "audio 300 s Opus WebM -> FLAC 16 kHz mono (Gemini, 20 MB limit)",
        make_voice_note(300),
        GEMINI_AUDIO,
        ffmpeg_audio(
            "-c:a", "flac", "-compression_level", "1", "-sample_fmt", "s16", *SPEECH, "-f", "flac"
        ),
        max_bytes=20_000_000,
    ),
    audio_case(
        "audio 300 s Opus WebM -> MP3 16 kHz mono 32k (MP3 only)",
        make_voice_note(300),
        frozenset({"audio/mpeg"}),
        ffmpeg_audio(*SPEECH_MP3, *SPEECH, "-f", "mp3"),
    ),
    audio_case(
        "audio 60 s AAC M4A -> MP3 16 kHz mono 32k (MP3 only)",
        make_m4a(60),
        frozenset({"audio/mpeg"}),
        ffmpeg_audio(*SPEECH_MP3, *SPEECH, "-f", "mp3"),
        mime_type="audio/mp4",
        suffix=".m4a",
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
    ConvertCase(
        "PDF 10 pages -> JPEG q85, 150 dpi",
        make_pdf(10),
        ours_pdf_pages,
        pdftoppm("jpeg"),
        tool="pdftoppm",
        suffix=".pdf",
    ),
    ConvertCase(
        "PDF 40 pages -> JPEG q85, 150 dpi",
        make_pdf(40),
        ours_pdf_pages,
        pdftoppm("jpeg"),
        tool="pdftoppm",
        suffix=".pdf",
    ),
    ConvertCase(
        "PDF 10 pages -> PNG, 150 dpi",
        make_pdf(10),
        functools.partial(ours_pdf_pages, image_format="png"),
        pdftoppm("png"),
        tool="pdftoppm",
        suffix=".pdf",
    ),
]


# -- measuring ------------------------------------------------------------------------------------


def _peak_in_child(case_index: int, source: Path, src: str) -> dict[str, float]:
    """Peak RSS growth of one conversion, measured in a fresh interpreter."""
    command = [sys.executable, __file__, "--src", src, "--memory-child", str(case_index)]
    command.append(str(source))
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize()


def _memory_child(case_index: int, source: str, src: str) -> None:
    """Peak resident memory above the start, sampled every millisecond during one conversion
    (sees FFmpeg's C allocations, which tracemalloc does not). Linux only (/proc)."""
    case = CASES[case_index]
    data = Path(source).read_bytes()
    # Imports are not the conversion's memory.
    import av  # noqa: F401

    import mediablocks.convert.audio
    import mediablocks.convert.pdf
    import mediablocks.convert.video  # noqa: F401

    if case.suffix == ".pdf":
        import pypdfium2  # noqa: F401

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
        size = (case.in_process or case.ours)(data)
    finally:
        done.set()
        sampler.join()
    peak = max(peak, _rss())
    print(json.dumps({"growth": peak - before, "output": size}))


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


class WorkerCpu:
    """The CPU the conversion workers spend for this process: each worker's reply carries the
    CPU seconds of its job, added up here by wrapping `Worker.call` (works on older trees too:
    ``--src``). Workers started meanwhile are counted (their start-up is not in any reply)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.started = 0
        try:
            from mediablocks.convert import _pool
        except ImportError:  # a tree without the pool: nothing runs in workers
            return
        call, spawn = _pool.Worker.call, _pool.Pool._spawn

        def counted_call(worker: Any, *args: Any, **keywords: Any) -> Any:
            result = call(worker, *args, **keywords)
            self.seconds += result[0]
            return result

        def counted_spawn(pool: Any, *args: Any, **keywords: Any) -> Any:
            self.started += 1
            return spawn(pool, *args, **keywords)

        _pool.Worker.call = counted_call  # type: ignore[method-assign]
        _pool.Pool._spawn = counted_spawn  # type: ignore[method-assign]


def children_ticks() -> dict[int, float]:
    """CPU seconds (user + system, 10 ms ticks) of each live child process, from /proc: a
    cross-check of what the workers report, over many rounds."""
    me, tick = os.getpid(), os.sysconf("SC_CLK_TCK")
    found: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found[int(name)] = (int(fields[11]) + int(fields[12])) / tick
    return found


@dataclass
class Costs:
    """Wall and CPU seconds of each round of one way of doing the case."""

    walls: list[float]
    cpus: list[float]

    def median(self) -> tuple[float, float]:
        return statistics.median(self.walls), statistics.median(self.cpus)


def _timed(run: Callable[[], object], costs: Costs, cpu: Callable[[], float]) -> None:
    start, spent = time.perf_counter(), cpu()
    run()
    costs.walls.append(time.perf_counter() - start)
    costs.cpus.append(cpu() - spent)


def _row(
    case: ConvertCase,
    size: int,
    ours: tuple[float, float],
    inside: float | None,
    baseline: tuple[float, float] | None,
    memory: dict[str, float],
    cli_bytes: int | None,
) -> str:
    line = f"| {case.name} | {size / 1024:,.0f} KiB | "
    line += f"{ours[0] * 1000:,.0f} / {ours[1] * 1000:,.0f} ms | "
    line += "- | " if inside is None else f"{inside * 1000:,.0f} ms | "
    if baseline is None:
        line += f"({case.tool} not on PATH) | - | "
    else:
        line += f"{baseline[0] * 1000:,.0f} / {baseline[1] * 1000:,.0f} ms | "
        line += f"{ours[0] / baseline[0]:.2f}x / {ours[1] / baseline[1]:.2f}x | "
    growth, output = memory["growth"], memory["output"]
    line += f"{output / 1024:,.0f} / " + ("-" if cli_bytes is None else f"{cli_bytes / 1024:,.0f}")
    line += " KiB | "
    return line + (
        f"{growth / MiB:.1f} MiB | {growth / max(output, 1):.1f}x of {output / 1024:,.0f} KiB |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    parser.add_argument("--src", default=SRC, help="the mediablocks tree to measure (its src/)")
    parser.add_argument("--memory-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, args.src)
    if args.memory_child:
        _memory_child(int(args.memory_child[0]), args.memory_child[1], args.src)
        return
    workers = WorkerCpu()
    print(
        "| case | input | mediablocks wall / CPU | in-process CPU | CLI wall / CPU "
        "| ratio wall / CPU | output ours / CLI | peak RSS growth | x output |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", flush=True)
    notes = []
    with tempfile.TemporaryDirectory(prefix="bench-convert-") as folder:
        base = Path(folder)
        for index, case in enumerate(CASES):
            if args.only not in case.name:
                continue
            source = base / f"input{index}{case.suffix}"
            case.make(source)
            data = source.read_bytes()
            case.ours(data)  # warm-up (and the worker started)
            out = base / f"out{index}"
            out.mkdir()
            command = case.baseline(source, out)
            has_tool = shutil.which(case.tool) is not None
            if has_tool:
                subprocess.run(command, check=True)  # warm-up (page cache)
            ours, inside, cli = Costs([], []), Costs([], []), Costs([], [])
            started, ticks = workers.started, children_ticks()
            reaped = _cpu(resource.RUSAGE_CHILDREN)
            reported = workers.seconds
            for _ in range(args.rounds):  # side by side: a burst of load hits all alike
                _timed(
                    functools.partial(case.ours, data),
                    ours,
                    lambda: _cpu(resource.RUSAGE_SELF) + workers.seconds,
                )
                if case.in_process is not None:
                    _timed(
                        functools.partial(case.in_process, data),
                        inside,
                        lambda: _cpu(resource.RUSAGE_SELF),
                    )
                if has_tool:
                    run = functools.partial(subprocess.run, command, check=True)
                    _timed(run, cli, lambda: _cpu(resource.RUSAGE_CHILDREN))
            cli_total = sum(cli.cpus)
            after = children_ticks()
            by_proc = sum(after[pid] - ticks.get(pid, 0.0) for pid in after)
            by_proc += _cpu(resource.RUSAGE_CHILDREN) - reaped - cli_total
            by_proc -= sum(seconds for pid, seconds in ticks.items() if pid not in after)
            if case.in_process is not None:
                per_round = 1000 * (workers.seconds - reported) / args.rounds
                notes.append(
                    f"{case.name}: workers' CPU per round {per_round:,.0f} ms as reported, "
                    f"{1000 * by_proc / args.rounds:,.0f} ms by /proc (10 ms ticks); "
                    f"workers started: {workers.started - started}"
                )
            cli_bytes = sum(path.stat().st_size for path in out.iterdir()) if has_tool else None
            memory = _peak_in_child(index, source, args.src)
            print(
                _row(
                    case,
                    len(data),
                    ours.median(),
                    inside.median()[1] if inside.cpus else None,
                    cli.median() if has_tool else None,
                    memory,
                    cli_bytes,
                ),
                flush=True,
            )
    print(f"\n{os.cpu_count()} CPUs; median of {args.rounds} rounds; inputs synthesised with PyAV.")
    for note in notes:
        print(f"- {note}")


SRC = str(Path(__file__).resolve().parent.parent / "src")

if __name__ == "__main__":
    main()
