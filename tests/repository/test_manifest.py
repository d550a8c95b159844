"""The manifest and the package zip, checked with Blender's own extension tooling.

`cli_extension_handler` is what `blender --command extension validate|build` runs; conftest points
BLENDER_USER_RESOURCES at a temporary folder so the tooling writes nothing into the user's Blender.
"""

import importlib
import shutil
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.blender
ROOT = Path(__file__).resolve().parents[2]
MANIFEST = "blender_manifest.toml"
# What a user's Blender needs: the package code and the manifest.
RUNTIME_DIRS = ("core", "operators", "bundled_gltf", "ui", "pipeline")
# Developer files that must stay out of the zip (the manifest's [build] paths_exclude_pattern).
DEV_FOLDERS = ("tests", "bench", "tools", "samples", "docs", "viewers", "fuzz_escapes", "example_out", ".ci",
               ".venv*", ".git")
DEV_FILES = ("dev.py", "requirements-dev.txt", "requirements-editor.txt",
             "pytest.ini", "pyproject.toml", "CONTRIBUTING.md")


@pytest.fixture(scope="module")
def extension_cli():
    import bpy  # noqa: F401 (bl_pkg is importable only inside Blender)
    # Blender's add-ons (scripts/addons_core) are on the path at run time only, by name here.
    return importlib.import_module("bl_pkg.bl_extension_cli").cli_extension_handler


def build(extension_cli, source, output):
    assert extension_cli(["build", "--source-dir", str(source), "--output-dir", str(output)]) == 0
    [package] = output.glob("*.zip")
    with zipfile.ZipFile(package) as archive:
        return package.name, set(archive.namelist())


def shipped_by_mistake(names):
    return sorted(name for name in names
                  if name.split("/")[0] in DEV_FOLDERS or name in DEV_FILES
                  or "__pycache__" in name or name.endswith(".pyc"))


def test_validate_accepts_the_manifest(extension_cli, capfd):
    assert extension_cli(["validate", str(ROOT)]) == 0
    assert "Success" in capfd.readouterr().out


def test_validate_rejects_a_tagline_with_closing_punctuation(extension_cli, tmp_path, capfd):
    # The validator really reads our manifest: the same file with one rule broken fails.
    shutil.copy(ROOT / "__init__.py", tmp_path)
    text = (ROOT / MANIFEST).read_text(encoding="utf-8")
    tagline = next(line for line in text.splitlines() if line.startswith("tagline"))
    (tmp_path / MANIFEST).write_text(text.replace(tagline, tagline[:-1] + '."'), encoding="utf-8")
    assert extension_cli(["validate", str(tmp_path)]) != 0
    assert "tagline" in capfd.readouterr().out


def test_build_ships_the_add_on_and_no_developer_files(extension_cli, tmp_path):
    name, names = build(extension_cli, ROOT, tmp_path)
    assert name == "gltf_sqlerp-0.1.0.zip"
    runtime = {MANIFEST, "__init__.py"} | {
        path.relative_to(ROOT).as_posix()
        for folder in RUNTIME_DIRS for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts}
    assert {"operators/importing/check_file.py", "ui/panel.py", "core/__init__.py"} <= runtime
    assert runtime <= names
    assert shipped_by_mistake(names) == []


def test_the_zip_holds_the_licence_and_what_the_readme_lists(extension_cli, tmp_path):
    """The README's list of what the zip holds ("The zip holds the add-on only (...)") names every
    top-level entry of the zip Blender's tooling builds, and nothing else; the GPL text is one."""
    import re
    _, names = build(extension_cli, ROOT, tmp_path)
    top = {name.split("/")[0] + ("/" if "/" in name else "") for name in names}
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    listed = re.search(r"The zip holds the add-on only \(([^)]*)\)", readme)
    assert listed is not None
    assert set(re.findall(r"`([^`]+)`", listed.group(1))) == top
    with zipfile.ZipFile(next(tmp_path.glob("*.zip"))) as archive:
        licence = archive.read("LICENSE").decode()
    assert "GNU GENERAL PUBLIC LICENSE" in licence and "Version 3, 29 June 2007" in licence


def test_build_excludes_each_developer_folder_and_file(extension_cli, tmp_path):
    # Some developer folders may be empty in the repository; plant a file in each one of a copy.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv*", ".git", "__pycache__"))
    for folder in DEV_FOLDERS:
        (source / folder).mkdir(exist_ok=True)
        (source / folder / "planted.py").write_text("")
    for dev_file in DEV_FILES:
        (source / dev_file).touch()
    (source / "core" / "__pycache__").mkdir()
    (source / "core" / "__pycache__" / "planted.cpython-311.pyc").write_bytes(b"")
    (tmp_path / "out").mkdir()
    _, names = build(extension_cli, source, tmp_path / "out")
    assert "core/__init__.py" in names
    assert shipped_by_mistake(names) == []


def test_manifest_package_and_changelog_agree_on_the_version():
    import re
    import tomllib
    import gltf_sqlerp
    manifest = tomllib.loads((ROOT / MANIFEST).read_text(encoding="utf-8"))["version"]
    changelog = re.search(r"^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
                          re.MULTILINE)
    assert changelog is not None
    assert manifest == gltf_sqlerp.__version__ == changelog.group(1)
