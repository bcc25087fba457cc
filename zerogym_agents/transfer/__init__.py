"""Board-size transfer: network growth (Polygames: Cazenave et al. 2020), the ZetaGo composite
(Painter & Johnston, "Mastering the game of Go from scratch"), the experiment's settings and its report.

Size-independent nets already play other board sizes as they are (nets/); this package adds
grow() — more blocks, channels or wider kernels, starting from the same function — and
CompositeNet (nets/composite.py), a frozen small-board net used inside a learned net for one bigger
board. The experiment that trains from one small-board net on a bigger board by each method under
the same budget is zerogym_agents.experiment.transfer (run_transfer).

The names are imported on first use, so that the settings (and `zerogym transfer --help`) do not load torch.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zerogym_agents.nets.composite import CompositeConfig, CompositeNet
    from zerogym_agents.transfer.grow import grow
    from zerogym_agents.transfer.settings import TransferSettings

_LAZY = {
    "CompositeConfig": "zerogym_agents.nets.composite",
    "CompositeNet": "zerogym_agents.nets.composite",
    "grow": "zerogym_agents.transfer.grow",
    "TransferSettings": "zerogym_agents.transfer.settings",
}

__all__ = ["CompositeConfig", "CompositeNet", "TransferSettings", "grow"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'zerogym_agents.transfer' has no attribute {name!r}")


class _Package(types.ModuleType):
    """This package: importing its module `grow` leaves the package's `grow` the function."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "grow" and isinstance(value, types.ModuleType):
            value = value.grow
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
