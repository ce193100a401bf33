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
    assert "mediablocks.providers.registry" in GRAPH["mediablocks.limits"]
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
    code = (
        "import sys, mediablocks\n"
        "print(' '.join(m for m in sys.modules if m.startswith('mediablocks.providers.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out, "the registry and shared helpers are loaded"
    assert not [m for m in out if m.split(".")[2] in PROVIDER_PACKAGES]
