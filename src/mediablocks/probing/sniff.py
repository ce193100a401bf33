"""Which header parser a piece of media needs, from its first bytes."""

from __future__ import annotations

from ._data import _Data
from .audio import _id3_end

# -- format sniffing ------------------------------------------------------------------------------

_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"mif1", b"msf1", b"avif", b"avis", b"hevc"}


def _sniff(d: _Data) -> str | None:
    head = d.at(0, 64)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:4] in (b"RIFF", b"RF64", b"BW64") and head[8:12] == b"WAVE":
        return "wav"
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "avi"
    if head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"):
        return "aiff"
    if head[:4] == b"fLaC":
        return "flac"
    if head[:4] == b".snd":
        return "au"
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return "tiff"
    if head[:2] == b"BM" and len(head) >= 18 and head[14] in (12, 16, 40, 52, 56, 64, 108, 124):
        return "bmp"
    if head[:4] == b"OggS":
        return "ogg"
    if head[:4] == b"MThd":
        return "midi"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "matroska"
    if head[:5] == b"%PDF-" or b"%PDF-" in d.at(0, 1024):
        return "pdf"
    if head[4:8] == b"ftyp":
        brands = {head[8:12]} | {head[i : i + 4] for i in range(16, min(len(head), 64), 4)}
        major = head[8:12]
        if major in _HEIF_BRANDS or (b"mif1" in brands and b"isom" not in brands):
            return "heif"
        return "mp4"
    if head[4:8] in (b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot"):
        return "mp4"
    if head[:3] == b"ID3":
        after = _id3_end(d)
        head = d.at(after, 4)
        if head == b"fLaC":
            return "flac"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xF6 == 0xF0:
        return "adts"
    if head[:3] == b"ID3" or (len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "mpeg-audio"
    return None


_FORMAT_MIME = {
    "png": "image/png",
    "gif": "image/gif",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "heif": "image/heic",
    "wav": "audio/wav",
    "avi": "video/x-msvideo",
    "aiff": "audio/aiff",
    "flac": "audio/flac",
    "ogg": "audio/ogg",
    "matroska": "video/x-matroska",
    "pdf": "application/pdf",
    "mp4": "video/mp4",
    "mpeg-audio": "audio/mpeg",
    "adts": "audio/aac",
    "au": "audio/basic",
    "midi": "audio/midi",
    "tiff": "image/tiff",
    "bmp": "image/bmp",
}
