"""Channel fits to hand to worker pools (tests/test_fit_processes.py and its child fit_pool_job.py):
an XYZ Euler rotation keyed every 4 to 12 frames, Bezier handles a third of the way.

Built from the classes of ``package`` (``gltf_sqlerp`` in the tests, the Blender-style
``bl_ext.user_default.gltf_sqlerp`` in the child), so that each side pickles its own."""

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
