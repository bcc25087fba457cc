"""Board-size transfer: network growth (Polygames: Cazenave et al. 2020), the ZetaGo composite
(Painter & Johnston, "Mastering the game of Go from scratch") and the experiment that compares them
(experiment.py).

Size-independent nets already play other board sizes as they are (nets/); this package adds
grow() — more blocks, channels or wider kernels, starting from the same function — and
CompositeNet, a frozen small-board net used inside a learned net for one bigger board.
run_transfer(TransferSettings(...), out_dir) trains from one small-board net on a bigger board by
each method under the same budget and reports their strength over training.
"""
import importlib

from zerogym_agents.transfer.composite import CompositeConfig, CompositeNet
from zerogym_agents.transfer.grow import grow

_LAZY = {"TransferSettings": "zerogym_agents.transfer.settings", "TransferExperiment": "zerogym_agents.transfer.experiment",
         "run_transfer": "zerogym_agents.transfer.experiment"}

__all__ = ["CompositeConfig", "CompositeNet", "grow", *_LAZY]


def __getattr__(name):
    if name in _LAZY:           # the experiment imports the AlphaZero trainer: only when asked for
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'zerogym_agents.transfer' has no attribute {name!r}")
