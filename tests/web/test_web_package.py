"""The web code is one npm package (viewers/package.json), used as a user of the package uses it.

``npm pack`` packs viewers/ into a tarball; a scratch project installs that tarball beside the engines
it plays in (three.js, Babylon.js, glTF-Transform, pinned as in tests/validator/package.json) and imports every
entry point of its ``exports`` map by its public name (tests/web_package/use_package.mjs). What the
entry points do there is checked against the add-on's core and hand-worked values, the CLI runs with
the packaged config, and TypeScript compiles code that uses every declaration (and refuses code that
misuses them, so the declarations are in effect).
"""

import json
import shutil
import subprocess
import tarfile
import tomllib

import numpy as np
import pytest

from helpers.child_job import ROOT, tool
from helpers import TESTS

from gltf_sqlerp import core

three_player = tool("tools/three_player.py")

PACKAGE = ROOT / "viewers"
NAME = "ext-animation-sqlerp"
HERE = TESTS / "web_package"
SAMPLE = ROOT / "samples" / "sqlerp_arm.glb"
PINNED = ROOT / "tests" / "validator" / "package.json"
# What the scratch project installs beside the tarball: the engines, the CLI and TypeScript.
PEERS = ("three", "@types/three", "@babylonjs/core", "@babylonjs/loaders", "babylonjs-gltf2interface",
         "@gltf-transform/core", "@gltf-transform/extensions", "@gltf-transform/cli", "typescript")
TIMEOUT = 600


def _run(command, cwd, check=True):
    npm_or_node = shutil.which(command[0])
    assert npm_or_node, f"{command[0]} is not on PATH (python dev.py test needs Node.js with npm)"
    done = subprocess.run([npm_or_node, *command[1:]], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    if check:
        assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def packed(tmp_path_factory):
    """(tarball, the files npm put in it) of ``npm pack viewers``."""
    folder = tmp_path_factory.mktemp("pack")
    done = _run(["npm", "pack", "--json", "--pack-destination", str(folder), str(PACKAGE)], cwd=folder)
    [report] = json.loads(done.stdout)
    return folder / report["filename"], sorted(entry["path"] for entry in report["files"])


@pytest.fixture(scope="module")
def project(packed, tmp_path_factory):
    """A scratch project with the tarball and the pinned peers installed, and the test's scripts."""
    folder = tmp_path_factory.mktemp("project")
    pins = json.loads(PINNED.read_text())["dependencies"]
    dependencies = {NAME: f"file:{packed[0]}", **{name: pins[name] for name in PEERS}}
    (folder / "package.json").write_text(json.dumps(
        {"name": "scratch", "private": True, "type": "module", "dependencies": dependencies}))
    _run(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund"], cwd=folder)
    for script in HERE.iterdir():
        shutil.copy(script, folder)
    return folder


@pytest.fixture(scope="module")
def used(project):
    out = project / "out.glb"
    done = _run(["node", "use_package.mjs", str(SAMPLE), str(out)], cwd=project)
    return json.loads(done.stdout)


def _exports():
    return json.loads((PACKAGE / "package.json").read_text())["exports"]


def test_the_package_is_named_licensed_and_versioned_with_the_add_on():
    manifest = json.loads((PACKAGE / "package.json").read_text())
    addon = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    assert manifest["name"] == NAME and manifest["license"] == "MIT" and manifest["type"] == "module"
    assert manifest["version"] == addon["version"]
    assert (PACKAGE / "LICENSE").read_text().startswith("MIT License")


def test_the_tarball_holds_every_entry_point_and_nothing_else(packed):
    tarball, files = packed
    targets = {path.removeprefix("./") for target in _exports().values()
               for path in (target.values() if isinstance(target, dict) else [target])}
    assert targets <= set(files)
    # Beside the entry points: the package's README and licence, and the glTF-Transform command notes.
    assert set(files) - targets == {"README.md", "LICENSE", "gltf-transform/README.md"}
    with tarfile.open(tarball) as archive:
        licence = archive.extractfile("package/LICENSE")
        assert licence is not None and licence.read().decode().startswith("MIT License")


def test_every_entry_point_imports_by_its_public_name(used):
    specifiers = {NAME + subpath[1:] for subpath in _exports() if subpath != "./package.json"}
    assert set(used["entries"]) == specifiers
    assert {"GLTFAnimationSqlerpExtension", "cubicSlerpTrack"} <= set(used["entries"][f"{NAME}/three"])
    assert {"EXTAnimationSqlerp", "AnimationSqlerp"} <= set(used["entries"][f"{NAME}/gltf-transform"])
    assert {"registerSqlerpExtension", "GLTFAnimationSqlerpExtension"} <= set(used["entries"][f"{NAME}/babylon"])
    assert {"EXTENSION_NAME", "cubicSlerpInto", "firstPlayable"} <= set(used["entries"][NAME])


def test_a_path_outside_the_exports_map_is_refused(project):
    # The map is real: a deep import of a file the map does not name fails as Node.js says it must.
    done = _run(["node", "-e", f"import('{NAME}/three/EXT_animation_sqlerp.js')"], cwd=project, check=False)
    assert done.returncode != 0 and "ERR_PACKAGE_PATH_NOT_EXPORTED" in done.stderr


@pytest.mark.parametrize("engine", ["three", "babylon"])
def test_the_installed_players_play_the_sample_as_the_core(used, engine):
    # babylon's hand-worked values come from the package's root module (the players' arithmetic).
    played = used[engine]
    channel = next(c for c in core.load(str(SAMPLE)).animations[0].channels
                   if c.node == played["node"] and c.path == "rotation")
    wanted = channel.evaluate(np.array(played["times"]))
    assert three_player.deviation(np.array(played["quaternions"]), wanted).max() < 1e-6
    # The hand-worked turn about Z: 30.9375, 45 and 59.0625 degrees at a quarter, half, three quarters.
    half = np.radians([30.9375, 45.0, 59.0625]) / 2
    hand = np.stack([np.zeros(3), np.zeros(3), np.sin(half), np.cos(half)], axis=1)
    assert three_player.deviation(np.array(played["handWorked"]), hand).max() < 1e-7


def _cubicslerp_curves(path, at):
    return [channel.evaluate(at) for animation in core.load(str(path)).animations
            for channel in animation.channels if channel.uses_extension]


def test_the_installed_gltf_transform_extension_keeps_every_curve(used, project):
    at = np.linspace(0.0, 2.0, 481)
    curves = _cubicslerp_curves(SAMPLE, at)
    assert len(curves) == used["gltfTransform"]["extensionChannels"] >= 3
    written = _cubicslerp_curves(used["gltfTransform"]["written"], at)
    assert [np.abs(a - b).max() < 1e-6 for a, b in zip(curves, written)] == [True] * len(curves)
    # The CLI with the packaged config, as the package's README tells a user to run it.
    config = f"node_modules/{NAME}/gltf-transform/gltf-transform.config.mjs"
    _run(["npx", "--no-install", "gltf-transform", "copy", str(SAMPLE), "cli.glb", "--config", config], cwd=project)
    copied = _cubicslerp_curves(project / "cli.glb", at)
    assert [np.abs(a - b).max() < 1e-6 for a, b in zip(curves, copied)] == [True] * len(curves) and copied


def _type_errors(project, skip_lib_check):
    """(file, code) of every error tsc reports on the scratch project (check.ts and misuse.ts)."""
    done = _run(["npx", "--no-install", "tsc", "-p", ".", "--skipLibCheck", str(skip_lib_check).lower()], cwd=project,
                check=False)
    return [(line.split("(")[0], line.split(": error ")[1].split(":")[0]) for line in done.stdout.splitlines()
            if ": error TS" in line]


def test_typescript_compiles_against_the_declarations(project):
    # check.ts uses every declaration and must compile; misuse.ts must fail with exactly its three
    # errors. skipLibCheck as Babylon.js asks of its users (its declarations need WebGPU's types).
    assert _type_errors(project, True) == [("misuse.ts", "TS2345"), ("misuse.ts", "TS2322"), ("misuse.ts", "TS2345")]


def test_the_declarations_themselves_type_check(project):
    # With skipLibCheck off every .d.ts is checked: the engines' own report errors (Babylon's need
    # WebGPU's types), the package's must not.
    errors = _type_errors(project, False)
    assert ("misuse.ts", "TS2322") in errors  # the run checked the project
    assert [(file, code) for file, code in errors if f"node_modules/{NAME}/" in file] == []
