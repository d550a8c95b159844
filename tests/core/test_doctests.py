"""The examples in the docstrings of the core (and of bundled_gltf.handlers) run and print what
they say, as ``pytest --doctest-modules`` runs them.

They run here, under the package's own name (``gltf_sqlerp.core...``): ``--doctest-modules`` names
a module after the folder of the clone, which need not be a Python identifier. The examples read
the project's sample from the repository folder. The scripting API's functions each carry one.
"""

import doctest
import importlib
import pkgutil

import pytest

from helpers.child_job import ROOT

import gltf_sqlerp.core

OTHERS = ["gltf_sqlerp.bundled_gltf.handlers"]  # Blender-free modules outside the core with examples
MODULES = ["gltf_sqlerp.core", *(info.name for info in pkgutil.walk_packages(gltf_sqlerp.core.__path__,
                                                                             "gltf_sqlerp.core.")), *OTHERS]
FINDER = doctest.DocTestFinder(exclude_empty=True)
EXAMPLES = {name: [test for test in FINDER.find(importlib.import_module(name)) if test.examples]
            for name in MODULES}
# The scripting API (docs/manual/scripting.md): each of these documents itself with an example.
DOCUMENTED = {"gltf_sqlerp.core.document.load", "gltf_sqlerp.core.document.Document.node_matrices",
              "gltf_sqlerp.core.sampling.animation.Channel.evaluate",
              "gltf_sqlerp.core.fitting.sqlerp_fit.fit_cubicslerp", "gltf_sqlerp.core.fitting.sqlerp_fit.FitOptions",
              "gltf_sqlerp.core.conversion.converter.ConvertOptions",
              "gltf_sqlerp.core.sampling.quaternions.slerp", "gltf_sqlerp.core.sampling.quaternions.sqlerp",
              "gltf_sqlerp.core.sampling.quaternions.angle_between", "gltf_sqlerp.core.constants",
              "gltf_sqlerp.core.sampling.quaternions.normalize",
              "gltf_sqlerp.core.sampling.quaternions.make_continuous",
              "gltf_sqlerp.core.sampling.interpolation.evaluate", "gltf_sqlerp.core.sampling.metrics.dense_times",
              "gltf_sqlerp.core.fitting.rotation_export.check_grid"}


def test_the_scripting_api_has_examples():
    found = {test.name for tests in EXAMPLES.values() for test in tests}
    assert DOCUMENTED - found == set()


def _registered():
    from gltf_sqlerp.bundled_gltf import handlers
    return handlers.importing(), handlers.exporting(), handlers.previewing()


@pytest.mark.parametrize("name", sorted(name for name, tests in EXAMPLES.items() if tests))
def test_the_examples_run(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read samples/ from the repository folder
    printed, before = [], _registered()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in EXAMPLES[name]:
        runner.run(test, out=printed.append)
    assert runner.failures == 0, "".join(printed)
    assert runner.tries >= 1
    # An example leaves the add-on as it was: the hooks' handlers (a registered add-on's) stay.
    assert _registered() == before
