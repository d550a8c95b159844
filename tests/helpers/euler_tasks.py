"""Channel fits to hand to worker pools (tests/core/test_fit_processes.py, its child jobs
tests/jobs/fit_pool_job.py and pool_exit_job.py, tests/operators/test_refits.py): an XYZ Euler
rotation keyed every 4 to 12 frames, Bezier handles a third of the way; ``same_keys`` of two fits;
and ``Unknown``, a task no worker can unpickle.

Built from the classes of ``package`` (``gltf_sqlerp`` in the tests, the Blender-style
``bl_ext.user_default.gltf_sqlerp`` in the child), so that each side pickles its own."""

import sys
import types
from dataclasses import dataclass
from importlib import import_module

import numpy as np

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


def euler_task(seed, keys=40, interpolation="BEZIER", package="gltf_sqlerp"):
    curve_keys = import_module(package + ".core.blender_model").CurveKeys
    fitting = import_module(package + ".core.fitting")
    rng = np.random.default_rng(seed)
    frames = np.cumsum(rng.integers(4, 13, keys)).astype(float)
    curves = []
    for _ in range(3):
        values = np.cumsum(rng.normal(0.0, 0.3, keys))
        third = np.diff(frames, prepend=frames[0] - 8.0) / 3.0
        slope = np.gradient(values, frames)
        curves.append(curve_keys(np.column_stack([frames, values]),
                                 np.column_stack([frames - third, values - slope * third]),
                                 np.column_stack([frames + third, values + slope * third]),
                                 np.array([interpolation] * keys)))
    motion = fitting.RotationMotion("XYZ", frames, curves)
    target = fitting.ChannelTarget(motion, IDENTITY, IDENTITY, slide=frames[0], rate=24.0)
    return fitting.ChannelTask(target, frames[0], frames[-1])


def same_keys(a, b):
    if a.linear is not None or b.linear is not None:  # a core sampler alone (AUTO's smaller form)
        return (a.linear is not None and b.linear is not None and a.interpolation == b.interpolation
                and np.array_equal(a.linear.times, b.linear.times) and a.precision == b.precision
                and np.array_equal(a.linear.values, b.linear.values))
    return (np.array_equal(a.fit.times, b.fit.times)
            and np.array_equal(a.fit.interleaved(), b.fit.interleaved())
            and a.fit.max_error_deg == b.fit.max_error_deg and a.precision == b.precision
            and a.fallback[0] == b.fallback[0]
            and all(np.array_equal(x, y) for x, y in zip(a.fallback[1:], b.fallback[1:]))
            and a.fallback_error_deg == b.fallback_error_deg)


# A module only this process has. The workers see the tests' modules (they start with
# this process's sys.path), but not this one.
PARENT_ONLY = types.ModuleType("gltf_sqlerp_tests_parent_only")
sys.modules[PARENT_ONLY.__name__] = PARENT_ONLY


@dataclass
class Unknown:
    """A class the workers cannot import (its module is not theirs): the worker stops."""

    def fit(self, options):
        raise AssertionError("no worker has this class")


Unknown.__module__ = PARENT_ONLY.__name__
vars(PARENT_ONLY)["Unknown"] = Unknown
