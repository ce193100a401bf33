"""`import mediablocks` stays light: heavy libraries load on first use, not at import."""

from __future__ import annotations

import subprocess
import sys

from .conftest import TESTDATA

# Loaded only when a feature needs them: fetching (httpx and its stack), image fitting (Pillow),
# detection past the built-in signatures (filetype), asynchronous calls (asyncio), the converters,
# the provider SDKs an uploader drives and the agent frameworks the integrations read.
DEFERRED = (
    "httpx",
    "httpcore",
    "anyio",
    "idna",
    "PIL",
    "filetype",
    "asyncio",
    "av",
    "pypdfium2",
    "numpy",
    "ray",
    "boto3",
    "botocore",
    "openai",
    "anthropic",
    "google",
    "mistralai",
    "ollama",
    "cohere",
    "mcp",
    "mcp_types",
    "langchain",
    "langchain_core",
    "langgraph",
    "pydantic_ai",
    "mediablocks.images",
    "mediablocks.preparing.av",
    "mediablocks.fetching._client",
    "mediablocks.fetching._body",
    "mediablocks.fetching._pins",
)


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_importing_mediablocks_loads_none_of_the_deferred_libraries() -> None:
    loaded = _modules_after("import mediablocks")
    assert "mediablocks" in loaded
    assert sorted(name for name in DEFERRED if name in loaded) == []


def test_the_fetcher_loads_httpx_when_a_fetch_needs_it() -> None:
    loaded = _modules_after(
        "import mediablocks as mb\n"
        "try:\n    mb.fetch('http://127.0.0.1:9/x')\nexcept mb.FetchError:\n    pass"
    )
    assert {"httpx", "mediablocks.fetching._client"} <= loaded


def test_fitting_an_image_loads_pillow_then() -> None:
    loaded = _modules_after(
        "import mediablocks as mb\n"
        f"bmp = open({str(TESTDATA / 'image' / 'sample.bmp')!r}, 'rb').read()\n"
        "_, report = mb.prepare_with_report(\n"
        "    [mb.UserMessage(content=[mb.ImageBlock.from_bytes(bmp)])], 'openai'\n"
        ")\n"
        "assert report.changed, report"
    )
    assert {"PIL", "mediablocks.images"} <= loaded


def test_the_models_build_their_schemas_on_first_use_not_at_import() -> None:
    loaded = _modules_after(
        "import mediablocks as mb\n"
        "assert not mb.UserMessage.__pydantic_complete__\n"
        "assert not mb.TextBlock.__pydantic_complete__\n"
        "message = mb.UserMessage(content='hi')\n"
        "assert mb.UserMessage.__pydantic_complete__ and mb.TextBlock.__pydantic_complete__\n"
        "assert message.text == 'hi'"
    )
    assert "mediablocks" in loaded


def test_threads_building_the_deferred_schemas_at_once_all_get_the_right_models() -> None:
    # The first validations of a fresh process race to build the same schemas.
    _modules_after(
        "import threading\n"
        "import mediablocks as mb\n"
        "gate = threading.Barrier(12)\n"
        "results = []\n"
        "def first_use(i):\n"
        "    gate.wait()\n"
        "    block = mb.TextBlock(text=f'hi {i}')\n"
        "    message = mb.parse_message({'role': 'user', 'content': f'hi {i}'})\n"
        "    try:\n"
        "        mb.TextBlock(text='x', stray=1)\n"
        "        refused = False\n"
        "    except ValueError:  # pydantic's ValidationError\n"
        "        refused = True\n"
        "    results.append((type(block), block.text, type(message), message.text, refused))\n"
        "threads = [threading.Thread(target=first_use, args=(i,)) for i in range(12)]\n"
        "for thread in threads: thread.start()\n"
        "for thread in threads: thread.join()\n"
        "expected = {\n"
        "    (mb.TextBlock, f'hi {i}', mb.UserMessage, f'hi {i}', True) for i in range(12)\n"
        "}\n"
        "assert set(results) == expected, results"
    )
