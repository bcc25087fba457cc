"""Board-size transfer: network growth (Polygames, paper 000) and the ZetaGo composite (paper 002).

Size-independent nets already play other board sizes as they are (nets/); this package adds
grow() — more blocks, channels or wider kernels, starting from the same function — and
CompositeNet, a frozen small-board net used inside a learned net for one bigger board.
"""
from zerogym_agents.transfer.composite import CompositeConfig, CompositeNet
from zerogym_agents.transfer.grow import grow

__all__ = ["CompositeConfig", "CompositeNet", "grow"]
