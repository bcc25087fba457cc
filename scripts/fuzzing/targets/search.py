"""search: the compiled batched search (BatchedMCTS) on several threads and in a pipeline, with odd evaluators."""

import random

from ..common import Finding
from ..configs import config_cells, game_configs
from .vector import weighted

# what the evaluator does to the leaves it picks: kinds the search must take as they are, and kinds it must
# refuse with ValueError (a non-finite value, or a negative or non-finite prior on a legal move)
TAKEN = ("zero_priors", "huge_priors", "big_value", "one_hot")
REFUSED = ("nan_value", "inf_value", "nan_prior", "inf_prior", "negative_prior", "wrong_shape", "not_pair")


class SearchTarget:
    """BatchedMCTS with drawn settings (threads, pipeline, search kind, leaves per tree, a tree capacity that
    may fill up, decisive moves, the solver, root noise) run for a few moves twice: on threads and in groups of trees,
    and on one thread in one batch. With an evaluator that answers by the position alone (odd answers
    included, on the leaves its rule picks) both runs must hand out the same policies, values, visit counts
    and moves; an answer the search must refuse is a ValueError in both, after which the trees still search."""

    name = "search"
    timeout = 30.0

    def generate(self, rng):
        configs = game_configs()
        game, kwargs, _ = weighted(rng, [c for i, c in enumerate(configs) if config_cells(i) <= 100])
        search = rng.choice(("puct", "puct", "gumbel"))
        return {
            "game": game,
            "kwargs": kwargs,
            "num_games": rng.choice((1, 2, 3, 5, 8)),
            "threads": rng.choice((2, 3, 4, 8)),
            "pipeline": rng.choice((1, 2, 3, 8)),
            "search": search,
            "leaves_per_tree": rng.randrange(1, 5),
            "spare_nodes": rng.choice((None, None, 0, 3, 8, 40)),  # capacity beyond its least, num_actions + 1
            "simulations": rng.randrange(1, 17),
            "decisive_moves": rng.random() < 0.3,
            "solver": rng.random() < 0.3,
            "noise": search == "puct" and rng.random() < 0.5,
            "moves": rng.randrange(1, 4),
            "warmup": rng.randrange(0, 8),
            "odd": rng.choice(("none",) * 6 + TAKEN + REFUSED),
            "every": rng.choice((1, 3, 7)),
            "seed": rng.getrandbits(31),
        }

    def evaluator(self, inp):
        """A deterministic evaluator that answers by the position alone, oddly on the leaves whose key
        is a multiple of inp["every"]."""
        import numpy as np

        odd, every = inp["odd"], inp["every"]

        def evaluate(planes, masks):
            flat = planes.reshape(len(planes), -1).astype(np.float64)
            key = flat @ np.cos(np.arange(flat.shape[1]))
            a = np.arange(masks.shape[1])
            priors = (masks * (1.5 + np.sin(key[:, None] * 0.37 + a[None, :] * 1.3))).astype(np.float32)
            values = np.tanh(np.sin(key * 0.11)).astype(np.float32)
            picked = np.flatnonzero(np.round(np.abs(key) * 1000).astype(np.int64) % every == 0)
            if odd == "none" or not len(picked):
                return priors, values
            if odd == "not_pair":
                return priors
            if odd == "wrong_shape":
                return priors[:, :-1], values
            if odd in ("zero_priors", "huge_priors", "one_hot", "nan_prior", "inf_prior", "negative_prior"):
                fill = {"zero_priors": 0.0, "huge_priors": 3e38, "nan_prior": np.nan, "inf_prior": np.inf}
                if odd == "one_hot":
                    priors[picked] = 0.0
                    priors[picked, np.argmax(masks[picked], axis=1)] = 1.0
                elif odd == "negative_prior":
                    priors[picked] = -priors[picked] - 0.5
                else:
                    priors[picked] = fill[odd]
            else:
                values[picked] = {"big_value": 7.5, "nan_value": np.nan, "inf_value": -np.inf}[odd]
            return priors, values

        return evaluate

    def play(self, inp, threads, pipeline):
        """Everything the search hands out over inp["moves"] moves, or the exception it raised, then whether
        the trees still search with a plain evaluator."""
        import numpy as np
        import zerogym
        from zerogym_agents.mcts import BatchedMCTS

        settings = {"search": inp["search"], "leaves_per_tree": inp["leaves_per_tree"]}
        settings["decisive_moves"] = inp["decisive_moves"]
        settings["solver"] = inp.get("solver", False)  # inputs saved before it was fuzzed lack it
        if inp["spare_nodes"] is not None:
            A = zerogym.make_state(inp["game"], **inp["kwargs"]).spec.num_actions
            settings["capacity"] = A + 1 + inp["spare_nodes"]
        if inp["noise"]:
            settings["dirichlet_epsilon"] = 0.25
        G = inp["num_games"]
        m = BatchedMCTS(
            inp["game"],
            num_games=G,
            simulations=inp["simulations"],
            seed=inp["seed"],
            threads=threads,
            pipeline=pipeline,
            **settings,
            **inp["kwargs"],
        )
        rng = random.Random(inp["seed"])
        roots = []
        for _ in range(G):
            st = zerogym.make_state(inp["game"], **inp["kwargs"])
            for _ in range(inp["warmup"]):  # random moves that do not end the game
                st.step(int(rng.choice(list(st.legal_actions()))))
                if st.is_over():
                    st.reset()
            roots.append(st)
        m.set_roots(roots)
        seen, evaluate = [], self.evaluator(inp)
        try:
            for _ in range(inp["moves"]):
                policy, value = m.run(evaluate)
                actions = m.select_actions(0.0)
                for i, root in enumerate(roots):
                    if not root.is_over():
                        if not root.is_legal(int(actions[i])):
                            raise Finding(f"the search chose an illegal move {int(actions[i])} in tree {i}")
                        total = policy[i].sum()  # 0 after one simulation, which only expands the root
                        if not np.isfinite(policy[i]).all() or not self.sums_right(total, inp):
                            raise Finding(f"tree {i}'s policy sums to {total}, not 1")
                seen.append((policy, value, m.visit_counts(), actions.copy()))
                m.advance(actions)
                for i, root in enumerate(roots):
                    if not root.is_over():
                        root.step(int(actions[i]))
                    if root.is_over():
                        root.reset()
                        m.set_root(i, root)
        except ValueError as err:
            if inp["odd"] not in REFUSED:
                raise Finding(f"the search refused an evaluator it must take ({inp['odd']}): {err}") from None
            policy, _ = m.run(lambda p, k: (k.astype(np.float32), np.zeros(len(k), np.float32)))
            if not all(self.sums_right(total, inp) for total in policy.sum(axis=1)):
                raise Finding("after a refused evaluation the trees no longer search") from None
            return "refused"
        return seen

    @staticmethod
    def sums_right(total, inp):
        """A running root's policy sums to 1, or to 0 after a single simulation (which only expands the root)."""
        return abs(total - 1.0) < 1e-4 or (total == 0 and inp["simulations"] == 1)

    def execute(self, inp):
        import numpy as np

        threaded = self.play(inp, inp["threads"], inp["pipeline"])
        alone = self.play(inp, 1, 1)
        if (threaded == "refused") != (alone == "refused"):
            which = "threaded" if threaded == "refused" else "one-thread"
            raise Finding(f"only the {which} search refused the evaluator ({inp['odd']})")
        if threaded == "refused":
            return
        for move, (a, b) in enumerate(zip(threaded, alone)):
            for what, x, y in zip(("policy", "value", "visit counts", "moves"), a, b):
                if not np.array_equal(x, y):
                    raise Finding(
                        f"{inp['threads']} threads and {inp['pipeline']} groups give other {what} "
                        f"than one thread at move {move}"
                    )

    def save(self, inp, folder):
        return inp
