"""operators.exporting.fitting.Refits: the pass down the tree hands it channel fits one by one and
takes back each as it ends. The keys are those of the same tasks fitted in this process (the
references); a pool whose worker stops mid-way leaves the rest to threads, keys unchanged."""

import numpy as np
import pytest

from gltf_sqlerp.core.fitting.rotation_export import ExportOptions
from gltf_sqlerp.fit_workers.processes import FitProcesses

from helpers.euler_tasks import Unknown, euler_task, same_keys

pytestmark = pytest.mark.blender


def drain(refits, tasks):
    """{handle: keys} of ``tasks`` submitted a few at a time, as the pass down the tree does."""
    handles, keys = [], {}
    for at in range(0, len(tasks), 2):
        handles += [refits.submit(task) for task in tasks[at:at + 2]]
        for handle, fitted in refits.ended():
            assert handle not in keys  # each once
            keys[handle] = fitted
    while len(keys) < len(tasks):
        keys.update(refits.ended())
    return [keys[handle] for handle in handles]


@pytest.mark.parametrize("pooled", [True, False])
def test_refits_give_each_tasks_keys_in_processes_or_threads(addon, pooled):
    from gltf_sqlerp.operators.exporting.fitting import ChannelFits
    options = ExportOptions()
    tasks = [euler_task(seed, keys=12) for seed in range(5)]
    here = [task.fit(options) for task in tasks]
    with ChannelFits(options) as fits:
        if pooled:
            fits.pool = FitProcesses(2, options)
        with fits.refits(len(tasks)) as refits:
            there = drain(refits, tasks)
    assert all(same_keys(a, b) for a, b in zip(here, there))


def test_a_worker_lost_mid_way_leaves_the_rest_to_threads(addon, capsys):
    from gltf_sqlerp.operators.exporting.fitting import ChannelFits
    options = ExportOptions()
    tasks = [euler_task(seed, keys=12) for seed in range(4)]
    here = [task.fit(options) for task in tasks]
    with ChannelFits(options) as fits:
        fits.pool = FitProcesses(2, options)
        with fits.refits(len(tasks)) as refits:
            first = drain(refits, tasks[:2])
            lost = fits.pool.submit(Unknown())  # a worker stops: the pool is broken from here on
            fits.pool.ended({lost})
            rest = drain(refits, tasks[2:])
        assert fits.pool is False  # closed, never tried again for this export
    assert all(same_keys(a, b) for a, b in zip(here, first + rest))
    assert "fitting in Blender's process instead" in capsys.readouterr().err
    assert np.isfinite([keys.fit.max_error_deg for keys in first + rest if keys.fit is not None]).all()
