"""Header parsers for audio: WAV, AIFF, AU, FLAC, Ogg, MP3, AAC (ADTS)."""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import DecodeError
from ._data import _MAX_ITEMS, _Data, _Fields, _need, _u16be, _u16le, _u24be, _u32be, _u32le

# -- audio ------------------------------------------------------------------------------------


def _riff_chunks(
    d: _Data, start: int, end: int, *, big_endian: bool = False
) -> Iterator[tuple[bytes, int, int]]:
    """RIFF chunks in ``[start, end)``, one at a time: (id, payload offset, declared size).

    ``big_endian`` reads the sizes the way IFF/AIFF writes them; the layout is the same.
    """
    size_of = _u32be if big_endian else _u32le
    offset = start
    while offset + 8 <= end:
        d.step()  # every chunk is at least 8 bytes: the walk is linear in the input
        header = d.at(offset, 8)
        if len(header) < 8:
            return
        size = size_of(header, 4)
        yield header[:4], offset + 8, size
        offset += 8 + size + (size & 1)


def _wav(d: _Data) -> _Fields:
    out: _Fields = {}
    fmt_tag, byte_rate, data_size, fact_samples, big_size = 0, 0, None, None, None
    for kind, payload, size in _riff_chunks(d, 12, d.size):
        if kind == b"ds64":
            big_size = int.from_bytes(_need(d.at(payload + 8, 8), 8), "little")
        elif kind == b"fmt ":
            fmt = _need(d.at(payload, 40), 16)
            fmt_tag = _u16le(fmt)
            out["channels"], out["sample_rate"] = _u16le(fmt, 2), _u32le(fmt, 4)
            byte_rate = _u32le(fmt, 8)
            if fmt_tag == 0xFFFE and len(fmt) >= 26:
                fmt_tag = _u16le(fmt, 24)  # WAVE_FORMAT_EXTENSIBLE: the sub-format GUID
        elif kind == b"fact":
            fact_samples = _u32le(d.at(payload, 4))
        elif kind == b"data":
            declared = big_size if size == 0xFFFFFFFF and big_size is not None else size
            data_size = min(declared, d.size - payload)
            break
    if "sample_rate" not in out:
        raise DecodeError("WAV without a fmt chunk before its data")
    if fmt_tag in (1, 3) and byte_rate and data_size is not None:
        out["duration"] = data_size / byte_rate
    elif fact_samples is not None and out["sample_rate"]:
        out["duration"] = fact_samples / out["sample_rate"]
    elif byte_rate and data_size is not None:
        out["duration"] = data_size / byte_rate  # average byte rate of a compressed format
    return out


def _extended80(b: bytes) -> float:
    exponent = _u16be(b) & 0x7FFF
    mantissa = int.from_bytes(_need(b, 10)[2:10], "big")
    if exponent == 0 and mantissa == 0:
        return 0.0
    return float(mantissa * 2.0 ** (exponent - 16383 - 63))


def _aiff(d: _Data) -> _Fields:
    for kind, payload, _size in _riff_chunks(d, 12, d.size, big_endian=True):
        if kind == b"COMM":
            comm = _need(d.at(payload, 18), 18)
            channels, frames = _u16be(comm), _u32be(comm, 2)
            rate = _extended80(comm[8:18])
            out: _Fields = {"channels": channels, "sample_rate": round(rate)}
            if rate > 0:
                out["duration"] = frames / rate
            return out
    raise DecodeError("AIFF without a COMM chunk")


_AU_SAMPLE_BYTES = {1: 1, 2: 1, 3: 2, 4: 3, 5: 4, 6: 4, 7: 8, 27: 1}


def _au(d: _Data) -> _Fields:
    """Sun/NeXT .au: data offset, size, encoding, rate and channels in a 24-byte header."""
    head = _need(d.at(0, 24), 24)
    offset, size, encoding, rate, channels = (_u32be(head, i) for i in (4, 8, 12, 16, 20))
    out: _Fields = {"sample_rate": rate, "channels": channels}
    width = _AU_SAMPLE_BYTES.get(encoding)
    if size == 0xFFFFFFFF:  # "unknown size": the data runs to the end of the file
        size = d.size - offset
    if width and rate and channels:  # a data offset past the end: no samples, not negative
        out["duration"] = max(0, min(size, d.size - offset)) / (width * rate * channels)
    return out


def _streaminfo(info: bytes) -> _Fields:
    packed = int.from_bytes(_need(info, 18)[10:18], "big")
    rate = packed >> 44
    channels = ((packed >> 41) & 7) + 1
    total = packed & 0xFFFFFFFFF
    out: _Fields = {"sample_rate": rate, "channels": channels}
    if rate and total:
        out["duration"] = total / rate
    return out


def _flac(d: _Data) -> _Fields:
    start = _id3_end(d) if d.at(0, 3) == b"ID3" else 0
    block = d.at(start + 4, 4 + 34)
    if d.at(start, 4) != b"fLaC" or len(block) < 4 or block[0] & 0x7F != 0:
        raise DecodeError("FLAC without a STREAMINFO block")
    return _streaminfo(block[4:])


def _ogg_page(d: _Data, offset: int) -> tuple[int, int, int, bytes] | None:
    """(granule, serial, page length, first segment bytes) of the page at ``offset``."""
    header = d.at(offset, 27)
    if len(header) < 27 or header[:4] != b"OggS":
        return None
    segments = header[26]
    table = d.at(offset + 27, segments)
    if len(table) < segments:
        return None
    body = sum(table)
    granule = int.from_bytes(header[6:14], "little", signed=True)
    serial = _u32le(header, 14)
    first = d.at(offset + 27 + segments, min(body, 64))
    return granule, serial, 27 + segments + body, first


def _ogg(d: _Data) -> _Fields:
    """Ogg: the audio stream's header and last granule position; Theora gives the picture size.

    A file may multiplex streams: each starts with a beginning-of-stream page at the front.
    """
    out: _Fields = {}
    audio: tuple[int, int, int] | None = None  # serial, rate, pre-skip
    video: tuple[int, int, int, int] | None = None  # serial, granule shift, fps num, fps den
    offset = 0
    for _ in range(64):
        d.step()
        page = _ogg_page(d, offset)
        if page is None or not d.at(offset + 5, 1)[0] & 0x02:  # not a beginning-of-stream page
            break
        _, serial, length, packet = page
        offset += length
        if audio is None and packet.startswith(b"\x01vorbis"):
            out["channels"], out["sample_rate"] = _need(packet, 16)[11], _u32le(packet, 12)
            audio = serial, out["sample_rate"], 0
        elif audio is None and packet.startswith(b"OpusHead"):
            out["channels"], out["sample_rate"] = _need(packet, 12)[9], 48000
            audio = serial, 48000, _u16le(packet, 10)
        elif audio is None and packet.startswith(b"\x7fFLAC") and packet[9:13] == b"fLaC":
            info = _streaminfo(packet[17:])
            out["channels"], out["sample_rate"] = info["channels"], info["sample_rate"]
            audio = serial, info["sample_rate"], 0
        elif video is None and packet.startswith(b"\x80theora"):
            out["width"], out["height"] = _u24be(packet, 14), _u24be(packet, 17)
            shift = (_u16be(packet, 40) >> 5) & 0x1F
            video = serial, shift, _u32be(packet, 22), _u32be(packet, 26)
    if offset == 0:
        raise DecodeError("Ogg without a beginning-of-stream page")
    if audio is not None:
        granule = _last_granule(d, audio[0])
        if granule is not None and audio[1]:
            out["duration"] = max(granule - audio[2], 0) / audio[1]
    elif video is not None:
        granule = _last_granule(d, video[0])
        serial, shift, num, den = video
        if granule is not None and num:
            frames = (granule >> shift) + (granule & ((1 << shift) - 1))
            out["duration"] = frames * den / num
    return out


def _last_granule(d: _Data, serial: int) -> int | None:
    for window in (65536, 1 << 20):
        start = max(0, d.size - window)
        tail = d.at(start, d.size - start)
        pos = tail.rfind(b"OggS")
        while pos >= 0:
            d.step()  # at most one per 4 bytes of a window of at most 1 MiB
            page = _ogg_page(d, start + pos)
            if page is not None and page[1] == serial and page[0] >= 0:
                return page[0]
            pos = tail.rfind(b"OggS", 0, pos)
        if start == 0:
            break
    return None


def _id3_end(d: _Data) -> int:
    head = d.at(0, 10)
    if len(head) < 10 or head[:3] != b"ID3":
        return 0
    size = (head[6] & 0x7F) << 21 | (head[7] & 0x7F) << 14 | (head[8] & 0x7F) << 7 | head[9] & 0x7F
    return 10 + size + (10 if head[5] & 0x10 else 0)


_MP3_BITRATES = {
    (1, 1): [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    (1, 2): [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    (1, 3): [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    (2, 1): [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    (2, 2): [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
_MP3_RATES = {1: (44100, 48000, 32000), 2: (22050, 24000, 16000), 25: (11025, 12000, 8000)}


def _mp3_header(h: bytes) -> tuple[int, int, int, int, int, int] | None:
    """(version 1/2/25, layer, bitrate kbps, sample rate, frame bytes, channels) or None."""
    if len(h) < 4 or h[0] != 0xFF or h[1] & 0xE0 != 0xE0:
        return None
    version = {0: 25, 2: 2, 3: 1}.get((h[1] >> 3) & 3)
    layer = {1: 3, 2: 2, 3: 1}.get((h[1] >> 1) & 3)
    bitrate_index, rate_index = h[2] >> 4, (h[2] >> 2) & 3
    if version is None or layer is None or bitrate_index in (0, 15) or rate_index == 3:
        return None
    table = _MP3_BITRATES[(1, layer)] if version == 1 else _MP3_BITRATES[(2, min(layer, 2))]
    bitrate, rate = table[bitrate_index], _MP3_RATES[version][rate_index]
    padding = (h[2] >> 1) & 1
    if layer == 1:
        length = (12 * bitrate * 1000 // rate + padding) * 4
    else:
        per = 72 if layer == 3 and version != 1 else 144
        length = per * bitrate * 1000 // rate + padding
    channels = 1 if h[3] >> 6 == 3 else 2
    return version, layer, bitrate, rate, length, channels


def _mpeg_audio(d: _Data) -> _Fields:
    start = _id3_end(d)
    window = d.at(start, 65536)
    frame = None
    pos = 0
    for pos in range(max(len(window) - 3, 0)):
        if window[pos] != 0xFF:
            continue
        parsed = _mp3_header(window[pos : pos + 4])
        if parsed is None:
            continue
        d.step()  # at most one per byte of a 64 KiB window
        following = d.at(start + pos + parsed[4], 4)
        if len(following) == 4 and _mp3_header(following) is None:
            continue  # a false sync: the next frame must follow straight after
        frame = parsed
        break
    if frame is None:
        raise DecodeError("no MPEG audio frame in the first 64 KiB")
    version, layer, bitrate, rate, _length, channels = frame
    out: _Fields = {"sample_rate": rate, "channels": channels}
    spf = 384 if layer == 1 else 1152 if layer == 2 or version == 1 else 576
    offset = start + pos
    first = d.at(offset, 200)
    side = (32 if channels == 2 else 17) if version == 1 else (17 if channels == 2 else 9)
    tag = first[4 + side : 8 + side]
    if tag in (b"Xing", b"Info"):
        flags = _u32be(first, 8 + side)
        if flags & 1:
            out["duration"] = _u32be(first, 12 + side) * spf / rate
            return out
    if first[36:40] == b"VBRI":
        out["duration"] = _u32be(first, 50) * spf / rate
        return out
    audio_end = d.size - (128 if d.at(d.size - 128, 3) == b"TAG" else 0)
    if bitrate:
        out["duration"] = (audio_end - offset) * 8 / (bitrate * 1000)
    return out


_AAC_RATES = (96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000)


def _adts(d: _Data) -> _Fields:
    offset, frames, rate, channels = _id3_end(d), 0, 0, 0
    for _ in range(_MAX_ITEMS):
        d.step()  # every frame is at least 7 bytes
        h = d.at(offset, 7)
        if len(h) < 7 or h[0] != 0xFF or h[1] & 0xF6 != 0xF0:
            break
        index = (h[2] >> 2) & 0xF
        if index >= len(_AAC_RATES):
            raise DecodeError(f"ADTS frame at byte {offset} has a reserved sample rate index")
        rate = _AAC_RATES[index]
        channels = ((h[2] & 1) << 2) | (h[3] >> 6)
        length = ((h[3] & 3) << 11) | (h[4] << 3) | (h[5] >> 5)
        if length < 7:
            raise DecodeError(f"ADTS frame at byte {offset} is shorter than its header")
        frames += (h[6] & 3) + 1
        offset += length
    if frames == 0:
        raise DecodeError("no ADTS frame")
    out: _Fields = {"sample_rate": rate, "duration": frames * 1024 / rate}
    if channels:
        out["channels"] = channels
    return out
