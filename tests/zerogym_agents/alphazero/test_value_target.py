"""The value target mixed from the game's outcome and the search's root value (root_value_weight)."""

import copy

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.selfplay import GameRecords, SelfPlay
from zerogym_agents.core.constants import CHECKPOINT
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer

from .test_trainer import tiny


def _moves(root_values):
    """Tic-tac-toe moves 0, 1, 2, ... with the given root values (the mover alternates, X first)."""
    s = zerogym.make_state("tictactoe")
    out = []
    for a, v in enumerate(root_values):
        out.append((0, s.encode(), s.legal_mask(), s.legal_mask() / s.legal_mask().sum(), s.current_player, v))
        s.step(a)
    return out


@pytest.mark.parametrize("w", [0.0, 0.25, 1.0])
def test_the_value_target_mixes_outcome_and_root_value_by_the_weight(w):
    records = GameRecords(1, root_value_weight=w)
    q = [0.5, -0.2, 0.9, None]  # the last one restored from an older checkpoint
    records.add(_moves(q))
    values = records.finish(0, [1.0, -1.0])[3]  # X (moves 0, 2) won
    outcome = [1.0, -1.0, 1.0, -1.0]
    expected = [z if v is None else (1 - w) * z + w * v for z, v in zip(outcome, q)]
    assert values == pytest.approx(expected, abs=1e-6)
    assert values[3] == -1.0  # no root value: the outcome alone, whatever the weight


def test_the_weight_is_checked():
    with pytest.raises(ValueError, match=r"root_value_weight must be a number in \[0, 1\], got 1.5"):
        AlphaZeroConfig(root_value_weight=1.5)


def first_player_ahead(planes, masks):
    """Uniform priors; every position is worth +0.5 to the first player (Connect Four: the first
    player is to move when both have as many stones), from the view of the player to move."""
    to_move_first = planes[:, 0].sum(axis=(1, 2)) == planes[:, 1].sum(axis=(1, 2))
    priors = masks / masks.sum(axis=1, keepdims=True)
    return priors.astype(np.float32), np.where(to_move_first, 0.5, -0.5).astype(np.float32)


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_self_play_records_the_root_value_of_the_search_from_the_movers_view(search):
    cfg = AlphaZeroConfig(
        game="connect_four", concurrent_games=6, simulations=16, search=search, pool_fraction=0.0, seed=2
    )
    sp = SelfPlay(cfg)
    sp.rebuild(0)
    run, seen = sp.mcts.run, []

    def spy(*args, **kwargs):
        out = run(*args, **kwargs)
        seen.append(out[1].copy())
        return out

    sp.mcts.run = spy
    for step in range(4):  # every game starts together: all movers are the same at a step
        moves, _ = sp.step(first_player_ahead)
        assert [m[5] for m in moves] == pytest.approx(seen[-1].tolist(), abs=1e-6)
        assert [m[4] for m in moves] == [step % 2] * 6
        assert [m[5] for m in moves] == pytest.approx([0.5 if step % 2 == 0 else -0.5] * 6, abs=1e-5)


def test_a_trainer_with_weight_one_stores_root_values_and_resumes_exactly(tmp_path):
    cfg = tiny(root_value_weight=1.0)
    full = AlphaZeroTrainer(cfg, tmp_path / "a", log_dir=False)
    full.run(progress=False)
    values = full.replay.values[: len(full.replay)]
    assert np.all(np.abs(values) <= 1) and not np.isin(values, [-1.0, 0.0, 1.0]).all()
    cut = AlphaZeroTrainer(cfg, tmp_path / "b", log_dir=False)
    cut.run(progress=False, stop_at=12)
    data = torch.load(tmp_path / "b" / CHECKPOINT, weights_only=True)
    assert any(isinstance(m[4], float) for g in data["pending"] for m in g)  # games in progress keep them
    resumed = AlphaZeroTrainer(cfg, tmp_path / "b", resume=True, log_dir=False)
    resumed.run(progress=False)
    assert np.array_equal(full.replay.values, resumed.replay.values)
    for k, v in full.net.state_dict().items():
        assert torch.equal(v, resumed.net.state_dict()[k]), k


def test_a_checkpoint_of_an_older_version_resumes_with_outcomes_for_its_games_in_progress(tmp_path):
    cfg = tiny(root_value_weight=1.0)
    AlphaZeroTrainer(cfg, tmp_path, log_dir=False).run(progress=False, stop_at=12)
    data = torch.load(tmp_path / CHECKPOINT, weights_only=True)
    old = copy.deepcopy(data)
    old["pending"] = [[m[:4] for m in g] for g in data["pending"]]  # (planes, mask, policy, mover)
    torch.save(old, tmp_path / CHECKPOINT)
    tr = AlphaZeroTrainer(cfg, tmp_path, resume=True, log_dir=False)
    restored = [m for g in tr.records.pending for m in g]
    assert restored and all(m[4] is None for m in restored)
    slot = next(i for i, g in enumerate(tr.records.pending) if g)
    movers = [m[3] for m in tr.records.pending[slot]]
    values = tr.records.finish(slot, [1.0, -1.0])[3]
    assert values.tolist() == [1.0 if p == 0 else -1.0 for p in movers]


def test_a_root_value_out_of_range_in_a_checkpoint_is_refused(tmp_path):
    from zerogym_agents.core.checkpoint import CheckpointError

    cfg = tiny(root_value_weight=0.5)
    AlphaZeroTrainer(cfg, tmp_path, log_dir=False).run(progress=False, stop_at=8)
    data = torch.load(tmp_path / CHECKPOINT, weights_only=True)
    data["pending"] = [[(*m[:4], 1.5) for m in g] for g in data["pending"]]
    torch.save(data, tmp_path / CHECKPOINT)
    with pytest.raises(
        CheckpointError,
        match=r"pending\[\d+\]\[0\]\[4\] must be a finite number in \[-1, 1\], "
        r"got 1.5",
    ):
        AlphaZeroTrainer(cfg, tmp_path, resume=True, log_dir=False)
