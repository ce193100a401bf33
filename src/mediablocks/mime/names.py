"""MIME type spelling: canonical names, aliases, and the block kind a type belongs in."""

from __future__ import annotations

import re
from typing import Literal

from ..errors import MediaTypeError

# -- normalisation ---------------------------------------------------------------------------------

_ALIASES = {
    # images
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "image/jpe": "image/jpeg",
    "image/x-citrix-jpeg": "image/jpeg",
    "image/x-png": "image/png",
    "image/x-citrix-png": "image/png",
    "image/apng": "image/png",
    "image/vnd.mozilla.apng": "image/png",
    "image/x-ms-bmp": "image/bmp",
    "image/x-bmp": "image/bmp",
    "image/x-windows-bmp": "image/bmp",
    "image/ms-bmp": "image/bmp",
    "image/x-icon": "image/vnd.microsoft.icon",
    "image/ico": "image/vnd.microsoft.icon",
    "image/icon": "image/vnd.microsoft.icon",
    "image/x-ico": "image/vnd.microsoft.icon",
    "image/tif": "image/tiff",
    "image/x-tiff": "image/tiff",
    "image/x-heic": "image/heic",
    "image/x-heif": "image/heif",
    "image/x-webp": "image/webp",
    "image/x-jxl": "image/jxl",
    "image/jpeg2000": "image/jp2",
    "image/jpeg2000-image": "image/jp2",
    "image/x-jpeg2000-image": "image/jp2",
    "image/svg": "image/svg+xml",
    "image/psd": "image/vnd.adobe.photoshop",
    "image/x-psd": "image/vnd.adobe.photoshop",
    "image/photoshop": "image/vnd.adobe.photoshop",
    "image/x-photoshop": "image/vnd.adobe.photoshop",
    "application/photoshop": "image/vnd.adobe.photoshop",
    "application/x-photoshop": "image/vnd.adobe.photoshop",
    "application/psd": "image/vnd.adobe.photoshop",
    "image/x-targa": "image/x-tga",
    "image/tga": "image/x-tga",
    "image/targa": "image/x-tga",
    "image/x-pcx": "image/vnd.zbrush.pcx",
    "image/pcx": "image/vnd.zbrush.pcx",
    "image/x-dds": "image/vnd.ms-dds",
    "image/dds": "image/vnd.ms-dds",
    "image/sgi": "image/x-sgi",
    "image/icns": "image/x-icns",
    "image/x-xbm": "image/x-xbitmap",
    "image/x-xpm": "image/x-xpixmap",
    "image/xpm": "image/x-xpixmap",
    "image/eps": "image/x-eps",
    "application/eps": "image/x-eps",
    "application/x-eps": "image/x-eps",
    "image/x-qoi": "image/qoi",
    "image/x-fits": "image/fits",
    # audio
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/x-pn-wav": "audio/wav",
    "audio/mp3": "audio/mpeg",
    "audio/mpeg3": "audio/mpeg",
    "audio/x-mp3": "audio/mpeg",
    "audio/x-mpeg": "audio/mpeg",
    "audio/x-mpeg-3": "audio/mpeg",
    "audio/mpg": "audio/mpeg",
    "audio/x-mpg": "audio/mpeg",
    "audio/x-mpegaudio": "audio/mpeg",
    "audio/x-m4a": "audio/mp4",
    "audio/m4a": "audio/mp4",
    "audio/x-mp4": "audio/mp4",
    "audio/x-m4b": "audio/mp4",
    "audio/x-flac": "audio/flac",
    "audio/x-aiff": "audio/aiff",
    "audio/aif": "audio/aiff",
    "audio/x-aif": "audio/aiff",
    "audio/aifc": "audio/aiff",
    "audio/x-aifc": "audio/aiff",
    "audio/x-aac": "audio/aac",
    "audio/aacp": "audio/aac",
    "audio/aac-adts": "audio/aac",
    "audio/x-hx-aac-adts": "audio/aac",
    "audio/x-ogg": "audio/ogg",
    "application/x-ogg": "application/ogg",
    "audio/x-opus": "audio/opus",
    "audio/x-midi": "audio/midi",
    "audio/mid": "audio/midi",
    "audio/x-mid": "audio/midi",
    "audio/x-au": "audio/basic",
    "audio/au": "audio/basic",
    "audio/x-ac3": "audio/ac3",
    "audio/x-amr": "audio/amr",
    "audio/x-amr-wb": "audio/amr-wb",
    "audio/x-mka": "audio/x-matroska",
    "audio/x-webm": "audio/webm",
    "audio/wavpack": "audio/x-wavpack",
    "audio/x-wv": "audio/x-wavpack",
    "audio/ape": "audio/x-ape",
    "audio/x-monkeys-audio": "audio/x-ape",
    "audio/musepack": "audio/x-musepack",
    "audio/x-mpc": "audio/x-musepack",
    "audio/dsf": "audio/x-dsf",
    "audio/dff": "audio/x-dff",
    "audio/flv": "audio/x-flv",
    # video
    "video/x-mp4": "video/mp4",
    "video/mp4v-es": "video/mp4",
    "video/x-quicktime": "video/quicktime",
    "video/mov": "video/quicktime",
    "video/avi": "video/x-msvideo",
    "video/msvideo": "video/x-msvideo",
    "video/x-avi": "video/x-msvideo",
    "video/vnd.avi": "video/x-msvideo",
    "video/mkv": "video/x-matroska",
    "video/x-mkv": "video/x-matroska",
    "video/matroska": "video/x-matroska",
    "audio/matroska": "audio/x-matroska",
    "video/x-webm": "video/webm",
    "video/x-mpeg": "video/mpeg",
    "video/mpg": "video/mpeg",
    "video/x-mpg": "video/mpeg",
    "video/mpeg2": "video/mpeg",
    "video/3gp": "video/3gpp",
    "video/x-3gp": "video/3gpp",
    "video/flv": "video/x-flv",
    "video/fli": "video/x-flic",
    "video/x-fli": "video/x-flic",
    "video/flc": "video/x-flic",
    "video/x-flc": "video/x-flic",
    "video/x-mpegts": "video/mp2t",
    "video/mpegts": "video/mp2t",
    "video/vnd.dlna.mpeg-tts": "video/mp2t",
    "video/m4v": "video/x-m4v",
    # documents, archives, text
    "application/x-pdf": "application/pdf",
    "application/acrobat": "application/pdf",
    "application/vnd.pdf": "application/pdf",
    "text/pdf": "application/pdf",
    "text/x-pdf": "application/pdf",
    "text/xml": "application/xml",
    "application/x-xml": "application/xml",
    "text/json": "application/json",
    "application/x-json": "application/json",
    "text/x-json": "application/json",
    "text/x-markdown": "text/markdown",
    "text/x-csv": "text/csv",
    "application/csv": "text/csv",
    "application/x-csv": "text/csv",
    "text/comma-separated-values": "text/csv",
    "text/x-comma-separated-values": "text/csv",
    "text/rtf": "application/rtf",
    "application/x-rtf": "application/rtf",
    "application/x-zip-compressed": "application/zip",
    "application/x-zip": "application/zip",
    "application/zip-compressed": "application/zip",
    "multipart/x-zip": "application/zip",
    "application/x-gzip": "application/gzip",
    "application/x-gunzip": "application/gzip",
    "application/gzip-compressed": "application/gzip",
    "application/x-bzip": "application/x-bzip2",
    "application/x-zstd": "application/zstd",
    "application/x-rar-compressed": "application/vnd.rar",
    "application/x-rar": "application/vnd.rar",
    "application/x-sqlite3": "application/vnd.sqlite3",
    "application/x-msword": "application/msword",
    "application/doc": "application/msword",
    "application/excel": "application/vnd.ms-excel",
    "application/x-excel": "application/vnd.ms-excel",
    "application/x-msexcel": "application/vnd.ms-excel",
    "application/powerpoint": "application/vnd.ms-powerpoint",
    "application/mspowerpoint": "application/vnd.ms-powerpoint",
    "application/x-mspowerpoint": "application/vnd.ms-powerpoint",
    "application/x-postscript": "application/postscript",
    "application/font-woff": "font/woff",
    "application/x-font-ttf": "font/ttf",
    "application/x-font-otf": "font/otf",
}

_TOKEN = re.compile(r"[a-z0-9!#$&^_.+-]{1,127}\Z")


def normalize_mime(mime: str) -> str:
    """The canonical spelling of a MIME type: lower case, no parameters, aliases resolved.

    ``"Image/JPG; q=1"`` becomes ``"image/jpeg"``. Raises `MediaTypeError` (a `ValueError`) for a
    string that is not ``type/subtype`` made of MIME token characters.
    """
    base = mime.split(";", 1)[0].strip().lower()
    major, slash, minor = base.partition("/")
    if not slash or not _TOKEN.match(major) or not _TOKEN.match(minor):
        raise MediaTypeError(f"{mime!r} is not a MIME type (type/subtype)")
    return _ALIASES.get(base, base)


def mime_kind(mime: str) -> Literal["image", "audio", "video", "file"]:
    """The kind of block a MIME type belongs in: ``image``, ``audio``, ``video`` or ``file``."""
    major = mime.split("/", 1)[0].strip().lower()
    if major == "image":
        return "image"
    if major == "audio":
        return "audio"
    if major == "video":
        return "video"
    return "file"


# -- file names of what preparation writes ---------------------------------------------------------

OUTPUT_EXTENSIONS: dict[str, str] = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "audio/mpeg": ".mp3",
    "audio/wav": ".wav",
    "audio/flac": ".flac",
    "audio/aac": ".aac",
    "audio/opus": ".opus",
    "audio/ogg": ".ogg",
    "video/mp4": ".mp4",
}
"""The file extension of each type `prepare` and the converters write, for renaming a block's
file name (``photo.heic`` -> ``photo.jpg``) and naming the CLI's output files."""
