"""Checks of EXT_animation_sqlerp that glTF-Validator cannot make (spec "Channel forms").

The validator does not know the extension, so it never looks at what a channel's
``extensions.EXT_animation_sqlerp.sampler`` points to. This module does: the sampler exists and is
CUBICSLERP, the channel targets a rotation, keys and output count fit the draft (n >= 2 keys, 3n
quaternions interleaved a_i, v_i, b_i), the output is a rotation format, and every quaternion that
evaluation uses is unit length. Key times go through the same input checks as every sampler.
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..errors import ERROR, WARNING
from .json_checks import Report, show_list, show_number
from .links import ROTATION_FORMATS, Plan
from .structure import CUBICSLERP, Animation

# The validator's rotation tolerance (errors.dart unitLengthThresholdVec4): just above the error
# of signed 8-bit quantization.
UNIT_LENGTH_TOLERANCE = 0.00769
# Below this length a quaternion has no usable direction: normalizing it would amplify noise.
# (The shortest non-zero normalized-byte quaternion is 1/127 long, far above.)
ZERO_LENGTH = 1e-6
ROLES = ("in-tangent a", "value v", "out-tangent b")
# data.report_elements: (report, code, where, element indices, message of an index, severity).
ReportElements = Callable[[Report, str, str, npt.NDArray[np.intp], Callable[[int], str], str], None]


def link_sqlerp(report: Report, animation: Animation, plan: Plan) -> None:
    channels, samplers = animation.linked()
    for channel in channels:
        link = channel.extension
        if link is None or link.sampler == -1:
            continue
        sampler = samplers[link.sampler] if link.sampler < len(samplers) else None
        if sampler is None:
            report.add("SQLERP_UNRESOLVED_SAMPLER", f"{link.where}/sampler",
                       f"EXT_animation_sqlerp sampler {link.sampler} does not exist: animation "
                       f"{animation.index} has {len(samplers)} sampler(s).")
            continue
        sampler.used = True
        if sampler.interpolation != CUBICSLERP:
            report.add("SQLERP_NOT_CUBICSLERP", f"{link.where}/sampler",
                       f"EXT_animation_sqlerp must reference a CUBICSLERP sampler; sampler "
                       f"{link.sampler} is {sampler.interpolation or 'invalid'}.")
        else:
            sampler.sqlerp = True
        target = channel.target
        if target is not None and target.path is not None and target.path != "rotation":
            report.add("SQLERP_NOT_ROTATION", f"{target.where}/path",
                       f"CUBICSLERP interpolation only animates rotations; this channel targets "
                       f"'{target.path}'.")
    for sampler in samplers:
        if sampler.sqlerp:
            _link_sampler(report, sampler, plan)


def _link_sampler(report, sampler, plan):
    inp, out = sampler.input_accessor, sampler.output_accessor
    keys = inp.count if inp is not None else -1
    if 0 < keys < 2:
        report.add("SQLERP_TOO_FEW_KEYS", f"{sampler.where}/input",
                   f"A CUBICSLERP sampler needs at least 2 keys; its input accessor has {keys}.")
    if out is None:
        return
    where = f"{sampler.where}/output"
    if out.format not in ROTATION_FORMATS:
        report.add("SQLERP_INVALID_FORMAT", where,
                   f"Invalid CUBICSLERP output accessor format '{out.format}'. Must be one of "
                   f"{show_list([str(f) for f in ROTATION_FORMATS])}.")
        return
    if keys == -1 or out.count == -1:
        return
    if out.count != 3 * keys:
        report.add("SQLERP_INVALID_COUNT", where,
                   f"A CUBICSLERP output accessor holds 3 quaternions per key (in-tangent, value, "
                   f"out-tangent): {3 * keys} expected for {keys} keys. Found {out.count}.")
        return
    if sampler.output_ok:
        plan.reads[out.index] = out
        plan.sqlerp_outputs.append((out, where))


def check_quaternions(report: Report, values: npt.NDArray[np.float64], where: str,
                      report_elements: ReportElements) -> None:
    """Unit length of every CUBICSLERP quaternion but a_1 and b_n, which evaluation never uses
    (spec "CUBICSLERP Interpolation"): those may hold anything, zeros included."""
    length = np.sqrt(np.sum(values * values, axis=1))
    used = np.ones(len(values), dtype=bool)
    used[[0, -1]] = False
    broken = used & ~(np.isfinite(length) & (length > ZERO_LENGTH))
    off = used & ~broken & (np.abs(length - 1.0) > UNIT_LENGTH_TOLERANCE)

    def message(kind):
        def text(row):
            name = f"{ROLES[row % 3]}_{row // 3 + 1}"
            head = (f"CUBICSLERP quaternion {name} (output element {row}, accessor indices "
                    f"{4 * row}..{4 * row + 3})")
            size = show_number(length[row])
            if kind == ERROR:
                return f"{head} is zero or not finite ({size}): it cannot be normalized."
            return f"{head} is not of unit length: {size}."
        return text

    report_elements(report, "SQLERP_NON_UNIT_QUATERNION", where, np.flatnonzero(broken),
                    message(ERROR), ERROR)
    report_elements(report, "SQLERP_NON_UNIT_QUATERNION", where, np.flatnonzero(off),
                    message(WARNING), WARNING)
