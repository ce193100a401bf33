"""Signature checks for audio: Ogg, MPEG audio, AAC (ADTS), AC-3, ID3, FLAC and small formats."""

from __future__ import annotations

from collections.abc import Callable

from ._common import _u32be

# -- Ogg -------------------------------------------------------------------------------------------

_OGG_CODECS = (
    (b"\x01vorbis", "audio"),
    (b"OpusHead", "opus"),
    (b"\x7fFLAC", "audio"),
    (b"Speex   ", "audio"),
    (b"CELT    ", "audio"),
    (b"PCM     ", "audio"),
    (b"\x01audio\x00\x00\x00", "audio"),
    (b"\x80theora", "video"),
    (b"OVP80", "video"),
    (b"BBCD\x00", "video"),
    (b"\x01video\x00\x00\x00", "video"),
)


def _ogg(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if not head.startswith(b"OggS\x00"):
        return None
    kinds = set()
    pos = 0
    # Every logical stream starts with a beginning-of-stream page, and all of those come first.
    while pos + 27 <= len(head) and head.startswith(b"OggS", pos) and head[pos + 5] & 2:
        segments = head[pos + 26]
        body = pos + 27 + segments
        packet = head[body : body + 9]
        for magic, kind in _OGG_CODECS:
            if packet.startswith(magic):
                kinds.add(kind)
                break
        pos = body + sum(head[pos + 27 : body])
    if "video" in kinds:
        return "video/ogg"
    if kinds == {"opus"}:
        return "audio/opus"
    if kinds:
        return "audio/ogg"
    # An unknown codec: still Ogg if the first page is followed by another one.
    return "application/ogg" if pos and head.startswith(b"OggS\x00", pos) else None


# -- MPEG audio, AAC, AC-3 -------------------------------------------------------------------------

_MPEG_BITRATES = {
    # (MPEG-1?, layer bits) -> kbit/s by index; layer bits 3 = I, 2 = II, 1 = III
    (True, 3): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (True, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (True, 1): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (False, 3): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (False, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (False, 1): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
_MPEG_SAMPLE_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}


def _mpeg_frame(buf: bytes | memoryview, pos: int) -> tuple[int, int] | None:
    """(frame length, stream key) of a valid MPEG audio frame header at ``pos``, else None.

    Checks the 11-bit sync, a version and layer that are not reserved, a bitrate index that is
    neither free nor bad, a sample-rate index that is not reserved and a non-reserved emphasis.
    """
    if pos + 4 > len(buf) or buf[pos] != 0xFF:
        return None
    b1, b2, b3 = buf[pos + 1], buf[pos + 2], buf[pos + 3]
    version, layer = (b1 >> 3) & 3, (b1 >> 1) & 3
    bitrate_index, rate_index = b2 >> 4, (b2 >> 2) & 3
    if b1 & 0xE0 != 0xE0 or version == 1 or layer == 0:
        return None
    if bitrate_index in (0, 15) or rate_index == 3 or b3 & 3 == 2:
        return None
    mpeg1 = version == 3
    bitrate = _MPEG_BITRATES[(mpeg1, layer)][bitrate_index] * 1000
    rate = _MPEG_SAMPLE_RATES[version][rate_index]
    padding = (b2 >> 1) & 1
    if layer == 3:
        length = (12 * bitrate // rate + padding) * 4
    elif layer == 1 and not mpeg1:
        length = 72 * bitrate // rate + padding
    else:
        length = 144 * bitrate // rate + padding
    return length, (b1 & 0xFE) << 8 | rate_index


def _adts_frame(buf: bytes | memoryview, pos: int) -> tuple[int, int] | None:
    """(frame length, stream key) of a valid ADTS (AAC) frame header at ``pos``, else None."""
    if pos + 7 > len(buf) or buf[pos] != 0xFF:
        return None
    b1, b2, b3, b4, b5 = buf[pos + 1], buf[pos + 2], buf[pos + 3], buf[pos + 4], buf[pos + 5]
    if b1 & 0xF6 != 0xF0:  # sync, and layer bits 00
        return None
    rate_index = (b2 >> 2) & 0xF
    if rate_index > 12:
        return None
    length = ((b3 & 3) << 11) | (b4 << 3) | (b5 >> 5)
    if length < (7 if b1 & 1 else 9):
        return None
    channels = ((b2 & 1) << 2) | (b3 >> 6)
    return length, (b1 << 8) | (rate_index << 4) | channels


_AC3_BITRATES = (
    32,
    40,
    48,
    56,
    64,
    80,
    96,
    112,
    128,
    160,
    192,
    224,
    256,
    320,
    384,
    448,
    512,
    576,
    640,
)


def _ac3_frame(buf: bytes | memoryview, pos: int) -> tuple[int, int] | None:
    """(frame length, stream key) of a valid AC-3 or E-AC-3 sync frame at ``pos``, else None."""
    if pos + 6 > len(buf) or buf[pos] != 0x0B or buf[pos + 1] != 0x77:
        return None
    bsid = buf[pos + 5] >> 3
    if bsid <= 10:
        rate_code, size_code = buf[pos + 4] >> 6, buf[pos + 4] & 0x3F
        if rate_code == 3 or size_code >= 38:
            return None
        kbps = _AC3_BITRATES[size_code >> 1]
        if rate_code == 0:  # 48 kHz
            words = kbps * 2
        elif rate_code == 1:  # 44.1 kHz
            words = kbps * 1536 * 1000 // 44100 // 16 + (size_code & 1)
        else:  # 32 kHz
            words = kbps * 3
        return words * 2, rate_code << 8 | bsid
    if 11 <= bsid <= 16:
        words = (((buf[pos + 2] & 7) << 8) | buf[pos + 3]) + 1
        return words * 2, bsid
    return None


_FrameReader = Callable[[bytes | memoryview, int], "tuple[int, int] | None"]


def _two_frames(buf: bytes | memoryview, pos: int, frame: _FrameReader) -> bool:
    """A valid frame at ``pos`` followed by a matching one right after it."""
    first = frame(buf, pos)
    if first is None:
        return False
    second = frame(buf, pos + first[0])
    return second is not None and second[1] == first[1]


def _mpeg_audio(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head[0] != 0xFF:
        return None
    if _two_frames(window, 0, _mpeg_frame):
        return "audio/mpeg"
    if _two_frames(window, 0, _adts_frame):
        return "audio/aac"
    return None


def _ac3(head: bytes, window: memoryview, truncated: bool) -> str | None:
    frame = _ac3_frame(head, 0)
    if frame is None or not _two_frames(window, 0, _ac3_frame):
        return None
    return "audio/ac3" if frame[1] & 0xFF <= 10 else "audio/eac3"


def _id3(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """MPEG audio behind an ID3v2 tag; AAC or FLAC when that is what follows the tag."""
    pos = 0
    for _ in range(4):  # a few tags may be chained
        if pos + 10 > len(window) or window[pos : pos + 3].tobytes() != b"ID3":
            break
        version, revision, flags = window[pos + 3], window[pos + 4], window[pos + 5]
        size_bytes = window[pos + 6 : pos + 10].tobytes()
        unused_flags = (0x3F, 0x1F, 0x0F)[version - 2] if version in (2, 3, 4) else 0xFF
        if revision == 0xFF or flags & unused_flags or max(size_bytes) >= 0x80:
            return None if pos == 0 else "audio/mpeg"
        size = (size_bytes[0] << 21) | (size_bytes[1] << 14) | (size_bytes[2] << 7) | size_bytes[3]
        pos += 10 + size + (10 if version == 4 and flags & 0x10 else 0)
    if pos == 0:
        return None
    if pos + 4 > len(window):
        return "audio/mpeg"  # the tag runs past the window; ID3v2 tags front MP3 files
    rest = window[pos : pos + 8192].tobytes()
    audio = rest.lstrip(b"\x00")  # some writers pad between the tag and the audio
    if audio.startswith(b"fLaC"):
        return "audio/flac"
    lossless = _lossless(audio[:16], window, truncated)  # APE and friends behind an ID3v2 tag
    if lossless is not None:
        return lossless
    if _adts_frame(audio, 0) is not None:
        return "audio/aac"
    if _ac3_frame(audio, 0) is not None:
        return "audio/ac3"
    if _mpeg_frame(audio, 0) is not None:
        return "audio/mpeg"
    # Junk between the tag and the first frame: accept a pair of frames a little further on.
    sync = audio.find(b"\xff", 0, 4096)
    while sync >= 0:
        if _two_frames(audio, sync, _mpeg_frame):
            return "audio/mpeg"
        sync = audio.find(b"\xff", sync + 1, 4096)
    return None


def _flac(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # "fLaC" then the STREAMINFO metadata block (type 0).
    return "audio/flac" if head.startswith(b"fLaC") and head[4:5] in (b"\x00", b"\x80") else None


def _small_audio(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head.startswith((b"#!AMR-WB\n", b"#!AMR-WB_MC1.0\n")):
        return "audio/amr-wb"
    if head.startswith((b"#!AMR\n", b"#!AMR_MC1.0\n")):
        return "audio/amr"
    if head.startswith(b".snd") and len(head) >= 8 and _u32be(head, 4) >= 24:
        return "audio/basic"
    if head.startswith(b"MThd\x00\x00\x00\x06"):
        return "audio/midi"
    if head.startswith(b"caff\x00\x01"):
        return "audio/x-caf"
    return None


# -- lossless and high-resolution containers PyAV decodes ------------------------------------------


def _lossless(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """WavPack, Monkey's Audio (APE), Musepack, TAK and DSD (DSF, DSDIFF) by their magic."""
    if head.startswith(b"wvpk") and len(head) >= 10:
        version = head[8] | head[9] << 8
        return "audio/x-wavpack" if 0x402 <= version <= 0x410 else None
    if head.startswith(b"MAC ") and len(head) >= 6:
        version = head[4] | head[5] << 8
        return "audio/x-ape" if 3800 <= version <= 4100 else None
    if head.startswith(b"MPCK") or (head.startswith(b"MP+") and head[3:4] in (b"\x07", b"\x17")):
        return "audio/x-musepack"
    if head.startswith(b"tBaK"):
        return "audio/x-tak"
    if head.startswith(b"DSD \x1c\x00\x00\x00\x00\x00\x00\x00"):
        return "audio/x-dsf"
    if head.startswith(b"FRM8") and head[12:16] == b"DSD ":
        return "audio/x-dff"
    return None
