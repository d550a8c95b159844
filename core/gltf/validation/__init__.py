"""``validate(gltf) -> list[Finding]``: every animation problem of a glTF asset, and every problem
elsewhere that would make Blender's bundled importer fail or build nonsense.

Reports what Khronos glTF-Validator reports about animations, with its codes, JSON pointers and
(close to) its messages, plus the EXT_animation_sqlerp checks of spec "Channel forms" (codes SQLERP_*).
Severities follow the validator, except:

- a non-unit rotation quaternion is a "warning" (the animation layer normalizes it); a zero one
  stays an "error";
- the draft's channel without a core ``sampler`` is accepted when EXT_animation_sqlerp is in
  ``extensionsUsed`` and the channel carries the extension (the validator says UNDEFINED_PROPERTY);
- "CUBICSLERP" as a sampler's interpolation is not a VALUE_NOT_IN_LIST warning when a channel plays
  that sampler through the extension; as a channel's core ``sampler`` it is an error
  (SQLERP_CORE_SAMPLER, besides the validator's ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT).

Three passes, as in the validator: JSON shape (validate_shape for every object but the
animations, validate_structure for those), references (validate_links, validate_sqlerp), then
accessor data (validate_data), which is read only for accessors whose structure passed; last, the
sizes of every accessor of the file (validate_bounds), animation or not, and the layouts, meshes
and scenes Blender's importer builds from (validate_document). A file without a glTF 2.x ``asset``
is not checked any further (neither is it by the validator).
"""

from ..errors import Finding
from ..file import GltfFile
from .bounds import check_bounds
from .data import check_data
from .document import check_document
from .json_checks import Report
from .links import Plan, duplicates_for_draft_channels, finish_animation, link_channels, link_samplers
from .shape import check_shape
from .sqlerp import link_sqlerp
from .structure import parse_animations


def validate(gltf: GltfFile) -> list[Finding]:
    """All findings for ``gltf`` (a GltfFile), errors, warnings and infos, without duplicates."""
    document = gltf.json
    report = Report(document)
    if not check_shape(report, document):
        return list(dict.fromkeys(report.findings))
    plan = Plan()
    for animation in parse_animations(report, document):
        # Like the validator, an animation without both lists is not linked any further.
        if animation.channels is None or animation.samplers is None:
            continue
        link_samplers(report, document, animation)
        link_channels(report, document, animation, plan)
        link_sqlerp(report, animation, plan)
        duplicates_for_draft_channels(report, animation)
        finish_animation(report, animation, plan)
    check_data(report, gltf, plan)
    check_bounds(report, gltf)
    check_document(report, document)
    return list(dict.fromkeys(report.findings))
