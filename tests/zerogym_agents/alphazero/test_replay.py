"""ReplayBuffer: cyclic storage, reuse cap, consistent symmetry augmentation, checkpoint round trip."""

import numpy as np
import pytest

import zerogym
from zerogym_agents.alphazero.replay import ReplayBuffer
from zerogym_agents.core.checkpoint import load_checkpoint, save_checkpoint


def fill(buf, start, count, shape=(2, 3, 3), actions=10):
    """Positions whose every entry encodes their serial number (value = serial / 1000)."""
    planes = np.zeros((count,) + shape, np.int8)
    planes[:, 0, 0, 0] = 1
    masks = np.ones((count, actions), np.int8)
    policies = np.full((count, actions), 1.0 / actions, np.float32)
    values = (start + np.arange(count)) / 1000.0
    buf.add(planes, masks, policies, values.astype(np.float32))


def test_cyclic_overwrites_the_oldest():
    buf = ReplayBuffer(5, (2, 3, 3), 10, seed=0)
    fill(buf, 0, 3)
    fill(buf, 3, 4)
    assert len(buf) == 5 and buf.added == 7
    assert sorted(np.round(buf.values * 1000).astype(int)) == [2, 3, 4, 5, 6]


def test_each_position_is_drawn_at_most_max_reuse_times():
    buf = ReplayBuffer(20, (2, 3, 3), 10, max_reuse=3, seed=1)
    fill(buf, 0, 10)
    drawn = []
    while (batch := buf.sample(4)) is not None:
        drawn += list(np.round(batch["values"] * 1000).astype(int))
    counts = np.bincount(drawn, minlength=10)
    assert counts.max() <= 3 and counts.sum() >= 10 * 3 - 3  # at most 3 left unused at the end
    assert buf.available() < 4
    fill(buf, 10, 4)  # fresh positions open up again
    assert buf.sample(4) is not None


def test_batches_hold_distinct_positions():
    buf = ReplayBuffer(50, (2, 3, 3), 10, seed=2)
    fill(buf, 0, 50)
    vals = buf.sample(50)["values"]
    assert len(set(np.round(vals * 1000).astype(int))) == 50


def test_symmetry_moves_planes_masks_and_policy_together():
    state = zerogym.make_state("tictactoe", board_size=3)
    state.step(0)  # a stone in the corner A1
    planes = state.encode()[None]
    mask = state.legal_mask()[None]
    policy = np.zeros((1, 9), np.float32)
    policy[0, 1] = 1.0  # all mass on B1, next to the stone
    sym = state.symmetries()
    buf = ReplayBuffer(10, planes.shape[1:], 9, max_reuse=1000, symmetries=sym, seed=3)
    buf.add(planes, mask, policy, np.array([0.5], np.float32))
    seen = set()
    for _ in range(200):
        b = buf.sample(1)
        stone = int(np.flatnonzero(b["planes"][0, 1].ravel())[0])  # the opponent's stone, seen by player 1
        target = int(np.argmax(b["policies"][0]))
        assert b["masks"][0, stone] == 0 and b["masks"].sum() == 8
        # the policy's action stays orthogonally adjacent to the stone, whatever the transform
        (r1, c1), (r2, c2) = divmod(stone, 3), divmod(target, 3)
        assert abs(r1 - r2) + abs(c1 - c2) == 1
        seen.add((stone, target))
    assert len(seen) == 8  # all 8 transforms of (corner, neighbour) occurred


def test_bad_shapes_are_refused():
    buf = ReplayBuffer(4, (2, 3, 3), 10)
    with pytest.raises(ValueError, match="planes"):
        buf.add(np.zeros((1, 2, 4, 4)), np.zeros((1, 10)), np.zeros((1, 10)), np.zeros(1))
    with pytest.raises(ValueError, match="policies"):
        buf.add(np.zeros((1, 2, 3, 3)), np.zeros((1, 10)), np.zeros((1, 9)), np.zeros(1))


def test_state_dict_round_trip_through_a_checkpoint(tmp_path):
    a = ReplayBuffer(8, (2, 3, 3), 10, max_reuse=2, seed=4)
    fill(a, 0, 6)
    a.sample(3)
    save_checkpoint(tmp_path / "c.pt", "test", {"replay": a.state_dict()})
    b = ReplayBuffer(8, (2, 3, 3), 10, max_reuse=2, seed=99)
    b.load_state_dict(load_checkpoint(tmp_path / "c.pt", "test")["replay"])
    assert np.array_equal(a.uses[:6], b.uses[:6]) and len(b) == 6
    x, y = a.sample(3), b.sample(3)  # same generator state: same next batch
    assert all(np.array_equal(x[k], y[k]) for k in x)
