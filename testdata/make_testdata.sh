#!/usr/bin/env bash
# Regenerates mediablocks' real-media test corpus (testdata/) with real encoders.
#
# Each file is made by one `mk PATH MIME KIND 'COMMAND' [WHAT-IS-WRONG]` line: COMMAND is run
# from testdata/ exactly as written (with $W = a scratch folder for intermediate files) and is
# copied verbatim into manifest.json ("made_by") and the README table. MIME is the answer a
# careful human expert gives for the file's content (null: no honest answer, e.g. random bytes).
#
# Needs (Debian 12): apt-get install ffmpeg sox libsox-fmt-all lame imagemagick ghostscript
#   libheif-examples libavif-bin libjxl-tools libopenjp2-tools webp flac vorbis-tools opus-tools
#   zip p7zip-full zstd xz-utils bzip2 libimage-exiftool-perl espeak-ng pandoc python3-mido
#   libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui curl
#   gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
#   icnsutils icoutils libcfitsio-bin wavpack musepack-tools
# and a Python with Pillow as $PY (default: the project's .venv).
#
# Usage: bash testdata/make_testdata.sh        (rewrites every file it lists, then the manifest)
set -euo pipefail
T="$(cd "$(dirname "$0")" && pwd)"
PY="${PY:-$T/../.venv/bin/python}"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
export W T PY
export SOURCE_DATE_EPOCH=0 LC_ALL=C.UTF-8 TZ=UTC
LOG="$W/entries.jsonl"
cd "$T"
mkdir -p image audio video document text archive bad public

# mk PATH MIME KIND COMMAND [BAD]: run COMMAND in testdata/, check PATH exists, record it.
mk() {
  local path="$1" mime="$2" kind="$3" cmd="$4" bad="${5:-}"
  rm -f "$path"
  if ! (eval "$cmd") >"$W/out.log" 2>&1; then
    echo "FAILED: $path" >&2; cat "$W/out.log" >&2; exit 1
  fi
  [ -e "$path" ] || { echo "NOT MADE: $path" >&2; exit 1; }
  "$PY" - "$path" "$mime" "$kind" "$cmd" "$bad" >>"$LOG" <<'EOF'
import json, sys
path, mime, kind, cmd, bad = sys.argv[1:]
entry = {"path": path, "mime": None if mime == "null" else mime, "kind": kind, "made_by": cmd}
if bad:
    entry["bad"] = bad
print(json.dumps(entry))
EOF
}


########################################################################################## text
# Text files are text formats: their content is written here (heredocs / printf), then
# re-encoded with iconv where the variant is an encoding.
mk text/utf8.txt text/plain text 'printf "Grüße aus Köln — naïve café, 東京, Ωμέγα.\nSecond line: ok.\n" > text/utf8.txt'
mk text/utf8-bom.txt text/plain text 'printf "\xef\xbb\xbf" > text/utf8-bom.txt && cat text/utf8.txt >> text/utf8-bom.txt'
mk text/utf16le-bom.txt text/plain text 'printf "\xff\xfe" > text/utf16le-bom.txt && iconv -f UTF-8 -t UTF-16LE text/utf8.txt >> text/utf16le-bom.txt'
mk text/utf16be-bom.txt text/plain text 'printf "\xfe\xff" > text/utf16be-bom.txt && iconv -f UTF-8 -t UTF-16BE text/utf8.txt >> text/utf16be-bom.txt'
mk text/utf16le-nobom.txt text/plain text 'iconv -f UTF-8 -t UTF-16LE text/utf8.txt > text/utf16le-nobom.txt'
mk text/plain.txt text/plain text 'printf "the quick brown fox jumps over the lazy dog while a small grey cat\nwatches from the window sill and nothing else happens today so we\nwrite it down anyway because notes are cheap and memory is not\n" > text/plain.txt'
mk text/ascii.txt text/plain text 'printf "Hello, world.\nThis file is plain 7-bit ASCII.\n" > text/ascii.txt'
mk text/latin1.txt text/plain text 'printf "Café crème brûlée, naïve façade.\nGrüße aus Köln; à bientôt, señor Muñoz!\n" | iconv -f UTF-8 -t ISO-8859-1 > text/latin1.txt'
mk text/cp1252.txt text/plain text 'printf "“Prix : 5 €” – déjà vu…\nL’été à Zürich, naïve œuvre.\n" | iconv -f UTF-8 -t WINDOWS-1252 > text/cp1252.txt'
mk text/short-words.txt text/plain text 'printf "hi there" > text/short-words.txt'
mk text/short-ok.txt text/plain text 'printf "ok" > text/short-ok.txt'
mk text/utf32-bom.txt text/plain text 'iconv -f UTF-8 -t UTF-32 text/utf8.txt > text/utf32-bom.txt'
mk text/utf32le-nobom.txt text/plain text 'iconv -f UTF-8 -t UTF-32LE text/utf8.txt > text/utf32le-nobom.txt'
mk text/utf32be-nobom.txt text/plain text 'iconv -f UTF-8 -t UTF-32BE text/utf8.txt > text/utf32be-nobom.txt'
mk text/utf16be-nobom.txt text/plain text 'iconv -f UTF-8 -t UTF-16BE text/utf8.txt > text/utf16be-nobom.txt'
mk text/utf16le-nobom-russian.txt text/plain text 'printf "Привет, мир! Как дела?\nВсё хорошо, спасибо.\n" | iconv -f UTF-8 -t UTF-16LE > text/utf16le-nobom-russian.txt'
mk text/utf16le-nobom-japanese.txt text/plain text 'printf "東京は今日も晴れです。明日も晴れるでしょう。\n" | iconv -f UTF-8 -t UTF-16LE > text/utf16le-nobom-japanese.txt'
mk text/readme.md text/markdown text 'cat > text/readme.md <<"MD"
# Field notes

A short **Markdown** document with [a link](https://example.org/notes) and `inline code`.

## Findings

- first point
- second point with *emphasis*
- third point

1. numbered one
2. numbered two

## Next steps

> Keep the samples small.

```python
print("hello")
```
MD'
mk text/page.html text/html text 'cat > text/page.html <<"HTML"
<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Sample page</title></head>
<body>
<h1>Sample page</h1>
<p>A small HTML5 page with a <a href="https://example.org/">link</a>.</p>
</body>
</html>
HTML'
mk text/fragment-nodoctype.html text/html text 'cat > text/fragment-nodoctype.html <<"HTML"
<html>
<head><title>No doctype</title></head>
<body><p>An HTML page without a doctype line.</p></body>
</html>
HTML'
mk text/data.xml application/xml text 'cat > text/data.xml <<"XML"
<?xml version="1.0" encoding="UTF-8"?>
<catalog>
  <item id="1"><name>Widget</name><price currency="EUR">9.50</price></item>
  <item id="2"><name>Gadget</name><price currency="EUR">12.00</price></item>
</catalog>
XML'
mk text/object.json application/json text 'printf "{\"name\": \"mediablocks\", \"version\": 1, \"tags\": [\"image\", \"audio\"], \"nested\": {\"ok\": true}}\n" > text/object.json'
mk text/array.json application/json text 'printf "[{\"id\": 1, \"score\": 0.5}, {\"id\": 2, \"score\": 0.75}, null, \"text\"]\n" > text/array.json'
mk text/data.csv text/csv text 'printf "city,country,population\nBerlin,Germany,3645000\nMadrid,Spain,3223000\nLisbon,Portugal,545000\n\"Washington, D.C.\",USA,689545\n" > text/data.csv'
mk text/utf16le-bom-multiscript.txt text/plain text 'printf "\xff\xfe" > text/utf16le-bom-multiscript.txt && printf "English and café, Ελληνικά, Русский текст, 日本語のテキスト, 中文, 한국어, עברית, ქართული, emoji 😀🎉👍.\nSecond line: ok.\n" | iconv -f UTF-8 -t UTF-16LE >> text/utf16le-bom-multiscript.txt'

######################################################################################### image
mk image/photo.jpg image/jpeg image 'convert -seed 7 -size 640x480 plasma:fractal -quality 92 -sampling-factor 2x2 image/photo.jpg && exiftool -q -overwrite_original -Make=mediablocks -Model="Plasma Camera" -DateTimeOriginal="2024:05:01 12:00:00" -Artist="testdata (CC0)" image/photo.jpg'
mk image/pillow-baseline.jpg image/jpeg image '"$PY" -c "from PIL import Image; Image.radial_gradient(\"L\").resize((96, 64)).convert(\"RGB\").save(\"image/pillow-baseline.jpg\", quality=85)"'
mk image/progressive.jpg image/jpeg image 'convert -size 96x64 gradient:orange-navy -interlace Plane -quality 85 image/progressive.jpg'
mk image/cmyk.jpg image/jpeg image 'convert -seed 3 -size 96x64 plasma:red-cyan -colorspace CMYK -quality 85 image/cmyk.jpg'
# Upright scene (120x160 portrait: sky, yellow sun top-left, green ground at the bottom, the word
# TOP); its pixels are stored turned 90 degrees counter-clockwise, so EXIF Orientation 6
# ("rotate 90 CW to display") makes it upright again.
mk image/sideways-exif6-gps.jpg image/jpeg image 'convert -size 120x160 gradient:skyblue-white -fill forestgreen -draw "rectangle 0,110 119,159" -fill gold -draw "circle 25,25 25,10" -fill black -font DejaVu-Sans -pointsize 18 -draw "text 60,40 \"TOP\"" -rotate -90 -quality 88 image/sideways-exif6-gps.jpg && exiftool -q -overwrite_original -Orientation#=6 -Make=Phonemaker -Model="Phone X1" -SerialNumber=SN-0042-7731 -BodySerialNumber=SN-0042-7731 -Comment="shot by alice on her phone" -UserComment="private note" -DateTimeOriginal="2024:06:02 09:30:00" -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E -GPSAltitude=35 -GPSAltitudeRef=0 image/sideways-exif6-gps.jpg'
mk image/rgb.png image/png image 'convert -seed 11 -size 48x32 plasma:fractal -strip PNG24:image/rgb.png'
mk image/rgba.png image/png image 'convert -size 32x24 gradient:"rgba(255,0,0,1)-rgba(0,0,255,0)" -strip PNG32:image/rgba.png'
mk image/16bit.png image/png image 'convert -size 32x24 gradient:black-white -depth 16 -strip PNG48:image/16bit.png'
mk image/palette.png image/png image 'convert -size 32x24 gradient:yellow-purple -colors 16 -strip PNG8:image/palette.png'
mk image/grey.png image/png image '"$PY" -c "from PIL import Image; Image.linear_gradient(\"L\").resize((32, 24)).save(\"image/grey.png\")"'
mk image/apng.png image/png image 'ffmpeg -v error -f lavfi -i testsrc2=size=48x32:rate=5:duration=0.6 -plays 0 -f apng image/apng.png'
mk image/still.gif image/gif image 'convert -size 48x32 gradient:green-white -colors 32 image/still.gif'
mk image/animated.gif image/gif image 'convert -delay 20 -loop 0 -size 48x32 xc:red xc:lime xc:blue image/animated.gif'
mk image/lossy.webp image/webp image 'convert -size 64x48 gradient:teal-pink "$W/w.png" && cwebp -quiet -q 60 "$W/w.png" -o image/lossy.webp'
mk image/lossless.webp image/webp image 'convert -size 64x48 gradient:teal-pink "$W/w.png" && cwebp -quiet -lossless "$W/w.png" -o image/lossless.webp'
mk image/animated.webp image/webp image 'convert -size 48x32 xc:red "$W/a1.png" && convert -size 48x32 xc:lime "$W/a2.png" && convert -size 48x32 xc:blue "$W/a3.png" && img2webp -loop 0 -d 200 -lossy "$W/a1.png" "$W/a2.png" "$W/a3.png" -o image/animated.webp'
mk image/sample.bmp image/bmp image 'convert -size 32x24 gradient:red-blue BMP3:image/sample.bmp'
mk image/little-endian.tif image/tiff image 'convert -size 32x24 gradient:red-blue -compress lzw -define tiff:endian=lsb image/little-endian.tif'
mk image/big-endian.tif image/tiff image 'convert -size 32x24 gradient:red-blue -compress lzw -define tiff:endian=msb image/big-endian.tif'
mk image/bigtiff.tif image/tiff image 'convert -size 32x24 gradient:red-blue -compress zip TIFF64:image/bigtiff.tif'
mk image/favicon.ico image/vnd.microsoft.icon image 'convert -size 32x32 gradient:orange-purple -define icon:auto-resize=32,16 image/favicon.ico'
mk image/photo.heic image/heic image 'convert -seed 7 -size 128x96 plasma:fractal "$W/h.png" && heif-enc -q 40 "$W/h.png" -o image/photo.heic'
mk image/photo.avif image/avif image 'convert -seed 7 -size 128x96 plasma:fractal "$W/h.png" && avifenc --min 30 --max 40 -s 8 "$W/h.png" image/photo.avif'
mk image/sequence.avif image/avif image 'convert -size 48x32 xc:red "$W/s1.png" && convert -size 48x32 xc:lime "$W/s2.png" && convert -size 48x32 xc:blue "$W/s3.png" && avifenc --min 30 --max 40 -s 8 --fps 5 "$W/s1.png" "$W/s2.png" "$W/s3.png" image/sequence.avif'
mk image/codestream.jxl image/jxl image 'convert -size 64x48 gradient:red-blue -strip "$W/j.png" && cjxl --quiet --container=0 -d 2 "$W/j.png" image/codestream.jxl'
mk image/container.jxl image/jxl image 'convert -size 64x48 gradient:red-blue -strip "$W/j.png" && cjxl --quiet --container=1 -d 2 "$W/j.png" image/container.jxl'
mk image/sample.jp2 image/jp2 image 'convert -size 64x48 gradient:red-blue -strip "$W/j.png" && opj_compress -i "$W/j.png" -o image/sample.jp2 -r 20'
mk image/codestream.j2k image/x-jp2-codestream image 'convert -size 64x48 gradient:red-blue -strip "$W/j.png" && opj_compress -i "$W/j.png" -o image/codestream.j2k -r 20'
mk image/sample.psd image/vnd.adobe.photoshop image 'convert -size 32x24 gradient:red-blue image/sample.psd'
mk image/with-xml-declaration.svg image/svg+xml image 'cat > image/with-xml-declaration.svg <<"SVG"
<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48" viewBox="0 0 64 48">
  <rect width="64" height="48" fill="#3a7"/>
  <circle cx="32" cy="24" r="16" fill="#fd3"/>
</svg>
SVG'
mk image/no-xml-declaration.svg image/svg+xml image 'cat > image/no-xml-declaration.svg <<"SVG"
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 48" width="64" height="48">
  <title>plain svg</title>
  <path d="M4 44 L32 4 L60 44 Z" fill="#c33"/>
</svg>
SVG'
mk image/rose.tga image/x-tga image 'convert rose: image/rose.tga'
mk image/rose-rle.tga image/x-tga image 'convert rose: -compress RLE image/rose-rle.tga'
mk image/rose.dds image/vnd.ms-dds image 'convert rose: -define dds:compression=dxt1 -define dds:mipmaps=0 image/rose.dds'
mk image/rose.sgi image/x-sgi image 'convert rose: image/rose.sgi'
mk image/rose.pcx image/vnd.zbrush.pcx image 'convert rose: image/rose.pcx'
mk image/rose.dcx image/x-dcx image 'convert rose: image/rose.dcx'
mk image/rose.icns image/x-icns image 'convert rose: -resize "32x32!" "$W/r32.png" && png2icns image/rose.icns "$W/r32.png"'
mk image/rose.cur image/x-win-bitmap image 'convert rose: -resize "32x32!" "$W/r32.png" && icotool -c --cursor -X 4 -Y 4 -o image/rose.cur "$W/r32.png"'
mk image/plain.pbm image/x-portable-bitmap image 'convert rose: -threshold 50% -compress none image/plain.pbm'
mk image/raw.pgm image/x-portable-graymap image 'convert rose: -colorspace gray image/raw.pgm'
mk image/plain.ppm image/x-portable-pixmap image 'convert rose: -resize 24x16 -compress none image/plain.ppm'
mk image/raw.ppm image/x-portable-pixmap image 'convert rose: image/raw.ppm'
mk image/rose.xpm image/x-xpixmap image 'convert rose: -colors 16 image/rose.xpm'
mk image/rose.xbm image/x-xbitmap image 'convert rose: -threshold 50% image/rose.xbm'
mk image/rose.eps image/x-eps image 'convert rose: eps2:image/rose.eps'
mk image/rose.ras image/x-sun-raster image 'convert rose: image/rose.ras'
mk image/rgb.qoi image/qoi image '"$PY" -c "from PIL import Image; Image.open(\"image/rgb.png\").save(\"image/rgb.qoi\")"'
mk image/rose.fits image/fits image 'convert rose: -colorspace gray -depth 8 image/rose.fits'
mk image/rose-tiled-gzip.fits image/fits image 'cp image/rose.fits "$W/r.fits" && fpack -g -O image/rose-tiled-gzip.fits "$W/r.fits"'
mk image/frame-past-canvas.gif image/gif image 'convert -delay 20 \( -size 24x24 xc:red -repage 24x24+0+0 \) \( -size 24x24 xc:blue -repage 24x24+12+12 \) -loop 0 image/frame-past-canvas.gif'

######################################################################################### audio
# Speech: espeak-ng says a sentence, sox makes it 16 kHz mono 16-bit PCM.
mk audio/pcm16.wav audio/wav audio 'espeak-ng -v en -s 170 -w "$W/speech.wav" "Hello from media blocks." && sox "$W/speech.wav" -r 16000 -c 1 -b 16 -e signed-integer audio/pcm16.wav'
mk audio/float32.wav audio/wav audio 'sox -n -r 16000 -c 1 -b 32 -e floating-point audio/float32.wav synth 0.25 sine 440'
mk audio/float32-extensible.wav audio/wav audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=16000:duration=0.25 -c:a pcm_f32le audio/float32-extensible.wav'
mk audio/extensible-24bit-4ch.wav audio/wav audio 'sox -n -r 8000 -c 4 -b 24 -e signed-integer audio/extensible-24bit-4ch.wav synth 0.2 sine 440 sine 550 sine 660 sine 770'
mk audio/sample.aiff audio/aiff audio 'sox -n -r 8000 -c 1 -b 16 audio/sample.aiff synth 0.3 sine 440'
mk audio/sample.aifc audio/aiff audio 'sox -n -r 8000 -c 1 -b 16 audio/sample.aifc synth 0.3 sine 440'
mk audio/sample.au audio/basic audio 'sox -n -r 8000 -c 1 -e u-law audio/sample.au synth 0.3 sine 440'
mk audio/sample.snd audio/basic audio 'sox -n -r 8000 -c 1 -b 16 -e signed-integer -t au audio/sample.snd synth 0.3 sine 440'
mk audio/sample.flac audio/flac audio 'sox -n -r 16000 -c 1 -b 16 "$W/t.wav" synth 0.5 sine 440 && flac --silent --best -o audio/sample.flac "$W/t.wav"'
mk audio/flac-in-ogg.oga audio/ogg audio 'sox -n -r 16000 -c 1 -b 16 "$W/t.wav" synth 0.5 sine 440 && flac --silent --ogg -o audio/flac-in-ogg.oga "$W/t.wav"'
mk audio/vorbis.ogg audio/ogg audio 'sox -n -r 22050 -c 1 -b 16 -t wav - synth 0.5 sine 440 | oggenc -Q -q 0 -o audio/vorbis.ogg -'
mk audio/speech.opus audio/opus audio 'espeak-ng -v en -w "$W/speech.wav" "Hello from media blocks." && opusenc --quiet --bitrate 16 "$W/speech.wav" audio/speech.opus'
mk audio/id3v2.mp3 audio/mpeg audio 'sox -n -r 44100 -c 1 -b 16 -t wav - synth 0.5 sine 440 fade 0 0.5 0.05 | lame --quiet -b 64 --id3v2-only --tt "Test tone" --ta mediablocks --tl testdata --ty 2024 - audio/id3v2.mp3'
mk audio/id3v1-only.mp3 audio/mpeg audio 'sox -n -r 44100 -c 1 -b 16 -t wav - synth 0.5 sine 440 fade 0 0.5 0.05 | lame --quiet -b 64 --id3v1-only --tt "Test tone" --ta mediablocks - audio/id3v1-only.mp3'
mk audio/mpeg1-layer3-untagged.mp3 audio/mpeg audio 'sox -n -r 44100 -c 1 -b 16 -t wav - synth 0.5 sine 440 fade 0 0.5 0.05 | lame --quiet -b 64 - audio/mpeg1-layer3-untagged.mp3'
mk audio/mpeg2-layer3-22050.mp3 audio/mpeg audio 'sox -n -r 22050 -c 1 -b 16 -t wav - synth 0.5 sine 440 | lame --quiet -b 32 - audio/mpeg2-layer3-22050.mp3'
mk audio/mpeg25-layer3-8000.mp3 audio/mpeg audio 'sox -n -r 8000 -c 1 -b 16 -t wav - synth 0.5 sine 440 | lame --quiet -b 16 - audio/mpeg25-layer3-8000.mp3'
mk audio/ffmpeg.mp3 audio/mpeg audio 'ffmpeg -v error -f lavfi -i sine=frequency=330:sample_rate=22050:duration=0.5 -c:a libmp3lame -b:a 32k -metadata title="ffmpeg tone" audio/ffmpeg.mp3'
mk audio/layer2.mp2 audio/mpeg audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=32000:duration=0.5 -c:a mp2 -b:a 64k -f mp2 audio/layer2.mp2'
mk audio/adts.aac audio/aac audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:a aac -b:a 32k -f adts audio/adts.aac'
mk audio/adts-id3v2.aac audio/aac audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:a aac -b:a 32k -metadata title="tagged adts" -f adts -write_id3v2 1 audio/adts-id3v2.aac'
mk audio/sample.m4a audio/mp4 audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:a aac -b:a 32k -f ipod audio/sample.m4a'
mk audio/opus.webm audio/webm audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=48000:duration=0.5 -c:a libopus -b:a 16k -f webm audio/opus.webm'
mk audio/sample.mka audio/x-matroska audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:a libvorbis -q:a 0 -f matroska audio/sample.mka'
mk audio/wmav2.wma audio/x-ms-wma audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:a wmav2 -b:a 32k -f asf audio/wmav2.wma'
mk audio/sample.amr audio/amr audio 'sox -n -r 8000 -c 1 -b 16 -t wav - synth 0.5 sine 440 | sox -t wav - -t amr-nb -C 0 audio/sample.amr'
mk audio/sample.mid audio/midi audio '/usr/bin/python3 -c "import mido; f = mido.MidiFile(ticks_per_beat=96); t = mido.MidiTrack(); f.tracks.append(t); t.append(mido.MetaMessage(\"set_tempo\", tempo=500000)); t.append(mido.Message(\"program_change\", program=0, time=0)); [t.extend([mido.Message(\"note_on\", note=n, velocity=80, time=0), mido.Message(\"note_off\", note=n, velocity=0, time=48)]) for n in (60, 64, 67, 72)]; f.save(\"audio/sample.mid\")"'
mk audio/sample.caf audio/x-caf audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=8000:duration=0.3 -c:a pcm_s16be -f caf audio/sample.caf'
mk audio/sample.ac3 audio/ac3 audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=48000:duration=0.3 -c:a ac3 -b:a 64k -f ac3 audio/sample.ac3'
mk audio/voice-note.webm audio/webm audio 'espeak-ng -v en -s 150 -w "$W/voice.wav" "This is a voice note recorded in the browser. Please transcribe it." && ffmpeg -v error -i "$W/voice.wav" -ar 48000 -ac 1 -c:a libopus -b:a 24k -application voip -f webm audio/voice-note.webm'
mk audio/voice-memo.m4a audio/mp4 audio 'espeak-ng -v en-us -s 160 -w "$W/memo.wav" "Reminder: buy milk, call the bank, and send the report by Friday." && ffmpeg -v error -i "$W/memo.wav" -ar 44100 -ac 1 -c:a aac -b:a 32k -movflags +faststart -f ipod audio/voice-memo.m4a'
mk audio/audiobook-cover.m4b audio/mp4 audio 'ffmpeg -v error -f lavfi -i "color=c=gray:s=160x160,noise=alls=100:allf=t" -frames:v 1 "$W/cover.png" && ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=22050:duration=1 -i "$W/cover.png" -map 0 -map 1 -c:a aac -b:a 24k -c:v copy -disposition:v attached_pic -metadata title="Chapter test" -movflags +faststart -f mp4 audio/audiobook-cover.m4b'
mk audio/tone.wv audio/x-wavpack audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=16000:duration=0.5 "$W/wv.wav" && wavpack -q "$W/wv.wav" -o audio/tone.wv'
mk audio/tone.mpc audio/x-musepack audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=44100:duration=0.5 "$W/mpc.wav" && mpcenc --silent --quality 2 "$W/mpc.wav" audio/tone.mpc'
mk audio/audio-only.flv audio/x-flv audio 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:a libmp3lame -b:a 32k -f flv audio/audio-only.flv'

######################################################################################### video
mk video/h264-aac.mp4 video/mp4 video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 24k -f mp4 video/h264-aac.mp4'
mk video/sample.mov video/quicktime video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 24k -f mov video/sample.mov'
mk video/sample.m4v video/x-m4v video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 24k -f ipod video/sample.m4v'
mk video/h263.3gp video/3gpp video 'ffmpeg -v error -f lavfi -i testsrc2=size=128x96:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=8000:duration=0.5 -c:v h263 -q:v 20 -c:a aac -b:a 12k -ac 1 -f 3gp video/h263.3gp'
mk video/sample.3g2 video/3gpp2 video 'ffmpeg -v error -f lavfi -i testsrc2=size=128x96:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=8000:duration=0.5 -c:v mpeg4 -q:v 20 -c:a aac -b:a 12k -ac 1 -f 3g2 video/sample.3g2'
mk video/gstreamer-compact-esds.mp4 video/mp4 video 'ffmpeg -v error -f lavfi -i testsrc=size=64x48:rate=5:duration=0.6 -c:v mpeg4 -q:v 10 "$W/v.mp4" && ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.6 "$W/a.wav" && gst-launch-1.0 -q -e filesrc location="$W/v.mp4" ! qtdemux ! queue ! mpeg4videoparse ! mp4mux name=m faststart=true ! filesink location=video/gstreamer-compact-esds.mp4 filesrc location="$W/a.wav" ! wavparse ! audioconvert ! voaacenc bitrate=24000 ! aacparse ! queue ! m.'
mk video/gstreamer-compact-esds.3gp video/3gpp video 'ffmpeg -v error -f lavfi -i testsrc=size=128x96:rate=5:duration=0.6 -c:v h263 -q:v 20 "$W/v.3gp" && ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=8000:duration=0.6 "$W/a8.wav" && gst-launch-1.0 -q -e filesrc location="$W/v.3gp" ! qtdemux ! queue ! h263parse ! 3gppmux name=m faststart=true ! filesink location=video/gstreamer-compact-esds.3gp filesrc location="$W/a8.wav" ! wavparse ! audioconvert ! voaacenc bitrate=12000 ! aacparse ! queue ! m.'
mk video/vp8-vorbis.webm video/webm video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libvpx -b:v 100k -c:a libvorbis -q:a 0 -f webm video/vp8-vorbis.webm'
mk video/vp9-opus.webm video/webm video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libvpx-vp9 -b:v 100k -deadline realtime -cpu-used 8 -c:a libopus -b:a 16k -f webm video/vp9-opus.webm'
mk video/h264-flac.mkv video/x-matroska video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a flac -f matroska video/h264-flac.mkv'
mk video/mpeg4-mp3.avi video/x-msvideo video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v mpeg4 -q:v 15 -c:a libmp3lame -b:a 32k -f avi video/mpeg4-mp3.avi'
mk video/flv1-mp3.flv video/x-flv video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v flv1 -q:v 15 -c:a libmp3lame -b:a 32k -f flv video/flv1-mp3.flv'
mk video/h264-aac.ts video/mp2t video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 24k -f mpegts video/h264-aac.ts'
mk video/h264-aac.m2ts video/mp2t video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 24k -f mpegts -mpegts_m2ts_mode 1 video/h264-aac.m2ts'
mk video/mpeg2-ps.mpg video/mpeg video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=25:duration=0.4 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=0.4 -c:v mpeg2video -q:v 20 -c:a mp2 -b:a 64k -f vob video/mpeg2-ps.mpg'
mk video/mpeg1-system.mpg video/mpeg video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=25:duration=0.4 -f lavfi -i sine=frequency=440:sample_rate=44100:duration=0.4 -c:v mpeg1video -q:v 20 -c:a mp2 -b:a 64k -f mpeg video/mpeg1-system.mpg'
mk video/elementary.m1v video/mpeg video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=25:duration=0.4 -c:v mpeg1video -q:v 20 -f mpeg1video video/elementary.m1v'
mk video/elementary.m2v video/mpeg video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=25:duration=0.4 -c:v mpeg2video -q:v 20 -f mpeg2video video/elementary.m2v'
mk video/theora-vorbis.ogv video/ogg video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v libtheora -q:v 3 -c:a libvorbis -q:a 0 -f ogg video/theora-vorbis.ogv'
mk video/wmv2-wmav2.wmv video/x-ms-wmv video 'ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -f lavfi -i sine=frequency=440:sample_rate=22050:duration=0.5 -c:v wmv2 -q:v 15 -c:a wmav2 -b:a 32k -f asf video/wmv2-wmav2.wmv'
mk video/one-frame.mp4 video/mp4 video 'ffmpeg -v error -f lavfi -i testsrc2=size=144x256:rate=100/7 -f lavfi -i sine=frequency=440:sample_rate=44100 -frames:v 1 -t 0.07 -c:v libx264 -preset veryfast -crf 36 -pix_fmt yuv420p -c:a aac -b:a 32k -ac 1 -shortest -movflags +faststart -f mp4 video/one-frame.mp4'
mk video/hevc-aac.mov video/quicktime video 'espeak-ng -v en -w "$W/hevc.wav" "High efficiency video." && ffmpeg -v error -f lavfi -i testsrc2=size=192x108:rate=24:duration=2 -i "$W/hevc.wav" -t 2 -c:v libx265 -preset fast -crf 32 -x265-params log-level=error -tag:v hvc1 -pix_fmt yuv420p -c:a aac -b:a 32k -ac 1 -f mov video/hevc-aac.mov'
mk video/phone-h264-aac.mp4 video/mp4 video 'espeak-ng -v en -w "$W/phone.wav" "Here is the view from the window, and now the street below." && ffmpeg -v error -f lavfi -i testsrc2=size=144x256:rate=30:duration=6 -i "$W/phone.wav" -t 6 -c:v libx264 -profile:v high -preset veryfast -crf 36 -g 30 -pix_fmt yuv420p -c:a aac -b:a 32k -ac 1 -ar 44100 -movflags +faststart -f mp4 video/phone-h264-aac.mp4'

###################################################################################### document
mk document/pillow.pdf application/pdf document '"$PY" -c "from PIL import Image; Image.open(\"image/rgb.png\").save(\"document/pillow.pdf\", resolution=72)"'
mk document/ghostscript.pdf application/pdf document 'gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -dDEVICEWIDTHPOINTS=300 -dDEVICEHEIGHTPOINTS=200 -dFIXEDMEDIA -sOutputFile=document/ghostscript.pdf -c "/Helvetica findfont 20 scalefont setfont 20 100 moveto (Hello from Ghostscript) show showpage"'
mk document/leading-whitespace.pdf application/pdf document '{ printf "\n\r\n  \t"; cat document/ghostscript.pdf; } > document/leading-whitespace.pdf'
mk document/sample.ps application/postscript document 'gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=ps2write -sOutputFile=document/sample.ps document/ghostscript.pdf'
mk document/report.docx application/vnd.openxmlformats-officedocument.wordprocessingml.document document 'pandoc text/readme.md -o document/report.docx'
mk document/slides.pptx application/vnd.openxmlformats-officedocument.presentationml.presentation document 'pandoc text/readme.md -t pptx -o document/slides.pptx'
mk document/book.epub application/epub+zip document 'pandoc text/readme.md --metadata title="Field notes" -o document/book.epub'
mk document/report.rtf application/rtf document 'pandoc -s text/readme.md -t rtf -o document/report.rtf'
mk document/report.odt application/vnd.oasis.opendocument.text document 'soffice --headless --norestore -env:UserInstallation=file://$W/lo --convert-to odt --outdir document document/report.docx'
mk document/report.doc application/msword document 'soffice --headless --norestore -env:UserInstallation=file://$W/lo --convert-to doc --outdir document document/report.docx'
mk document/report.pdf application/pdf document 'soffice --headless --norestore -env:UserInstallation=file://$W/lo --convert-to pdf --outdir document document/report.odt'
mk document/slides.odp application/vnd.oasis.opendocument.presentation document 'soffice --headless --norestore -env:UserInstallation=file://$W/lo --convert-to odp --outdir document document/slides.pptx'
mk document/data.ods application/vnd.oasis.opendocument.spreadsheet document 'soffice --headless --norestore -env:UserInstallation=file://$W/lo --convert-to ods --outdir document text/data.csv'
mk document/data.xlsx application/vnd.openxmlformats-officedocument.spreadsheetml.sheet document 'soffice --headless --norestore -env:UserInstallation=file://$W/lo --convert-to xlsx --outdir document text/data.csv'
mk document/data.xls application/vnd.ms-excel document 'soffice --headless --norestore -env:UserInstallation=file://$W/lo --convert-to xls --outdir document text/data.csv'
mk document/three-pages.pdf application/pdf document 'gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -dDEVICEWIDTHPOINTS=300 -dDEVICEHEIGHTPOINTS=200 -dFIXEDMEDIA -sOutputFile=document/three-pages.pdf -c "/Helvetica findfont 18 scalefont setfont 20 100 moveto (Alpha harbour first) show showpage /Helvetica findfont 18 scalefont setfont 20 100 moveto (Bravo lighthouse second) show showpage /Helvetica findfont 18 scalefont setfont 20 100 moveto (Charlie meadow third) show showpage"'
mk document/slides.ppt application/vnd.ms-powerpoint document 'mkdir -p "$W/lo-ppt/user" && printf "%s" "<?xml version=\"1.0\"?><oor:items xmlns:oor=\"http://openoffice.org/2001/registry\"><item oor:path=\"/org.openoffice.Office.Common/Filter/Microsoft/Export\"><prop oor:name=\"EnablePowerPointPreview\" oor:op=\"fuse\"><value>false</value></prop></item></oor:items>" > "$W/lo-ppt/user/registrymodifications.xcu" && soffice --headless --norestore -env:UserInstallation=file://$W/lo-ppt --convert-to ppt --outdir document document/slides.pptx'

####################################################################################### archive
mk archive/sample.zip application/zip archive 'zip -q -X archive/sample.zip text/plain.txt text/utf8.txt'
mk archive/plain.txt.gz application/gzip archive 'gzip -n -9 -c text/plain.txt > archive/plain.txt.gz'
mk archive/sample.tar application/x-tar archive 'tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf archive/sample.tar text/plain.txt text/utf8.txt'
mk archive/sample.tar.gz application/gzip archive 'tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - text/plain.txt text/utf8.txt | gzip -n -9 > archive/sample.tar.gz'
mk archive/plain.txt.bz2 application/x-bzip2 archive 'bzip2 -9 -c text/plain.txt > archive/plain.txt.bz2'
mk archive/plain.txt.xz application/x-xz archive 'xz -9 -c text/plain.txt > archive/plain.txt.xz'
mk archive/sample.7z application/x-7z-compressed archive '7z a -bd -bso0 archive/sample.7z text/plain.txt text/utf8.txt'
mk archive/plain.txt.zst application/zstd archive 'zstd -q -19 -c text/plain.txt > archive/plain.txt.zst'
mk archive/rose.fits.gz application/gzip archive 'gzip -n -9 -c image/rose.fits > archive/rose.fits.gz'

######################################################################################## public
# Real-world files from producers that cannot run here (Office 365, iMovie, a phone's HEIF writer),
# copied unchanged from sindresorhus/file-type's MIT-licensed fixtures (notice: public/LICENSE).
mk public/fixture-mif1.heic image/heic image 'curl -fsSL https://raw.githubusercontent.com/sindresorhus/file-type/2c54d066efdf/fixture/fixture-mif1.heic -o public/fixture-mif1.heic'
mk public/fixture-imovie.mp4 video/mp4 video 'curl -fsSL https://raw.githubusercontent.com/sindresorhus/file-type/2c54d066efdf/fixture/fixture-imovie.mp4 -o public/fixture-imovie.mp4'
mk public/fixture-office365.docx application/vnd.openxmlformats-officedocument.wordprocessingml.document document 'curl -fsSL https://raw.githubusercontent.com/sindresorhus/file-type/2c54d066efdf/fixture/fixture-office365.docx -o public/fixture-office365.docx'
mk public/fixture-office365.xlsx application/vnd.openxmlformats-officedocument.spreadsheetml.sheet document 'curl -fsSL https://raw.githubusercontent.com/sindresorhus/file-type/2c54d066efdf/fixture/fixture-office365.xlsx -o public/fixture-office365.xlsx'
mk public/fixture-office365.pptx application/vnd.openxmlformats-officedocument.presentationml.presentation document 'curl -fsSL https://raw.githubusercontent.com/sindresorhus/file-type/2c54d066efdf/fixture/fixture-office365.pptx -o public/fixture-office365.pptx'
# copied unchanged from python-pillow/Pillow's test images (MIT-CMU; notice: public/LICENSE-Pillow).
mk public/pillow-hopper.fli video/x-flic video 'curl -fsSL https://raw.githubusercontent.com/python-pillow/Pillow/4e5f09f533db/Tests/images/hopper.fli -o public/pillow-hopper.fli'
mk public/pillow-hopper.mic image/x-mic image 'curl -fsSL https://raw.githubusercontent.com/python-pillow/Pillow/4e5f09f533db/Tests/images/hopper.mic -o public/pillow-hopper.mic'
mk public/pillow-input_bw_one_band.fpx image/vnd.fpx image 'curl -fsSL https://raw.githubusercontent.com/python-pillow/Pillow/4e5f09f533db/Tests/images/input_bw_one_band.fpx -o public/pillow-input_bw_one_band.fpx'
mk public/pillow-blp1_jpeg2.blp image/x-blp image 'curl -fsSL https://raw.githubusercontent.com/python-pillow/Pillow/4e5f09f533db/Tests/images/blp/blp1_jpeg2.blp -o public/pillow-blp1_jpeg2.blp'
mk public/pillow-blp2_dxt1a.blp image/x-blp image 'curl -fsSL https://raw.githubusercontent.com/python-pillow/Pillow/4e5f09f533db/Tests/images/blp/blp2_dxt1a.blp -o public/pillow-blp2_dxt1a.blp'
mk public/pillow-hopper.msp image/x-msp image 'curl -fsSL https://raw.githubusercontent.com/python-pillow/Pillow/4e5f09f533db/Tests/images/hopper.msp -o public/pillow-hopper.msp'
mk public/pillow-gbr.gbr image/x-gimp-gbr image 'curl -fsSL https://raw.githubusercontent.com/python-pillow/Pillow/4e5f09f533db/Tests/images/gbr.gbr -o public/pillow-gbr.gbr'

########################################################################################### bad
mk bad/empty.bin null bad ': > bad/empty.bin' 'zero bytes'
mk bad/random.bin null bad '"$PY" -c "import random; open(\"bad/random.bin\", \"wb\").write(random.Random(20240501).randbytes(2048))"' '2048 random bytes (seed 20240501), no format'
mk bad/truncated.png image/png bad '"$PY" -c "import struct; d = open(\"image/palette.png\", \"rb\").read(); i = d.index(b\"IDAT\"); n = struct.unpack(\">I\", d[i - 4:i])[0]; open(\"bad/truncated.png\", \"wb\").write(d[:i + 4 + n // 2])"' 'PNG cut in the middle of its IDAT chunk: no IDAT CRC, no IEND'
mk bad/truncated.jpg image/jpeg bad 'head -c 900 image/pillow-baseline.jpg > bad/truncated.jpg' 'JPEG cut inside the entropy-coded scan: no EOI marker'
mk bad/bomb-28000x28000.png image/png bad '"$PY" -c "from PIL import Image; Image.new(\"1\", (28000, 28000), 0).save(\"bad/bomb-28000x28000.png\", optimize=True)"' 'decompression bomb: 28000x28000 1-bit PNG (784 Mpixel) that is under 100 KB on disk'
mk bad/bomb-65535x65535.gif image/gif bad '"$PY" -c "import io, struct; from PIL import Image; b = io.BytesIO(); Image.new(\"P\", (1, 1), 0).save(b, \"GIF\"); d = bytearray(b.getvalue()); d[6:10] = struct.pack(\"<HH\", 65535, 65535); i = 13 + 3 * 2 ** ((d[10] & 7) + 1); assert d[i] == 0x2C; d[i + 5:i + 9] = struct.pack(\"<HH\", 65535, 65535); open(\"bad/bomb-65535x65535.gif\", \"wb\").write(bytes(d))"' 'GIF bomb: a 1x1 Pillow GIF whose screen and frame sizes were rewritten to 65535x65535 (4 Gpixel declared, a few bytes of LZW data)'
mk bad/malformed-base64.txt text/plain bad '"$PY" -c "import base64; s = base64.b64encode(open(\"image/rgb.png\", \"rb\").read()).decode(); m = len(s) // 2; open(\"bad/malformed-base64.txt\", \"w\").write(s[:m] + \"*\" + s[m + 1:] + \"\\n\")"' 'base64 of image/rgb.png with one character in the middle replaced by "*"'
mk bad/bad-data-uri.txt text/plain bad '"$PY" -c "import base64; s = base64.b64encode(open(\"image/rgb.png\", \"rb\").read()).decode(); open(\"bad/bad-data-uri.txt\", \"w\").write(\"data:image/png;base64\" + s[:40] + \"%%\" + s[40:] + \"\\n\")"' 'data: URI without the comma after ";base64" and with "%%" inside the base64 payload'
mk bad/png-named.jpg image/png bad 'cp image/rgb.png bad/png-named.jpg' 'a real PNG with a .jpg name (declared type lies)'
mk bad/text-named.png text/plain bad 'printf "This is not a PNG, only text with a .png name.\n" > bad/text-named.png' 'plain text with a .png name'
mk bad/fake-mp3-sync.mp3 null bad '"$PY" -c "import random; r = random.Random(7); body = bytes(b if b != 0xFF else 0x00 for b in r.randbytes(1022)); open(\"bad/fake-mp3-sync.mp3\", \"wb\").write(b\"\\xff\\xfb\\xfc\\x00\" + body[2:])"' 'starts FF FB (MPEG-1 layer III sync) but the header has bitrate index 15 and sample-rate index 3 (both invalid); the rest is random bytes with no 0xFF'
mk bad/zip-not-ooxml.docx application/zip bad 'cd text && zip -q -X ../bad/zip-not-ooxml.docx plain.txt data.csv' 'a plain ZIP (two text files, no [Content_Types].xml) named .docx'
mk bad/truncated-ftyp-only.mp4 video/mp4 bad 'head -c "$("$PY" -c "import struct; print(struct.unpack(\">I\", open(\"video/h264-aac.mp4\", \"rb\").read(4))[0])")" video/h264-aac.mp4 > bad/truncated-ftyp-only.mp4' 'MP4 cut after its ftyp box: no moov, no mdat'
mk bad/junk-prefix.pdf application/pdf bad '{ printf "JUNK\x00\x01"; cat document/ghostscript.pdf; } > bad/junk-prefix.pdf' 'a real PDF with 6 junk bytes before %PDF- (readers accept a header within the first 1024 bytes)'
mk bad/truncated.flac audio/flac bad 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=16000:duration=1 -c:a pcm_s16le "$W/t1.wav" && flac --silent -f -o "$W/t1.flac" "$W/t1.wav" && head -c 3000 "$W/t1.flac" > bad/truncated.flac' 'FLAC cut after 3000 of 14.5 KB, inside its first audio frame: the header is whole, the audio does not decode (EOF)'
mk bad/short-picture-block.flac audio/flac bad 'ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=16000:duration=1 -c:a pcm_s16le "$W/p.wav" && flac --silent -f -o "$W/p.flac" "$W/p.wav" && metaflac --import-picture-from=image/rgb.png "$W/p.flac" && "$PY" -c "import sys; d = open(sys.argv[1], \"rb\").read(); i = 4; exec(\"while d[i] & 0x7F != 6: i += 4 + int.from_bytes(d[i + 1:i + 4], '\''big'\'')\"); n = int.from_bytes(d[i + 1:i + 4], \"big\"); open(\"bad/short-picture-block.flac\", \"wb\").write(d[:i + 4 + 1000] + d[i + 4 + n:])" "$W/p.flac"' 'FLAC whose PICTURE block header claims 3499 bytes but holds 1000: the block swallows the start of the audio, which no longer decodes'
mk bad/encrypted-no-password.pdf application/pdf bad 'qpdf --encrypt "" owner-secret 256 -- document/ghostscript.pdf bad/encrypted-no-password.pdf' 'AES-256 encrypted PDF with an empty user password: PDFium opens it, providers refuse encrypted PDFs'
mk bad/encrypted-password.pdf application/pdf bad 'qpdf --encrypt user-secret owner-secret 256 -- document/ghostscript.pdf bad/encrypted-password.pdf' 'AES-256 encrypted PDF with a user password: nothing opens it without the password'

################################################################################ manifest, README
# Writes manifest.json (path -> mime, kind, made_by[, bad], bytes) and README.md from the log.
"$PY" - "$LOG" <<'EOF'
import json, os, sys
entries = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
manifest = {}
for e in sorted(entries, key=lambda e: e["path"]):
    path = e.pop("path")
    e["bytes"] = os.path.getsize(path)
    manifest[path] = e
on_disk = {
    os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk(".") for f in fs
} - {"README.md", "manifest.json", "make_testdata.sh", "public/LICENSE", "public/LICENSE-Pillow"}
assert on_disk == set(manifest), sorted(on_disk ^ set(manifest))
with open("manifest.json", "w", encoding="utf-8") as out:
    json.dump(manifest, out, indent=2, ensure_ascii=False)
    out.write("\n")

def cell(text):
    return text.replace("|", "\\|").replace("\n", " ⏎ ")

total = sum(e["bytes"] for e in manifest.values())
lines = [
    "# testdata: real media for mediablocks' tests",
    "",
    "Small files in every format mediablocks recognises, each made on Debian 12 by a real encoder",
    "(ImageMagick 6, Pillow, ffmpeg 5.1, sox, lame, flac, oggenc, opusenc, libheif, libavif,",
    "libjxl, OpenJPEG, libwebp, Ghostscript, pandoc, LibreOffice 7.4, exiftool, espeak-ng, mido,",
    "zip/tar/gzip/bzip2/xz/7z/zstd). Text formats (CSV, JSON, Markdown, HTML, XML, SVG, plain",
    "text) are written by hand in the script, and so are the hostile inputs in `bad/`.",
    "",
    "- `manifest.json` is the ground truth: path -> `mime` (what a careful human expert calls the",
    "  content; `null` when there is no honest answer), `kind`, `made_by` (the exact command, run",
    "  from this folder), `bytes`, and for `bad/` files `bad` (what is wrong).",
    "- `make_testdata.sh` regenerates everything (`bash testdata/make_testdata.sh`); `$W` in a",
    "  command is its scratch folder, `$PY` a Python with Pillow (the project's .venv).",
    "  Encoders stamp versions and some write dates, so a rerun may differ in a few bytes.",
    f"- {len(manifest)} files, {total / 1024:.0f} KiB in all.",
    "- Licence: made here for this project; dedicated to the public domain (CC0 1.0), except",
    "  `public/`: five real-world files copied unchanged from the test fixtures of",
    "  sindresorhus/file-type (commit 2c54d066efdf), MIT License, Copyright (c) Sindre Sorhus;",
    "  the notice is in `public/LICENSE` and travels with the files; and `public/pillow-*`: FLI,",
    "  MIC, FlashPix, BLP, MSP and GIMP brush files (formats no encoder here writes) from Pillow's test",
    "  images (commit 4e5f09f533db), MIT-CMU licence, notice in `public/LICENSE-Pillow`.",
    "",
    "Notes: `image/sideways-exif6-gps.jpg` holds an upright portrait scene (sun top-left, ground at",
    "the bottom, the word TOP) whose pixels are stored turned 90 degrees counter-clockwise with EXIF",
    "Orientation 6, plus GPS, serial-number and comment tags. MIME choices: APNG is `image/png`,",
    "AVIF sequences are `image/avif`, a raw JPEG 2000 codestream is `image/x-jp2-codestream`,",
    "Opus in Ogg is `audio/opus`, FLAC in Ogg is `audio/ogg`, MP2 is `audio/mpeg`, AIFF-C is",
    "`audio/aiff`, M2TS is `video/mp2t`, UTF-16 and UTF-32 text (with or without a BOM) and",
    "Windows-1252 / Latin-1 text are `text/plain`, a ZIP named .docx is",
    "`application/zip`. No HEIF file with major brand `mif1` is here: libheif's encoders write",
    "major brand `heic` for HEVC (see public/fixture-mif1.heic for one).",
    "",
    "| file | MIME | how it was made |",
    "| --- | --- | --- |",
]
for path, e in manifest.items():
    how = f"`{cell(e['made_by'])}`"
    if "bad" in e:
        how = f"**{cell(e['bad'])}**: " + how
    lines.append(f"| `{path}` | {e['mime'] or '(none: unknown)'} | {how} |")
with open("README.md", "w", encoding="utf-8") as out:
    out.write("\n".join(lines) + "\n")
print(len(manifest), "files,", total, "bytes")
EOF
du -sh "$T"
