"""Which Pillow plugins may run where: the allow-lists every ``Image.open`` of the package passes.

Pillow tries every plugin it has on bytes it is given, and some of them do far more than read
pixels: the EPS plugin starts Ghostscript, a PostScript interpreter, as a child of the caller;
the WMF plugin hands the file to the operating system's renderer; the GRIB, BUFR and HDF5 stubs
call whatever handler an application registered. So no ``Image.open`` of mediablocks runs
without ``formats=``, and the lists are short:

- `CALLER_FORMATS`: the plugins that run in the caller's process. Their header parsers are
  linear walks (JPEG markers, PNG chunks, GIF blocks, the RIFF chunks of WebP through libwebp's
  demuxer, a fixed BMP header), and their decoders' cost is checked from the header before any
  pixel is decoded (`mediablocks.images.costs`): memory (pixels x bytes per pixel x frames held)
  and work (pixels x progressive scans, or x frames).
- `WORKER_FORMATS`: everything else mediablocks converts. These plugins (TIFF, JPEG 2000 through
  OpenJPEG, HEIF and AVIF through libheif and libavif, PSD, ICO, the long tail of rasters...)
  run only inside a worker process under `ConversionLimits` (`mediablocks.images.fit.fit_here`
  fits them, `mediablocks.probing.pillow` reads their headers).

PostScript and EPS are in neither list: Ghostscript runs only through
`mediablocks.convert.postscript`, in a worker, and only when the caller opts in
(``ConversionLimits(allow_postscript=True)``).
"""

from __future__ import annotations

__all__ = ["CALLER_FORMATS", "NEVER_OPENED", "WORKER_FORMATS"]

CALLER_FORMATS: tuple[str, ...] = ("JPEG", "PNG", "GIF", "WEBP", "BMP")
"""Pillow formats opened and decoded in the caller's process (a JPEG with an MPF index opens
as ``MPO`` through the JPEG plugin)."""

WORKER_FORMATS: tuple[str, ...] = (
    *CALLER_FORMATS,
    "TIFF",
    "JPEG2000",
    "HEIF",
    "AVIF",
    "PSD",
    "ICO",
    "CUR",
    "DIB",
    "ICNS",
    "TGA",
    "DDS",
    "SGI",
    "PCX",
    "DCX",
    "PPM",
    "XPM",
    "XBM",
    "SUN",
    "QOI",
    "FITS",
    "FLI",
    "FPX",
    "MIC",
    "BLP",
    "MSP",
    "GBR",
)
"""Pillow formats opened only inside a worker process (`fit_here`, `pillow_header`)."""

NEVER_OPENED: dict[str, str] = {
    "EPS": "starts Ghostscript; PostScript goes through mediablocks.convert.postscript instead",
    "WMF": "hands the file to the operating system's renderer (Windows) or a registered handler",
    "BUFR": "a stub that calls a handler the application registers",
    "GRIB": "a stub that calls a handler the application registers",
    "HDF5": "a stub that calls a handler the application registers",
    "JXL": "pillow-jxl-plugin decodes on open: JPEG XL goes through its own worker job",
    "FTEX": "a game texture format no upload needs",
    "IM": "LabEye IM: no upload needs it",
    "IMT": "IM Tools: no upload needs it",
    "IPTC": "an IPTC/NAA record, not an image",
    "MCIDAS": "a satellite format no upload needs",
    "MPEG": "reads only the size of an MPEG video",
    "PCD": "Kodak PhotoCD: no upload needs it",
    "PIXAR": "a Pixar format no upload needs",
    "SPIDER": "a microscopy format no upload needs",
    "XVTHUMB": "XV thumbnails: no upload needs it",
}
"""Pillow formats mediablocks never lets Pillow open, and why."""
