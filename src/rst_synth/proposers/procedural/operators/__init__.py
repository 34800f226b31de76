"""The operator library, a folder per domain (tables, sqlite, git, ...) and `kit/` for what they share.

Importing this package imports every module below it, and a module's `@register` classes join the
library: adding an operator is adding a module, no list to keep.
"""

from __future__ import annotations

import importlib
import pkgutil


def load_all() -> list[str]:
    """Import every module of the library (once); returns their names, in a stable order."""
    names = sorted(info.name for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."))
    for name in names:
        importlib.import_module(name)
    return names


load_all()
