"""core.fit_processes: channel fits in worker processes give what the same fits give in this
process, bit for bit, and every failure is an exception naming it, never a hang."""

import sys
from dataclasses import dataclass

import numpy as np
import pytest

from gltf_sqlerp.core.channel_motion import ChannelTarget, ChannelTask, RotationMotion
from gltf_sqlerp.core.deviation import CurveKeys
from gltf_sqlerp.core.fit_processes import FitProcesses, WorkerError
from gltf_sqlerp.core.rotation_export import ExportOptions

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


def euler_task(seed, keys=40, interpolation="BEZIER"):
    """An XYZ Euler rotation keyed every 4 to 12 frames, Bezier handles a third of the way."""
    rng = np.random.default_rng(seed)
    frames = np.cumsum(rng.integers(4, 13, keys)).astype(float)
    curves = []
    for _ in range(3):
        values = np.cumsum(rng.normal(0.0, 0.3, keys))
        third = np.diff(frames, prepend=frames[0] - 8.0) / 3.0
        slope = np.gradient(values, frames)
        curves.append(CurveKeys(np.column_stack([frames, values]),
                                np.column_stack([frames - third, values - slope * third]),
                                np.column_stack([frames + third, values + slope * third]),
                                np.array([interpolation] * keys)))
    motion = RotationMotion("XYZ", frames, curves)
    target = ChannelTarget(motion, IDENTITY, IDENTITY, slide=frames[0], rate=24.0)
    return ChannelTask(target, frames[0], frames[-1])


def same_keys(a, b):
    return (np.array_equal(a.fit.times, b.fit.times)
            and np.array_equal(a.fit.interleaved(), b.fit.interleaved())
            and a.fit.max_error_deg == b.fit.max_error_deg and a.precision == b.precision
            and a.fallback[0] == b.fallback[0]
            and all(np.array_equal(x, y) for x, y in zip(a.fallback[1:], b.fallback[1:]))
            and a.fallback_error_deg == b.fallback_error_deg)


@pytest.mark.parametrize("fallback", ["LINEAR", "CUBICSPLINE"])
def test_processes_fit_what_this_process_fits(fallback):
    options = ExportOptions(fallback=fallback)
    tasks = [euler_task(seed) for seed in range(5)]
    here = [task.fit(options) for task in tasks]
    with FitProcesses(2, options) as pool:
        for task in tasks:
            pool.submit(task)
        done = []
        there = pool.results(progress=done.append)
    assert done == [1, 2, 3, 4, 5]
    assert all(same_keys(a, b) for a, b in zip(here, there))
    # The dense check's samples stay in the worker; the keys carry what a writer needs.
    assert there[0].fit.played is None and here[0].fit.played is not None


def test_a_failed_fit_is_the_fits_own_error():
    task = euler_task(1, interpolation="ELASTIC")  # easing Blender has and the emulation has not
    with pytest.raises(ValueError) as here:
        task.fit(ExportOptions())
    with FitProcesses(1, ExportOptions()) as pool:
        pool.submit(euler_task(2))
        pool.submit(task)
        with pytest.raises(ValueError) as there:
            pool.results()
    assert str(there.value) == str(here.value) and "ELASTIC" in str(here.value)


@dataclass
class Unknown:
    """A class the workers cannot import (this test module is not theirs): the worker stops."""

    def fit(self, options):
        return None


def test_a_worker_that_stops_is_an_error_not_a_hang():
    with FitProcesses(2, ExportOptions()) as pool:
        pool.submit(Unknown())
        with pytest.raises(WorkerError, match="stopped"):
            pool.results()


def test_workers_that_cannot_start_are_an_error(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    with pytest.raises(WorkerError, match="could not start"):
        FitProcesses(2, ExportOptions())
