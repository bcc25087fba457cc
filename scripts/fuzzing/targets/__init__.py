"""The fuzz targets, one module each. A target has a name, a timeout per input, generate(rng) -> input (JSON-like
data, built from the rng alone), execute(input) (raises Finding on a broken promise) and save(input, folder)."""

from .actions import ActionTarget
from .blobs import BlobTarget
from .checkpoints import CheckpointTarget
from .gtp import GTPTarget
from .methods import MethodTarget
from .search import SearchTarget
from .symmetry import SymmetryTarget
from .text import TextTarget
from .vector import VectorTarget

TARGET_CLASSES = {
    "blobs": BlobTarget,
    "actions": ActionTarget,
    "vector": VectorTarget,
    "symmetry": SymmetryTarget,
    "text": TextTarget,
    "methods": MethodTarget,
    "checkpoints": CheckpointTarget,
    "gtp": GTPTarget,
    "search": SearchTarget,
}
TARGETS = tuple(TARGET_CLASSES)  # in this order: a target's number in the crash slot is its place here
WEIGHTS = {
    "blobs": 4,
    "actions": 4,
    "vector": 3,
    "symmetry": 1,
    "text": 1,
    "methods": 1,
    "checkpoints": 1,
    "gtp": 2,
    "search": 2,
}


def make_target(name, seed):
    cls = TARGET_CLASSES[name]
    try:
        return cls(seed)
    except TypeError:
        return cls()
