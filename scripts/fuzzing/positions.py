"""Real positions of every config (what the state targets start from) and random legal play to the end."""

import random

from .common import Finding
from .configs import config_label, game_configs


class Corpus:
    """Real positions of every config: a few random games per config, deterministic in the seed."""

    def __init__(self, seed, games_per_config=4):
        from zerogym.registry import make_state

        rng = random.Random(f"corpus:{seed}")
        self.configs = []
        for game, kwargs, weight in game_configs():
            template = make_state(game, **kwargs)
            games = []
            for _ in range(games_per_config):
                st, moves, blobs = template.copy(), [], [template.to_bytes()]
                while not st.is_over():
                    a = int(rng.choice(st.legal_actions()))
                    st.step(a)
                    moves.append(a)
                    blobs.append(st.to_bytes())
                games.append((moves, blobs))
            self.configs.append(
                {
                    "game": game,
                    "kwargs": kwargs,
                    "weight": weight,
                    "template": template,
                    "games": games,
                    "label": config_label(game, kwargs),
                }
            )

    def pick(self, rng):
        weights = [c["weight"] for c in self.configs]
        return rng.choices(range(len(self.configs)), weights=weights)[0]

    def pick_config(self, rng):
        """(ci, config) of a config picked by weight (pick)."""
        ci = self.pick(rng)
        return ci, self.configs[ci]

    def position(self, rng, ci):
        """(moves, blob) of a random position of config ci."""
        moves, blobs = rng.choice(self.configs[ci]["games"])
        k = rng.randrange(len(blobs))
        return moves[:k], blobs[k]

    def state(self, ci, blob):
        st = self.configs[ci]["template"].copy()
        st.load_bytes(blob)
        return st


class CorpusTarget:
    """A target whose inputs start from real positions: the Corpus of its seed, games_per_config games
    of every config."""

    timeout = 20.0
    games_per_config = 4

    def __init__(self, seed):
        self.corpus = Corpus(seed, games_per_config=self.games_per_config)


def play_out(st, rng, limit, revalidate=False):
    """Random legal moves to the end; Finding if the game misbehaves or does not end within `limit`.
    revalidate: every position reached must load again (load_bytes of its own blob)."""
    import numpy as np

    fresh = st.copy() if revalidate else None
    for _ in range(limit):
        if revalidate:
            try:
                fresh.load_bytes(st.to_bytes())
            except ValueError as err:
                raise Finding(f"a position reached by legal play from an accepted blob is refused: {err}") from None
        if st.is_over():
            return
        mask = st.legal_mask()
        acts = st.legal_actions()
        if not len(acts):
            raise Finding("a running game has no legal move")
        if not np.array_equal(np.flatnonzero(mask), acts):
            raise Finding("legal_mask and legal_actions disagree")
        a = int(acts[rng.randrange(len(acts))])
        st.step(a)
    if not st.is_over():
        raise Finding(f"the game did not end within {limit} random moves")


def move_limit(st):
    """A bound on the length of any game from the start (Go: its max_moves; the others fill the board)."""
    kwargs = st.spec.kwargs
    if st.spec.name.startswith("go"):
        n = kwargs.get("board_size", 19)
        return (kwargs.get("max_moves") or 2 * n * n) + 2
    h, w, _ = st.spec.obs_shape
    return 2 * (h * w + st.num_actions) + 4
