"""Third pass of the validator: checks of accessor data, whole arrays at a time.

Runs the checks the link passes queued on a Plan (glTF-Validator's element checkers, and ours for
CUBICSLERP). Every accessor is decoded once with ``read_accessor``; a GltfError it raises (data out
of bounds, missing buffer, ...) becomes findings instead of escaping.
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..accessors import read_accessor
from ..errors import ERROR, WARNING, GltfError
from ..file import GltfFile
from .json_checks import Report, show_number
from .links import Plan
from .sqlerp import UNIT_LENGTH_TOLERANCE, ZERO_LENGTH, check_quaternions

# A broken accessor of a million keys would otherwise give a million findings.
LIMIT = 100


def report_elements(report: Report, code: str, where: str, indices: npt.NDArray[np.intp],
                    message: Callable[[int], str], severity: str = ERROR) -> None:
    """One finding per element index (the first LIMIT of them, then a count of the rest)."""
    for index in indices[:LIMIT]:
        report.add(code, where, message(int(index)), severity)
    if len(indices) > LIMIT:
        report.add(code, where, f"{len(indices) - LIMIT} more elements have the same problem "
                                "(not listed).", severity)


class _Data:
    """Decoded accessors, read once; None for an accessor that could not be decoded."""

    def __init__(self, report, gltf):
        self.report, self.gltf, self.cache = report, gltf, {}

    def get(self, index):
        if index not in self.cache:
            try:
                self.cache[index] = read_accessor(self.gltf, index)
            except GltfError as error:
                self.cache[index] = None
                for finding in error.findings:  # through add(): the report's cap holds
                    self.report.add(finding.code, finding.pointer, finding.message, finding.severity)
        return self.cache[index]


def check_data(report: Report, gltf: GltfFile, plan: Plan) -> None:
    data = _Data(report, gltf)
    for index in sorted(plan.reads):
        data.get(index)
    # Real files are finite: one test over every float accessor, element findings only if not.
    floats = [data.get(index) for index in sorted(plan.float_checks)]
    finite = all(v is not None for v in floats) and (
        not floats or bool(np.isfinite(np.concatenate([v.reshape(-1) for v in floats])).all()))
    if not finite:
        for index in sorted(plan.float_checks):
            _finite(report, plan.reads[index], data.get(index))
    for index in sorted(plan.bounds):
        values = data.get(index)
        if not _bounds_hold(plan.reads[index], values, finite and index in plan.float_checks):
            _bounds(report, plan.reads[index], values)
    # Samplers often share accessors (every channel of a clip on the same key times). An accessor
    # that passed a check once passes it everywhere; one that failed is reported for every
    # sampler that uses it, as before.
    passed = set()
    if not _keys_in_order([data.get(facts.index) for facts, _ in plan.inputs]):
        for facts, where in plan.inputs:
            _once(report, passed, ("times", facts.index),
                  lambda facts=facts, where=where: _times(report, data.get(facts.index), where))
    if not _unit_rotations([(data.get(facts.index), cubic) for facts, cubic, _ in plan.quaternions]):
        for facts, cubic, where in plan.quaternions:
            _once(report, passed, ("quaternions", facts.index, cubic),
                  lambda facts=facts, cubic=cubic, where=where: _quaternions(
                      report, data.get(facts.index), cubic, where))
    for facts, where in plan.sqlerp_outputs:
        values = data.get(facts.index)
        if values is not None:
            check_quaternions(report, values, where, report_elements)


# --- whole-file fast paths: one pass over every accessor of a kind; the per-accessor checks below
# run (and say what is wrong, where) only when one of these finds something.

def _keys_in_order(inputs):
    """Whether every key-time accessor is non-negative and strictly increasing."""
    if any(values is None for values in inputs):
        return False
    inputs = [values[:, 0] for values in inputs if len(values)]
    if not inputs:
        return True
    times = np.concatenate(inputs)
    within = np.ones(len(times) - 1, dtype=bool)  # differences inside one accessor
    within[np.cumsum([len(t) for t in inputs])[:-1] - 1] = False
    return bool((times >= 0.0).all() and (np.diff(times)[within] > 0.0).all())


def _unit_rotations(outputs):
    """Whether every rotation key (not CUBICSPLINE tangents) has unit length."""
    if any(values is None for values, _ in outputs):
        return False
    keys = [values[1::3] if cubic else values for values, cubic in outputs]
    if not keys:
        return True
    keys = np.concatenate(keys)
    length = np.sqrt(np.sum(keys * keys, axis=1))
    return bool((np.abs(length - 1.0) <= UNIT_LENGTH_TOLERANCE).all())


def _once(report, passed, key, check):
    if key in passed:
        return
    found = len(report.findings)
    check()
    if len(report.findings) == found:
        passed.add(key)


def _finite(report, facts, values):
    if values is None:
        return
    flat = values.reshape(-1)
    report_elements(report, "ACCESSOR_INVALID_FLOAT", facts.where,
                    np.flatnonzero(~np.isfinite(flat)),
                    lambda i: f"Accessor element at index {i} is {show_number(flat[i])}.")


def _bounds_hold(facts, values, finite):
    """Whether finite data matches its declared min/max exactly (the usual case, tested with
    plain min/max; anything else takes _bounds, which says what is wrong)."""
    if values is None or not finite or not len(values):
        return False
    values = values.reshape(len(values), -1)
    try:
        with np.errstate(over="ignore"):  # a bound beyond float32 is a mismatch, found by _bounds
            declared = (np.asarray(facts.min, dtype=np.float32), np.asarray(facts.max, dtype=np.float32))
    except (TypeError, ValueError, OverflowError):
        return False
    return (declared[0].shape == declared[1].shape == values.shape[1:]
            and bool((declared[0] == values.min(axis=0)).all() and (declared[1] == values.max(axis=0)).all()))


def _bounds(report, facts, values):
    """Declared min/max of an input accessor against its data (float32 as the file stores them)."""
    if values is None:
        return
    values = values.reshape(len(values), -1)
    finite = np.where(np.isfinite(values), values, np.nan)
    if not np.isfinite(finite).any():
        return
    for name, declared, actual, outside in (
            ("min", facts.min, np.nanmin(finite, axis=0), lambda d: finite < d),
            ("max", facts.max, np.nanmax(finite, axis=0), lambda d: finite > d)):
        # A declared bound beyond float32 (1e308) becomes infinity, as in the file's float32
        # data, and is reported as a mismatch; without errstate numpy also warns on stderr.
        with np.errstate(over="ignore"):
            declared = np.asarray(declared, dtype=np.float32).astype(np.float64)
        counts = np.sum(outside(declared), axis=0)
        word = "minimum" if name == "min" else "maximum"
        for c in np.flatnonzero(declared != actual):
            where = f"{facts.where}/{name}/{c}"
            report.add(f"ACCESSOR_{name.upper()}_MISMATCH", where,
                       f"Declared {word} value for this component ({show_number(declared[c])}) "
                       f"does not match actual {word} ({show_number(actual[c])}).")
            if counts[c]:
                code = f"ACCESSOR_ELEMENT_OUT_OF_{name.upper()}_BOUND"
                relation = "less" if name == "min" else "greater"
                report.add(code, where, f"Accessor contains {counts[c]} element(s) {relation} "
                                        f"than declared {word} value {show_number(declared[c])}.")


def _times(report, values, where):
    """Key times: non-negative and strictly increasing, reported as glTF-Validator does.

    The validator compares each non-negative time with the last non-negative one before it (0.0
    at the start), skipping negative times, and never flags NaN (ACCESSOR_INVALID_FLOAT does)."""
    if values is None:
        return
    times = values[:, 0]
    index = np.arange(len(times))
    counted = ~(times < 0)
    last = np.maximum.accumulate(np.where(counted, index, -1))
    previous = np.concatenate(([-1], last[:-1]))
    previous_time = np.where(previous >= 0, times[np.maximum(previous, 0)], 0.0)
    report_elements(report, "ACCESSOR_ANIMATION_INPUT_NEGATIVE", where,
                    np.flatnonzero(~counted),
                    lambda i: f"Animation input accessor element at index {i} is negative: "
                              f"{show_number(times[i])}.")
    report_elements(report, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", where,
                    np.flatnonzero(counted & (index > 0) & (times <= previous_time)),
                    lambda i: f"Animation input accessor element at index {i} is less than or "
                              f"equal to previous: {show_number(times[i])} <= "
                              f"{show_number(previous_time[i])}.")


def _quaternions(report, values, cubic, where):
    """Unit length of rotation keys; CUBICSPLINE tangents are derivatives and are not checked.

    Severity differs from the validator on purpose: a non-unit quaternion is a warning because the
    animation layer normalizes it; only one of (near) zero length, which has no direction, is an
    error. NaN is left to ACCESSOR_INVALID_FLOAT, as in the validator."""
    if values is None:
        return
    rows = np.arange(1, len(values), 3) if cubic else np.arange(len(values))
    length = np.sqrt(np.sum(values[rows] * values[rows], axis=1))
    off = np.abs(length - 1.0) > UNIT_LENGTH_TOLERANCE
    zero = off & (length <= ZERO_LENGTH)

    def message(k):
        row = rows[k]
        text = (f"Animation sampler output accessor element at indices {4 * row}..{4 * row + 3} "
                f"is not of unit length: {show_number(length[k])}.")
        return text + (" A zero quaternion cannot be normalized." if zero[k] else "")

    report_elements(report, "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION", where,
                    np.flatnonzero(zero), message, ERROR)
    report_elements(report, "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION", where,
                    np.flatnonzero(off & ~zero), message, WARNING)
