"""Every valid file we have that Blender's bundled importer imports, this add-on imports too (issue 33).

The corpus: every .gltf and .glb of ../shared/assets/khronos, the Khronos glTF-Validator's own
animation cases whose expected report has no error, the hostile corpus's valid base files, the
project's samples, and the generated files of tools/pointer_files.py (KHR_animation_pointer on
every kind of target, with inputs, outputs and samplers shared between pointer and plain channels).
Each file is imported twice into an empty scene: by the bundled importer alone (File > Import >
glTF 2.0 with "Exact Animation" off), then by ``import_scene.gltf_sqlerp``. Where the first
finishes, the second must too. So that the comparison proves something, the bundled importer must
import every file here but those in ``BUNDLED_REFUSES`` (which ours imports all the same), and the
generated files are checked valid by the validator itself.
"""

import json
from pathlib import Path

import pytest
from conftest import ASSETS, tool
from gltf_validator import errors, validate_all

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[1]
pointer_files = tool("tools/pointer_files.py")
hostile = tool("tools/hostile_corpus.py")


def _validator_valid():
    """The validator's own cases whose expected report counts no error."""
    found = []
    for report in sorted((ASSETS / "validator").glob("*/*.report.json")):
        if json.loads(report.read_text())["issues"]["numErrors"] == 0:
            found.append(report.with_name(report.name.removesuffix(".report.json")))
    return found


SHARED = sorted(p for p in (ASSETS / "khronos").rglob("*") if p.suffix in (".gltf", ".glb"))
FIXED = SHARED + _validator_valid() + sorted((ROOT / "samples").glob("*.gl*"))
# Files the bundled importer refuses in Blender versions first to last (None: open), whether ours
# imports them all the same, and why: a change in either shows here.
BUNDLED_REFUSES = {
    "sqlerp_arm_required.gltf": (None, None, True, "the draft's required form (a channel without a "
                                                   "core sampler) fails its parser; ours reads it"),
    "alpha_cutoff.gltf": ((5, 3), None, False, "animation_pointer.py reads socket_infos[...]['AlphaCutoff'], "
                                               "which 5.3 does not fill: KeyError; ours, built on it, fails alike"),
    "coat_and_sheen.gltf": (None, (5, 0), False, "animation_pointer.py calls path_from_id on a NodeSocket "
                                            "wrapper of its own (fixed in 5.2); ours, built on it, fails alike"),
}


def bundled_refuses(name):
    import bpy
    if name not in BUNDLED_REFUSES:
        return False
    first, last, _, _ = BUNDLED_REFUSES[name]
    version = tuple(bpy.app.version[:2])
    return (first is None or version >= first) and (last is None or version <= last)
GENERATED = [f"pointer/{name}" for name in pointer_files.FILES] + ["hostile/gltf", "hostile/glb"]


def test_the_corpus_holds_every_kind_of_file():
    names = {p.parent.parent.name for p in SHARED}
    # The folder grew (issue 33's note): the newest models are in the corpus.
    assert names >= {"CesiumMilkTruck", "RecursiveSkeletons", "MorphStressTest", "AnimatedMorphSphere",
                     "CesiumMan", "InterpolationTest"}
    assert len(_validator_valid()) >= 2


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """name -> path of every generated file of the corpus, written once."""
    folder = tmp_path_factory.mktemp("corpus")
    paths = {f"pointer/{name}": pointer_files.write(name, folder) for name in pointer_files.FILES}
    for kind in ("gltf", "glb"):
        paths[f"hostile/{kind}"] = hostile.write_base(folder / f"hostile_{kind}", kind)
    return paths


def test_the_generated_files_are_valid(generated):
    reports = validate_all(list(generated.values()))
    assert {name: errors(r) for name, r in zip(generated, reports) if errors(r)} == {}


def check_both_importers(fidelity, path):
    """Import ``path`` with the bundled importer alone, then with ours, each into an empty scene."""
    try:
        fidelity.import_gltf(path, exact=False)
        bundled = None
    except RuntimeError as error:
        bundled = str(error).strip().splitlines()[-1]
    if not bundled_refuses(path.name):
        assert bundled is None, f"the bundled importer refused {path.name}: {bundled}"
    else:
        assert bundled is not None, f"the bundled importer now imports {path.name}: update BUNDLED_REFUSES"
        if not BUNDLED_REFUSES[path.name][2]:
            return
    fidelity.import_gltf(path, exact=True)  # raises RuntimeError with our one-line report


def _label(path):
    return str(path.relative_to(ASSETS if path.is_relative_to(ASSETS) else ROOT))


@pytest.mark.parametrize("path", FIXED, ids=_label)
def test_every_file_the_bundled_importer_takes_imports(fidelity, path):
    check_both_importers(fidelity, path)


@pytest.mark.parametrize("name", GENERATED)
def test_every_generated_file_imports_with_both(fidelity, generated, name):
    check_both_importers(fidelity, generated[name])
