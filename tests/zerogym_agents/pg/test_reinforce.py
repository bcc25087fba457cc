"""REINFORCE: the update's sign, the value baseline, symmetry augmentation, the trainer and exact resume."""

import json
import os

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.core.checkpoint import CheckpointError, save_checkpoint
from zerogym_agents.nets import PolicyValueNet, for_game
from zerogym_agents.agents.policy import PolicyAgent, select_actions
from zerogym_agents.core.constants import AGENT, CHECKPOINT, PLOT
from zerogym_agents.pg.base import learning_mode, plot_history
from zerogym_agents.pg.reinforce import ReinforceTrainer, augment, reinforce_loss
from zerogym_agents.agents.saved import load_agent, load_card

from tiny_runs import NET as TINY, pg_config


def tiny(**over):
    return pg_config(**over)


TIMING = ("episodes_per_s", "moves_per_s")  # wall-clock rates: the only numbers that differ between two runs


def untimed(history):
    return [{k: v for k, v in h.items() if k not in TIMING} for h in history]


def centre_probability(net, planes):
    net.eval()
    with torch.no_grad():
        return torch.softmax(net(planes[:1])[0], dim=1)[0, 4].item()


@pytest.mark.parametrize("baseline", [False, True])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_an_action_that_always_wins_gains_probability(baseline, sign):
    """Moves sampled on the empty tic-tac-toe board: the centre wins (sign=1) or loses (sign=-1), the rest the
    opposite."""
    torch.manual_seed(0)
    net = PolicyValueNet(for_game("tictactoe", **TINY))
    planes = torch.from_numpy(zerogym.make_state("tictactoe").encode()[None]).repeat(64, 1, 1, 1)
    masks = torch.ones(64, 9, dtype=torch.bool)
    opt = torch.optim.Adam(net.parameters(), lr=0.02)
    rng = np.random.default_rng(0)
    p0 = centre_probability(net, planes)
    for _ in range(25):
        with torch.no_grad():
            a = select_actions(net.eval().forward_raw(planes)[0].numpy(), masks.numpy(), rng)
        returns = torch.from_numpy(np.where(a == 4, sign, -sign).astype(np.float32))
        learning_mode(net)
        loss, _ = reinforce_loss(net, planes, masks, torch.from_numpy(a), returns, baseline=baseline, entropy_coef=0.01)
        opt.zero_grad()
        loss.backward()
        opt.step()
    p1 = centre_probability(net, planes)
    if sign > 0:
        assert p1 > max(0.5, 3 * p0), (p0, p1)
    else:
        assert p1 < p0 / 3, (p0, p1)


def test_only_the_baseline_variant_trains_the_value_head():
    torch.manual_seed(0)
    net = PolicyValueNet(for_game("tictactoe", **TINY))
    planes = torch.rand(16, 3, 3, 3).round()
    masks = torch.ones(16, 9, dtype=torch.bool)
    actions, returns = torch.zeros(16, dtype=torch.long), torch.ones(16)
    learning_mode(net)
    reinforce_loss(net, planes, masks, actions, returns, baseline=False)[0].backward()
    assert all(p.grad is None or not p.grad.any() for p in net.value.parameters())
    opt = torch.optim.Adam(net.parameters(), lr=0.02)
    v0 = net.eval()(planes)[1].mean().item()
    for _ in range(20):
        learning_mode(net)
        opt.zero_grad()
        reinforce_loss(net, planes, masks, actions, returns, baseline=True)[0].backward()
        opt.step()
    assert net.eval()(planes)[1].mean().item() > v0 + 0.3  # V(s) moves towards the return (+1)


def test_augmented_moves_stay_legal_and_on_empty_cells():
    st = zerogym.make_state("tictactoe")
    for a in (0, 4, 1):
        st.step(a)  # X: 0, 1; O: 4; O to move
    planes = np.stack([st.encode()] * 40).astype(np.int8)
    masks = np.stack([st.legal_mask()] * 40)
    actions = np.full(40, 2, np.int64)
    returns = np.arange(40, dtype=np.float32)
    sym = st.symmetries()
    p, m, a, r, _ = augment(sym, planes, masks, actions, returns, "random", np.random.default_rng(0))
    assert len(set(a.tolist())) > 2  # several transforms were drawn
    for i in range(40):
        assert m[i, a[i]] == 1
        assert p[i, 0].flat[a[i]] == 0 and p[i, 1].flat[a[i]] == 0  # the transformed cell is empty
        assert p[i, 0].sum() == 1 and p[i, 1].sum() == 2  # stone counts survive
    assert np.array_equal(r, returns)
    logp = np.array([-0.5, -2.0], np.float32)
    p, m, a, r, lp = augment(sym, planes[:2], masks[:2], actions[:2], returns[:2], "all", None, logp=logp)
    assert len(a) == 16 and sorted(set(a.tolist())) == [0, 2, 6, 8]  # the corner 2 goes to every corner
    assert np.array_equal(lp, np.tile(logp, 8)) and np.array_equal(r, np.tile(returns[:2], 8))
    same = augment(sym, planes, masks, actions, returns, "none", None)
    assert same[0] is planes and same[2] is actions


def test_importance_weights_leave_moves_as_played_alone_and_damp_unlikely_symmetric_images():
    """A lost move as played (behaviour log-probability = the net's) keeps exactly its REINFORCE
    gradient; one the net now finds e^10 times less likely than when it was played (a symmetric image
    a sharp policy would not play) gets weight e^-10, so its logit is not pushed down without bound."""
    torch.manual_seed(0)
    net = PolicyValueNet(for_game("tictactoe", **TINY))
    planes = torch.from_numpy(zerogym.make_state("tictactoe").encode()[None].astype(np.float32))
    masks, actions, returns = torch.ones(1, 9, dtype=torch.bool), torch.tensor([0]), torch.tensor([-1.0])

    def policy_grad(behaviour_logp):
        net.zero_grad()
        reinforce_loss(net, planes, masks, actions, returns, behaviour_logp=behaviour_logp)[0].backward()
        return torch.cat([p.grad.flatten() for p in net.parameters() if p.grad is not None]).clone()

    logp_net = torch.log_softmax(net.forward_raw(planes)[0], 1)[:, 0].detach()
    plain = policy_grad(None)
    assert plain.norm() > 0
    assert torch.allclose(policy_grad(logp_net), plain, atol=1e-7)
    assert torch.allclose(policy_grad(logp_net + 10.0), plain * np.exp(-10.0), atol=1e-9)
    assert torch.allclose(policy_grad(logp_net - 10.0), plain, atol=1e-7)  # the weight is capped at 1


def test_a_short_run_learns_logs_snapshots_and_saves_a_playable_agent(tmp_path):
    tr = ReinforceTrainer(tiny(algo="reinforce-baseline"), tmp_path, log_dir=False)
    before = {k: v.clone() for k, v in tr.net.state_dict().items()}
    history = tr.run(progress=False)
    assert [h["step"] for h in history] == [1, 2, 3, 4]
    assert tr.episodes == 32 and tr.learner_moves >= 32 * 2  # every tic-tac-toe game gives both sides 2+ moves
    assert all(h["value_loss"] is not None and 0 <= h["win_rate"] <= 1 for h in history)
    assert any(not torch.equal(before[k], v) for k, v in tr.net.state_dict().items())
    assert list(tr.pool.entries) == ["episodes-16", "episodes-24", "episodes-32"]  # 8 per step, last 3 kept
    for name in (CHECKPOINT, AGENT, PLOT, "config.json"):
        assert os.path.exists(tmp_path / name), name
    agent = load_agent(str(tmp_path / AGENT))
    assert isinstance(agent, PolicyAgent) and agent.greedy
    card = load_card(str(tmp_path / AGENT))
    assert card["training"]["algo"] == "reinforce-baseline" and card["training"]["episodes"] == 32
    assert json.loads((tmp_path / "config.json").read_text())["num_envs"] == 8
    env = zerogym.make("tictactoe")
    env.reset()
    assert env.unwrapped.state.is_legal(agent.act(env))


def test_plain_reinforce_reports_no_value_loss_and_seats_alternate(tmp_path):
    tr = ReinforceTrainer(tiny(max_steps=2), tmp_path, log_dir=False)
    first = tr.play()
    tr.step = 1
    second = tr.play()
    assert list(first.seats) == [0, 1] * 4 and list(second.seats) == [1, 0] * 4
    tr.step = 0
    tr.run(progress=False)
    assert all(h["value_loss"] is None for h in tr.history)


def test_resume_continues_exactly(tmp_path):
    full = ReinforceTrainer(tiny(), tmp_path / "a", log_dir=False)
    full.run(progress=False)
    cut = ReinforceTrainer(tiny(), tmp_path / "b", log_dir=False)
    cut.run(progress=False, stop_at=2)  # interrupted right after the first checkpoint
    resumed = ReinforceTrainer(tiny(), tmp_path / "b", resume=True, log_dir=False)
    assert resumed.step == 2
    resumed.run(progress=False)
    assert (resumed.episodes, resumed.learner_moves) == (full.episodes, full.learner_moves)
    for k, v in full.net.state_dict().items():
        assert torch.equal(v, resumed.net.state_dict()[k]), k
    assert list(resumed.pool.entries) == list(full.pool.entries)
    assert resumed.pool.learner_elo == full.pool.learner_elo
    assert [h["step"] for h in resumed.history] == [h["step"] for h in full.history]
    assert untimed(resumed.history) == untimed(full.history)


def test_every_log_interval_gives_an_entry_and_scalars_and_checkpoints_draw_the_explained_png(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tr = ReinforceTrainer(
        tiny(algo="reinforce-baseline", max_steps=9, checkpoint_every=100, log_every=2),
        tmp_path,
        log_dir=tmp_path / "tb",
    )
    history = tr.run(progress=False)
    assert [h["step"] for h in history] == [2, 4, 6, 8, 9]  # every log_every updates, and the end
    assert all(h["episodes_per_s"] > 0 and h["moves_per_s"] > 0 for h in history)
    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    for tag in ("loss", "policy_loss", "value_loss", "entropy", "win_rate", "elo", "lr", "episodes_per_s"):
        assert [e.step for e in events.Scalars(f"pg/{tag}")] == [2, 4, 6, 8, 9], tag
    assert (tmp_path / PLOT).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = plot_history(history, tmp_path / "again.png", title="reinforce-baseline tictactoe")
    caption = " ".join(t.get_text().replace("\n", " ") for t in fig.texts)
    for words in ("Losses:", "Results:", "Throughput:", "own pool of past snapshots", "stay flat or fall", "arena"):
        assert words in caption, words
    titles = [ax.get_title() for ax in fig.axes]
    assert any("throughput" in t for t in titles) and any("Elo" in t for t in titles)


def test_a_run_cut_into_pieces_logs_the_same_numbers_as_one_run(tmp_path):
    cfg = tiny(algo="reinforce-baseline", max_steps=6, checkpoint_every=100, log_every=3)
    one = ReinforceTrainer(cfg, tmp_path / "a", log_dir=False)
    one.run(progress=False)
    pieces = ReinforceTrainer(cfg, tmp_path / "b", log_dir=False)
    for stop in (1, 2, 4, 5, 6):  # each log interval spans run() calls
        pieces.run(progress=False, stop_at=stop)
    assert [h["step"] for h in one.history] == [3, 6]
    assert untimed(pieces.history) == untimed(one.history)


def test_resume_refuses_other_runs_and_foreign_files(tmp_path):
    ReinforceTrainer(tiny(max_steps=2), tmp_path, log_dir=False).run(progress=False)
    with pytest.raises(CheckpointError, match="game='tictactoe', but this run has game='connect_four'"):
        ReinforceTrainer(tiny(game="connect_four"), tmp_path, resume=True, log_dir=False)
    with pytest.raises(CheckpointError, match="algo='reinforce', but this run has algo='reinforce-baseline'"):
        ReinforceTrainer(tiny(algo="reinforce-baseline"), tmp_path, resume=True, log_dir=False)
    save_checkpoint(tmp_path / "az" / CHECKPOINT, "alphazero", {})
    with pytest.raises(CheckpointError, match="a 'alphazero' checkpoint, expected 'pg'"):
        ReinforceTrainer(tiny(), tmp_path / "az", resume=True, log_dir=False)
    with pytest.raises(CheckpointError, match="no such file"):
        ReinforceTrainer(tiny(), tmp_path / "empty", resume=True, log_dir=False)
    with pytest.raises(ValueError, match="trains reinforce, reinforce-baseline, not algo='ppo'"):
        ReinforceTrainer(tiny(algo="ppo"), tmp_path / "x", log_dir=False)


def test_a_time_budget_stops_early_and_saves(tmp_path):
    tr = ReinforceTrainer(tiny(max_steps=1000, checkpoint_every=500), tmp_path, log_dir=False)
    tr.run(progress=False, max_seconds=1e-6)  # past the limit at the first learner move: step 1 cut short
    assert tr.step == 0 and (tmp_path / CHECKPOINT).exists()
    assert ReinforceTrainer(tiny(max_steps=1000), tmp_path, resume=True, log_dir=False).step == 0
    fits = ReinforceTrainer(tiny(max_steps=2), tmp_path / "fits", log_dir=False)
    fits.run(progress=False, max_seconds=600)  # a limit the run does not reach: it goes to max_steps
    assert fits.step == 2 and fits.history[-1]["step"] == 2
    with pytest.raises(ValueError, match="max_seconds"):
        tr.run(progress=False, max_seconds=0)


def test_the_learning_rate_decays_on_the_cosine_to_lr_final(tmp_path):
    tr = ReinforceTrainer(tiny(lr=1e-3, lr_final=1e-4), tmp_path, log_dir=False)
    tr.run(progress=False)
    expected = [1e-4 + 9e-4 * (1 + np.cos(np.pi * k / 4)) / 2 for k in range(5)]
    assert [h["lr"] for h in tr.history] == pytest.approx(expected[1:])  # logged after steps 1..4
    assert tr.opt.param_groups[0]["lr"] == pytest.approx(expected[3])  # the last update, made at step 3
    constant = ReinforceTrainer(tiny(lr=1e-3, max_steps=2), tmp_path / "c", log_dir=False)
    constant.run(progress=False)
    assert constant.cfg.lr_final == 1e-3 and constant.opt.param_groups[0]["lr"] == pytest.approx(1e-3)


def test_max_seconds_cuts_a_long_rollout_and_takes_back_its_draws(tmp_path):
    import time

    # one update plays 1024 games of 19x19 Go to the end: minutes of work, cut within one learner move
    cfg = tiny(game="go", game_kwargs={"board_size": 19}, num_envs=1024, max_steps=1, net={"blocks": 1, "channels": 4})
    tr = ReinforceTrainer(cfg, str(tmp_path / "run"), log_dir=False)
    draws = tr.rng.bit_generator.state, tr.pool.rng.bit_generator.state
    t0 = time.perf_counter()
    tr.run(progress=False, max_seconds=3)
    assert time.perf_counter() - t0 < 3 + 20  # generous: only a run that ignores the clock fails it
    assert tr.step == 0 and tr.episodes == 0 and tr.until is None
    assert (tr.rng.bit_generator.state, tr.pool.rng.bit_generator.state) == draws
    assert (tmp_path / "run" / CHECKPOINT).exists()
    assert load_card(str(tmp_path / "run" / AGENT))["training"]["steps"] == 0
