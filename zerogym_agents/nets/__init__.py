"""Size-independent policy-value networks (torch): trunks, heads, the model, the ZetaGo composite and
batched evaluators."""

from zerogym_agents.nets.composite import CompositeConfig, CompositeNet
from zerogym_agents.nets.evaluate import Evaluator, make_evaluator
from zerogym_agents.nets.heads import PolicyHead, ValueHead, global_pool
from zerogym_agents.nets.model import (
    NetConfig,
    NetFileError,
    PolicyValueNet,
    for_game,
    load_net,
    loss,
    net_from_payload,
    net_payload,
    save_net,
)
from zerogym_agents.nets.trunks import InvertedResidual, MobileNetTrunk, ResidualBlock, ResNetTrunk, make_trunk

__all__ = [
    "CompositeConfig",
    "CompositeNet",
    "Evaluator",
    "make_evaluator",
    "PolicyHead",
    "ValueHead",
    "global_pool",
    "NetConfig",
    "NetFileError",
    "PolicyValueNet",
    "for_game",
    "load_net",
    "loss",
    "net_from_payload",
    "net_payload",
    "save_net",
    "InvertedResidual",
    "MobileNetTrunk",
    "ResidualBlock",
    "ResNetTrunk",
    "make_trunk",
]
