"""What an export is asked to do and what it did, and whether this Blender can do it: kept free of
the bundled glTF add-on's internals, so that the hook, the operator and the preview import even
where those moved (version drift is reported, not raised)."""

from __future__ import annotations  # the types of the rewrite and its channels: for the type checker only

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import bpy

from ...core.fitting import ExportOptions
from ...core import CUBICSLERP

if TYPE_CHECKING:
    from ...bundled_gltf import exported
    from .compaction import PropertyOutcome

    # rotations.rewrite(animations, scene, options): the bundled exporter's animation objects
    # (untyped), changed in place.
    Rewrite = Callable[[list[Any], exported.ExportedScene, ExportOptions, Iterator[bool]], "Outcome"]


@dataclass
class ChannelOutcome:
    animation: str
    target: str
    keys: int = 0
    fallback_keys: int = 0
    max_error_deg: float = 0.0
    fallback_error_deg: float = 0.0
    skipped: str = ""
    kept: bool = False  # the keys and tangents stored at import, unchanged
    head_start: bool = False  # fitted while the bundled exporter gathered (export_fitting.HeadStart)
    refitted: bool = False  # fitted again finer: its errors added up along a chain (export_world)
    dense: bool = False  # keys a frame or two apart: samples of a motion, key times chosen freely
    # Why its keys are not its motion (constraints, drivers, ...): fitted to Blender's own
    # evaluation, sampled (export_blender_samples); "" for a channel fitted to its keys
    sampled: str = ""
    # Degrees its node's world rotation stays off Blender's whatever the keys, where that exceeds
    # the tolerance: shear, which glTF's translation/rotation/scale cannot hold (core.fitting.shear)
    unheld_deg: float = 0.0
    # "LINEAR" or "CUBICSPLINE": a core sampler alone was smaller (no extension); "STEP": jumps
    form: str = CUBICSLERP
    # Bytes of the channel's samplers with the extension's JSON, and of the bundled exporter's
    # per-frame sampler it replaced (with its share of the key times)
    bytes: int = 0
    bundled_bytes: int = 0


@dataclass
class Outcome:
    channels: list[ChannelOutcome] = field(default_factory=list)
    error: str = ""
    # Largest angles between the world rotations of every node the file plays (the extension, the
    # fallback: None when it is not meant to play) and Blender's, at 8 samples per frame; None
    # when not measured (ExportOptions.world_space off).
    world_error_deg: float | None = 0.0
    fallback_world_error_deg: float | None = None
    # export_compaction.PropertyOutcome per translation, scale and weights channel (keys before
    # and after), and the model size (glTF units) their tolerance is a fraction of.
    properties: list[PropertyOutcome] = field(default_factory=list)
    model_size: float = 0.0

    @property
    def fitted(self) -> list[ChannelOutcome]:
        return [c for c in self.channels if not c.skipped]

    @property
    def skipped(self) -> list[ChannelOutcome]:
        return [c for c in self.channels if c.skipped]


def bundled_rewrite() -> tuple[Rewrite | None, str]:
    """(export_rotations.rewrite, "") or (None, a message naming this Blender and what its bundled
    glTF exporter lacks): the CUBICSLERP export builds the exporter's own accessor objects."""
    try:
        from .rotations import rewrite
    except ImportError as error:
        return None, (f"Blender {bpy.app.version_string}: the bundled glTF exporter has no "
                      f"{error.name or 'expected module'} ({error}); CUBICSLERP samplers cannot be "
                      "written by this version of the add-on")
    return rewrite, ""
