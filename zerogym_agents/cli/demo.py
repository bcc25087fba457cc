"""The headline demo's learning part: AlphaZero trained briefly on Connect Four, then a round robin
against the baselines, with a results table and plots written to a folder."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from zerogym_agents.alphazero.recipes import HOUR_CONFIG
from zerogym_agents.core.constants import PLOT

if TYPE_CHECKING:
    from zerogym_agents.arena.elo import EloTable

# the Connect Four settings of the shipped recipes, with a learning rate that does not decay
DEMO_CONFIG: dict[str, Any] = {
    **HOUR_CONFIG,
    "game": "connect_four",
    "lr_final": HOUR_CONFIG["lr"],
    "max_steps": 10**9,
    "checkpoint_every": 100,
}


def train_and_compare(
    minutes: float,
    out: str,
    games_per_pair: int = 10,
    simulations: int = 200,
    seed: int = 0,
    print_fn: Callable[..., None] = print,
    zerogym: str = "zerogym",
) -> EloTable:
    """Train for `minutes` of wall time, then play AlphaZero, UCT(200), Greedy and Random against each
    other (games_per_pair games per pair, colours alternated); writes report.md, elo.png and
    training.png into `out` and returns the EloTable.  `zerogym`: how the closing hint runs zerogym
    (e.g. ".venv/bin/zerogym" when it is not on PATH)."""
    from zerogym_agents.agents.base import RandomAgent
    from zerogym_agents.agents.greedy import GreedyAgent
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer, plot_history, postfix
    from zerogym_agents.arena.elo import fit_elo
    from zerogym_agents.arena.match import round_robin
    from zerogym_agents.arena.report import elo_markdown, write_report
    from zerogym_agents.agents.search import AlphaZeroAgent, UCTAgent

    from zerogym_agents.training.run_folder import prepare_run_folder

    cfg = AlphaZeroConfig(seed=seed, **DEMO_CONFIG)
    prepare_run_folder(os.path.join(out, "run"), force=True)  # each demo trains a new agent from scratch
    trainer = AlphaZeroTrainer(cfg, os.path.join(out, "run"))
    start = time.perf_counter()
    with tqdm(total=round(60 * minutes), desc="AlphaZero on Connect Four", unit="s") as bar:
        while (elapsed := time.perf_counter() - start) < 60 * minutes:
            trainer.run(progress=False, stop_at=trainer.step + 10)
            if trainer.history:  # the last log point (every log_every steps)
                bar.set_postfix(postfix(trainer.history[-1]), refresh=False)
            bar.update(min(round(time.perf_counter() - start), bar.total) - bar.n)
    trainer.save()  # the run's agent.pt is this net
    if trainer.history:
        plot_history(
            trainer.history,
            os.path.join(out, PLOT),
            title=f"AlphaZero on Connect Four: {minutes:g} minutes of training",
        )
    print_fn(
        f"trained {elapsed:.0f} s: {trainer.games} self-play games, {trainer.positions} positions, "
        f"{trainer.train_steps} SGD steps; now a round robin against the baselines"
    )
    agents = {
        "alphazero": AlphaZeroAgent(trainer.net, simulations=simulations, seed=seed),
        "uct:200": UCTAgent(200, seed=seed + 1),
        "greedy": GreedyAgent(seed + 2),
        "random": RandomAgent(seed + 3),
    }
    result = round_robin(agents, "connect_four", games_per_pair=games_per_pair, seed=seed)
    elo = fit_elo(result.outcomes(), anchor="random")
    write_report(
        result,
        elo,
        out,
        title=f"AlphaZero after {minutes:g} minutes of Connect Four training",
        command=f"zerogym demo --minutes {minutes:g} --out {out}",
    )
    print_fn(elo_markdown(elo))
    print_fn(
        f"report: {os.path.join(out, 'report.md')}, plots: elo.png and training.png there; "
        f"play it: {zerogym} play connect_four --agent {os.path.join(trainer.out, 'agent.pt')}"
    )
    return elo
