"""Every valid file we have that Blender's bundled importer imports, this add-on imports too (issue 33).

The corpus: every .gltf and .glb of ../shared/assets/khronos, the Khronos glTF-Validator's own
animation cases whose expected report has no error, the hostile corpus's valid base files, the
project's samples, and the generated files of tools/pointer_files.py (KHR_animation_pointer on
every kind of target, with inputs, outputs and samplers shared between pointer and plain channels).
Each file is imported twice into an empty scene: by the bundled importer alone (File > Import >
glTF 2.0 with "Exact Animation" off), then by ``import_scene.gltf_sqlerp``. Where the first
finishes, the second must too. So that the comparison proves something, the bundled importer must
import every file here but those in ``BUNDLED_REFUSES`` (which ours imports all the same), and the
generated files are checked valid by the validator itself. The corpus is tests/helpers/import_corpus.py's;
tests/operators/test_import_inventory.py compares what the two imports build.
"""

import pytest
from helpers.gltf_validator import errors, validate_all
from helpers.import_corpus import (BUNDLED_REFUSES, FIXED, GENERATED, SHARED, bundled_refuses, label,
                                   validator_valid, write_generated)

pytestmark = pytest.mark.blender


def test_the_corpus_holds_every_kind_of_file():
    names = {p.parent.parent.name for p in SHARED}
    # The folder grew (issue 33's note): the newest models are in the corpus.
    assert names >= {"CesiumMilkTruck", "RecursiveSkeletons", "MorphStressTest", "AnimatedMorphSphere",
                     "CesiumMan", "InterpolationTest"}
    assert len(validator_valid()) >= 2


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """name -> path of every generated file of the corpus, written once."""
    return write_generated(tmp_path_factory.mktemp("corpus"))


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


@pytest.mark.parametrize("path", FIXED, ids=label)
def test_every_file_the_bundled_importer_takes_imports(fidelity, path):
    check_both_importers(fidelity, path)


@pytest.mark.parametrize("name", GENERATED)
def test_every_generated_file_imports_with_both(fidelity, generated, name):
    check_both_importers(fidelity, generated[name])
