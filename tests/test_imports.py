"""The project's modules import each other without cycles (issue #15): the
graph of every import among them, at module level or inside a function, is
acyclic, and no module imports a project module inside a function (the way
cycles used to be dodged)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("accounts_optional", "config", "games", "rooms")


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imported(module: str, path: Path, node: ast.Import | ast.ImportFrom, known) -> set[str]:
    """The project modules ``node`` imports (a name from a package counts as its
    submodule when there is one)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names} & set(known)
    base = node.module or ""
    if node.level:
        parts = module.split(".")
        if path.name != "__init__.py":
            parts = parts[:-1]
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join([*parts, base] if base else parts)
    found = set()
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        found.add(submodule if submodule in known else base)
    return found & set(known)


def import_graph() -> tuple[dict[str, set[str]], list[str]]:
    """Edges module -> the project modules it imports, and the imports made
    inside functions."""
    known = project_modules()
    graph: dict[str, set[str]] = {}
    inside_functions = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges: set[str] = set()
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets = imported(module, path, node, known) - {module}
                edges |= targets
                if targets and id(node) not in top and not _under_type_checking(tree, node):
                    inside_functions.append(f"{module}:{node.lineno} imports {sorted(targets)}")
        graph[module] = edges
    return graph, inside_functions


def _under_type_checking(tree: ast.Module, node: ast.AST) -> bool:
    for statement in tree.body:
        if (isinstance(statement, ast.If) and isinstance(statement.test, ast.Name)
                and statement.test.id == "TYPE_CHECKING"):
            if any(child is node for child in ast.walk(statement)):
                return True
    return False


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that returns to its start, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_finder_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_knows_the_project():
    graph, _ = import_graph()
    assert "rooms.services.core" in graph["rooms.services.lobby"]
    assert "rooms.publish" in graph["rooms.services.core"]
    assert "games.base" in graph["games.ludo"]


def test_the_project_modules_import_each_other_without_cycles():
    graph, _ = import_graph()
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_no_module_imports_a_project_module_inside_a_function():
    _, inside_functions = import_graph()
    assert inside_functions == []
