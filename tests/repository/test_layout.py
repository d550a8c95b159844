"""The layout's rule: a module imports another package's modules only through that package's
surface (its ``__init__``'s ``__all__``), never a module file of a package it is not inside. And the
tests' own: one folder per package tested, what they share in tests/helpers."""

import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADDON = ("core", "operators", "ui", "bundled_gltf", "pipeline", "fit_workers")


def _module(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return (parts[:-1] if is_package else parts), is_package


def _is_package(parts):
    return (ROOT.joinpath(*parts) / "__init__.py").exists()


def _surface(parts):
    tree = ast.parse((ROOT.joinpath(*parts) / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def _imports(path):
    """(line, module parts, imported name) of every relative import of ``path``."""
    parts, is_package = _module(path)
    base = parts if is_package else parts[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            target = base[:len(base) - node.level + 1] + (node.module.split(".") if node.module else [])
            for alias in node.names:
                yield node.lineno, target, alias.name


def _breaks(path):
    parts, is_package = _module(path)
    own = parts if is_package else parts[:-1]
    for line, target, name in _imports(path):
        if _is_package(target) and _is_package(target + [name]) or not _is_package(target):
            # a module (or subpackage) imported: ``target`` + name, or the module ``target`` itself
            module = target + [name] if _is_package(target) else target
            owner = module[:-1]
        else:
            if (ROOT.joinpath(*target, name + ".py")).exists():
                module, owner = target + [name], target
            else:
                continue  # a name of a package's surface
        if own[:len(owner)] == owner:
            continue  # a module of a package this one is inside
        if module[-1] in _surface(owner) and (module == target + [name]):
            continue  # a module the package lists as public
        yield f"{path.relative_to(ROOT)}:{line} imports {'.'.join(module)}"


def test_no_package_imports_a_module_of_a_package_it_is_not_inside():
    breaks = [b for top in ADDON for path in sorted((ROOT / top).rglob("*.py")) for b in _breaks(path)]
    assert breaks == []


def test_every_name_a_surface_lists_exists():
    missing = []
    for init in sorted(p for top in ADDON for p in (ROOT / top).rglob("__init__.py")):
        parts = list(init.relative_to(ROOT).parent.parts)
        tree = ast.parse(init.read_text())
        defined = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        defined |= {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for name in _surface(parts):
            if name not in defined and not (ROOT.joinpath(*parts, name + ".py")).exists() \
                    and not _is_package(parts + [name]):
                missing.append(f"{init.relative_to(ROOT)}: {name}")
    assert missing == []


def test_operators_never_import_ui():
    """ui draws the operators' state and calls them; operators read settings from the scene."""
    found = [f"{p.relative_to(ROOT)}:{line}" for p in sorted((ROOT / "operators").rglob("*.py"))
             for line, target, _ in _imports(p) if target[:1] == ["ui"]]
    assert found == []



def test_the_bundled_seam_never_imports_operators():
    """The seam runs one way: bundled_gltf's hooks hand their views to the handlers operators
    register (bundled_gltf/handlers.py), as the bundled add-on hands its work to user extensions."""
    found = [f"{p.relative_to(ROOT)}:{line}" for p in sorted((ROOT / "bundled_gltf").rglob("*.py"))
             for line, target, _ in _imports(p) if target[:1] == ["operators"]]
    assert found == []


MAX_LINES = 400


def _tracked_python_files():
    """Every .py file git tracks in the repository (``git ls-files``), as paths."""
    listed = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=ROOT, capture_output=True, check=True)
    return [ROOT / name for name in listed.stdout.decode("utf-8").split("\0") if name]


def test_every_python_module_has_at_most_400_lines():
    """The house rule on size: a module of at most MAX_LINES (400) lines, with one responsibility; a
    longer one is split into cohesive, well-named modules (a package folder if need be). Every
    tracked .py file counts: the add-on's, the tests', their helpers' and jobs', tools/, bench/ and
    dev.py."""
    modules = _tracked_python_files()
    assert ROOT / "tests" / "repository" / "test_layout.py" in modules and len(modules) > 100
    long = [f"{path.relative_to(ROOT)}: {count} lines" for path in modules if path.is_file()
            and (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, "modules over the limit:\n" + "\n".join(long)


# The extension's names: written once, in core/constants.py, and imported everywhere else.
NAMES = {"EXT_animation_sqlerp", "CUBICSLERP"}
CONSTANTS = ROOT / "core" / "constants.py"


def _docstrings(tree):
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def _exported(tree):
    """The strings of ``__all__`` lists: the names of Python objects, not the extension's."""
    return {id(item) for node in ast.walk(tree) if isinstance(node, ast.Assign)
            and any(getattr(target, "id", None) == "__all__" for target in node.targets)
            for item in ast.walk(node.value)}


def _name_literals(path):
    """(line, literal) of every string in ``path``'s code (not docstrings, which are prose, nor
    ``__all__``) that is one of NAMES."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree) | _exported(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in NAMES and id(node) not in skipped]


def test_the_extensions_names_are_written_only_in_the_constants_module():
    modules = [ROOT / "__init__.py", ROOT / "pipeline_run.py",
               *(path for top in ADDON for path in sorted((ROOT / top).rglob("*.py")))]
    found = [f"{path.relative_to(ROOT)}:{line}: {value}" for path in modules if path != CONSTANTS
             for line, value in _name_literals(path)]
    assert found == []
    # The check sees a copy: the constants module itself holds each name as such a literal.
    assert {value for _, value in _name_literals(CONSTANTS)} == NAMES


def _private_imports(source):
    """(line, module, name) of every ``from module import _name`` in the Python ``source``."""
    tree = ast.parse(source)
    return [(node.lineno, "." * node.level + (node.module or ""), alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) for alias in node.names
            if alias.name.startswith("_") and not alias.name.startswith("__")]


def test_no_module_imports_another_modules_private_name():
    """A ``_name`` is its module's own: what another module needs is public (tests included)."""
    modules = [ROOT / "__init__.py", ROOT / "pipeline_run.py", ROOT / "dev.py",
               *(path for top in (*ADDON, "tests", "tools", "bench") for path in sorted((ROOT / top).rglob("*.py")))]
    found = [f"{path.relative_to(ROOT)}:{line} imports {name} from {module}"
             for path in modules for line, module, name in _private_imports(path.read_text(encoding="utf-8"))]
    assert found == []
    # The check sees one: this line's own kind of import, parsed.
    assert _private_imports("from .common import _plain_error") == [(1, ".common", "_plain_error")]


# The tests: one folder per package they test, and one package of what they share.
TESTS = ROOT / "tests"
TEST_FOLDERS = ("core", "operators", "bundled", "pipeline", "web", "repository")
SHARED = ("helpers", "jobs")  # tests/helpers: the shared package; tests/jobs: child-process scripts


def test_every_test_module_sits_in_the_folder_of_what_it_tests():
    """tests/<folder>/test_*.py and nothing else there; no test module in tests/ itself, in the
    helpers or the jobs."""
    misplaced = []
    for path in sorted(TESTS.rglob("*.py")):
        folder = path.relative_to(TESTS).parts[0] if path.parent != TESTS else None
        if folder is None:
            wrong = path.name != "conftest.py"
        elif folder in TEST_FOLDERS:
            wrong = path.parent != TESTS / folder or not path.name.startswith("test_")
        else:
            wrong = folder not in SHARED or path.name.startswith("test_")
        if wrong:
            misplaced.append(str(path.relative_to(ROOT)))
    assert misplaced == []
    assert all((TESTS / folder).is_dir() for folder in (*TEST_FOLDERS, *SHARED))
    assert (TESTS / "helpers" / "__init__.py").is_file()


def _test_imports(source):
    """(line, module) of every import of a test module, or of conftest, in the Python ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        found += [(node.lineno, name) for name in names
                  if name.split(".")[0].startswith("test_") or name.split(".")[0] == "conftest"]
    return found


def test_no_module_imports_a_test_module_what_tests_share_is_in_helpers():
    modules = [path for top in ("tests", "tools", "bench") for path in sorted((ROOT / top).rglob("*.py"))]
    found = [f"{path.relative_to(ROOT)}:{line} imports {name}"
             for path in modules for line, name in _test_imports(path.read_text(encoding="utf-8"))]
    assert found == []
    # The check sees one: each kind of import it refuses, parsed.
    source = "from test_convert import gltf_json\nimport test_keyframes as k\nfrom conftest import ASSETS"
    assert _test_imports(source) == [(1, "test_convert"), (2, "test_keyframes"), (3, "conftest")]
