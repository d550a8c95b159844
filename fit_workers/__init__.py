"""Channel fits in worker processes, for exports big enough to pay for starting them.

``FitProcesses`` (processes.py) is the export's pool: spawned processes running Blender's own
Python, fitting core.fitting's ChannelTask and SampleCheck with numpy while Blender's thread reads
the next channels; only part of them fit until ``activate`` (the export's head start leaves a core
to the bundled exporter). ``WorkerError`` says the workers could not start or stopped (never a
failed fit, which raises its own error): the caller fits in threads instead. boot.py starts each
worker with the standard library alone: the add-on importable under the caller's package name, one
BLAS thread, a lower priority. Nothing here imports bpy; the workers import ``core`` and numpy.
"""

from .processes import FitProcesses, WorkerError

__all__ = ['FitProcesses', 'WorkerError']
