"""Channel fits in worker processes (numpy and ``core`` only, never bpy): the export's pool."""

from .processes import FitProcesses, WorkerError

__all__ = ['FitProcesses', 'WorkerError']
