"""The shape of acceptance-tests/'s Python: no import cycles, and moto's internals behind one adapter.

Every Python file under acceptance-tests/ (sandbox/, harness/, suites/, tools/, the tests) is parsed with `ast`; the
graph links a module to each project module it imports: absolute (`sandbox.x`, `harness.x`, or a sibling of a test
file, which pytest puts on sys.path), relative, and imports inside functions alike, since a cycle hidden in a function
is still a cycle.  Importing `a.b.c` also runs the packages `a` and `a.b` (their `__init__`), so it links to them too,
unless the importer is inside them already.  A dependency Python cannot see statically (`importlib.import_module` of a
computed name) would hide edges from this graph, so non-test code may not use one.

moto is pinned exactly because the sandbox reaches into its internals; `sandbox/moto_adapter.py` is the one module
that may import it, so a moto upgrade touches one file.  The sandbox's own tests (sandbox/tests/) may still import
moto and boto3: they exercise the sandbox in-process.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # acceptance-tests/
MOTO_ADAPTER = "sandbox.moto_adapter"
MAY_IMPORT_MOTO = ("sandbox.tests.",)  # module-name prefixes besides the adapter
SKIP_DIRS = {"node_modules", "__pycache__", ".venv", "venv"}


def _is_python(path: Path) -> bool:
    if path.suffix == ".py":
        return True
    # tools/terraform and the like: Python scripts without the suffix
    if path.suffix or not path.is_file():
        return False
    with path.open("rb") as f:
        return b"python" in f.readline()


def source_files(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in root.rglob("*") if not SKIP_DIRS & set(p.relative_to(root).parts) and _is_python(p))


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_package_dir(directory: Path) -> bool:
    return (directory / "__init__.py").exists()


class Project:
    """The project's modules by name, and where each file's imports lead."""

    def __init__(self, root: Path = ROOT, files: list[Path] | None = None):
        self.root = root
        self.files = {module_name(p, root): p for p in (files if files is not None else source_files(root))}
        self._paths = set(self.files.values())

    def _module_at(self, directory: Path, dotted: str) -> str | None:
        """The project module that `dotted` names when resolved from `directory` (longest existing prefix)."""
        parts = dotted.split(".")
        for n in range(len(parts), 0, -1):
            base = directory.joinpath(*parts[:n])
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate in self._paths:
                    return module_name(candidate, self.root)
        return None

    def resolve_absolute(self, importer: str, dotted: str) -> str | None:
        directory = self.files[importer].parent
        if not is_package_dir(directory):  # a test or script: its own directory comes first on sys.path
            found = self._module_at(directory, dotted)
            if found is not None:
                return found
        return self._module_at(self.root, dotted)

    def package_of(self, importer: str, level: int) -> str:
        path = self.files[importer]
        parts = importer.split(".")
        if path.name != "__init__.py":
            parts = parts[:-1]
        return ".".join(parts[:len(parts) - (level - 1)])

    def targets(self, importer: str, node: ast.AST) -> list[str]:
        """Project modules one import statement (or importlib/importorskip call) of `importer` loads."""
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
            return [m for m in (self.resolve_absolute(importer, n) for n in names) if m]
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = self.package_of(importer, node.level)
                module = ".".join(p for p in (base, node.module or "") if p)
                resolve = lambda dotted: self._module_at(self.root, dotted)  # noqa: E731
            else:
                module = node.module or ""
                resolve = lambda dotted: self.resolve_absolute(importer, dotted)  # noqa: E731
            found = []
            for alias in node.names:  # `from pkg import module` imports the module, `from m import name` m
                sub = resolve(f"{module}.{alias.name}") if alias.name != "*" else None
                found.append(sub if sub is not None and sub.rsplit(".", 1)[-1] == alias.name else resolve(module))
            return [m for m in found if m]
        if isinstance(node, ast.Call) and (name := _dynamic_import_name(node)) is not None:
            target = self.resolve_absolute(importer, name)
            return [target] if target else []
        return []

    def edges(self) -> dict[str, set[str]]:
        graph: dict[str, set[str]] = {name: set() for name in self.files}
        for importer, path in self.files.items():
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                for target in self.targets(importer, node):
                    graph[importer] |= {target, *self._packages_run(importer, target)} - {importer}
        return graph

    def _packages_run(self, importer: str, target: str) -> list[str]:
        """The packages whose `__init__` importing `target` runs first, but not those `importer` is inside."""
        parts = target.split(".")
        packages = [".".join(parts[:n]) for n in range(1, len(parts))]
        return [p for p in packages if p in self.files and not (importer == p or importer.startswith(p + "."))]


def _dynamic_import_name(node: ast.Call) -> str | None:
    """The constant module name of `importlib.import_module("x")` / `pytest.importorskip("x")`, else None."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("import_module", "importorskip") and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def computed_imports(path: Path) -> list[int]:
    """Lines that import a module whose name is computed at run time (invisible to the graph)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__") and _dynamic_import_name(node) is None:
                lines.append(node.lineno)
    return lines


def tangles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components that hold a cycle: modules that all, in the end, import each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(v: str) -> None:  # Tarjan; the graph is small enough for recursion
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return components


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path that returns to its start) per tangle."""
    return [_cycle_in(graph, component) for component in tangles(graph)]


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first back to it)."""
    start = min(component)
    paths = {w: [start, w] for w in sorted(graph[start] & component)}
    frontier = list(paths)
    while start not in paths:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        frontier = nxt
    return paths[start]


def moto_importers(project: Project) -> dict[str, list[int]]:
    """Modules other than the adapter (and the sandbox's tests) that import moto: name -> lines."""
    found: dict[str, list[int]] = {}
    for name, path in project.files.items():
        if name == MOTO_ADAPTER or name.startswith(MAY_IMPORT_MOTO):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                modules = [node.module or ""]
            elif isinstance(node, ast.Call) and (dynamic := _dynamic_import_name(node)) is not None:
                modules = [dynamic]
            else:
                continue
            if any(m == "moto" or m.startswith("moto.") for m in modules):
                found.setdefault(name, []).append(node.lineno)
    return found


# ---- the tests ---------------------------------------------------------------------------------------------------
def test_no_import_cycles():
    graph = Project().edges()
    found = [f"{' -> '.join(_cycle_in(graph, t))}   (all of {', '.join(sorted(t))} import each other)"
             for t in tangles(graph)]
    assert not found, "import cycles:\n" + "\n".join(found)


def test_imports_are_visible_to_the_graph():
    computed = {module_name(p): lines for p in source_files() if "tests" not in p.relative_to(ROOT).parts
                and (lines := computed_imports(p))}
    assert not computed, f"modules imported by a computed name (use a plain import so the graph sees it): {computed}"


def test_only_the_adapter_imports_moto():
    found = moto_importers(Project())
    assert not found, (f"only {MOTO_ADAPTER} may import moto (add what you need there under the sandbox's own name); "
                       f"imported by: {found}")


def test_the_graph_sees_what_it_should(tmp_path):
    """The checker itself: a two-module cycle through a function-level relative import, a package's __init__, a
    test directory's sibling module, and a moto import are all found."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import name\n")
    (pkg / "sub" / "__init__.py").write_text("from pkg import c\n")
    (pkg / "sub" / "leaf.py").write_text("")
    (pkg / "c.py").write_text("import pkg.sub.leaf\nimport moto.core\n")
    (tmp_path / "tests" / "helper.py").write_text("")
    (tmp_path / "tests" / "test_x.py").write_text("import helper\nfrom pkg import a\n")
    project = Project(tmp_path)
    graph = project.edges()
    assert graph["tests.test_x"] == {"tests.helper", "pkg.a", "pkg"}
    assert graph["pkg.c"] == {"pkg.sub.leaf", "pkg.sub"}  # pkg itself: c is inside it
    assert sorted(map(tuple, find_cycles(graph))) == [("pkg.a", "pkg.b", "pkg.a"),
                                                      ("pkg.c", "pkg.sub", "pkg.c")]
    assert list(moto_importers(project)) == ["pkg.c"]
