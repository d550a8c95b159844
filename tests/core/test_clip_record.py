"""The clip record kept on imported Actions (core.blender_model.clip_record): read back as written, its version
checked, older versions migrated, newer or damaged ones refused with a clear message; and a .blend
saved by add-on 0.1.0 (tests/data, made by an import of samples/sqlerp_arm.gltf on Blender 4.2,
whose records name no slot) still previews and exports on every Blender of the matrix."""

from pathlib import Path

import numpy as np
import pytest
from helpers.preview_checks import EXACT_DEG
from helpers import JOBS, run_job

from gltf_sqlerp import core
from gltf_sqlerp.core.blender_model import clip_record
from gltf_sqlerp.core.blender_model.clip_record import (
    ChannelRecord, ClipRecord, CurveTarget, PointerRecord, RecordError, SamplerRecord
)

ROOT = Path(__file__).resolve().parents[2]
SAVED_BY_0_1_0 = ROOT / "tests" / "data" / "sqlerp_arm_0.1.0.blend"
SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"


def a_clip():
    cubic = SamplerRecord("CUBICSLERP", np.array([0.0, 1.0]), np.arange(24.0).reshape(6, 4), "/animations/0/samplers/1")
    linear = SamplerRecord("LINEAR", np.array([0.0, 0.5, 1.0]), np.ones((3, 4)))
    rotation = ChannelRecord(1, "rotation", "/animations/0/channels/0", "Arm", "Object", "OBArm",
                             'pose.bones["Elbow"].rotation_quaternion',
                             [CurveTarget('pose.bones["Elbow"].rotation_quaternion', i) for i in range(4)],
                             np.eye(4)[::-1], np.zeros(4), "EXTENSION", cubic, linear)
    weights = ChannelRecord(4, "weights", "/animations/0/channels/1", "Key", "Key", "", "",
                            [CurveTarget('key_blocks["a"].value', 0), CurveTarget("", -1)],
                            np.eye(2), np.array([0.0, 0.5]), "EXTENSION",
                            SamplerRecord("STEP", np.array([0.0]), np.array([[0.25, 0.75]])))
    lens = PointerRecord("/animations/0/channels/2", "/cameras/0/perspective/yfov", "CAMERA", "Camera", "CASlot",
                         "LINEAR", [CurveTarget("lens", 0)], np.array([0.0, 1 / 48, 0.1], np.float32),
                         np.array([[38.79], [38.53], [37.0]], np.float32))
    return ClipRecord("arm.gltf", 0, "Wave", "EXTENSION", 0.01, False, 24.0, [rotation, weights], pointers=[lens])


def version_1(stored):
    """What add-on versions before the pointer references wrote: no 'pointers', version 1."""
    return {**{k: v for k, v in stored.items() if k != "pointers"}, "version": 1}


def test_a_record_reads_back_as_it_was_written():
    clip = a_clip()
    stored = clip.to_record()
    assert stored["version"] == clip_record.VERSION == 2
    again = ClipRecord.from_record(stored)
    assert again.to_record().keys() == stored.keys()
    for a, b in zip(clip.channels, again.channels):
        assert (a.node, a.path, a.slot, a.data_path, a.curves) == (b.node, b.path, b.slot, b.data_path, b.curves)
        np.testing.assert_array_equal(a.matrix, b.matrix)
        np.testing.assert_array_equal(a.played("FALLBACK").values, b.played("FALLBACK").values)
    assert again.channels[1].fallback is None and again.channels[1].played("FALLBACK").interpolation == "STEP"
    assert stored["channels"][0]["sampler"]["width"] == 4 and len(stored["channels"][0]["matrix"]) == 16
    lens = again.pointers[0]
    assert (lens.target, lens.id_type, lens.slot, lens.interpolation) == ("/cameras/0/perspective/yfov", "CAMERA",
                                                                          "CASlot", "LINEAR")
    assert lens.times.dtype == lens.values.dtype == np.float32 and lens.values.shape == (3, 1)
    assert stored["pointers"][0]["times"].dtype == np.float32  # stored as Blender's float arrays
    np.testing.assert_array_equal(lens.values[:, 0], np.array([38.79, 38.53, 37.0], np.float32))


def test_a_record_of_version_1_reads_with_no_pointer_references():
    old = version_1(a_clip().to_record())
    again = ClipRecord.from_record(old)
    assert again.version == 2 and again.pointers == [] and len(again.channels) == 2


def test_a_newer_damaged_or_unversioned_record_is_refused_with_what_is_wrong():
    stored = a_clip().to_record()
    with pytest.raises(RecordError, match=r"newer version .*\(record version 3; this one reads up to 2\)"):
        ClipRecord.from_record({**stored, "version": 3})
    with pytest.raises(RecordError, match="no valid version"):
        ClipRecord.from_record({key: value for key, value in stored.items() if key != "version"})
    broken = a_clip().to_record()
    broken["channels"][0]["sampler"]["values"] = [0.0]  # not a whole number of quaternions
    with pytest.raises(RecordError, match="is damaged: ValueError"):
        ClipRecord.from_record(broken, "the clip of 'Walk'")
    with pytest.raises(RecordError, match="is damaged: KeyError: 'frames_per_second'"):
        ClipRecord.from_record({k: v for k, v in stored.items() if k != "frames_per_second"})


def test_an_older_record_is_migrated_step_by_step(monkeypatch):
    """As the next layout change will do: VERSION 3 with one more step (here, renaming a field
    back and forth), so a version-1 record, like those in every .blend saved by 0.1.0, reads
    through both steps."""
    def rename_out(stored):
        return {**stored, "version": 3, "frames_per_second": stored["fps_v1_name"]}
    monkeypatch.setattr(clip_record, "VERSION", 3)
    monkeypatch.setattr(clip_record, "MIGRATIONS", {1: clip_record.MIGRATIONS[1], 2: rename_out})
    old = version_1(a_clip().to_record())
    old["fps_v1_name"] = old.pop("frames_per_second")
    again = ClipRecord.from_record(old)
    assert again.frames_per_second == 24.0 and again.pointers == []


@pytest.mark.blender
def test_a_blend_saved_by_0_1_0_previews_and_exports(tmp_path):
    """In a fresh Blender (tests/jobs/stored_clip_job.py), as a user opens an old file."""
    output = tmp_path / "again.glb"
    job = run_job(JOBS / "stored_clip_job.py", SAVED_BY_0_1_0, SAMPLE, output)
    assert (job["version"], job["name"], job["channels"]) == (clip_record.VERSION, "Wave", 4)  # migrated
    assert job["slots"] == [""]  # written on Blender 4.2: no slots
    assert job["previewed_deg"] < EXACT_DEG
    assert job["export"] == ["FINISHED"]
    cubic = [c for c in job["exported"] if c["form"] == "CUBICSLERP"]
    assert len(cubic) == 3 and all(c["kept"] for c in cubic)  # the stored keys, not a new fit
    again = core.load(output)
    assert sum(c.uses_extension for a in again.animations for c in a.channels) == 3
