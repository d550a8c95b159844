"""The add-on's side of every glTF export: the bundled exporter instantiates
``glTF2ExportUserExtension`` (the package root forwards the name here) for each export and calls
its ``gather_gltf_hook`` once everything is gathered, then ``gather_gltf_extensions_hook`` just
before the JSON is made, before the file is written.

Settings come from ``export_scene.gltf_sqlerp`` while it runs, otherwise from the scene's
``gltf_sqlerp_export`` (the panel in the bundled dialog). The hook never raises: the bundled
exporter logs and swallows hook exceptions (5.2 may abort), so a failure is kept in
``last_outcome`` for the operator to report, and the file is written as the bundled exporter made it.
"""

import traceback

import bpy

from . import export_compaction, export_fitting
from .export_outcome import ExportOptions, Outcome, bundled_rewrite

_override = None      # ExportOptions of the running export_scene.gltf_sqlerp
last_outcome = None   # Outcome of the latest export (None: the extension was off)


def options_from(settings):
    """ExportOptions from a scene's gltf_sqlerp_export group (None when switched off)."""
    if not settings.enabled:
        return None
    return ExportOptions(settings.tolerance, settings.fallback, settings.fallback_tolerance,
                         settings.precision, property_tolerance=settings.property_tolerance,
                         world_space=settings.world_space)


class Override:
    """``with Override(options):`` an export made inside uses ``options``."""

    def __init__(self, options):
        self.options = options

    def __enter__(self):
        global _override, last_outcome
        _override, last_outcome = self.options, None
        return self

    def __exit__(self, *exc):
        global _override
        _override = None
        export_fitting.release()  # processes started for an export that failed before its hook


class glTF2ExportUserExtension:
    def __init__(self):
        global last_outcome
        last_outcome = None
        if _override is not None:
            self.options = _override
        else:
            settings = getattr(bpy.context.scene, "gltf_sqlerp_export", None)
            self.options = options_from(settings) if settings is not None else None
        try:
            export_fitting.prepare(self.options)
        except Exception:  # noqa: BLE001 - a head start only: the export goes on without it
            traceback.print_exc()

    def gather_gltf_hook(self, *args):
        """(active_scene_idx, scenes, animations, export_settings) from 4.2 to 5.0; taken by
        position from the end so that a new leading argument does not break the export."""
        global last_outcome
        if self.options is None:
            return
        rewrite, missing = bundled_rewrite()
        animations, export_settings = (args[-2], args[-1]) if len(args) >= 2 else (None, None)
        if not missing and not (isinstance(animations, list) and isinstance(export_settings, dict)):
            missing = (f"Blender {bpy.app.version_string}: gather_gltf_hook got unexpected arguments "
                       f"({', '.join(type(a).__name__ for a in args)})")
        if not missing and export_settings.get("gltf_meshopt_compression"):
            # Blender 5.2+: meshopt-compressed samplers hold their float bytes under a 16-bit
            # accessor until the file is written, and the file then requires an extension this
            # add-on's reader (and its checks of what it wrote) cannot read.
            missing = ("EXT_animation_sqlerp is not written with meshopt compression: turn "
                       "compression off for CUBICSLERP rotations")
        if missing:
            last_outcome = Outcome(error=missing)
            print(summary(last_outcome))
            return
        try:
            last_outcome = rewrite(animations, export_settings, self.options)
        except Exception as error:  # noqa: BLE001 - reported by the operator, never raised here
            traceback.print_exc()
            last_outcome = Outcome(error=f"{type(error).__name__}: {error}")
        else:  # translation, scale and weights keys (never raises: a failure is the outcome's error)
            export_compaction.compact(animations, export_settings, self.options, last_outcome)
        print(summary(last_outcome))

    def gather_gltf_extensions_hook(self, *args):
        """(gltf, export_settings): runs after gather_gltf_hook, before the JSON is made. Blender
        5.2 and later drop an idle KHR_materials_iridescence (factor or thickness 0, as every
        material with the importer's "glTF Material Output" group has, e.g. for an occlusion
        texture) in their JSON clean-up and, when they do, rebuild each animation's samplers from
        its channels' core ``sampler``: the CUBICSLERP samplers, referenced from the channel
        extension only, were dropped and the file did not read back. Dropping the idle extension
        here, as that clean-up would, leaves it nothing to do."""
        if self.options is None or len(args) < 2:
            return
        try:
            drop_idle_iridescence(args[-2], args[-1])
        except Exception:  # noqa: BLE001 - at worst the clean-up runs as before
            traceback.print_exc()


def drop_idle_iridescence(gltf, export_settings):
    """Remove KHR_materials_iridescence from materials where it changes nothing (the bundled
    exporter's own rule: factor 0 or maximum thickness 0) unless animation pointers may animate
    it. Returns how many were removed."""
    if export_settings.get("gltf_export_anim_pointer"):
        return 0
    removed = 0
    for material in getattr(gltf, "materials", None) or []:
        extensions = getattr(material, "extensions", None)
        found = extensions.get("KHR_materials_iridescence") if isinstance(extensions, dict) else None
        data = found if isinstance(found, dict) else getattr(found, "extension", None)
        if isinstance(data, dict) and (data.get("iridescenceFactor", 0.0) == 0.0
                                       or data.get("iridescenceThicknessMaximum", 400.0) == 0.0):
            del extensions["KHR_materials_iridescence"]
            removed += 1
    return removed


def summary(outcome):
    """One line for reports and the console."""
    if outcome is None:
        return "EXT_animation_sqlerp: off"
    if outcome.error:
        return f"EXT_animation_sqlerp failed: {outcome.error}"
    fitted, skipped = outcome.fitted, outcome.skipped
    if not fitted:
        text = "EXT_animation_sqlerp: no rotation channel to fit"
    else:
        cubic = [c for c in fitted if c.form == "CUBICSLERP"]
        linear = [c for c in fitted if c.form == "LINEAR"]
        stepped = [c for c in fitted if c.form == "STEP"]
        world = (f"world max {outcome.world_error_deg:.4f} deg" if outcome.world_error_deg is not None
                 else f"max {max(c.max_error_deg for c in fitted):.4f} deg per channel")
        if outcome.fallback_world_error_deg is not None:
            world += f", fallback {outcome.fallback_world_error_deg:.4f} deg"
        text = (f"EXT_animation_sqlerp: {len(fitted)} rotation channels ({world} from Blender): "
                f"{len(cubic)} CUBICSLERP, {sum(c.keys for c in cubic)} keys, fallback "
                f"{sum(c.fallback_keys for c in cubic)} keys")
        if linear:
            text += (f"; {len(linear)} as LINEAR keys alone, smaller ("
                     f"{sum(c.keys for c in linear)} keys)")
        if stepped:
            text += f"; {len(stepped)} as STEP keys alone ({sum(c.keys for c in stepped)} keys)"
    if skipped:
        text += f"; {len(skipped)} left as sampled ({skipped[0].target}: {skipped[0].skipped})"
    text += export_compaction.summary_clause(getattr(outcome, "properties", []))
    return text
