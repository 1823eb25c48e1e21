"""Import circles inside each app: groups of modules of one app that import each other round a
loop (strongly connected components of the app's import graph, grimp's graph as import-linter
builds it: imports inside functions count too, imports for type checkers only do not). Prints each circle with the imports that
close it and the total; `tests/core/test_import_circles.py` keeps the total from growing.

    .venv/bin/python bench/import_circles.py
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import grimp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _components(nodes: list[str], edges: dict[str, set[str]]) -> Iterator[list[str]]:
    """Tarjan's strongly connected components (iterative), those of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    yield sorted(component)


def circles(package: str = "apps") -> list[tuple[str, list[str], list[str]]]:
    """(app, its modules in the circle, the imports between them) for every circle in every app."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=True)
    found = []
    apps = sorted({module.split(".")[1] for module in graph.modules if module.count(".") >= 1})
    for app in apps:
        prefix = f"{package}.{app}."
        inner = sorted(m for m in graph.modules if m.startswith(prefix))
        edges = {
            m: {n for n in graph.find_modules_directly_imported_by(m) if n.startswith(prefix)} for m in inner
        }
        for component in _components(inner, edges):
            lines = [
                f"{a[len(prefix) :]} -> {b[len(prefix) :]} (line {detail['line_number']})"
                for a in component
                for b in sorted(edges[a] & set(component))
                for detail in graph.get_import_details(importer=a, imported=b)[:1]
            ]
            found.append((app, [m[len(prefix) :] for m in component], lines))
    return found


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--tiny", action="store_true", help="accepted as by every bench; this one is quick anyway"
    )
    parser.parse_args()
    found = circles()
    for app, modules, lines in found:
        print(f"{app}: {', '.join(modules)}")
        for line in lines:
            print(f"    {line}")
    print(f"in-app import circles: {len(found)}")


if __name__ == "__main__":
    main()
