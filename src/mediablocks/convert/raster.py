"""Images Pillow cannot read by itself, made readable: SVG, JPEG XL, PostScript, 16-bit PSD.

`convert_refused_image` is the one hook the image-fitting code calls before opening an image:

- **SVG** is rendered to PNG with ``resvg-py`` (``pip install 'mediablocks[svg]'``) in a worker
  process: resvg is a complete SVG renderer in Rust shipped as a wheel, with no system library
  (cairosvg needs the cairo C library installed separately). SVGs that reference external files
  (``href`` to a path or URL) or declare entities are refused: rendering must not read the local
  disk. The output size comes from the parsed root element (`svg_size`, so ``&#54;000`` is
  6000) and is bounded by the target; a rendering over the pixel limit is refused in the worker.
- **JPEG XL** is decoded with ``pillow-jxl-plugin`` (``mediablocks[jxl]``) in a worker, after
  a pixel-count check, and passed on as a lossless PNG that fitting then treats like any other
  image.
- **PostScript and EPS** are refused unless the caller opts in
  (``ConversionLimits(allow_postscript=True)``): then Ghostscript renders them in a worker
  (`mediablocks.convert.postscript`).
- **PSD**: Pillow reads 8-bit PSDs itself; 16-bit ones (what ImageMagick writes for a gradient)
  it cannot, so their merged composite image (grey or RGB, raw or PackBits) is read by
  `psd_composite`, scaled to 8 bits, and passed on as PNG: in the worker that fits every PSD
  (`mediablocks.images.fit.fit_here`). Other PSDs Pillow refuses (32-bit float, Lab,
  duotone...) raise `UnsupportedBlockError` saying so.
"""

from __future__ import annotations

import re
import struct
import xml.parsers.expat
from io import BytesIO

from ..errors import DecodeError, ImageBombError, UnsupportedBlockError
from ._extract import decoder_errors, require, require_installed
from .postscript import is_postscript, render_postscript

__all__ = [
    "convert_refused_image",
    "is_jxl",
    "is_psd",
    "is_svg",
    "psd_composite",
    "psd_needs_composite",
    "svg_size",
    "unreadable_hint",
]

_JXL_CONTAINER = b"\x00\x00\x00\x0cJXL \r\n\x87\n"
_EXTERNAL_REF = re.compile(rb"""href\s*=\s*["']\s*(?!#|data:)[^"'\s]""", re.IGNORECASE)
_LENGTH = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(px|pt|pc|mm|cm|in|em|ex)?\s*$")
_UNIT_PX = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54}
_UNIT_PX.update({"in": 96.0, "em": 16.0, "ex": 8.0})
_MIN_SVG_SIDE = 512
_DEFAULT_SIDE = 2048
_SVG_PIECE = 64 * 1024  # bytes fed to the XML parser at a time, until the root element


def is_svg(data: bytes, mime: str | None = None) -> bool:
    if mime == "image/svg+xml":
        return True
    head = data[:512].lstrip()
    return head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:4096])


def is_jxl(data: bytes) -> bool:
    """What pillow-jxl-plugin claims (its accept test), so none of it reaches Pillow directly."""
    return data[:2] == b"\xff\x0a" or data[:12] == _JXL_CONTAINER or data[4:7] == b"JXL"


def is_psd(data: bytes) -> bool:
    return data[:4] == b"8BPS"


def unreadable_hint(data: bytes) -> str:
    """Why Pillow could not read ``data``, and what to install when something would help."""
    if is_svg(data):
        return "SVG is rasterised only when resvg-py is installed: pip install 'mediablocks[svg]'"
    if is_jxl(data):
        return "JPEG XL is decoded only with pillow-jxl-plugin: pip install 'mediablocks[jxl]'"
    if is_psd(data):
        return "this PSD's colour mode or depth cannot be read (grey and RGB, 8 or 16 bit can)"
    if is_postscript(data):
        return "PostScript and EPS are rendered only with ConversionLimits(allow_postscript=True)"
    return "Pillow cannot read this image format"


def convert_refused_image(
    data: bytes,
    mime: str | None,
    *,
    max_side: int | None,
    max_pixels: int | None,
    convert: bool,
    what: str,
) -> tuple[bytes, str] | None:
    """``(png_bytes, change_description)`` when ``data`` had to be converted before Pillow can
    read it; None when Pillow reads it as it is.

    Raises `UnsupportedBlockError` when a conversion is needed and ``convert`` is False, the
    extra is missing or (PostScript) the caller did not opt in, `ImageBombError` over
    ``max_pixels``, `DecodeError` when broken.
    """
    if is_svg(data, mime):
        if not convert:
            raise UnsupportedBlockError(f"{what}: SVG must be rasterised and convert=False")
        return rasterise_svg(data, max_side, max_pixels, what), "SVG -> PNG (rendered with resvg)"
    if is_jxl(data):
        if not convert:
            raise UnsupportedBlockError(f"{what}: JPEG XL must be converted and convert=False")
        return jxl_to_png(data, max_pixels, what), "JPEG XL -> PNG (decoded with pillow-jxl-plugin)"
    if is_postscript(data):
        if not convert:
            raise UnsupportedBlockError(f"{what}: PostScript must be rendered and convert=False")
        png = render_postscript(data, max_side, max_pixels, what)
        return png, "PostScript -> PNG (rendered with Ghostscript in a worker process)"
    return None


# -- SVG ------------------------------------------------------------------------------------------


class _Root(Exception):
    """Internal: the parser reached the root element (its attributes)."""

    def __init__(self, attributes: dict[str, str]) -> None:
        super().__init__()
        self.attributes = attributes


def _svg_root(data: bytes) -> dict[str, str] | None:
    """The root element's attributes as an XML parser reads them (character references such as
    ``&#54;000`` resolved), or None when there is no root or the document type has an internal
    subset (which may declare entities: none is ever expanded; an external DTD is never read).
    Linear: the parser stops at the root's start tag."""
    parser = xml.parsers.expat.ParserCreate()

    def root(name: str, attributes: dict[str, str]) -> None:
        raise _Root(attributes)

    def doctype(name: str, system: str | None, public: str | None, internal: int) -> None:
        if internal:
            raise _Root({})

    parser.StartElementHandler = root
    parser.StartDoctypeDeclHandler = doctype
    try:
        for start in range(0, len(data), _SVG_PIECE):
            parser.Parse(data[start : start + _SVG_PIECE], False)
        parser.Parse(b"", True)
    except _Root as found:
        return found.attributes or None
    except (xml.parsers.expat.ExpatError, ValueError):
        return None
    return None


def _length(value: str) -> float | None:
    found = _LENGTH.match(value)
    if found is None:
        return None
    return float(found.group(1)) * _UNIT_PX[found.group(2) or ""]


def svg_size(data: bytes) -> tuple[float, float] | None:
    """The SVG's natural size in pixels: its root's ``width`` and ``height`` (in px, pt, mm...),
    else its ``viewBox``; None when neither says it (then resvg's default applies)."""
    attributes = _svg_root(data)
    if attributes is None:
        return None
    width, height = _length(attributes.get("width", "")), _length(attributes.get("height", ""))
    if width is not None and height is not None:
        return width, height
    box = attributes.get("viewBox", "").replace(",", " ").split()
    if len(box) == 4:
        try:
            return float(box[2]), float(box[3])
        except ValueError:
            return None
    return None


def rasterise_svg(data: bytes, max_side: int | None, max_pixels: int | None, what: str) -> bytes:
    """SVG -> PNG with resvg: the natural size (at least 512 px on the long side), within limits."""
    if b"<!ENTITY" in data:
        raise UnsupportedBlockError(f"{what}: SVG declaring XML entities is not rendered")
    if _EXTERNAL_REF.search(data):
        raise UnsupportedBlockError(
            f"{what}: SVG referring to external files or URLs is not rendered (only #fragments "
            "and data: URIs are)"
        )
    require_installed("resvg_py", "svg", what, "rasterising SVG")
    side = max_side or _DEFAULT_SIDE
    size = svg_size(data)
    width: int | None = None
    height: int | None = None
    if size is not None and size[0] > 0 and size[1] > 0:
        long_side = max(size)
        scale = min(side, max(long_side, _MIN_SVG_SIDE)) / long_side
        if max_pixels is not None:
            scale = min(scale, (max_pixels / (size[0] * size[1])) ** 0.5)
        width = max(1, round(size[0] * scale))
        height = max(1, round(size[1] * scale))
    from .isolation import run_isolated

    limit = max_pixels if max_pixels is not None else side * side
    return run_isolated(
        what, _render_svg, data, width, height, what, limit, converter="SVG renderer"
    )


def _render_svg(
    data: bytes, width: int | None, height: int | None, what: str, max_pixels: int | None = None
) -> bytes:
    """resvg's PNG of ``data`` at ``width`` or ``height`` (run in a worker process); a PNG of
    more than ``max_pixels`` pixels is never sent back."""
    resvg = require("resvg_py", "svg", what, "rasterising SVG")
    with decoder_errors(what, "SVG"):
        text = data.decode("utf-8")
        if width is None or height is None:  # no size declared: resvg's default (100 x 100)
            png = bytes(resvg.svg_to_bytes(svg_string=text))
        elif height > width:  # resvg keeps the aspect ratio from the one side given
            png = bytes(resvg.svg_to_bytes(svg_string=text, height=height))
        else:
            png = bytes(resvg.svg_to_bytes(svg_string=text, width=width))
    out_w, out_h = struct.unpack(">II", png[16:24]) if len(png) >= 24 else (0, 0)
    if max_pixels is not None and out_w * out_h > max_pixels:
        raise ImageBombError(
            f"{what}: the SVG renders to {out_w}x{out_h} pixels, more than the limit of "
            f"{max_pixels:,}",
            limit=max_pixels,
            size=out_w * out_h,
        )
    return png


# -- JPEG XL --------------------------------------------------------------------------------------


def jxl_to_png(data: bytes, max_pixels: int | None, what: str) -> bytes:
    """JPEG XL decoded by pillow-jxl-plugin (its first frame), as a lossless PNG.

    Decoded here rather than left to the fitting code so that the plugin's own errors (it raises
    RuntimeError on a broken file) are wrapped, and the pixel count is checked before decoding.
    """
    width, height = jxl_size(data, what)  # the plugin decodes on open: check before
    if max_pixels is not None and width * height > max_pixels:
        raise ImageBombError(
            f"{what}: {width * height:,} pixels ({width}x{height}) exceeds the "
            f"decompression-bomb limit of {max_pixels:,} pixels",
            limit=max_pixels,
            size=width * height,
        )
    require_installed("pillow_jxl", "jxl", what, "decoding JPEG XL")
    from .isolation import run_isolated

    return run_isolated(what, _decode_jxl, data, what, converter="JPEG XL decoder")


def _decode_jxl(data: bytes, what: str) -> bytes:
    """The plugin's decode of ``data`` as PNG (run in a worker process)."""
    require("pillow_jxl", "jxl", what, "decoding JPEG XL")  # importing registers the plugin
    from PIL import Image

    with decoder_errors(what, "JPEG XL"), Image.open(BytesIO(data), formats=["JXL"]) as image:
        image.load()
        out = BytesIO()
        keep = image.mode if image.mode in ("RGB", "RGBA", "L", "LA") else "RGBA"
        image.convert(keep).save(out, "PNG")
    return out.getvalue()


_JXL_RATIOS = {1: (1, 1), 2: (12, 10), 3: (4, 3), 4: (3, 2), 5: (16, 9), 6: (5, 4), 7: (2, 1)}


def jxl_size(data: bytes, what: str) -> tuple[int, int]:
    """``(width, height)`` from a JPEG XL SizeHeader (ISO/IEC 18181-1 D.2), nothing decoded."""
    stream = data
    if data[:12] == _JXL_CONTAINER:
        stream = _jxl_codestream(data, what)
    if stream[:2] != b"\xff\x0a" or len(stream) < 12:
        raise DecodeError(f"{what}: not a readable JPEG XL: no codestream header")
    bits = int.from_bytes(stream[2:12], "little")
    pos = 0

    def take(count: int) -> int:
        nonlocal pos
        value = (bits >> pos) & ((1 << count) - 1)
        pos += count
        return value

    def dimension(div8: int) -> int:
        if div8:
            return 8 * (1 + take(5))
        return 1 + take((9, 13, 18, 30)[take(2)])

    small = take(1)
    height = dimension(small)
    ratio = take(3)
    if ratio:
        numerator, denominator = _JXL_RATIOS[ratio]
        width = height * numerator // denominator
    else:
        width = dimension(small)
    return width, height


def _jxl_codestream(data: bytes, what: str) -> bytes:
    """The start of the codestream inside a JPEG XL container (``jxlc`` or first ``jxlp`` box)."""
    pos = 0
    while pos + 8 <= len(data):
        size = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        header = 8
        if size == 1 and pos + 16 <= len(data):
            size, header = int.from_bytes(data[pos + 8 : pos + 16], "big"), 16
        elif size == 0:
            size = len(data) - pos
        if kind == b"jxlc":
            return data[pos + header : pos + header + 64]
        if kind == b"jxlp":
            return data[pos + header + 4 : pos + header + 68]
        if size < header:
            break
        pos += size
    raise DecodeError(f"{what}: not a readable JPEG XL: no codestream box")


# -- PSD ------------------------------------------------------------------------------------------


def psd_needs_composite(data: bytes) -> bool:
    """True when Pillow's PSD plugin cannot read ``data`` (a 16-bit PSD): `psd_composite` must.

    Run where PSDs are decoded: in a worker process (`mediablocks.images.fit.fit_here`)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(BytesIO(data), formats=["PSD"]):
            return False
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        return True


def psd_composite(data: bytes, max_pixels: int | None, what: str) -> bytes:
    """The merged image of a grey or RGB PSD (8 or 16 bit, raw or PackBits) as PNG."""
    from PIL import Image

    if len(data) < 26:
        raise DecodeError(f"{what}: not a readable PSD: the header is cut")
    version, channels, height, width, depth, mode = struct.unpack_from(">H6xHIIHH", data, 4)
    if (
        version not in (1, 2)
        or not 1 <= channels <= 56
        or depth not in (8, 16)
        or mode not in (1, 3)
    ):
        raise UnsupportedBlockError(f"{what}: {unreadable_hint(data)}")
    colours = 3 if mode == 3 else 1
    if channels < colours or width < 1 or height < 1:
        raise DecodeError(f"{what}: not a readable PSD: {channels} channels for colour mode {mode}")
    if max_pixels is not None and width * height > max_pixels:
        raise ImageBombError(
            f"{what}: {width * height:,} pixels ({width}x{height}) exceeds the decompression-bomb "
            f"limit of {max_pixels:,} pixels",
            limit=max_pixels,
            size=width * height,
        )
    pos = 26
    for section in range(3):  # colour mode data, image resources, layers and masks
        wide = version == 2 and section == 2
        fmt = ">Q" if wide else ">I"
        if pos + struct.calcsize(fmt) > len(data):
            raise DecodeError(f"{what}: not a readable PSD: the file is cut")
        pos += struct.calcsize(fmt) + struct.unpack_from(fmt, data, pos)[0]
    if pos + 2 > len(data):
        raise DecodeError(f"{what}: not a readable PSD: no merged image")
    compression = struct.unpack_from(">H", data, pos)[0]
    pos += 2
    row_bytes = width * depth // 8
    planes: list[bytes] = []
    if compression == 0:
        for channel in range(colours):
            start = pos + channel * row_bytes * height
            plane = data[start : start + row_bytes * height]
            if len(plane) != row_bytes * height:
                raise DecodeError(f"{what}: not a readable PSD: the merged image is cut")
            planes.append(plane)
    elif compression == 1:
        count_size = 4 if version == 2 else 2
        counts_at, pos = pos, pos + channels * height * count_size
        for channel in range(colours):
            rows = bytearray()
            for row in range(height):
                offset = counts_at + (channel * height + row) * count_size
                if offset + count_size > len(data):
                    raise DecodeError(f"{what}: not a readable PSD: the row table is cut")
                length = int.from_bytes(data[offset : offset + count_size], "big")
                rows += _unpack_bits(data[pos : pos + length], row_bytes, what)
                pos += length
            planes.append(bytes(rows))
    else:
        raise UnsupportedBlockError(f"{what}: PSD compression {compression} (ZIP) is not read")
    if depth == 16:
        planes = [plane[0::2] for plane in planes]  # big-endian: the high byte of each sample
    bands = [Image.frombytes("L", (width, height), plane) for plane in planes]
    image = bands[0] if colours == 1 else Image.merge("RGB", bands)
    out = BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _unpack_bits(packed: bytes, size: int, what: str) -> bytes:
    """One PackBits row, exactly ``size`` bytes."""
    out = bytearray()
    i = 0
    while i < len(packed) and len(out) < size:
        header = packed[i]
        i += 1
        if header < 128:
            out += packed[i : i + header + 1]
            i += header + 1
        elif header > 128:
            out += packed[i : i + 1] * (257 - header)
            i += 1
    if len(out) < size:
        raise DecodeError(f"{what}: not a readable PSD: a compressed row is cut")
    return bytes(out[:size])
