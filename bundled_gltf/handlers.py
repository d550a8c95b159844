"""Whom the hooks hand their views to: the handlers the operators register (the seam runs one way).

Blender's bundled glTF add-on calls the hooks of the user extensions that add-ons expose; our
hooks (``import_hooks``, ``export_hooks``) unpack its arguments into views (``imported``,
``exported``) and pass them on to the handlers registered here, as the bundled add-on passes its
work on to the add-ons that registered hooks. So this package never imports ``operators``:
``operators.register()`` registers its import session, export session and live preview, and
``operators.unregister()`` removes them. With nothing registered (the add-on half registered, or
a script that imported this package alone) each role has a handler that does nothing, and the
hooks leave the import or export as the bundled add-on makes it.

The add-on's handlers live in ``REGISTRY``, which the module's functions (``register``,
``importing``, ...) use; a Registry of one's own (as below) leaves them alone.

>>> class Quiet:  # any object with the protocol's functions; the operators register modules
...     @staticmethod
...     def hold_for_export() -> None: print("held")
...     @staticmethod
...     def release_after_export() -> None: print("released")
>>> registry = Registry()
>>> registry.register(previewing=Quiet())
>>> registry.previewing().hold_for_export()
held
>>> registry.unregister()
>>> registry.previewing().hold_for_export()  # nothing registered: nothing happens
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the views, for the protocols' signatures only
    from .exported import ExportedScene
    from .imported import ImportedScene


class Session(Protocol):
    """One import the handler makes exact: the hooks record a failure on it and count animations."""
    animations_done: int

    def fail(self, where: str) -> None: ...


class Importing(Protocol):
    """What the import hooks call, in the order the bundled importer reaches them."""

    def current(self) -> Session | None: ...

    def exact_wanted(self) -> bool: ...

    def session_for_bundled_dialog(self, scene: ImportedScene) -> Session | None: ...

    def bind_rig(self, session: Any, scene: ImportedScene) -> None: ...

    def prepare_animation(self, session: Any, scene: ImportedScene, anim_idx: int) -> None: ...

    def pointer_channel_starts(self, session: Any, scene: ImportedScene, anim_idx: int, channel: object) -> None: ...

    def finish_bundled_onto(self, session: Any, scene: ImportedScene) -> None: ...

    def rewrite_animation(self, session: Any, scene: ImportedScene, anim_idx: int, track_name: str) -> None: ...


class Exporting(Protocol):
    """What the export hooks call: ``start`` gives the export's options (None: not ours)."""

    def start(self) -> Any: ...

    def fail(self, message: str) -> None: ...

    def rewrite(self, animations: list[Any], scene: ExportedScene, options: Any) -> None: ...


class Previewing(Protocol):
    """The live preview, held while the bundled exporter samples the scene with frame_set."""

    def hold_for_export(self) -> None: ...

    def release_after_export(self) -> None: ...


class _Nothing:
    """Every role's handler while none is registered: no session, no options, nothing held."""

    def current(self) -> None:
        return None

    def exact_wanted(self) -> bool:
        return False

    def session_for_bundled_dialog(self, scene: ImportedScene) -> None:
        return None

    def start(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        # The rest (bind_rig, rewrite, hold_for_export, ...) is only reached with a session or
        # options, which this handler never gives, or does nothing.
        return lambda *args: None


_NOTHING = _Nothing()


class Registry:
    """The handler of each role (importing, exporting, previewing), or one that does nothing."""

    def __init__(self) -> None:
        self._handlers: dict[str, Any] = {}

    def register(self, importing: Importing | None = None, exporting: Exporting | None = None,
                 previewing: Previewing | None = None) -> None:
        """Hand the hooks' views to these handlers from now on (those given; the others stay)."""
        given = {"importing": importing, "exporting": exporting, "previewing": previewing}
        self._handlers.update({role: handler for role, handler in given.items() if handler is not None})

    def unregister(self) -> None:
        """No handler any more: the hooks leave imports and exports to the bundled add-on."""
        self._handlers.clear()

    @contextmanager
    def using(self, importing: Importing | None = None, exporting: Exporting | None = None,
              previewing: Previewing | None = None) -> Iterator[None]:
        """These handlers for a while (a test calling a hook itself), the ones before afterwards."""
        saved = dict(self._handlers)
        self.register(importing, exporting, previewing)
        try:
            yield
        finally:
            self._handlers = saved

    def importing(self) -> Importing:
        return self._handlers.get("importing", _NOTHING)

    def exporting(self) -> Exporting:
        return self._handlers.get("exporting", _NOTHING)

    def previewing(self) -> Previewing:
        return self._handlers.get("previewing", _NOTHING)


# The add-on's registry: operators.register() fills it, the hooks read it.
REGISTRY = Registry()
register, unregister = REGISTRY.register, REGISTRY.unregister
importing, exporting, previewing = REGISTRY.importing, REGISTRY.exporting, REGISTRY.previewing
