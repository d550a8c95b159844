"""Our own EXT_animation_sqlerp sample follows the spec (docs/EXT_animation_sqlerp/README.md).

The expected values are computed here with plain ``math`` on one quaternion at a time, independent
of the numpy core, from the spec's formulas; the file is read
with ``json`` and ``numpy.frombuffer``, independent of the core's reader.
"""

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from gltf_sqlerp import core

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


# --- an independent scalar quaternion toolkit (x, y, z, w) -------------------------------------

def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def qinv(q):
    return (-q[0], -q[1], -q[2], q[3])


def qlog(q):
    x, y, z, w = q
    if w < 0:  # the shorter of q and -q
        x, y, z, w = -x, -y, -z, -w
    n = math.sqrt(x * x + y * y + z * z)
    if n < 1e-300:
        return (0.0, 0.0, 0.0)
    angle = math.atan2(n, w)
    return (x / n * angle, y / n * angle, z / n * angle)


def qexp(v):
    n = math.sqrt(sum(c * c for c in v))
    if n < 1e-300:
        return (0.0, 0.0, 0.0, 1.0)
    s = math.sin(n) / n
    return (v[0] * s, v[1] * s, v[2] * s, math.cos(n))


def qdot(a, b):
    return sum(x * y for x, y in zip(a, b))


def qslerp(a, b, t):
    d = qdot(a, b)
    if d < 0:
        b, d = tuple(-c for c in b), -d
    angle = math.acos(min(d, 1.0))
    if angle < 1e-9:
        r = tuple(x + t * (y - x) for x, y in zip(a, b))
    else:
        wa, wb = math.sin((1 - t) * angle) / math.sin(angle), math.sin(t * angle) / math.sin(angle)
        r = tuple(wa * x + wb * y for x, y in zip(a, b))
    n = math.sqrt(qdot(r, r))
    return tuple(c / n for c in r)


def angle_deg(a, b):
    return math.degrees(2 * math.acos(min(abs(qdot(a, b)) / math.sqrt(qdot(a, a) * qdot(b, b)), 1.0)))


# --- reading the sample without the core -------------------------------------------------------

def read_plain(path):
    if path.suffix == ".glb":
        data = path.read_bytes()
        json_length = struct.unpack_from("<I", data, 12)[0]
        document = json.loads(data[20:20 + json_length])
        blob = data[20 + json_length + 8:]
    else:
        document = json.loads(path.read_text())
        uri = document["buffers"][0]["uri"]
        if uri.startswith("data:"):
            import base64
            blob = base64.b64decode(uri.split(",", 1)[1])
        else:
            blob = (path.parent / uri).read_bytes()

    def accessor(i):
        acc = document["accessors"][i]
        view = document["bufferViews"][acc["bufferView"]]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4, "MAT4": 16}[acc["type"]]
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        return np.frombuffer(blob, "<f4", acc["count"] * width, start).reshape(acc["count"], width)
    return document, accessor


def rotation_channels(document, accessor):
    animation = document["animations"][0]
    for channel in animation["channels"]:
        if channel["target"]["path"] != "rotation":
            continue
        cubic = animation["samplers"][channel["extensions"]["EXT_animation_sqlerp"]["sampler"]]
        core_sampler = animation["samplers"][channel["sampler"]] if "sampler" in channel else None
        yield channel, cubic, core_sampler


@pytest.fixture(scope="module", params=["sqlerp_arm.gltf", "sqlerp_arm.glb", "sqlerp_arm_required.gltf"])
def sample(request):
    return SAMPLES / request.param


def test_layout_and_tangents_follow_the_spec(sample):
    document, accessor = read_plain(sample)
    assert "EXT_animation_sqlerp" in document["extensionsUsed"]
    turns = []
    for _, cubic, _ in rotation_channels(document, accessor):
        assert cubic["interpolation"] == "CUBICSLERP"
        times = [float(t) for t in accessor(cubic["input"])[:, 0]]
        out = [tuple(float(c) for c in row) for row in accessor(cubic["output"])]
        a, v, b = out[0::3], out[1::3], out[2::3]
        assert len(out) == 3 * len(times) >= 6
        assert a[0] == v[0] and b[-1] == v[-1]  # spec "CUBICSLERP Interpolation": unit ends, not zeros
        for i in range(1, len(times) - 1):
            h_p, h_n = times[i] - times[i - 1], times[i + 1] - times[i]
            l_prev = qlog(qmul(qinv(v[i]), v[i - 1]))
            l_next = qlog(qmul(qinv(v[i]), v[i + 1]))
            s = qmul(v[i], qexp(tuple(-(h_n * p + h_p * n) / (2 * (h_p + h_n))
                                      for p, n in zip(l_prev, l_next))))
            assert angle_deg(s, a[i]) < 1e-4 and angle_deg(s, b[i]) < 1e-4
        for k in range(len(times) - 1):
            assert min(qdot(v[k], v[k + 1]), qdot(v[k], b[k]), qdot(v[k + 1], a[k + 1]),
                       qdot(b[k], a[k + 1])) >= 0  # the four sign rules
            turns.append(angle_deg(v[k], v[k + 1]))
        spacing = np.diff(times)
        assert spacing.max() > 1.5 * spacing.min()  # uneven key spacing
    assert max(turns) > 120.0  # large rotations between some keys


def test_fallback_follows_the_cubicslerp_curve(sample):
    document, accessor = read_plain(sample)
    required = "EXT_animation_sqlerp" in document.get("extensionsRequired", [])
    for _, cubic, core_sampler in rotation_channels(document, accessor):
        assert (core_sampler is None) == required
        if core_sampler is None:
            continue
        times = [float(t) for t in accessor(cubic["input"])[:, 0]]
        out = [tuple(float(c) for c in row) for row in accessor(cubic["output"])]
        fb_times = [float(t) for t in accessor(core_sampler["input"])[:, 0]]
        fb_values = [tuple(float(c) for c in row) for row in accessor(core_sampler["output"])]
        assert core_sampler["interpolation"] == "LINEAR"
        for t in np.linspace(times[0], times[-1], 601):
            k = min(np.searchsorted(times, t, side="right") - 1, len(times) - 2)
            u = (t - times[k]) / (times[k + 1] - times[k])
            spec = qslerp(qslerp(out[3 * k + 1], out[3 * k + 4], u),
                          qslerp(out[3 * k + 2], out[3 * k + 3], u), 2 * u * (1 - u))
            j = min(np.searchsorted(fb_times, t, side="right") - 1, len(fb_times) - 2)
            w = (t - fb_times[j]) / (fb_times[j + 1] - fb_times[j])
            fallback = qslerp(fb_values[j], fb_values[j + 1], w)
            assert angle_deg(spec, fallback) < 0.1 + 1e-3  # the generator's fallback tolerance


def test_core_plays_the_sample_as_the_plain_formulas_do(sample):
    document, accessor = read_plain(sample)
    loaded = core.load(sample)
    assert loaded.warnings == []
    channels = [c for c in loaded.animations[0].channels if c.path == "rotation"]
    for channel, (_, cubic, _) in zip(channels, rotation_channels(document, accessor)):
        times = accessor(cubic["input"])[:, 0].astype(float)
        out = [tuple(float(c) for c in row) for row in accessor(cubic["output"])]
        query = np.linspace(-0.5, times[-1] + 0.5, 97)
        got = channel.evaluate(query)
        for t, q in zip(query, got):
            tc = min(max(t, times[0]), times[-1])
            k = min(np.searchsorted(times, tc, side="right") - 1, len(times) - 2)
            u = (tc - times[k]) / (times[k + 1] - times[k])
            spec = qslerp(qslerp(out[3 * k + 1], out[3 * k + 4], u),
                          qslerp(out[3 * k + 2], out[3 * k + 3], u), 2 * u * (1 - u))
            assert angle_deg(spec, tuple(q)) < 1e-5  # acos near 1 resolves ~2e-6 degrees


def test_generator_reproduces_the_committed_sample(tmp_path):
    """The committed files are what tools/make_sample.py writes (to float32 precision)."""
    import runpy
    runpy.run_path(str(SAMPLES.parent / "tools" / "make_sample.py"), run_name="make_sample")["main"](tmp_path)
    for name in ("sqlerp_arm.gltf", "sqlerp_arm.glb", "sqlerp_arm_required.gltf"):
        fresh, fresh_accessor = read_plain(tmp_path / name)
        committed, committed_accessor = read_plain(SAMPLES / name)
        assert {k: v for k, v in fresh.items() if k not in ("accessors", "buffers")} == \
            {k: v for k, v in committed.items() if k not in ("accessors", "buffers")}
        for i, acc in enumerate(committed["accessors"]):
            if acc["componentType"] == 5126:
                np.testing.assert_allclose(fresh_accessor(i), committed_accessor(i), atol=1e-6)
