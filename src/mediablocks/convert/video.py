"""Video made sendable: sampled as timestamped JPEG frames, or transcoded to H.264/AAC MP4.

Both decode as a stream with PyAV: `sample_frames` holds one decoded frame at a time (it seeks
when the next wanted time is far ahead), `transcode_video` encodes each frame as it is decoded,
so memory is the output plus a few frames. Seeking stops once a seek lands no further than
decoding on would (keyframes sparser than the wanted frames). Frame sizes are checked against
the pixel limit before any frame is converted, as images are (`ImageBombError`).

Frame strategy (``docs/conversion.md``): ``max_frames`` frames spread evenly over the duration,
each in the middle of its slice of time, or one every ``frame_interval`` seconds (at most
``max_frames``). Each frame is scaled to fit ``max_side`` and saved as JPEG.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..changes import DEFAULT_MAX_FRAMES, Change
from ..errors import DecodeError, DoesNotFitError, MediaBlocksError
from ._av import Deadline, decoding, import_av, open_input
from ._frames import Frame, FrameChoice, SampledVideo, check_pixels, fitted_size, wanted_times
from .flic import is_flic, sample_flic_frames

__all__ = [
    "DEFAULT_FRAME_SIDE",
    "DEFAULT_MAX_FRAMES",
    "SAFE_VIDEO_CODECS",
    "Frame",
    "SampledVideo",
    "TranscodedVideo",
    "holds_only_audio",
    "needs_transcode",
    "sample_frames",
    "transcode_video",
]

DEFAULT_FRAME_SIDE = 768
"""The long edge of a sampled frame, in pixels: what vision models look at anyway."""

SAFE_VIDEO_CODECS = frozenset(
    {"h264", "vp8", "vp9", "av1", "mpeg4", "mpeg1video", "mpeg2video", "h263", "flv1", "wmv2"}
)
"""Video codecs sent as they are to a provider taking their container; others (HEVC, ProRes,
MJPEG, ...) are transcoded to H.264, which every video provider decodes."""

_TRANSCODE_SIDES = (1280, 640)  # the long edge of a transcode, then of its smaller retry
_TRANSCODE_CRF = (28, 34)
_SEEK_AHEAD = 2.0  # seek instead of decoding on when the next frame is this many seconds away


@dataclass(frozen=True)
class TranscodedVideo:
    """`transcode_video`'s result."""

    data: bytes
    mime_type: str
    changes: tuple[Change, ...]
    duration: float


def _video_stream(container: Any, what: str) -> Any:
    if not container.streams.video:
        raise DecodeError(f"{what}: holds no video stream")
    return container.streams.video[0]


def _duration(container: Any, stream: Any) -> float | None:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return float(container.duration) / 1_000_000
    return None


def _start(stream: Any) -> float:
    if stream.start_time is None or stream.time_base is None:
        return 0.0
    return float(stream.start_time * stream.time_base)


def sample_frames(
    data: bytes,
    *,
    what: str,
    max_frames: int = DEFAULT_MAX_FRAMES,
    interval: float | None = None,
    max_side: int = DEFAULT_FRAME_SIDE,
    max_pixels: int | None = None,
    quality: int = 80,
    deadline: Deadline | None = None,
) -> SampledVideo:
    """Up to ``max_frames`` JPEG frames of ``data``'s first video stream, in time order.

    Raises `DecodeError` for media PyAV cannot decode, `ImageBombError` for frames over
    ``max_pixels``, `DoesNotFitError` without a video stream or past the deadline. FLI/FLC
    animations are read with Pillow (`convert.flic`, same bounds): PyAV gives no frame of many.
    """
    deadline = deadline or Deadline(None, what)
    choice = FrameChoice(max_frames, interval, max_side, max_pixels, quality)
    if is_flic(data):
        # PyAV's FLIC decoder gives no frame of many real files (Pillow's test file) and only the
        # first of others; Pillow reads them all. PyAV stays the fallback for what Pillow refuses.
        try:
            return sample_flic_frames(data, what, choice, deadline)
        except DecodeError:
            pass
    return _sample_frames(data, what, choice, deadline)


def _sample_frames(data: bytes, what: str, choice: FrameChoice, deadline: Deadline) -> SampledVideo:
    max_pixels, quality = choice.max_pixels, choice.quality
    container = open_input(data, what)
    frames: list[Frame] = []
    with decoding(what), container:
        stream = _video_stream(container, what)
        width, height = stream.codec_context.width, stream.codec_context.height
        check_pixels(width, height, max_pixels, what)
        stream.thread_type = "AUTO"
        duration = _duration(container, stream)
        start = _start(stream)
        wanted = wanted_times(duration, choice.max_frames, choice.interval)
        size = fitted_size(width, height, choice.max_side)
        index = 0
        last_time = 0.0
        may_seek = True  # one seek per wanted frame at most: a far keyframe must not loop
        seeks_help = True  # False once a seek lands no later than where decoding already was
        seeked_from: float | None = None
        decoder = container.decode(stream)
        skipped: Any = None  # the last frame decoded and not taken
        while index < len(wanted):
            deadline.check()
            if seeks_help and may_seek and wanted[index] - last_time > _SEEK_AHEAD:
                offset = int((wanted[index] + start) / stream.time_base)
                container.seek(offset, stream=stream, backward=True)
                decoder = container.decode(stream)
                may_seek, seeked_from = False, last_time
            frame = next(decoder, None)
            if frame is None:
                # The stream ended before the first wanted time (a clip of one frame at t=0
                # shorter than its slice of time): its last frame stands in.
                if skipped is not None and not frames:
                    frames.append(_jpeg(skipped, last_time, size, quality))
                break
            if (frame.width, frame.height) != (width, height):
                check_pixels(frame.width, frame.height, max_pixels, what)
            time = (float(frame.time) - start) if frame.time is not None else last_time + 0.04
            if seeked_from is not None:
                # Keyframes sparser than the frames wanted: decoding on is cheaper than seeking.
                seeks_help = time > seeked_from + _SEEK_AHEAD / 2
                seeked_from = None
            last_time = time
            if time + 1e-6 < wanted[index]:
                skipped = frame
                continue
            skipped = None
            frames.append(_jpeg(frame, time, size, quality))
            may_seek = True
            while index < len(wanted) and wanted[index] <= time + 1e-6:
                index += 1
        codec = stream.codec_context.name
        has_audio = bool(container.streams.audio)
    if not frames:
        raise DoesNotFitError(f"{what}: no video frame could be decoded")
    return SampledVideo(tuple(frames), duration, width, height, codec, has_audio)


_TURNS = {90: "ROTATE_90", 180: "ROTATE_180", 270: "ROTATE_270"}


def _quarter_turns(frame: Any) -> int:
    """The frame's display rotation (a phone's portrait video is stored landscape with a display
    matrix): 0, 90, 180 or 270 degrees counter-clockwise."""
    try:
        degrees = round(float(getattr(frame, "rotation", 0) or 0))
    except (TypeError, ValueError, OverflowError):
        return 0
    turn = degrees % 360
    return turn if turn in _TURNS else 0


def _upright(image: Any, turn: int) -> Any:
    if not turn:
        return image
    from PIL import Image

    return image.transpose(getattr(Image.Transpose, _TURNS[turn]))


def _jpeg(frame: Any, time: float, size: tuple[int, int], quality: int) -> Frame:
    image = _upright(frame.to_image(width=size[0], height=size[1]), _quarter_turns(frame))
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, "JPEG", quality=quality, optimize=True)
    return Frame(buffer.getvalue(), max(time, 0.0), image.width, image.height)


def _first_turn(data: bytes, what: str) -> int:
    """The display rotation of the first decodable frame (0 when none decodes)."""
    container = open_input(data, what)
    with decoding(what), container:
        for frame in container.decode(_video_stream(container, what)):
            return _quarter_turns(frame)
    return 0


def holds_only_audio(data: bytes, *, what: str) -> bool:
    """True when a video container holds audio and no video stream (an audio-only FLV, an MP4
    of sound alone); False also without PyAV, or when it cannot be opened (the video steps then
    say why). Reads the stream headers only."""
    try:
        container = open_input(data, what)
    except MediaBlocksError:
        return False
    with container:
        return not container.streams.video and bool(container.streams.audio)


def needs_transcode(data: bytes, mime_type: str, accepted: frozenset[str], what: str) -> str | None:
    """Why ``data`` must be transcoded for a provider taking ``accepted`` (``None``: it need not).

    Reads the stream headers only.
    """
    if mime_type not in accepted:
        return f"{mime_type} is not taken"
    container = open_input(data, what)
    with decoding(what), container:
        stream = _video_stream(container, what)
        codec = stream.codec_context.name
    if codec not in SAFE_VIDEO_CODECS:
        return f"{codec} video is not decoded by every provider"
    return None


def transcode_video(
    data: bytes,
    *,
    mime_type: str,
    what: str,
    max_bytes: int | None = None,
    max_seconds: float | None = None,
    max_pixels: int | None = None,
    deadline: Deadline | None = None,
) -> TranscodedVideo:
    """``data`` as H.264 (libx264, else MPEG-4 Part 2) and AAC in MP4, downscaled to 1280 px.

    ``max_bytes`` (raw): over it, a second attempt at 640 px and lower quality; still over,
    `DoesNotFitError`. ``max_seconds``: the video is cut there (reported as a change).
    """
    deadline = deadline or Deadline(None, what)
    turn = _first_turn(data, what)
    for side, crf in zip(_TRANSCODE_SIDES, _TRANSCODE_CRF, strict=True):
        result = _transcode_once(
            data, mime_type, what, side, crf, turn, max_bytes, max_seconds, max_pixels, deadline
        )
        if result is not None:
            return result
    raise DoesNotFitError(
        f"{what}: still over {max_bytes:,} bytes at {_TRANSCODE_SIDES[-1]} px; send frames "
        'instead (video="frames") or cut it (max_video_seconds)'
    )


def _transcode_once(
    data: bytes,
    mime_type: str,
    what: str,
    side: int,
    crf: int,
    turn: int,
    max_bytes: int | None,
    max_seconds: float | None,
    max_pixels: int | None,
    deadline: Deadline,
) -> TranscodedVideo | None:
    av = import_av(what)
    codec = "libx264" if "libx264" in av.codecs_available else "mpeg4"
    container = open_input(data, what)
    buffer = io.BytesIO()
    with decoding(what), container:
        source = _video_stream(container, what)
        width, height = source.codec_context.width, source.codec_context.height
        check_pixels(width, height, max_pixels, what)
        source.thread_type = "AUTO"
        scaled_w, scaled_h = (2 * max(1, n // 2) for n in fitted_size(width, height, side))
        out_w, out_h = (scaled_h, scaled_w) if turn in (90, 270) else (scaled_w, scaled_h)
        rate = Fraction(source.average_rate or 25).limit_denominator(1001)
        output = av.open(buffer, mode="w", format="mp4")
        video = output.add_stream(codec, rate=rate)
        video.width, video.height, video.pix_fmt = out_w, out_h, "yuv420p"
        if codec == "libx264":
            video.options = {"crf": str(crf), "preset": "veryfast"}
        else:
            video.bit_rate = out_w * out_h * 2
        sound = container.streams.audio[0] if container.streams.audio else None
        audio = resampler = None
        if sound is not None:
            audio = output.add_stream("aac", rate=48000)
            audio.layout = "stereo" if (sound.codec_context.channels or 1) > 1 else "mono"
            audio.bit_rate = 96_000
            resampler = av.AudioResampler(
                format="fltp", layout=audio.layout.name, rate=48000, frame_size=1024
            )
        start = _start(source)
        count = 0
        samples = 0
        streams = [source] + ([sound] if sound is not None else [])
        for packet in container.demux(*streams):
            deadline.check()
            for frame in packet.decode():
                time = None if frame.time is None else float(frame.time) - start
                if max_seconds is not None and time is not None and time >= max_seconds:
                    continue
                if packet.stream is source:
                    if turn:  # turned upright through Pillow: only rotated videos pay for it
                        image = _upright(frame.to_image(width=scaled_w, height=scaled_h), turn)
                        picture = av.VideoFrame.from_image(image).reformat(format="yuv420p")
                    else:
                        picture = frame.reformat(width=out_w, height=out_h, format="yuv420p")
                    picture.pts = count
                    picture.time_base = 1 / rate
                    count += 1
                    output.mux(video.encode(picture))
                elif audio is not None and resampler is not None:
                    frame.pts = None
                    for chunk in resampler.resample(frame):
                        chunk.pts = samples
                        chunk.time_base = Fraction(1, 48000)
                        samples += chunk.samples
                        output.mux(audio.encode(chunk))
            if max_bytes is not None and buffer.tell() > max_bytes:
                output.close()
                return None
        output.mux(video.encode(None))
        if audio is not None and resampler is not None:
            for chunk in resampler.resample(None):
                chunk.pts = samples
                chunk.time_base = Fraction(1, 48000)
                samples += chunk.samples
                output.mux(audio.encode(chunk))
            output.mux(audio.encode(None))
        output.close()
        duration = _duration(container, source)
    if count == 0:
        raise DoesNotFitError(f"{what}: no video frame could be decoded")
    payload = buffer.getvalue()
    if max_bytes is not None and len(payload) > max_bytes:
        return None
    seconds = float(count / rate)
    name = "H.264" if codec == "libx264" else "MPEG-4 Part 2"
    changes = [
        Change(
            "transcoded",
            f"{mime_type} ({source.codec_context.name} {width}x{height}) -> video/mp4 ({name} "
            f"{out_w}x{out_h}{', AAC' if audio is not None else ''}) with PyAV",
        )
    ]
    if turn:
        changes.append(Change("rotated", f"turned upright ({turn} degrees counter-clockwise)"))
    if max_seconds is not None and duration is not None and duration > max_seconds:
        changes.append(Change("trimmed", f"cut at {max_seconds:g} s of {duration:.1f} s"))
    return TranscodedVideo(payload, "video/mp4", tuple(changes), seconds)
