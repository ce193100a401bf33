"""mediablocks.ray: pure batch functions, and the whole pipeline on a local Ray instance."""

from __future__ import annotations

import base64
import io
import json
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import mediablocks as mb
from mediablocks.ray import batch_file_datasink, encode_batch, request_id

from .conftest import make_png, make_wav

FIELDS = {"model": "claude-sonnet-4-5", "max_tokens": 100}


def _bmp(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "orange").save(buffer, "BMP")
    return buffer.getvalue()


def test_encode_batch_turns_files_into_batch_lines() -> None:
    np = pytest.importorskip("numpy")
    png, bmp = make_png(), _bmp((40, 30))
    batch = {
        "bytes": np.array([png, bmp, make_wav()], dtype=object),
        "path": np.array(["/data/a.png", "/data/b.bmp", "/data/c.wav"]),
    }
    out = encode_batch(batch, provider="anthropic", prompt="Describe.", fields=FIELDS)
    assert [rid.rsplit("-", 1)[0] for rid in out["id"]] == [
        "data_a_png",
        "data_b_bmp",
        "data_c_wav",
    ]
    assert out["input_bytes"] == [len(png), len(bmp), len(make_wav())]
    first = json.loads(out["line"][0])
    assert first["custom_id"] == out["id"][0]
    content = first["params"]["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "Describe."}
    assert base64.b64decode(content[1]["source"]["data"]) == png
    converted = json.loads(out["line"][1])["params"]["messages"][0]["content"][1]["source"]
    assert converted["media_type"] != "image/bmp"  # prepare converted what Anthropic refuses
    assert out["line"][2] is None
    assert "audio" in out["error"][2]
    assert out["error"][:2] == [None, None]


def test_without_prepare_an_unsupported_file_is_a_row_error() -> None:
    out = encode_batch(
        {"bytes": [_bmp((8, 8))]}, provider="anthropic", fields=FIELDS, prepare=False
    )
    assert out["line"] == [None]
    assert "UnsupportedBlockError" in out["error"][0]
    assert len(out["id"][0]) == 32  # no path: an id from the bytes


def test_prepare_options_reach_prepare() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (3000, 200), "white").save(buffer, "PNG")
    batch = {"bytes": [buffer.getvalue()], "path": ["wide.png"]}
    plain = encode_batch(
        batch, provider="anthropic", fields=FIELDS, prepare_options={"optimal_size": False}
    )
    small = encode_batch(batch, provider="anthropic", fields=FIELDS)  # optimal by default

    def width(out: dict[str, Any]) -> int:
        source = json.loads(out["line"][0])["params"]["messages"][0]["content"][0]["source"]
        return Image.open(io.BytesIO(base64.b64decode(source["data"]))).size[0]

    assert width(plain) == 3000
    assert width(small) < 3000
    with pytest.raises(mb.InvalidOptionError, match="optimal"):
        encode_batch(batch, provider="anthropic", prepare_options={"optimal": True})


def test_paths_only_are_read_by_the_worker(tmp_path: Path) -> None:
    (tmp_path / "x.png").write_bytes(make_png())
    batch = {"path": [str(tmp_path / "x.png"), str(tmp_path / "missing.png")]}
    out = encode_batch(batch, provider="gemini")
    line = json.loads(out["line"][0])
    assert set(line) == {"key", "request"}
    assert out["error"][0] is None
    assert "OSError" in out["error"][1] or "FileNotFoundError" in out["error"][1]


def test_the_function_and_its_arguments_pickle() -> None:
    from functools import partial

    fn = pickle.loads(pickle.dumps(partial(encode_batch, provider="openai", fields={"model": "m"})))
    out = fn({"bytes": [make_png()], "path": ["p.png"]})
    assert json.loads(out["line"][0])["url"] == "/v1/chat/completions"


def test_importing_the_module_does_not_import_ray() -> None:
    """The batch functions run without Ray; only batch_file_datasink needs it."""
    import subprocess
    import sys

    code = "import sys, mediablocks.ray; print('ray' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "False"


def test_request_ids_fit_every_provider() -> None:
    long = "/" + "/".join(["folder"] * 20) + "/photo 1.jpg"
    rid = request_id(long, b"")
    assert len(rid) <= 64
    assert rid.endswith(request_id(long, b"")[-16:])
    assert all(c.isalnum() or c in "_-" for c in rid)
    assert request_id("/a/photo 1.jpg", b"").startswith("a_photo_1_jpg-")
    assert request_id("photo-1_a", b"") == "photo-1_a"  # already an id: kept as it is
    assert request_id(None, b"abc") != request_id(None, b"abd")


def test_distinct_paths_give_distinct_ids() -> None:
    paths = [
        "café.png",
        "cafe.png",
        "cafè.png",
        "a b.png",
        "a_b.png",
        "a_b_png",
        "a/b.png",
        "a\\b.png",
        "x" * 80 + "1",
        "x" * 80 + "2",
        "dir/" + "y" * 70,
        "dir_" + "y" * 70,
    ]
    ids = [request_id(path, b"") for path in paths]
    assert len(set(ids)) == len(ids)
    assert all(len(rid) <= 64 and all(c.isalnum() or c in "_-" for c in rid) for rid in ids)


@settings(max_examples=200, deadline=None)
@given(paths=st.lists(st.text(min_size=1, max_size=90), min_size=2, max_size=6, unique=True))
def test_request_ids_of_distinct_paths_never_collide(paths: list[str]) -> None:
    ids = [request_id(path, b"") for path in paths]
    assert len(set(ids)) == len(ids)
    assert all(0 < len(rid) <= 64 for rid in ids)
    assert all(c.isascii() and (c.isalnum() or c in "_-") for rid in ids for c in rid)


def test_a_repeated_id_in_one_batch_is_that_rows_error() -> None:
    png = make_png()
    out = encode_batch(
        {"bytes": [png, png, png], "path": ["a.png", "a.png", "b.png"]},
        provider="anthropic",
        fields=FIELDS,
        prepare=False,
    )
    assert out["line"][0] is not None
    assert out["line"][2] is not None
    assert out["line"][1] is None
    assert "row 0" in out["error"][1]


def test_any_failure_is_a_row_error_and_nothing_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    import mediablocks.ray as mbray

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("a bug deep in a converter")

    monkeypatch.setattr(mbray, "prepare_messages", broken)
    out = encode_batch(
        {"bytes": [make_png(), make_png((5, 5))], "path": ["a.png", "b.png"]},
        provider="anthropic",
        fields=FIELDS,
    )
    assert len(out["id"]) == 2
    assert out["line"] == [None, None]
    assert all("ZeroDivisionError" in error for error in out["error"])


def test_a_batch_without_bytes_or_paths_is_refused() -> None:
    import numpy as np

    with pytest.raises(mb.InvalidOptionError, match="read_binary_files"):
        encode_batch({"image": np.zeros((1, 4, 4, 3), dtype=np.uint8)}, provider="anthropic")


# -- on a local Ray instance ------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        ignore_reinit_error=True,
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        yield ray
    finally:
        ray.shutdown()


def test_the_pipeline_runs_on_ray(ray_local: Any, tmp_path: Path) -> None:
    ray = ray_local
    folder = tmp_path / "in"
    folder.mkdir()
    images = {f"img{n}.png": make_png((16 + n, 12), color=(n * 40, 0, 0)) for n in range(3)}
    for name, data in images.items():
        (folder / name).write_bytes(data)
    (folder / "voice.wav").write_bytes(make_wav())  # Anthropic takes no audio: a row error

    # One block, one task per stage: the test checks the plumbing, and stays fast.
    ds = ray.data.read_binary_files(str(folder), include_paths=True, override_num_blocks=1)
    encoded = ds.map_batches(
        encode_batch,
        fn_kwargs={"provider": "anthropic", "prompt": "Describe.", "fields": FIELDS},
        batch_size=None,
    ).materialize()  # run once, write twice
    encoded.write_json(str(tmp_path / "rows"))
    encoded.write_datasink(batch_file_datasink(str(tmp_path / "batch")))

    rows = [
        json.loads(line)
        for path in sorted((tmp_path / "rows").glob("*.json"))
        for line in path.read_text().splitlines()
    ]
    assert len(rows) == 4
    bad = [row for row in rows if row["error"]]
    assert len(bad) == 1
    assert "voice_wav" in bad[0]["id"]
    assert "audio" in bad[0]["error"]

    lines = [
        json.loads(line)
        for path in sorted((tmp_path / "batch").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    assert len(lines) == 3
    got = {
        line["custom_id"]: base64.b64decode(
            line["params"]["messages"][0]["content"][1]["source"]["data"]
        )
        for line in lines
    }
    for name, data in images.items():
        (rid,) = [rid for rid in got if name.replace(".", "_") in rid]
        assert got[rid] == data


def test_the_documented_pipeline_runs_two_batches_at_once(ray_local: Any, tmp_path: Path) -> None:
    """On 2 CPUs, with the DataContext setting docs/ray.md gives, two batches run at the same
    time: each batch waits (up to 60 s) for another batch's marker before encoding, so a serial
    run shows up as a batch that never saw a peer."""
    ray = ray_local
    folder, markers = tmp_path / "in", tmp_path / "markers"
    folder.mkdir()
    markers.mkdir()
    for n in range(4):
        (folder / f"img{n}.png").write_bytes(make_png((10 + n, 10)))

    def encode_with_rendezvous(batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        import time
        import uuid

        (markers / uuid.uuid4().hex).touch()
        deadline = time.monotonic() + 60
        while len(list(markers.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        out = encode_batch(batch, **kwargs)
        out["saw_peer"] = [len(list(markers.iterdir())) >= 2] * len(out["id"])
        return out

    context = ray.data.DataContext.get_current()
    before = context.op_resource_reservation_enabled
    context.op_resource_reservation_enabled = False  # as docs/ray.md says for small nodes
    try:
        ds = ray.data.read_binary_files(str(folder), include_paths=True, override_num_blocks=2)
        rows = ds.map_batches(
            encode_with_rendezvous,
            fn_kwargs={"provider": "anthropic", "fields": FIELDS},
            batch_size=2,
            concurrency=2,
            memory=1024**3,
        ).take_all()
    finally:
        context.op_resource_reservation_enabled = before
    assert len(rows) == 4
    assert all(row["error"] is None for row in rows)
    assert all(row["saw_peer"] for row in rows)
    assert len(list(markers.iterdir())) == 2


def test_the_sink_rolls_over_and_checks_ids(ray_local: Any, tmp_path: Path) -> None:
    ray = ray_local
    rows = encode_batch(
        {
            "bytes": [make_png((8 + n, 8)) for n in range(5)],
            "path": [f"p{n}.png" for n in range(5)],
        },
        provider="anthropic",
        fields=FIELDS,
        prepare=False,
    )
    ds = ray.data.from_items(
        [dict(zip(rows, values, strict=True)) for values in zip(*rows.values(), strict=True)],
        override_num_blocks=1,
    )
    ds.write_datasink(
        batch_file_datasink(str(tmp_path / "out"), provider="anthropic", max_requests=2)
    )
    files = sorted((tmp_path / "out").glob("*.jsonl"))
    assert [f.name.rsplit("-", 1)[-1] for f in files] == ["001.jsonl", "002.jsonl", "003.jsonl"]
    ids = [json.loads(line)["custom_id"] for f in files for line in f.read_text().splitlines()]
    assert ids == rows["id"]

    twice = {key: values + values for key, values in rows.items()}
    ds = ray.data.from_items(
        [dict(zip(twice, values, strict=True)) for values in zip(*twice.values(), strict=True)],
        override_num_blocks=1,
    )
    with pytest.raises(Exception, match="twice in one batch file"):
        ds.write_datasink(batch_file_datasink(str(tmp_path / "dup"), provider="anthropic"))
