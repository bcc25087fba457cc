"""The agents on Breakthrough, a game whose actions are moves from a cell: nets with three policy
logits per cell at any board size, symmetric evaluation, net files written before that layout
existed, and UCT, Greedy, Minimax, AlphaZero and the policy-gradient trainer playing it."""

import json

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents import GreedyAgent, RandomAgent
from zerogym_agents.arena.match import play_match
from zerogym_agents.agents.minimax import MinimaxAgent, centre_order
from zerogym_agents.nets import NetConfig, PolicyValueNet, load_net
from zerogym_agents.nets.evaluate import make_evaluator
from zerogym_agents.nets.heads import PolicyHead, global_pool
from zerogym_agents.nets.model import layout_fields
from zerogym_agents.agents.search import AlphaZeroAgent, UCTAgent
from tiny_runs import NET as SMALL, alphazero_config, pg_config

PRETRAINED = ["tictactoe", "connect_four", "othello_6x6", "go_5x5", "go_9x9"]


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Tiny nets, a busy machine."""


def planes_of(rows, cols, moves=()):
    s = zerogym.make_state("breakthrough", rows=rows, cols=cols)
    for a in moves:
        s.step(a)
    return s, torch.from_numpy(s.encode()[None])


# ---- nets ------------------------------------------------------------------------------------------
def test_a_net_for_the_game_gives_three_logits_per_cell_at_every_size():
    cfg = NetConfig.for_game("breakthrough", game_kwargs={"rows": 5, "cols": 5}, **SMALL)
    assert (cfg.action_layout, cfg.actions_per_cell, cfg.extra_actions, cfg.in_planes) == ("cell_moves", 3, 0, 5)
    net = PolicyValueNet(cfg).eval()
    for rows, cols in ((5, 5), (6, 6), (4, 7)):
        s, x = planes_of(rows, cols)
        logits, value = net(x)
        assert logits.shape == (1, s.num_actions) == (1, rows * cols * 3) and value.shape == (1,)
        assert net.num_actions(rows, cols) == s.num_actions
        cfg.check_game("breakthrough", {"rows": rows, "cols": cols})


def test_the_logit_of_a_move_is_its_plane_at_its_cell():
    head = PolicyHead(6, 4, 0, "cell_moves", actions_per_cell=3).eval()
    x = torch.randn(2, 6, 4, 5)
    planes = head.cells(x)  # (B, 3, H, W)
    logits = head(x)
    for r, c, d in ((0, 0, 0), (3, 4, 2), (2, 1, 1)):
        assert torch.equal(logits[:, (r * 5 + c) * 3 + d], planes[:, d, r, c])
    with pytest.raises(ValueError, match="more than 1 for the 'cell_moves' layout"):
        PolicyHead(6, layout="cell_moves")
    with pytest.raises(ValueError, match="1 for the others"):
        NetConfig(action_layout="cells", actions_per_cell=3)


def test_the_layout_is_guessed_from_the_action_count_where_no_game_is_named():
    assert layout_fields(6, 6, 108) == {"action_layout": "cell_moves", "extra_actions": 0, "actions_per_cell": 3}
    assert layout_fields(5, 5, 26) == {"action_layout": "cells", "extra_actions": 1, "actions_per_cell": 1}
    assert layout_fields(6, 7, 7) == {"action_layout": "columns", "extra_actions": 0, "actions_per_cell": 1}
    with pytest.raises(ValueError, match="fit none of the layouts"):
        layout_fields(6, 6, 60)


def test_symmetric_evaluation_maps_the_moves_back():
    torch.manual_seed(0)
    net = PolicyValueNet(NetConfig.for_game("breakthrough", game_kwargs={"rows": 6, "cols": 6}, **SMALL)).eval()
    s, _ = planes_of(6, 6, [(1 * 6 + 2) * 3 + 2, (4 * 6 + 4) * 3 + 1])
    ev = make_evaluator(net, symmetries=s, threads=None)
    mirror = zerogym.make_state("breakthrough", rows=6, cols=6).set_position(s.board()[:, ::-1], s.current_player)
    sym = s.symmetries()
    p, v = ev(s.encode()[None], s.legal_mask()[None])
    pm, vm = ev(mirror.encode()[None], mirror.legal_mask()[None])
    # averaged over the mirror, a position and its mirror image get the same value and mirrored priors
    assert np.allclose(v, vm, atol=1e-6) and np.allclose(sym.policy(p, 1), pm, atol=1e-6)
    assert np.isclose(p.sum(), 1) and (p[0][s.legal_mask() == 0] == 0).all()
    # another board size reuses the game's way of mapping moves
    s7, _ = planes_of(7, 5)
    p7, _ = ev(s7.encode()[None], s7.legal_mask()[None])
    assert p7.shape == (1, 7 * 5 * 3) and np.isclose(p7.sum(), 1)


@pytest.mark.parametrize("name", PRETRAINED)
def test_net_files_written_before_the_layout_load_and_compute_as_before(name, tmp_path):
    from zerogym_agents.core.checkpoint import read_torch_file, resolve

    data = read_torch_file(resolve(f"pretrained:{name}"), what="net")
    saved = json.loads(data["net"]["config"])
    saved.pop("actions_per_cell", None)  # as a file written before the field
    data["net"]["config"] = json.dumps(saved)
    torch.save(data["net"], tmp_path / "old.pt")
    net = load_net(tmp_path / "old.pt")
    assert net.config.actions_per_cell == 1 and net.config.action_layout == saved["action_layout"]
    game, kwargs = net.config.game, json.loads(open(resolve(f"pretrained:{name}")[:-3] + ".json").read())["kwargs"]
    s = zerogym.make_state(game, **kwargs)
    x = torch.from_numpy(s.encode()[None])
    with torch.no_grad():
        logits, _ = net(x)
        feat = net.trunk(x)
        head = net.policy
        cell = head.cells(feat)[:, 0]  # the one-plane head as it was
        old = torch.logsumexp(cell, dim=1) if head.layout == "columns" else cell.flatten(1)
        if head.extra is not None:
            old = torch.cat([old, head.extra(global_pool(feat))], dim=1)
    assert torch.equal(logits, old) and logits.shape == (1, s.num_actions)


# ---- agents -------------------------------------------------------------------------------------
def test_minimax_solves_small_boards_and_orders_moves_by_the_cell_left():
    s = zerogym.make_state("breakthrough", rows=4, cols=3)
    m = MinimaxAgent(seed=0)
    assert m.value(s) == reference_value(s.board(), 0, {})
    order = centre_order(s.spec)
    cells = order // 3
    assert sorted(order.tolist()) == list(range(s.num_actions)) and set(cells[:3].tolist()) <= {4, 7}
    r = play_match(MinimaxAgent(seed=1), RandomAgent(seed=2), "breakthrough", {"rows": 4, "cols": 4}, games=6, seed=0)
    assert r.total.losses <= 3  # it loses only where the start is lost


def reference_value(board, player, memo):
    """Negamax value for `player` to move, from the rules as written (tiny boards only)."""
    key = (board.tobytes(), player)
    if key in memo:
        return memo[key]
    rows, cols = board.shape
    own, opp, f = player + 1, 2 - player, 1 - 2 * player
    best = -1
    for r, c in zip(*np.nonzero(board == own)):
        for dc in (-1, 0, 1):
            rr, cc = r + f, c + dc
            if not 0 <= cc < cols or (dc == 0 and board[rr, cc]) or board[rr, cc] == own:
                continue
            b = board.copy()
            b[r, c], b[rr, cc] = 0, own
            win = rr == (rows - 1 if player == 0 else 0) or not (b == opp).any()
            best = max(best, 1 if win else -reference_value(b, 1 - player, memo))
    memo[key] = best
    return best


def test_greedy_and_uct_beat_random_play():
    for agent in (GreedyAgent(seed=1), UCTAgent(200, seed=1)):
        r = play_match(agent, RandomAgent(seed=2), "breakthrough", {"rows": 5, "cols": 5}, games=8, seed=0)
        assert r.total.wins >= 7


def test_greedy_takes_a_win_and_stops_a_piece_about_to_win():
    s = zerogym.make_state("breakthrough", rows=6, cols=6)
    b = np.zeros((6, 6), np.int8)
    b[4, 2], b[1, 3], b[0, 4], b[5, 0] = 1, 2, 1, 2  # black wins by c5 -> row 6
    s.set_position(b, 0)
    env = zerogym.make("breakthrough", rows=6, cols=6)
    env.reset()
    env.unwrapped.state.copy_from(s)
    a = GreedyAgent(seed=0).act(env)
    assert s.move_cells(a)[1][0] == 5
    b[4, 2] = 0  # no win: white's d2 must be taken (e1xd2)
    s.set_position(b, 0)
    env.unwrapped.state.copy_from(s)
    assert GreedyAgent(seed=0).act(env) == (0 * 6 + 4) * 3 + 0


def test_alphazero_trains_a_few_steps_and_its_agent_plays(tmp_path):
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer

    game = dict(game="breakthrough", game_kwargs={"rows": 5, "cols": 5}, concurrent_games=4, simulations=8)
    cfg = alphazero_config(game, max_steps=6, checkpoint_every=6, net=SMALL)
    tr = AlphaZeroTrainer(cfg, tmp_path / "az", log_dir=False)
    tr.run(progress=False, stop_at=6)
    assert tr.step == 6 and tr.net.config.action_layout == "cell_moves"
    agent = tr.agent(seed=0)
    assert isinstance(agent, AlphaZeroAgent)
    r = play_match(agent, RandomAgent(seed=1), "breakthrough", {"rows": 5, "cols": 5}, games=2, seed=0)
    assert r.total.wins + r.total.losses == 2


def test_the_policy_gradient_trainer_runs_on_the_game(tmp_path):
    from zerogym_agents.pg.trainers import make_trainer

    game = dict(game="breakthrough", game_kwargs={"rows": 6, "cols": 6}, num_envs=4, snapshot_every=4, pool_size=2)
    cfg = pg_config(game, max_steps=3, checkpoint_every=3, net=SMALL, seed=2)
    tr = make_trainer(cfg, tmp_path / "pg", log_dir=False)
    tr.run(progress=False, stop_at=3)
    assert tr.step == 3 and tr.net.num_actions(6, 6) == 108
    r = play_match(tr.agent(seed=0), RandomAgent(seed=1), "breakthrough", {"rows": 6, "cols": 6}, games=2, seed=0)
    assert r.total.wins + r.total.losses == 2
