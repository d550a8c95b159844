"""Development tools (not in the extension zip). A regular package, not a namespace one, so that
dev.py's ``from tools.dev_venvs import ...`` finds this folder first: a ``tools`` package installed
in the running Python's site-packages would otherwise take the name. The scripts here also run on
their own (``python dev.py run tools/<script>.py``) and import each other by plain name."""
