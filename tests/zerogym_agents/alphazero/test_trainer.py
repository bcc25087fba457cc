"""AlphaZero trainer: a short run completes and logs its curves, checkpoints resume exactly, bad checkpoints
are refused."""

import json
import os

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.core.constants import AGENT, CHECKPOINT, PLOT
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer, plot_history
from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.nets import load_net
from zerogym_agents.agents.saved import load_agent, load_card
from tiny_runs import NET, alphazero_config


def tiny(**over):
    return alphazero_config({"max_steps": 24, "min_buffer": 32}, **over)


def weights(trainer):
    return {k: v.clone() for k, v in trainer.net.state_dict().items()}


TIMING = ("games_per_s", "positions_per_s")  # wall-clock rates: the only numbers that differ between two runs


def untimed(history):
    return [{k: v for k, v in h.items() if k not in TIMING} for h in history]


def test_short_run_plays_games_trains_and_checkpoints(tmp_path):
    tr = AlphaZeroTrainer(tiny(), tmp_path, log_dir=False)
    before = weights(tr)
    history = tr.run(progress=False)
    assert [h["step"] for h in history] == [5, 8, 10, 15, 16, 20, 24]  # log_every=5, and every checkpoint
    assert [h["step"] for h in history if h["checkpoint"]] == [8, 16, 24]
    assert tr.games > 0 and tr.positions >= tr.games * 5  # a tic-tac-toe game has at least 5 moves
    assert tr.train_steps > 0
    assert any(not torch.equal(before[k], v) for k, v in tr.net.state_dict().items())
    assert os.path.exists(tmp_path / CHECKPOINT)
    agent = load_agent(str(tmp_path / AGENT))
    env = zerogym.make("tictactoe")
    env.reset(seed=0)
    assert env.unwrapped.state.is_legal(agent.act(env))
    assert load_card(str(tmp_path / AGENT))["training"]["steps"] == 24
    for f in (AGENT, CHECKPOINT):  # load_net reads the net out of agent and checkpoint files
        assert all(
            torch.equal(v.cpu(), tr.net.state_dict()[k].cpu()) for k, v in load_net(tmp_path / f).state_dict().items()
        )
    assert json.loads((tmp_path / "config.json").read_text())["simulations"] == 12


@pytest.mark.parametrize("killed_at", [8, 12])  # right after the first checkpoint; after a log point past it
def test_resume_continues_exactly(tmp_path, killed_at):
    full = AlphaZeroTrainer(tiny(), tmp_path / "a", log_dir=False)
    full.run(progress=False)
    cut = AlphaZeroTrainer(tiny(), tmp_path / "b", log_dir=False)
    cut.run(progress=False, stop_at=killed_at)
    assert cut.history[-1]["step"] == (8 if killed_at == 8 else 10)
    resumed = AlphaZeroTrainer(tiny(), tmp_path / "b", resume=True, log_dir=False)
    assert resumed.step == 8 and [h["step"] for h in resumed.history] == [5, 8]
    resumed.run(progress=False)
    assert (resumed.games, resumed.positions, resumed.train_steps) == (full.games, full.positions, full.train_steps)
    for k, v in full.net.state_dict().items():
        assert torch.equal(v, resumed.net.state_dict()[k]), k
    assert np.array_equal(full.replay.values, resumed.replay.values)
    assert len(full.history) == 7 and untimed(resumed.history) == untimed(full.history)


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_a_seeded_run_is_the_same_with_any_number_of_search_threads(tmp_path, search):
    runs = []
    for threads in (1, 3):
        tr = AlphaZeroTrainer(
            tiny(threads=threads, search=search, leaves_per_tree=2, max_steps=16),
            tmp_path / str(threads),
            log_dir=False,
        )
        tr.run(progress=False)
        assert tr.selfplay.mcts.threads_used == threads
        runs.append(tr)
    one, many = runs
    assert (one.games, one.positions) == (many.games, many.positions) and one.games > 0
    assert np.array_equal(one.replay.values, many.replay.values)
    for k, v in one.net.state_dict().items():
        assert torch.equal(v, many.net.state_dict()[k]), k
    assert untimed(one.history) == untimed(many.history)


def test_losses_throughput_and_buffer_fill_are_logged_every_log_every_steps(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    cfg = tiny(max_steps=30, checkpoint_every=1000, log_every=3, buffer_size=64)
    tr = AlphaZeroTrainer(cfg, tmp_path, log_dir=tmp_path / "tb")
    history = tr.run(progress=False)
    steps = list(range(3, 31, 3))
    assert [h["step"] for h in history] == steps
    assert [h["checkpoint"] for h in history] == [0.0] * 9 + [1.0]  # max_steps is the only checkpoint
    assert [h["elo"] is not None for h in history] == [False] * 9 + [True]  # the pool Elo at checkpoints only
    fills = [h["buffer_fill"] for h in history]
    assert all(0.0 <= f <= 1.0 for f in fills) and fills == sorted(fills)
    assert fills[0] == 0.0 and fills[-1] == 1.0  # no game ends in 3 moves; 64 is filled
    assert all(h["buffer_fill"] == h["buffer_positions"] / 64 for h in history)
    assert [h["train_steps"] for h in history] == sorted(h["train_steps"] for h in history)
    assert history[-1]["train_steps"] == tr.train_steps and history[-1]["games"] == tr.games
    assert all(h["games_per_s"] >= 0 and h["positions_per_s"] >= 0 and h["lr"] > 0 for h in history)
    assert sum(h["games_per_s"] > 0 for h in history) >= 5
    trained = [h for h in history if h["loss"] is not None]
    assert len(trained) >= 6
    for h in trained:  # means over the same SGD steps: total = policy + value (value_weight 1)
        assert h["loss"] == pytest.approx(h["policy_loss"] + h["value_loss"], rel=1e-5)
    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    for tag in ("buffer_fill", "buffer_positions", "games_per_s", "positions_per_s", "lr", "train_steps", "games"):
        assert [e.step for e in events.Scalars(f"alphazero/{tag}")] == steps, tag
    for tag in ("loss", "policy_loss", "value_loss"):
        assert [e.step for e in events.Scalars(f"alphazero/{tag}")] == [h["step"] for h in trained], tag
    assert [e.step for e in events.Scalars("alphazero/elo")] == [30]
    assert [e.value for e in events.Scalars("alphazero/buffer_fill")] == pytest.approx(fills)
    assert (tmp_path / PLOT).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_run_cut_into_pieces_logs_the_same_points_as_one_run(tmp_path):
    one = AlphaZeroTrainer(tiny(log_every=3), tmp_path / "a", log_dir=False)
    one.run(progress=False)
    pieces = AlphaZeroTrainer(tiny(log_every=3), tmp_path / "b", log_dir=False)
    for stop in (2, 7, 13, 14, 20, 24):  # as the demo and the transfer experiment call run()
        pieces.run(progress=False, stop_at=stop)
    assert [h["step"] for h in one.history] == [3, 6, 8, 9, 12, 15, 16, 18, 21, 24]
    assert untimed(pieces.history) == untimed(one.history)
    pieces.save()  # a second save at the same step adds no point
    assert len(pieces.history) == len(one.history)


def test_training_png_explains_its_panels_and_draws_histories_of_older_checkpoints(tmp_path):
    old = [
        {
            "step": s,
            "games": 10.0 * s,
            "positions": 70.0 * s,
            "train_steps": 4.0 * s,
            "loss": 2.0 - s / 100,
            "policy_loss": 1.4,
            "value_loss": 0.6 - s / 100,
            "lr": 0.02,
            "positions_per_s": 300.0,
            "games_per_s": 40.0,
            "elo": elo,
        }
        for s, elo in ((8, 12.0), (16, -3.0), (24, 5.0))
    ]  # one entry per checkpoint, no fill
    fig = plot_history(old, tmp_path / "old.png", title="old run")
    assert (tmp_path / "old.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    elo = [ax for ax in fig.axes if "Elo" in ax.get_title()]
    assert len(elo) == 1 and list(elo[0].lines[0].get_ydata()) == [12.0, -3.0, 5.0]
    caption = " ".join(t.get_text().replace("\n", " ") for t in fig.texts)
    for words in ("Losses:", "Throughput:", "Buffer:", "own pool of past checkpoints", "stay flat or fall", "arena"):
        assert words in caption, words


def test_value_targets_are_the_game_result_from_the_movers_view(tmp_path):
    tr = AlphaZeroTrainer(tiny(max_steps=12), tmp_path, log_dir=False)
    tr.run(progress=False)
    n = len(tr.replay)
    planes, values = tr.replay.planes[:n], tr.replay.values[:n]
    assert set(np.unique(values)) <= {-1.0, 0.0, 1.0}
    # tic-tac-toe: the mover's stones (plane 0) are never more than the opponent's (plane 1) + 1,
    # and a position with one more stone for the opponent was reached by the opponent's move
    own, opp = planes[:, 0].sum(axis=(1, 2)), planes[:, 1].sum(axis=(1, 2))
    assert np.all((own == opp) | (own + 1 == opp))


def test_resume_refuses_another_game(tmp_path):
    AlphaZeroTrainer(tiny(max_steps=8), tmp_path, log_dir=False).run(progress=False)
    with pytest.raises(CheckpointError, match="connect_four"):
        AlphaZeroTrainer(tiny(game="connect_four", max_steps=8), tmp_path, resume=True, log_dir=False)


def test_no_pass_fraction_keeps_self_play_from_passing_early(tmp_path):
    cfg = tiny(
        game="go",
        game_kwargs={"board_size": 5},
        pool_fraction=0.0,
        no_pass_fraction=1.0,
        max_steps=70,
        checkpoint_every=70,
    )
    tr = AlphaZeroTrainer(cfg, tmp_path, log_dir=False)
    assert tr.mcts.no_pass_before == 25  # every point of the 5x5 board
    tr.run(progress=False)
    assert tr.games >= 8
    assert tr.positions >= 26 * tr.games  # no game ends before two passes after move 25
    tr = AlphaZeroTrainer(
        tiny(game="go", game_kwargs={"board_size": 5}, no_pass_fraction=0.5), tmp_path / "b", log_dir=False
    )
    assert tr.mcts.no_pass_before == tr.opp_mcts.no_pass_before == 13


def test_bad_config_is_refused():
    with pytest.raises(ValueError, match="simulations"):
        AlphaZeroConfig(simulations=0)
    with pytest.raises(ValueError, match="log_every must be an integer >= 1, got 0"):
        AlphaZeroConfig(log_every=0)
    with pytest.raises(ValueError, match=r"no_pass_fraction must be a number in \[0, 1\]"):
        AlphaZeroConfig(no_pass_fraction=1.5)
    with pytest.raises(ValueError, match="unknown AlphaZeroConfig fields"):
        AlphaZeroConfig.from_dict({"sims": 3})


@pytest.mark.parametrize("value_loss,recovers", [("mse", False), ("bce", True)])
def test_a_saturated_value_head_recovers_only_with_bce(value_loss, recovers):
    """The failure behind the default: a value head stuck at +1 never learns under MSE on tanh."""
    from zerogym_agents.nets import PolicyValueNet, for_game, loss

    torch.manual_seed(0)
    net = PolicyValueNet(for_game("connect_four", trunk="resnet", blocks=1, channels=8, value_loss=value_loss))
    last = [m for m in net.value.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        last.bias.fill_(20.0)  # tanh(20) = 1 to float precision: saturated
    planes = torch.randint(0, 2, (64, 3, 6, 7)).float()
    policy = torch.full((64, 7), 1 / 7)
    target = -torch.ones(64)  # every position is lost
    opt = torch.optim.SGD(net.parameters(), lr=0.02, momentum=0.9)
    for _ in range(100):
        opt.zero_grad()
        loss(net, planes, policy, target)[0].backward()
        opt.step()
    with torch.no_grad():
        v = net(planes)[1].mean().item()
    assert (v < 0) == recovers, v


def test_pool_games_train_only_on_the_learners_moves(tmp_path):
    tr = AlphaZeroTrainer(tiny(concurrent_games=4, pool_fraction=0.5, max_steps=40), tmp_path, log_dir=False)
    assert tr.num_pool == 2
    seen_opponent_move = False
    while tr.step < 40:
        tr.self_play_step()
        for j in range(tr.num_pool):
            movers = [m[3] for m in tr.pending[2 + j]]
            assert all(mv == tr.learner_seat[j] for mv in movers)
            seen_opponent_move |= tr.roots[2 + j].move_count > len(movers)
    assert seen_opponent_move
    assert tr.pool_games > 0
    assert tr.pool.learner_elo != 0.0  # every pool game moves the Elo (K > 0, scores 0, 1/2 or 1)


def test_pool_holds_frozen_checkpoints_and_the_opponent_plays_one(tmp_path):
    tr = AlphaZeroTrainer(tiny(max_steps=24, pool_size=3), tmp_path, log_dir=False)
    tr.run(progress=False, stop_at=8)
    snap8 = {k: v.clone() for k, v in tr.pool.entries["step-8"][0].items()}
    assert all(torch.equal(v.cpu(), tr.net.state_dict()[k].cpu()) for k, v in snap8.items())
    tr.run(progress=False)
    assert list(tr.pool.entries) == ["step-8", "step-16", "step-24"]  # the last pool_size, in order
    # unchanged by training
    assert all(torch.equal(v.cpu(), tr.pool.entries["step-8"][0][k].cpu()) for k, v in snap8.items())
    assert any(not torch.equal(v.cpu(), tr.net.state_dict()[k].cpu()) for k, v in snap8.items())
    drawn = tr.pool.entries[tr.opponent][0]
    assert all(torch.equal(v.cpu(), tr.opp_net.state_dict()[k].cpu()) for k, v in drawn.items())


def test_without_pool_every_move_is_trained_on(tmp_path):
    tr = AlphaZeroTrainer(tiny(pool_fraction=0.0, max_steps=10), tmp_path, log_dir=False)
    tr.run(progress=False)
    assert tr.num_pool == 0 and len(tr.pool) == 0
    assert all(len(p) == r.move_count for p, r in zip(tr.pending, tr.roots))


@pytest.mark.parametrize(
    "net,activation", [({"value_activation": "leaky_relu"}, "leaky_relu"), ({"blocks": 2}, "relu")]
)
def test_init_from_takes_the_value_activation_of_net_when_it_names_one(tmp_path, net, activation):
    from zerogym_agents.nets import PolicyValueNet, for_game, save_net

    old = PolicyValueNet(for_game("tictactoe", blocks=1, channels=8, value_activation="relu"))
    save_net(old, tmp_path / "old.pt")
    tr = AlphaZeroTrainer(tiny(init_from=str(tmp_path / "old.pt"), net=net), tmp_path / "run", log_dir=False)
    assert tr.net.config.value_activation == activation and tr.net.config.blocks == 1
    assert all(torch.equal(v.cpu(), tr.net.state_dict()[k].cpu()) for k, v in old.state_dict().items())


def test_init_from_starts_from_a_net_of_another_board_size(tmp_path):
    from zerogym_agents.nets import NetFileError, PolicyValueNet, for_game, save_net

    small = PolicyValueNet(for_game("go", game_kwargs={"board_size": 5}, blocks=1, channels=8))
    save_net(small, tmp_path / "go5.pt")
    cfg = tiny(
        game="go", game_kwargs={"board_size": 7}, init_from=str(tmp_path / "go5.pt"), max_steps=4, checkpoint_every=2
    )
    tr = AlphaZeroTrainer(cfg, tmp_path / "run", log_dir=False)
    assert all(torch.equal(v.cpu(), tr.net.state_dict()[k].cpu()) for k, v in small.state_dict().items())
    tr.run(progress=False, stop_at=2)
    os.remove(tmp_path / "go5.pt")  # resuming needs only the run's own checkpoint
    resumed = AlphaZeroTrainer(cfg, tmp_path / "run", resume=True, log_dir=False)
    assert all(torch.equal(v, resumed.net.state_dict()[k]) for k, v in tr.net.state_dict().items())
    save_net(PolicyValueNet(for_game("othello", blocks=1, channels=8)), tmp_path / "othello.pt")
    with pytest.raises(NetFileError, match="othello"):
        AlphaZeroTrainer(
            tiny(game="go", game_kwargs={"board_size": 5}, init_from=str(tmp_path / "othello.pt")),
            tmp_path / "bad",
            log_dir=False,
        )


def test_max_seconds_cuts_a_long_self_play_step_and_saves_the_last_whole_one(tmp_path):
    import time

    # one step searches a million simulations per move: minutes of work, cut within one evaluator call
    search = dict(game="connect_four", concurrent_games=2, simulations=10**6, random_opening_moves=2, pool_fraction=0.0)
    cfg = alphazero_config(search, max_steps=1, batch_size=8, min_buffer=8, net=dict(NET, channels=4))
    tr = AlphaZeroTrainer(cfg, tmp_path / "run", log_dir=False)
    t0 = time.perf_counter()
    tr.run(progress=False, max_seconds=3)
    assert time.perf_counter() - t0 < 3 + 20  # generous: only a run that ignores the clock fails it
    assert tr.step == 0 and tr.mcts.evaluator_calls > 0 and tr.until is None
    assert (tmp_path / "run" / CHECKPOINT).exists()
    assert load_card(str(tmp_path / "run" / AGENT))["training"]["steps"] == 0
    assert all(root.move_count == 0 for root in tr.selfplay.roots)  # the step's random openings taken back
    resumed = AlphaZeroTrainer(cfg, tmp_path / "run", resume=True, log_dir=False)
    assert resumed.step == 0 and resumed.games == 0
