"""zerogym in other RL libraries' training loops: Tianshou (tianshou.py), TorchRL (torchrl.py) and RLlib
(rllib.py); Stable-Baselines3 is served by zerogym.wrappers.SingleAgentEnv and
zerogym_agents.pg.ppo.SB3PolicyAgent.

Each module imports its library on first use, and says which extra to install when it is missing.
`masked_env` is the Gymnasium view these modules share: the zerogym opponent plays inside the env,
the learner sees its planes and its legal-action mask in a Dict observation, and illegal moves are
counted. `LibraryAgent` is the base of their agents that play a trained policy in the zerogym arena;
`run_example` is the command line of the examples/ scripts.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, SupportsFloat, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from zerogym._install import install_command

from zerogym_agents.agents.base import AECEnv, Agent

if TYPE_CHECKING:
    import argparse

    from zerogym.wrappers import SingleAgentEnv
    from zerogym_agents.agents.base import Player

EXTRA = "interop"


def require(module: str, library: str) -> ModuleType:
    """import_module(module), or an ImportError that names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(
            f"zerogym_agents.interop needs {library} ({module} is not importable: {err}); "
            f"install the {EXTRA} extra: {install_command(EXTRA)}; or, in a checkout, "
            "bash scripts/install_interop.sh (its own .venv-interop)"
        ) from err


class MaskedDictEnv(gymnasium.Wrapper):
    """A zerogym SingleAgentEnv whose observation is a Dict {obs_key: planes, mask_key: legal actions}.

    flatten: planes as a flat float32 vector (for MLP encoders that take vectors only).
    mask_dtype: dtype of the mask (bool for TorchRL, float32 for RLlib's masking module).
    illegal_actions counts the learner's illegal actions (each ends its episode as a loss);
    moves counts the learner's steps.
    """

    def __init__(
        self,
        env: SingleAgentEnv,
        obs_key: str = "observation",
        mask_key: str = "action_mask",
        flatten: bool = False,
        mask_dtype: npt.DTypeLike = bool,
    ) -> None:
        super().__init__(env)
        self.obs_key, self.mask_key, self.flatten = obs_key, mask_key, bool(flatten)
        self.mask_dtype = np.dtype(mask_dtype)
        planes = cast(spaces.Box, env.observation_space)  # SingleAgentEnv's planes and actions
        n = int(cast(spaces.Discrete, env.action_space).n)  # MultiBinary refuses a numpy int
        if self.flatten:
            planes = spaces.Box(
                float(planes.low.min()), float(planes.high.max()), (int(np.prod(planes.shape)),), np.float32
            )
        mask = spaces.MultiBinary(n) if self.mask_dtype == np.int8 else spaces.Box(0, 1, (n,), self.mask_dtype)
        self.observation_space = spaces.Dict({obs_key: planes, mask_key: mask})
        self.illegal_actions = 0
        self.moves = 0

    def _dict(self, planes: np.ndarray) -> dict[str, np.ndarray]:
        if self.flatten:
            planes = np.asarray(planes, np.float32).reshape(-1)
        mask = cast("SingleAgentEnv", self.env.unwrapped).action_masks()
        return {self.obs_key: planes, self.mask_key: mask.astype(self.mask_dtype)}

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        planes, info = self.env.reset(**kwargs)
        return self._dict(planes), info

    def step(self, action: int) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        self.moves += 1
        planes, reward, terminated, truncated, info = self.env.step(action)
        if "illegal_action" in info:
            self.illegal_actions += 1
        return self._dict(planes), reward, terminated, truncated, info


def masked_env(
    game: str,
    opponent: Player | str,
    learner: str = "alternate",
    obs_key: str = "observation",
    mask_key: str = "action_mask",
    flatten: bool = False,
    mask_dtype: npt.DTypeLike = bool,
    **kwargs: Any,
) -> MaskedDictEnv:
    """MaskedDictEnv over SingleAgentEnv(zerogym.make(game, **kwargs), opponent, learner).

    opponent: a zerogym agent (anything with act(env)) or an agent spec ("random", "greedy",
    "uct:200", "pretrained:connect_four", a saved agent's path), built for this game."""
    import zerogym
    from zerogym.wrappers import SingleAgentEnv

    if isinstance(opponent, str):
        from zerogym_agents.agents.specs import agent_from_spec

        opponent = agent_from_spec(opponent, game, kwargs)
    return MaskedDictEnv(
        SingleAgentEnv(zerogym.make(game, **kwargs), opponent, learner=learner), obs_key, mask_key, flatten, mask_dtype
    )


def mover_view(env: AECEnv) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """(planes, legal mask as bool) of the agent to move in a zerogym AEC env: what a trained
    policy sees when it plays in the arena."""
    state = env.unwrapped.state
    return state.observation(), state.legal_mask().astype(bool)


def checked_action(action: Any, mask: npt.NDArray[np.bool_], library: str) -> int:
    """int(action), or a ValueError when the library's policy chose an action the mask forbids."""
    action = int(action)
    if not 0 <= action < len(mask) or not mask[action]:
        raise ValueError(
            f"the {library} policy chose action {action}, which is not legal here "
            f"(legal: {np.flatnonzero(mask).tolist()}): is the mask passed to it?"
        )
    return action


class LibraryAgent(Agent):
    """Base of the agents that play a policy trained by another library: act() hands the mover's
    planes and legal mask (mover_view) to choose(), and checks the action it returns against the
    mask (checked_action). Subclasses set `library` (its name in messages) and `requires` (the
    arguments of require(), checked when an agent is made)."""

    library = ""
    requires: tuple[str, ...] = ()

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        require(*self.requires)

    def choose(self, planes: npt.NDArray[np.int8], mask: npt.NDArray[np.bool_], env: AECEnv) -> Any:
        """The policy's action for the mover's planes and bool legal mask (env: the zerogym env)."""
        raise NotImplementedError

    def act(self, env: AECEnv) -> int:
        planes, mask = mover_view(env)
        return checked_action(self.choose(planes, mask, env), mask, self.library)


class LibraryPolicyAgent(LibraryAgent):
    """A LibraryAgent over the library's policy object (`policy`), which its choose() calls."""

    def __init__(self, policy: Any, seed: int | None = None) -> None:
        super().__init__(seed)
        self.policy = policy


def run_example(
    train: Callable[..., dict[str, Any]],
    doc: str,
    argv: Sequence[str] | None = None,
    count: str = "--steps",
    default: int = 20_000,
    what: str = "learner moves",
    **options: tuple[Callable[[str], Any], Any, str],
) -> dict[str, Any]:
    """The command line of an examples/ script: example_parser's options and `options` (name:
    (type, default, help)), then train(game, opponent, the training length, seed,
    arena_games=games, **options) and example_summary's line on its result, which it returns."""
    parser = example_parser(doc, count, default, what)
    for name, (kind, value, text) in options.items():
        parser.add_argument(f"--{name}", type=kind, default=value, help=text)
    args = parser.parse_args(argv)
    out = train(
        args.game,
        args.opponent,
        getattr(args, count.lstrip("-")),
        args.seed,
        arena_games=args.games,
        **{name: getattr(args, name) for name in options},
    )
    print(example_summary(out, args.opponent))
    return out


def example_parser(
    doc: str, count: str = "--steps", default: int = 20_000, what: str = "learner moves"
) -> argparse.ArgumentParser:
    """The command line the examples/ scripts share: --game, --opponent, a training length, --seed, --games."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument(
        "--opponent", default="random", help="a zerogym agent spec: random, greedy, uct:N, pretrained:NAME"
    )
    parser.add_argument(count, type=int, default=default, help=what)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=40, help="arena games against the opponent afterwards")
    return parser


def example_summary(out: dict[str, Any], opponent: str) -> str:
    """One line on an example's run: steps, updates, illegal actions, the arena result (W-D-L)."""
    updates = (
        f"{out['gradient_steps']} gradient steps"
        if "gradient_steps" in out
        else f"{out['trained_samples']} samples trained on"
    )
    total = out["arena"].total
    return (
        f"{out['env_steps']} env steps, {updates}, {out['illegal_actions']} illegal actions; "
        f"vs {opponent}: {total.wins}-{total.draws}-{total.losses} (W-D-L)"
    )
