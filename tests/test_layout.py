"""The layout's rule: a module imports another package's modules only through that package's
surface (its ``__init__``'s ``__all__``), never a module file of a package it is not inside."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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

