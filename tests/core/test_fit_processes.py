"""fit_workers.processes: channel fits in worker processes give what the same fits give in this
process, bit for bit, and every failure is an exception naming it, never a hang."""

import multiprocessing
import os
import sys
import time
import types
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

import numpy as np
import pytest

from gltf_sqlerp.core.fitting.channel_motion import ChannelTarget, ChannelTask, SampleCheck
from gltf_sqlerp.fit_workers.processes import FitProcesses, WorkerError
from gltf_sqlerp.core.fitting.rotation_export import ExportOptions
from gltf_sqlerp.core.gltf import as_stored
from gltf_sqlerp.core.sampling import Evaluator
from gltf_sqlerp.core.sampling import quaternions as Q

from helpers.euler_tasks import IDENTITY, Unknown, euler_task, same_keys
from helpers import JOBS, run_job

JOB = JOBS / "fit_pool_job.py"


def fitted(results):
    """``results`` of tasks none of which was withdrawn: the keys of every one."""
    keys = [each for each in results if each is not None]
    assert len(keys) == len(results)
    return keys


@pytest.mark.parametrize("fallback", ["LINEAR", "CUBICSPLINE"])
def test_processes_fit_what_this_process_fits(fallback):
    options = ExportOptions(fallback=fallback)
    tasks = [euler_task(seed) for seed in range(5)]
    here = [task.fit(options) for task in tasks]
    with FitProcesses(2, options) as pool:
        for task in tasks:
            pool.submit(task)
        done = []
        there = fitted(pool.results(progress=done.append))
    assert done == [1, 2, 3, 4, 5]
    assert all(same_keys(a, b) for a, b in zip(here, there))
    # The dense check's samples stay in the worker; the keys carry what a writer needs.
    assert there[0].fit is not None and here[0].fit is not None
    assert there[0].fit.played is None and here[0].fit.played is not None


def test_a_task_with_the_world_grid_plays_its_motion_and_keys_there_in_a_worker():
    """ChannelTask.grid: the keys come back with the exact motion and what they play at those
    seconds (the world pass composes them), equal to the motion evaluated anew at every second and
    to the core Evaluator playing the written keys, held outside the range."""
    task = euler_task(3)
    rate, first, last = task.target.rate, task.start, task.end
    seconds = (np.arange(first - 4.0, last + 4.0, 1.0 / 8.0) - task.target.slide) / rate
    grid = np.concatenate([seconds, seconds[5:9] + 0.3 / rate])  # on and off the check grid
    task.grid = grid
    with FitProcesses(2, ExportOptions()) as pool:
        pool.submit(task)
        keys = fitted(pool.results())[0]
    assert keys.on_grid is not None
    exact, written = keys.on_grid
    assert np.abs(exact - task.exact_at(grid)).max() < 1e-12
    assert keys.linear is not None  # the default's smaller form on this curve: a core sampler alone
    times = keys.linear.times
    player = Evaluator(keys.interpolation, times, as_stored(keys.linear.values, keys.precision), rotation=True)
    expected = Q.normalize(player(np.clip(grid, times[0], times[-1])))
    assert np.abs(written - expected).max() < 1e-12


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


def test_small_tasks_go_in_batches_each_with_its_own_keys_or_error():
    """Tasks of three keys (about a millisecond of fitting each, as long as the executor takes to
    hand one over) go to the workers several at a time: fewer batches than tasks, every task's
    keys what this process fits, and a task that fails raises its own error alone, the tasks
    batched with it keeping their keys."""
    options = ExportOptions()
    tasks = [euler_task(seed, keys=3) for seed in range(24)]
    tasks.insert(5, euler_task(1, keys=3, interpolation="ELASTIC"))
    here = [task.fit(options) for task in tasks[:5] + tasks[6:]]
    with FitProcesses(2, options, active=0) as pool:
        indices = [pool.submit(task) for task in tasks]
        pool.activate()
        there = fitted(pool.collect(indices[:5] + indices[6:]))
        with pytest.raises(ValueError, match="ELASTIC"):
            pool.outcome(indices[5])
        assert 2 <= pool.batches <= len(tasks) // 3
    assert all(same_keys(a, b) for a, b in zip(here, there))


@pytest.mark.blender
@pytest.mark.parametrize("processes", [True, False])
def test_the_pass_takes_other_work_while_the_workers_fit(addon, monkeypatch, processes):
    """export_fitting.Refits (the pass down the tree): while no fit has ended in the worker
    processes, Blender's thread takes steps of other work (the export's reduction of translation
    and scale keys) instead of waiting, and the fit's keys are the same; fitting in threads, it
    takes none (it would hold Python's lock that they fit under)."""
    from gltf_sqlerp.operators.exporting import fitting
    monkeypatch.setattr(fitting, "PROCESS_MIN_CHECKS", 0 if processes else float("inf"))
    taken: list[float] = []

    def steps():
        for _ in range(50):
            time.sleep(0.002)
            taken.append(time.time())
            yield True

    options = ExportOptions()
    with fitting.ChannelFits(options) as fits:
        fits.add(euler_task(0, keys=3))
        fits.results()
        assert bool(fits.pool) == processes
        with fits.refits(1, steps()) as refits:
            nap_task: Any = Nap(0.3)  # a task that takes its time, where a ChannelTask goes
            refits.submit(nap_task)
            (_, nap), = refits.ended()
            task = euler_task(1)
            refits.submit(task)
            (_, keys), = refits.ended()
    end = vars(nap)["span"][1]
    if processes:  # every step (0.1 s in all) before the 0.3 s fit ended
        assert len(taken) == 50 and taken[-1] < end
    else:
        assert taken == []
    assert same_keys(keys, task.fit(options))


def test_a_task_checks_every_sample_blender_gave_it():
    """Blender's samples of the channel (the bundled exporter's) are checked at fit time: on the
    check grid (whole frames) and off it (evaluated there). Samples that are the motion change
    nothing; one sample turned by 0.01 degrees (more than AGREEMENT_DEG) leaves the channel
    unfitted, saying how far off it is; by 0.004 degrees, fitted as usual."""
    options = ExportOptions(fallback="NONE")
    task = euler_task(3)
    frames = np.concatenate([np.arange(task.start, task.end), task.start + 0.3 + np.arange(5)])
    played = task.target.at_frames(frames)
    plain = task.fit(options)
    checked = ChannelTask(task.target, task.start, task.end, samples=(frames, played)).fit(options)
    assert not checked.skipped and checked.fit is not None and plain.fit is not None
    assert np.array_equal(checked.fit.interleaved(), plain.fit.interleaved())
    for at, degrees, skipped in ((7, 0.01, True), (len(frames) - 2, 0.01, True), (7, 0.004, False)):
        half = np.radians(degrees) / 2.0  # a turn about x by ``degrees``, on the right
        turned = quat_multiply_x(played[at], half)
        samples = played.copy()
        samples[at] = turned
        keys = ChannelTask(task.target, task.start, task.end, samples=(frames, samples)).fit(options)
        assert bool(keys.skipped) == skipped, (at, degrees)
        if skipped:
            assert keys.fit is None and f"({degrees:.3g} deg off" in keys.skipped
        else:
            assert keys.fit is not None and np.array_equal(keys.fit.interleaved(), plain.fit.interleaved())


def test_a_sample_check_in_a_worker_says_what_the_fit_says():
    """Keys fitted before Blender's samples existed (the export's head start) are checked by a
    SampleCheck in a worker: samples that are the motion pass; one sample turned by 0.01 degrees
    is refused with the fit's own words. fits_like tells the tasks whose keys are the same."""
    task = euler_task(4)
    frames = np.concatenate([np.arange(task.start, task.end), task.start + 0.3 + np.arange(5)])
    played = task.target.at_frames(frames)
    turned = played.copy()
    turned[9] = quat_multiply_x(played[9], np.radians(0.01) / 2.0)
    agreeing = ChannelTask(task.target, task.start, task.end, samples=(frames, played))
    refusing = ChannelTask(task.target, task.start, task.end, samples=(frames, turned))
    with FitProcesses(2, ExportOptions()) as pool:
        for checked in (agreeing, refusing):
            pool.submit(SampleCheck(checked))
        passed, refused = fitted(pool.results())
    assert passed.fit is None and passed.skipped == ""
    assert refused.skipped == refusing.fit(ExportOptions()).skipped and "(0.01 deg off" in refused.skipped
    assert task.fits_like(agreeing) and task.fits_like(refusing)
    other = ChannelTarget(task.target.motion, quat_multiply_x(IDENTITY, 1e-9), IDENTITY,
                          task.target.slide, task.target.rate)
    assert not task.fits_like(ChannelTask(other, task.start, task.end))
    assert not task.fits_like(ChannelTask(task.target, task.start, task.end - 1.0))
    assert not task.fits_like(euler_task(4))  # the same keys, read again: another motion


def test_withdrawn_tasks_are_never_sent_and_their_results_are_none():
    """A pool whose workers do not fit yet (active=0): a withdrawn task is never sent (an Unknown
    one would stop its worker), a failing one is not raised, and both results are None."""
    options = ExportOptions()
    failing = euler_task(1, interpolation="ELASTIC")
    with FitProcesses(2, options, active=0) as pool:
        indices = [pool.submit(task) for task in (Unknown(), euler_task(5), failing)]
        assert indices == [0, 1, 2] and pool.submitted == 3
        pool.withdraw({0, 2})
        results = pool.results()
    assert results[0] is None and results[2] is None
    assert same_keys(results[1], euler_task(5).fit(options))


def quat_multiply_x(q, half):
    """q · (sin h, 0, 0, cos h), (x, y, z, w), written out (Hamilton product)."""
    x, y, z, w = q
    s, c = np.sin(half), np.cos(half)
    return np.array([w * s + x * c, y * c + z * s, z * c - y * s, w * c - x * s])


@dataclass
class Nap:
    """A task that sleeps in a worker and says when (the workers import this module: they start
    with this process's sys.path)."""
    seconds: float

    def fit(self, options) -> Any:
        start = time.time()
        time.sleep(self.seconds)
        return types.SimpleNamespace(fit=None, span=(start, time.time()))


def test_only_the_active_workers_fit_until_activate():
    """The export's head start: one of two workers fits while the bundled exporter gathers (the
    other waits, a task in hand), both once activated."""
    with FitProcesses(2, ExportOptions(), active=1) as pool:
        spans = sorted(vars(keys)["span"] for keys in pool.collect([pool.submit(Nap(0.3)) for _ in range(3)]))
        assert all(before[1] <= after[0] for before, after in zip(spans, spans[1:]))
        pool.activate()
        first, second = (vars(keys)["span"] for keys in pool.collect([pool.submit(Nap(0.5)) for _ in range(2)]))
        assert first[0] < second[1] and second[0] < first[1]


def test_a_worker_that_stops_is_an_error_not_a_hang():
    with FitProcesses(2, ExportOptions()) as pool:
        pool.submit(Unknown())
        with pytest.raises(WorkerError, match="stopped"):
            pool.results()


def test_workers_that_cannot_start_are_an_error(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    with pytest.raises(WorkerError, match="could not start"):
        FitProcesses(2, ExportOptions())


def test_a_pool_started_from_blenders_package_name_fits_there_too():
    """The package loaded as Blender loads an installed extension (bl_ext.user_default.gltf_sqlerp,
    under modules no new interpreter has) from an unguarded main script (as blender --python runs
    one): the workers fit what that process fits, the keys are that package's classes, and no
    worker ran the script again (it stops any worker that does)."""
    job = run_job(JOB, timeout=300)
    assert job == {"same_keys": True, "plain_package_loaded": False,
                   "modules": ["bl_ext.user_default.gltf_sqlerp.core.fitting.channel_keys"]}


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="POSIX priorities")
def test_workers_give_way_to_blender():
    """Workers run at a lower priority than this process (Blender's threads get a core first),
    with one BLAS thread each: on Linux, numpy loaded and no other thread than the main one."""
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    before = set(multiprocessing.active_children())
    with FitProcesses(2, ExportOptions()) as pool:
        workers = set(multiprocessing.active_children()) - before
        for seed in range(4):
            pool.submit(euler_task(seed))
        pool.results()
        assert len(workers) == 2
        pids, lowered = [worker.pid or 0 for worker in workers], min(ours + 10, 19)
        deadline = time.monotonic() + 30.0  # a worker's start ends on its own, lowering it last
        while any(os.getpriority(os.PRIO_PROCESS, pid) != lowered for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in pids:
            assert os.getpriority(os.PRIO_PROCESS, pid) == lowered and started(pid)
            if os.path.isdir(f"/proc/{pid}/task"):
                assert len(os.listdir(f"/proc/{pid}/task")) == 1


def started(pid):
    """Whether worker ``pid`` has loaded numpy (where /proc tells; else its start has ended)."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            return "numpy" in maps.read()
    except OSError:
        return True


def test_closing_a_pool_stops_the_workers_that_fit():
    """An export cancelled while its workers fit: close() returns at once, and the workers are
    gone long before their fits would have ended (4,000 keys: about 4 s each)."""
    before = set(multiprocessing.active_children())
    pool = FitProcesses(2, ExportOptions())
    workers = set(multiprocessing.active_children()) - before
    for seed in range(4):
        pool.submit(euler_task(seed, keys=4000))
    deadline = time.monotonic() + 30.0
    while not all(started(worker.pid) for worker in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # the workers have taken their tasks
    start = time.monotonic()
    pool.close()
    assert time.monotonic() - start < 0.5
    sentinels = [worker.sentinel for worker in workers]
    deadline = start + 2.0
    while len(ended := wait(sentinels, timeout=0.1)) < len(sentinels) and time.monotonic() < deadline:
        pass
    assert len(workers) == 2 and len(ended) == 2


def running(pid):
    """Whether process ``pid`` still runs (a zombie waiting for its parent does not, where /proc
    tells)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc (macOS, Windows): whether the process id still answers
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False


def test_a_process_that_ends_right_after_closing_its_pool_leaves_no_worker():
    """A script that closes its pool and ends with os._exit (the command line; the tests' jobs):
    no worker outlives it. Orphaned workers kept each other alive (each holds the others' end of
    the executor's queue) and held the script's stdout and stderr open, so a caller reading them
    waited for ever (seen once: a test job ran into its 600 s timeout)."""
    pids = run_job(JOBS / "pool_exit_job.py", timeout=120, cwd=JOBS)
    deadline = time.monotonic() + 5.0
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(pids) == 2 and not any(running(pid) for pid in pids)


def test_ended_gives_each_task_once_and_together_what_ended_together():
    with FitProcesses(2, ExportOptions()) as pool:
        slow, quick = pool.submit(Nap(0.8)), pool.submit(Nap(0.05))
        assert pool.ended({slow, quick}) == [quick]  # waits for the first to end, not for both
        assert pool.ended({slow}) == [slow]
        first, second = pool.submit(Nap(0.05)), pool.submit(Nap(0.05))
        time.sleep(0.6)  # both end meanwhile: taken in one call
        assert sorted(pool.ended({first, second})) == [first, second]
        spans = [vars(pool.outcome(index))["span"] for index in (slow, quick, first, second)]
        assert spans[0][1] - spans[0][0] >= 0.8 and spans[1][1] - spans[1][0] < 0.8


def test_a_worker_that_stops_ends_its_task_with_an_error():
    with FitProcesses(2, ExportOptions()) as pool:
        index = pool.submit(Unknown())
        assert pool.ended({index}) == [index]
        with pytest.raises(WorkerError, match="stopped"):
            pool.outcome(index)
