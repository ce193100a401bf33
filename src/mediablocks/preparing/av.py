"""`prepare`'s audio and video steps: convert one block with `mediablocks.convert` and put the
result in its slot (one new block, or several through `_Slot.replace_with`).

Loaded only when a block needs converting, so ``import mediablocks`` stays free of PyAV.
"""

from __future__ import annotations

from typing import Any

from ..blocks import ContentBlock, TextBlock
from ..convert import audio as audio_converter
from ..convert import video as video_converter
from ..convert.audio import AudioTarget, ConvertedAudio
from ..convert.isolation import run_isolated
from ..convert.video import DEFAULT_FRAME_SIDE
from ..errors import DoesNotFitError
from ..images import Change
from ..media import AudioBlock
from .slots import _replaced, _Slot
from .state import _Preparation
from .timed import audio_piece_blocks, derived_block, frame_blocks, label_of

_FFMPEG = "FFmpeg (PyAV)"


def _isolated(slot: _Slot, job: Any, data: bytes, **keywords: Any) -> Any:
    """``job(data, what=..., **keywords)`` in a conversion worker: FFmpeg decoders can crash or
    run away on crafted input, so PyAV runs under the `ConversionLimits` and the time budget
    that `fit` put in scope (a blown limit names the block and the limit)."""
    what = slot.block.describe()
    return run_isolated(what, job, data, keywords={"what": what, **keywords}, converter=_FFMPEG)


def _audio_target(run: _Preparation) -> AudioTarget:
    limits = run.limits
    total = limits.max_audio_seconds
    return AudioTarget(
        accepted_types=limits.audio_types,
        max_bytes=run.byte_ceiling("audio"),
        max_seconds=run.options.max_audio_seconds,
        max_total_seconds=None if total is None else total + 1.0,
        allow_split=run.options.allow_split,
    )


def _convert(run: _Preparation, slot: _Slot, data: bytes) -> ConvertedAudio:
    """The audio converted in one worker job, a stream copy decode-checked in that same job
    (`convert_and_check_audio`): the file goes out once and the copy is not sent back out for
    a second job, so `walk` has nothing left to check."""
    converted: ConvertedAudio = _isolated(
        slot,
        audio_converter.convert_and_check_audio,
        data,
        target=_audio_target(run),
        mime_type=slot.block.mime_type,
    )
    slot.checked = True
    return converted


def convert_audio_slot(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """Audio re-encoded to a type the provider takes; several chunks when one cannot fit."""
    converted = _convert(run, slot, data)
    pieces = converted.pieces
    if len(pieces) == 1:
        piece = pieces[0]
        slot.result = _replaced(
            slot.block, piece.data, piece.mime_type, converted.changes, run.limits.provider
        )
        slot.changes = converted.changes
        slot.size = len(piece.data)
        run.fit_timed(slot, "audio", piece.duration)  # measured as written: no second pass
        return
    blocks = audio_piece_blocks(slot.block, pieces, converted.changes, run.limits.provider)
    slot.replace_with(blocks, converted.changes)
    for part, piece in zip(slot.parts, pieces, strict=True):
        part.seconds = piece.duration
    slot.seconds = converted.source_seconds


def audio_only(slot: _Slot, data: bytes) -> bool:
    """True when a video container holds audio and no video stream (an audio-only FLV, an MP4
    of sound alone); False also without PyAV, or when it cannot be opened (checked later)."""
    only: bool = _isolated(slot, video_converter.holds_only_audio, data)
    return only


def audio_only_slot(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """A video block holding only audio, sent as the audio it is (copied or converted)."""
    name = run.limits.provider
    if not run.limits.audio_types:
        reason = f"holds audio and no video, and {name} takes no audio input"
        run.no_form[id(slot)] = reason
        run.problem(slot, "unsupported_kind", reason)
        return
    converted = _convert(run, slot, data)
    changes = [
        Change("audio only", f"{slot.block.mime_type} holds no video stream: sent as audio"),
        *converted.changes,
    ]
    if len(converted.pieces) == 1:
        piece = converted.pieces[0]
        audio = derived_block(AudioBlock, slot.block, piece.data, piece.mime_type, changes, name)
        assert isinstance(audio, AudioBlock)
        blocks: list[ContentBlock] = [audio]
    else:
        blocks = audio_piece_blocks(slot.block, converted.pieces, changes, name)
    slot.replace_with(blocks, changes)
    audio_parts = [p for p in slot.parts if isinstance(p.block, AudioBlock)]
    for part, piece in zip(audio_parts, converted.pieces, strict=True):
        part.seconds = piece.duration
    slot.seconds = converted.source_seconds


def codec_is_safe(run: _Preparation, slot: _Slot, data: bytes) -> bool:
    """True when the video's codec needs no transcoding for a provider taking its container
    (also without PyAV: then the container's type is all that can be checked)."""
    try:
        import av  # noqa: F401
    except ImportError:
        return True
    reason = _isolated(
        slot,
        video_converter.needs_transcode,
        data,
        mime_type=slot.block.mime_type,
        accepted=run.limits.video_types,
    )
    return reason is None


def transcode_video_slot(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """Video as H.264/AAC MP4, downscaled (and cut at ``max_video_seconds``) to fit."""
    if "video/mp4" not in run.limits.video_types:
        run.fit_timed(slot, "video")
        return
    video = _isolated(
        slot,
        video_converter.transcode_video,
        data,
        mime_type=slot.block.mime_type,
        max_bytes=run.byte_ceiling("video"),
        max_seconds=run.options.max_video_seconds,
        max_pixels=run.options.max_image_pixels,
    )
    slot.result = _replaced(
        slot.block, video.data, video.mime_type, video.changes, run.limits.provider
    )
    slot.changes = video.changes
    slot.size = len(video.data)
    run.fit_timed(slot, "video")


def video_frames_slot(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """Video as timestamped JPEG frames, plus its audio track where the provider takes audio."""
    limits = run.limits
    name = limits.provider
    if not limits.image_types or "image/jpeg" not in limits.image_types:
        raise DoesNotFitError(
            f"{name} takes no video and no JPEG images, which video frames would need"
        )
    budget = run.options.max_frames
    if limits.max_images is not None:
        budget = min(budget, limits.max_images - run.image_count - run.frames_taken)
    if budget < 1:
        raise DoesNotFitError(
            f"no room for video frames: the request already holds {limits.max_images} images, "
            f"{name}'s limit"
        )
    side = limits.max_side_for(run.image_count + run.frames_taken + budget)
    sampled = _isolated(
        slot,
        video_converter.sample_frames,
        data,
        max_frames=budget,
        interval=run.options.frame_interval,
        max_side=min(DEFAULT_FRAME_SIDE, side or DEFAULT_FRAME_SIDE),
        max_pixels=run.options.max_image_pixels,
    )
    run.frames_taken += len(sampled.frames)
    first = sampled.frames[0]
    times = ", ".join(f"{frame.time:.1f}" for frame in sampled.frames)
    changes = [
        Change(
            "frames",
            f"{slot.block.mime_type} ({sampled.describe()}) -> {len(sampled.frames)} JPEG "
            f"frames {first.width}x{first.height} at {times} s",
        )
    ]
    blocks: list[ContentBlock] = frame_blocks(slot.block, sampled, changes, name)
    track: ConvertedAudio | None = None
    if sampled.has_audio and limits.audio_types:
        track = _convert(run, slot, data)
        changes.extend(Change(c.kind, "audio track: " + c.detail) for c in track.changes)
        blocks += audio_piece_blocks(slot.block, track.pieces, track.changes, name, track=True)
    elif sampled.has_audio and run.stand_ins is not None and run.stand_ins.transcriber:
        from .standins import interleave, track_transcript, transcribed_change

        transcript, cached = track_transcript(run, slot, data)
        frame_times = [frame.time for frame in sampled.frames]
        label = label_of(slot.block)
        blocks = interleave(
            blocks, frame_times, label, transcript, sampled.duration or transcript.end
        )
        said = sum(1 for b in blocks if isinstance(b, TextBlock) and "transcript]" in b.text)
        changes.append(transcribed_change(transcript, cached, sampled.duration, said))
    elif sampled.has_audio:
        changes.append(Change("dropped", f"audio track: {name} takes no audio"))
    slot.replace_with(blocks, changes)
    if track is not None:
        audio_parts = [p for p in slot.parts if isinstance(p.block, AudioBlock)]
        for part, piece in zip(audio_parts, track.pieces, strict=True):
            part.seconds = piece.duration
