"""The add-on's side of every glTF export, called by the bundled exporter's hooks
(bundled_gltf.export_hooks): ``start`` when the exporter begins, ``rewrite`` once it has gathered
everything, before the file is written.

Settings come from ``export_scene.gltf_sqlerp`` while it runs, otherwise from the scene's
``gltf_sqlerp_export`` (the panel in the bundled dialog). Nothing here raises into the exporter: a
failure is kept in ``last_outcome`` for the operator to report, and the file is written as the
bundled exporter made it.
"""

from __future__ import annotations  # ExportedScene: for the type checker only

import traceback
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

import bpy

from . import compaction as export_compaction, fitting as export_fitting
from ...core.fitting import ExportOptions
from .outcome import Outcome, bundled_rewrite
from ...core import CUBICSLERP

if TYPE_CHECKING:
    from ...bundled_gltf import exported

_override: ExportOptions | None = None  # of the running export_scene.gltf_sqlerp
last_outcome: Outcome | None = None     # of the latest export (None: the extension was off)


class ExportSettingsGroup(Protocol):
    """The scene's ``gltf_sqlerp_export`` (ui/export_properties.py registers it; operators never
    import ui)."""
    enabled: bool
    tolerance: float
    precision: str
    fallback: str
    fallback_tolerance: float
    property_tolerance: float
    world_space: bool


def export_settings(scene: bpy.types.Scene | None) -> ExportSettingsGroup | None:
    """The scene's ``gltf_sqlerp_export``, None while ui/export_properties.py is not registered."""
    return getattr(scene, "gltf_sqlerp_export", None)


def options_from(settings: ExportSettingsGroup) -> ExportOptions | None:
    """ExportOptions from a scene's gltf_sqlerp_export group (None when switched off)."""
    if not settings.enabled:
        return None
    return ExportOptions(settings.tolerance, settings.fallback, settings.fallback_tolerance,
                         settings.precision, property_tolerance=settings.property_tolerance,
                         world_space=settings.world_space)


class Override:
    """``with Override(options):`` an export made inside uses ``options``."""

    def __init__(self, options: ExportOptions):
        self.options = options

    def __enter__(self) -> Override:
        global _override, last_outcome
        _override, last_outcome = self.options, None
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        global _override
        _override = None
        export_fitting.release()  # processes started for an export that failed before its hook


def start() -> ExportOptions | None:
    """An export begins: its ExportOptions (None: the extension is off for it), fitting prepared."""
    global last_outcome
    last_outcome = None
    if _override is not None:
        options = _override
    else:
        settings = export_settings(bpy.context.scene)
        options = options_from(settings) if settings is not None else None
    try:
        export_fitting.prepare(options)
    except Exception:  # noqa: BLE001 - a head start only: the export goes on without it
        traceback.print_exc()
    return options


def fail(message: str) -> None:
    """The export cannot write CUBICSLERP samplers: say why, leave the file as gathered."""
    global last_outcome
    last_outcome = Outcome(error=message)
    _to_console(last_outcome)


def rewrite(animations: list[Any], scene: exported.ExportedScene, options: ExportOptions) -> None:
    """CUBICSLERP rotations and reduced translation, scale and weights keys for the exporter's
    ``animations`` (its animation objects, untyped; changed in place)."""
    global last_outcome
    rewrite_rotations, missing = bundled_rewrite()
    if rewrite_rotations is None:  # ``missing`` says why
        fail(missing)
        return
    # Translation, scale and weights keys: reduced while the rotations' pass waits for its fits,
    # written after it (never raises: a failure is the outcome's error).
    reductions = export_compaction.Reductions(animations, scene, options)
    try:
        last_outcome = rewrite_rotations(animations, scene, options, reductions.steps())
    except Exception as error:  # noqa: BLE001 - reported by the operator, never raised here
        traceback.print_exc()
        last_outcome = Outcome(error=f"{type(error).__name__}: {error}")
    else:
        reductions.finish(last_outcome)
    _to_console(last_outcome)


def _to_console(outcome: Outcome) -> None:
    """The outcome on the console, where an export from the bundled dialog says it; our operator
    and the command line report it themselves (once)."""
    if _override is None:
        print(summary(outcome))


def summary(outcome: Outcome | None) -> str:
    """One line for reports and the console."""
    if outcome is None:
        return "EXT_animation_sqlerp: off"
    if outcome.error:
        return f"EXT_animation_sqlerp failed: {outcome.error}"
    fitted, skipped = outcome.fitted, outcome.skipped
    if not fitted:
        text = "EXT_animation_sqlerp: no rotation channel to fit"
    else:
        cubic = [c for c in fitted if c.form == CUBICSLERP]
        linear = [c for c in fitted if c.form == "LINEAR"]
        stepped = [c for c in fitted if c.form == "STEP"]
        splines = [c for c in fitted if c.form == "CUBICSPLINE"]
        world = (f"world max {outcome.world_error_deg:.4f} deg" if outcome.world_error_deg is not None
                 else f"max {max(c.max_error_deg for c in fitted):.4f} deg per channel")
        if skipped:  # never a subset's figure as the file's
            world += f" over the {len(fitted)} fitted"
        if outcome.fallback_world_error_deg is not None:
            world += f", fallback {outcome.fallback_world_error_deg:.4f} deg"
        text = (f"EXT_animation_sqlerp: {len(fitted)} rotation channels ({world} from Blender): "
                f"{len(cubic)} CUBICSLERP, {sum(c.keys for c in cubic)} keys, fallback "
                f"{sum(c.fallback_keys for c in cubic)} keys")
        if linear:
            text += (f"; {len(linear)} as LINEAR keys alone, smaller ("
                     f"{sum(c.keys for c in linear)} keys)")
        if splines:
            text += (f"; {len(splines)} as CUBICSPLINE keys alone, smaller ("
                     f"{sum(c.keys for c in splines)} keys)")
        if stepped:
            text += f"; {len(stepped)} as STEP keys alone ({sum(c.keys for c in stepped)} keys)"
        unheld = sorted((c for c in fitted if c.unheld_deg), key=lambda c: -c.unheld_deg)
        if unheld:  # the world maximum above includes them
            text += (f"; {len(unheld)} cannot be held within the tolerance, glTF has no shear: up to "
                     f"{unheld[0].unheld_deg:.4f} deg ({unheld[0].target})")
        driven = [c for c in fitted if c.sampled]
        if driven:  # constraints, drivers...: fitted to Blender's own evaluation
            text += f"; {len(driven)} fitted to what Blender plays, not to their keys ({driven[0].target})"
    larger = [c for c in fitted if c.bytes > c.bundled_bytes > 0]
    if larger:  # its motion between frames needs more keys than a key per frame
        text += (f"; {len(larger)} write more than the bundled exporter's per-frame keys "
                 f"({sum(c.bytes for c in larger):,} against {sum(c.bundled_bytes for c in larger):,} "
                 "bytes): no form every viewer plays holds the tolerance in fewer")
    if skipped:
        text += (f"; {len(skipped)} left as the bundled exporter sampled them, their error not measured "
                 f"({skipped[0].target}: {skipped[0].skipped})")
    text += export_compaction.summary_clause(getattr(outcome, "properties", []))
    return text
