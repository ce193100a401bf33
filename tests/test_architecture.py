"""The module graph: no import cycles, core modules free of providers, a light package import."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ROOT

SOURCE = ROOT / "src" / "mediablocks"
CORE = ("blocks", "messages", "media", "sources", "mime")
PROVIDER_PACKAGES = sorted(
    path.parent.name for path in (SOURCE / "providers").glob("*/__init__.py")
)


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


MODULES = {_module_name(path)[0]: path for path in SOURCE.rglob("*.py")}


def _nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node except those under ``if TYPE_CHECKING:`` (imports for annotations only)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _imports(name: str) -> set[str]:
    """The mediablocks modules ``name`` imports, at module level or inside functions."""
    path = MODULES[name]
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                child = f"{target}.{alias.name}"
                found.add(child if child in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {module for module in found if module in MODULES and module != name}


GRAPH = {name: _imports(name) for name in MODULES}


def _cycle_from(start: str) -> list[str] | None:
    """A path of imports from ``start`` back to itself, if there is one (iterative DFS)."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for target in GRAPH[node]:
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


def test_the_graph_sees_the_imports_it_should() -> None:
    assert "mediablocks.blocks" in GRAPH["mediablocks.messages"]
    assert "mediablocks.providers.registry" in GRAPH["mediablocks.tokens"]
    assert "mediablocks.convert.raster" in GRAPH["mediablocks.images.opening"]
    assert (
        "mediablocks.providers.openai_chat.stream" in GRAPH["mediablocks.providers.mistral.stream"]
    )


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_itself_back(name: str) -> None:
    assert _cycle_from(name) is None


def _reachable(name: str) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        for target in GRAPH[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


@pytest.mark.parametrize("name", CORE)
def test_core_modules_import_no_provider(name: str) -> None:
    reached = _reachable(f"mediablocks.{name}")
    providers = {m for m in reached if m.startswith("mediablocks.providers.")}
    assert not {m for m in providers if m.split(".")[2] in PROVIDER_PACKAGES}
    assert not providers, providers


def test_importing_the_package_imports_no_provider_package() -> None:
    """``import mediablocks`` loads no provider code; ``mb.encode`` loads the registry and the
    shared helpers, still no provider package until a provider is used."""
    bare = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, mediablocks\nprint(len(sys.modules))\n"
            "print(' '.join(m for m in sys.modules if m.startswith('mediablocks.')))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert bare[1:] == ["mediablocks._version"], bare
    code = (
        "import sys, mediablocks\nmediablocks.encode\n"
        "print(' '.join(m for m in sys.modules if m.startswith('mediablocks.providers.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out, "the registry and shared helpers are loaded"
    assert not [m for m in out if m.split(".")[2] in PROVIDER_PACKAGES]


# The floors of the house, lowest first. A unit (a package under ``mediablocks/``, or a module at
# its root) imports only from its own floor or floors below; a new unit must be placed here.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "_version", "_frozen", "_checks", "_depth", "_unicode", "_base"}),
    frozenset({"changes", "stop_reasons", "usage", "datauri", "limits", "mime", "_stream_sniff"}),
    frozenset({"fetching", "sources"}),
    frozenset(
        {
            "media",
            "media_input",
            "blocks",
            "messages",
            "message_json",
            "_loading",
            "settings",
            "tools",
        }
    ),
    frozenset({"convert", "probing", "images"}),
    frozenset({"providers"}),
    frozenset(
        {
            "message_input",
            "parsing",
            "encoding",
            "tokens",
            "request",
            "streaming",
            "history",
            "preparing",
            "standins",
            "uploading",
            "batch",
        }
    ),
    frozenset({"ray", "integrations", "cli", "__main__", "__init__"}),
)


def _unit(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def _floor(unit: str) -> int:
    for floor, units in enumerate(LAYERS):
        if unit in units:
            return floor
    raise AssertionError(f"{unit!r} has no floor: place it in tests/test_architecture.LAYERS")


UNIT_ARROWS = sorted(
    {
        (name, target)
        for name, targets in GRAPH.items()
        for target in targets
        if _unit(name) != _unit(target)
    }
)


def test_every_unit_has_a_floor() -> None:
    for name in MODULES:
        _floor(_unit(name))


def test_no_import_runs_up_a_floor() -> None:
    upward = [
        f"{name} -> {target}"
        for name, target in UNIT_ARROWS
        if _floor(_unit(target)) > _floor(_unit(name))
    ]
    assert not upward, upward


def test_no_circle_between_packages() -> None:
    """Packages on one floor may use each other, but never both ways round."""
    units: dict[str, set[str]] = {}
    for name, target in UNIT_ARROWS:
        units.setdefault(_unit(name), set()).add(_unit(target))
    for start in units:
        seen: set[str] = set()
        todo = list(units[start])
        while todo:
            unit = todo.pop()
            assert unit != start, f"{start} reaches itself through {sorted(seen)}"
            if unit not in seen:
                seen.add(unit)
                todo.extend(units.get(unit, ()))
