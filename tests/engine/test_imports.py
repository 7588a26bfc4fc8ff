"""No module of ``src/schemacore`` imports one that imports it back.

Every import statement counts, inside functions too (a function-level import is how
a cycle hides), except those under ``if TYPE_CHECKING:``, which never run. An import
of a package counts as one of its ``__init__``, except from a module inside it: its
packages are already being imported when it runs (so the root package's
``__init__``, which re-exports the public API, is never part of a cycle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import schemacore

ROOT = Path(schemacore.__file__).parent


def _module_name(path: Path) -> str:
    parts = ["schemacore", *path.relative_to(ROOT).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in ROOT.rglob("*.py")}


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded = _type_checking_lines(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in guarded:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # "from . import x" (or "from .pkg import x") may name a submodule.
            found.update(f"{target}.{alias.name}" for alias in node.names)
    # A module's own packages are being imported already when it runs: no edge.
    return {
        target
        for target in found
        if target in known and target != name and not name.startswith(target + ".")
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in graph[node]:
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_engine_has_no_import_cycle() -> None:
    modules = _modules()
    known = set(modules)
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    # The walk is not vacuous: it sees the edges the engine is built on.
    assert "schemacore.model" in graph["schemacore.keywords.applicator"]
    assert "schemacore.keywords" in graph["schemacore.compiler"]
    cycles = _cycles(graph)
    assert not cycles, f"import cycles: {cycles}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
