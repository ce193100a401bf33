"""The upload cache's file: a planted symbolic link is refused, a read-only cache is told apart
from a corrupt one, and an upload answered without an id is never cached or sent."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from tests.conftest import make_png
from tests.uploading.test_upload import _anthropic, _gemini, _openai
from tests.uploading.upload_server import UploadServer, running

NAME = mb.DirectoryUploadCache.FILENAME


@pytest.fixture
def server() -> Iterator[UploadServer]:
    with running() as srv:
        yield srv


# -- links and special files ----------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
def test_a_symlinked_database_or_journal_is_refused(tmp_path: Path, suffix: str) -> None:
    elsewhere = tmp_path / "elsewhere.sqlite"
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / (NAME + suffix)).symlink_to(elsewhere)
    with pytest.raises(mb.SourceError, match="symbolic link"):
        mb.DirectoryUploadCache(folder)
    assert not elsewhere.exists()  # nothing was created where the link points


def test_a_link_to_a_valid_cache_is_refused_too(tmp_path: Path) -> None:
    real = tmp_path / "real"
    mb.DirectoryUploadCache(real).put("k", "file-1")
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / NAME).symlink_to(real / NAME)
    with pytest.raises(mb.SourceError, match="symbolic link"):
        mb.DirectoryUploadCache(folder)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_place_of_the_database_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / NAME)
    with pytest.raises(mb.SourceError, match="not a regular file"):
        mb.DirectoryUploadCache(tmp_path)


# -- read-only ------------------------------------------------------------------------------

_PROBE = textwrap.dedent(
    """
    import sys
    import mediablocks as mb
    try:
        cache = mb.DirectoryUploadCache(sys.argv[1])
    except mb.SourceError as error:
        print("refused:", error)
        raise SystemExit(0)
    print("read_only:", cache.read_only)
    print("get:", cache.get("k"))
    try:
        cache.put("k2", "file-2")
    except mb.SourceError as error:
        print("put:", error)
    """
)


def _as_read_only(folder: Path) -> str:
    """Run `_PROBE` on ``folder`` where this process cannot write it: a read-only bind mount in
    a mount namespace when running as root (root writes through permissions), else permissions."""
    if os.geteuid() != 0:
        os.chmod(folder / NAME, 0o444)
        os.chmod(folder, 0o555)
        try:
            done = subprocess.run(
                [sys.executable, "-c", _PROBE, str(folder)],
                capture_output=True,
                text=True,
                timeout=60,
            )
        finally:
            os.chmod(folder, 0o755)
        return done.stdout + done.stderr
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("root without unshare: no way to make a folder read-only")
    script = (
        f'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && '
        f'exec "{sys.executable}" -c "$2" "$1"'
    )
    done = subprocess.run(
        [unshare, "-m", "sh", "-c", script, "sh", str(folder), _PROBE],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "Operation not permitted" in done.stderr or "mount:" in done.stderr:
        pytest.skip(f"cannot make a read-only mount here: {done.stderr.strip()}")
    return done.stdout + done.stderr


def test_a_valid_cache_on_a_read_only_folder_is_readable_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    writer = mb.DirectoryUploadCache(folder)
    writer.put("k", "file-1")
    writer.close()
    out = _as_read_only(folder)
    assert "read_only: True" in out, out
    assert "get: file-1" in out, out
    assert "put: upload cache" in out, out
    assert "is read-only" in out, out
    assert "not a mediablocks upload cache" not in out, out


def test_a_corrupt_cache_on_a_read_only_folder_is_still_called_corrupt(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / NAME).write_bytes(b"not a database at all" * 100)
    out = _as_read_only(folder)
    assert "refused:" in out, out
    assert "not a mediablocks upload cache" in out, out


def test_a_foreign_database_on_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    db = sqlite3.connect(folder / NAME)
    db.execute("CREATE TABLE other (x)")
    db.commit()
    db.close()
    out = _as_read_only(folder)
    assert "refused:" in out, out
    assert "not a mediablocks upload cache" in out, out


# -- an upload answered without a reference -------------------------------------------------


@pytest.mark.parametrize("answer", [None, ""], ids=["null", "empty"])
@pytest.mark.parametrize(
    ("provider", "client"),
    [("openai-responses", _openai), ("anthropic", _anthropic), ("gemini", _gemini)],
)
def test_an_upload_without_an_id_is_an_upload_error_never_cached(
    server: UploadServer, provider: str, client: Any, answer: Any
) -> None:
    server.reference = answer
    cache = mb.MemoryUploadCache()
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png((30, 20)))])
    with pytest.raises(mb.UploadError, match="without a file reference") as caught:
        mb.upload([message], provider, client(server), cache=cache)
    assert "ImageBlock" in str(caught.value)
    assert len(cache) == 0
    assert server.received  # the upload did happen: only its answer was unusable
