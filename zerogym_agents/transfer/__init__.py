"""Board-size transfer: network growth (Polygames: Cazenave et al. 2020), the ZetaGo composite
(Painter & Johnston, "Mastering the game of Go from scratch"), the experiment's settings and its report.

Size-independent nets already play other board sizes as they are (nets/); this package adds
grow() — more blocks, channels or wider kernels, starting from the same function — and
CompositeNet (nets/composite.py), a frozen small-board net used inside a learned net for one bigger
board. The experiment that trains from one small-board net on a bigger board by each method under
the same budget is zerogym_agents.experiment.transfer (run_transfer).
"""
from zerogym_agents.nets.composite import CompositeConfig, CompositeNet
from zerogym_agents.transfer.grow import grow
from zerogym_agents.transfer.settings import TransferSettings

__all__ = ["CompositeConfig", "CompositeNet", "TransferSettings", "grow"]
