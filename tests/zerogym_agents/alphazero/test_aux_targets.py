"""KataGo's auxiliary targets in AlphaZero training (Go): the targets of a finished game, the replay buffer
under the board symmetries and through checkpoints, and runs that train on them and resume exactly."""

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.replay import ReplayBuffer
from zerogym_agents.alphazero.selfplay import GameRecords
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.core.file_checks import check
from zerogym_agents.agents.saved import load_agent
from net_cases import positions
from tiny_runs import GO_AUX, alphazero_config


def tiny(**over):
    return alphazero_config(GO_AUX, {"max_steps": 48, "checkpoint_every": 16}, **over)


# ---- config ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "game,kwargs", [("tictactoe", {}), ("breakthrough", {"rows": 5, "cols": 5}), ("hex", {"board_size": 5})]
)
def test_other_games_refuse_the_switches(game, kwargs):
    for field in ("ownership_weight", "score_weight"):
        with pytest.raises(ValueError, match=f"auxiliary targets for Go.*{game}.*set both to 0"):
            AlphaZeroConfig(game=game, game_kwargs=kwargs, **{field: 1.0})
    assert not AlphaZeroConfig(game=game, game_kwargs=kwargs).aux_targets


def test_switches_are_off_by_default_and_refuse_negative_weights():
    cfg = AlphaZeroConfig(game="go", game_kwargs={"board_size": 5})
    assert (cfg.ownership_weight, cfg.score_weight, cfg.aux_targets) == (0.0, 0.0, False)
    with pytest.raises(ValueError, match="ownership_weight must be a number >= 0"):
        AlphaZeroConfig(game="go", ownership_weight=-1)


# ---- the targets of a finished game ----------------------------------------------------------------
# a 5x5 game played to two passes: black walls off columns 0-1, white columns 3-4, column 2 stays empty
WALLS = [1, 3, 6, 8, 11, 13, 16, 18, 21, 23, 25, 25]


def test_targets_of_a_finished_game_match_a_hand_count_from_each_movers_view():
    s = zerogym.make_state("go", board_size=5, komi=0.5)
    records = GameRecords(1)
    for a in WALLS:
        records.add([(0, s.encode(), s.legal_mask(), s.legal_mask() / s.legal_mask().sum(), s.current_player, 0.0)])
        s.step(a)
    assert s.is_over()
    planes, masks, policies, values, ownership, scores = records.finish(0, s.returns(), (s.ownership(), s.score()))
    black_view = np.array([[1, 1, 0, -1, -1]] * 5, np.int8)  # hand count: 10 points each, column 2 dame
    movers = np.arange(len(WALLS)) % 2  # black moves first
    for k, mover in enumerate(movers):
        sign = 1 if mover == 0 else -1
        assert np.array_equal(ownership[k], sign * black_view)
        assert scores[k] == pytest.approx(sign * (10 - 10 - 0.5))  # white wins by the komi
        assert values[k] == (1 if mover == 1 else -1)
    # the target is oriented like the planes: the mover's stones (plane 0) are +1 at the last position
    last = planes[-1]
    assert np.all(ownership[-1][last[0] == 1] == 1) and np.all(ownership[-1][last[1] == 1] == -1)
    assert ownership.dtype == np.int8 and scores.dtype == np.float32


def test_self_play_records_the_final_ownership_and_score_of_each_game(tmp_path):
    tr = AlphaZeroTrainer(tiny(pool_fraction=0.0), tmp_path, log_dir=False)
    while tr.games < 6 and tr.step < 200:
        tr.self_play_step()
    rb = tr.replay
    assert tr.games > 0 and len(rb) == tr.positions > 0
    n = len(rb)
    own, sc = rb.ownership[:n].astype(int), rb.scores[:n]
    # from the mover's view: own area - their area - komi (white's side) or + komi (black's side)
    margin = own.sum(axis=(1, 2))
    assert np.all(np.isclose(np.abs(sc - margin), 7.5))
    assert set(np.unique(own)) <= {-1, 0, 1} and np.any(own != 0)


# ---- replay ----------------------------------------------------------------------------------------
def buffer_with_positions(n=12, seed=0, capacity=64):
    symmetries = zerogym.make_state("go", board_size=5).spec.symmetries
    rb = ReplayBuffer(capacity, (7, 5, 5), 26, max_reuse=100, symmetries=symmetries, seed=seed, aux=True)
    planes, masks = positions("go", n, seed=seed, board_size=5)
    planes = planes.astype(np.int8)
    # ownership tied to the planes (own stones +1, theirs -1) so that a wrong transform shows
    own = planes[:, 0] - planes[:, 1]
    rb.add(
        planes,
        masks,
        masks / masks.sum(1, keepdims=True),
        np.zeros(n, np.float32),
        own,
        own.sum(axis=(1, 2)).astype(np.float32),
    )
    return rb


def test_ownership_is_transformed_with_the_planes_under_every_symmetry():
    rb = buffer_with_positions()
    stored = {m.tobytes() for m in rb.ownership[:12]}
    seen = set()
    for _ in range(30):
        b = rb.sample(12)
        assert np.array_equal(b["ownership"], b["planes"][:, 0] - b["planes"][:, 1])
        assert np.array_equal(b["scores"], b["ownership"].sum(axis=(1, 2)))  # a scalar: unchanged
        seen |= {m.astype(np.int8).tobytes() for m in b["ownership"]}
    assert len(seen) > len(stored)  # the maps were turned and mirrored, not only redrawn


def test_replay_round_trip_keeps_the_aux_targets_and_refuses_mismatches():
    rb = buffer_with_positions()
    state = rb.state_dict()
    back = ReplayBuffer(64, (7, 5, 5), 26, max_reuse=100, aux=True)
    back.load_state_dict(check(state, back.state_schema(), "test"))
    assert np.array_equal(back.ownership[:12], rb.ownership[:12]) and np.array_equal(back.scores, rb.scores)
    plain = ReplayBuffer(64, (7, 5, 5), 26, max_reuse=100)
    with pytest.raises(ValueError, match="with auxiliary targets does not fit a buffer without"):
        plain.load_state_dict(state)
    bad = dict(state, ownership=state["ownership"] * 3)
    with pytest.raises(CheckpointError, match="ownership"):
        check(bad, back.state_schema(), "test")
    with pytest.raises(ValueError, match="exactly when the buffer holds auxiliary targets"):
        plain.add(
            np.zeros((1, 7, 5, 5)),
            np.ones((1, 26)),
            np.ones((1, 26)) / 26,
            np.zeros(1),
            np.zeros((1, 5, 5)),
            np.zeros(1),
        )
    with pytest.raises(ValueError, match="exactly when"):
        back.add(np.zeros((1, 7, 5, 5)), np.ones((1, 26)), np.ones((1, 26)) / 26, np.zeros(1))


# ---- training runs ---------------------------------------------------------------------------------
def test_a_run_with_the_switches_trains_the_heads_and_saves_a_playable_agent(tmp_path):
    tr = AlphaZeroTrainer(tiny(), tmp_path, log_dir=False)
    assert tr.net.config.ownership_head and tr.net.config.score_head
    before = {k: v.clone() for k, v in tr.net.state_dict().items() if k.startswith(("ownership.", "score."))}
    tr.run(progress=False)
    assert tr.train_steps > 0
    assert all(not torch.equal(before[k], tr.net.state_dict()[k]) for k in before)
    logged = [h for h in tr.history if h.get("ownership_loss") is not None]
    assert logged and all(h["score_loss"] >= 0 for h in logged)
    agent = load_agent(str(tmp_path / "agent.pt"))
    env = zerogym.make("go", board_size=7)  # size-independent heads: plays another size
    env.reset(seed=0)
    assert env.unwrapped.state.is_legal(agent.act(env))


def test_runs_with_the_switches_resume_exactly(tmp_path):
    cfg = tiny()
    full = AlphaZeroTrainer(cfg, tmp_path / "a", log_dir=False)
    full.run(progress=False)
    cut = AlphaZeroTrainer(cfg, tmp_path / "b", log_dir=False)
    cut.run(progress=False, stop_at=32)
    assert cut.train_steps > 0
    resumed = AlphaZeroTrainer(cfg, tmp_path / "b", resume=True, log_dir=False)
    assert np.array_equal(resumed.replay.ownership, cut.replay.ownership)
    resumed.run(progress=False)
    assert (resumed.games, resumed.positions, resumed.train_steps) == (full.games, full.positions, full.train_steps)
    for k, v in full.net.state_dict().items():
        assert torch.equal(v, resumed.net.state_dict()[k]), k
    assert np.array_equal(full.replay.ownership, resumed.replay.ownership)
    assert np.array_equal(full.replay.scores, resumed.replay.scores)
    strip = [{k: v for k, v in h.items() if not k.endswith("_per_s")} for h in full.history]
    assert strip == [{k: v for k, v in h.items() if not k.endswith("_per_s")} for h in resumed.history]
    with pytest.raises(CheckpointError, match="with auxiliary targets"):
        AlphaZeroTrainer(tiny(ownership_weight=0.0, score_weight=0.0), tmp_path / "b", resume=True, log_dir=False)


def test_init_from_a_net_without_heads_adds_them_and_keeps_its_play(tmp_path):
    tr = AlphaZeroTrainer(
        tiny(game_kwargs={"board_size": 7}, init_from="pretrained:go_5x5", score_weight=0.0), tmp_path, log_dir=False
    )
    assert tr.net.config.ownership_head and not tr.net.config.score_head
    from zerogym_agents.nets import load_net

    pre = load_net("pretrained:go_5x5")
    x = torch.zeros(2, pre.config.in_planes, 7, 7)
    for a, b in zip(pre(x), tr.net(x)):
        assert torch.allclose(a, b)
