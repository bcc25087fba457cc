"""Self-play throughput with a real network: how much of the wall time is spent outside the
net's forward pass, and how throughput grows with the number of concurrent games G.

    python benchmarks/selfplay_throughput.py [--game connect_four] [--simulations 64] [--seconds 20]
                                             [--cache 0 65536] [--precision auto bfloat16]
                                             [--net pretrained:connect_four] [--device cpu cuda]

Each G is measured with each evaluation cache size (make_evaluator's cache, AlphaZeroConfig.eval_cache;
0 = off) and each --precision (auto: float32 on the CPU; bfloat16: bf16 autocast, fast on a CPU with
native bf16), on each --device (cpu, cuda, cuda:N; the search stays on the CPU, the forward pass runs
there). --net: a saved agent's net instead of a freshly initialised ResNet 4x32 (a trained net
searches more narrowly, so it meets more repeated positions).

Writes benchmarks/results/selfplay_throughput[_LABEL].md. Target: the share outside the forward pass <= 15%.
"""
import argparse
import os
import sys
import time

import torch
from tqdm import tqdm

import zerogym
from zerogym_agents.core.devices import PRECISIONS, cpu_has_bf16, resolve_device
from zerogym_agents.mcts.search import BatchedMCTS
from zerogym_agents.nets import PolicyValueNet, for_game, make_evaluator

HERE = os.path.dirname(os.path.abspath(__file__))


class TimedEvaluator:
    """Wraps an evaluator and adds up the time spent inside it (the net's forward pass and the
    softmax around it)."""

    def __init__(self, evaluator):
        self.evaluator, self.seconds, self.calls, self.positions = evaluator, 0.0, 0, 0

    def __call__(self, planes, masks):
        t0 = time.perf_counter()
        out = self.evaluator(planes, masks)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        self.positions += len(masks)
        return out


def measure(game, kwargs, net, G, simulations, seconds, seed=0, cache=0, precision="auto", device="cpu"):
    """Self-play moves/s and the share of time outside the evaluator, G games at once."""
    inner = make_evaluator(net, device=device, cache=cache, precision=precision)
    ev = TimedEvaluator(inner)
    mcts = BatchedMCTS(game, num_games=G, simulations=simulations, seed=seed, **kwargs)
    template = zerogym.make_state(game, **kwargs)
    roots = [template.copy() for _ in range(G)]
    mcts.set_roots(roots)
    moves, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        mcts.run(ev)
        actions = mcts.select_actions(1.0)
        mcts.advance(actions)
        for i, root in enumerate(roots):
            root.step(int(actions[i]))
            if root.is_over():
                root.reset()
                mcts.set_root(i, root)
        moves += G
    wall = time.perf_counter() - t0
    return {"G": G, "cache": cache, "precision": precision, "device": device, "moves_per_s": moves / wall,
            "positions_per_s": ev.positions / wall, "outside_share": 1 - ev.seconds / wall,
            "batch": ev.positions / max(ev.calls, 1), "hit_share": inner.hits / max(inner.hits + inner.misses, 1)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="connect_four")
    ap.add_argument("--simulations", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--games", type=int, nargs="*", default=[1, 8, 64, 256])
    ap.add_argument("--cache", type=int, nargs="*", default=[0, 65536], help="evaluation cache sizes (0: off)")
    ap.add_argument("--precision", nargs="*", default=["auto"], choices=PRECISIONS,
                    help="forward-pass precisions to measure (make_evaluator's precision)")
    ap.add_argument("--device", nargs="*", default=["cpu"], help="devices for the forward pass (cpu, cuda, cuda:N)")
    ap.add_argument("--net", help="a saved agent (path or pretrained:NAME) whose net to use")
    ap.add_argument("--label", help="writes selfplay_throughput_LABEL.md")
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    if args.net:
        from zerogym_agents.nets import net_from_payload
        from zerogym_agents.agents.saved import read_agent
        path, saved = read_agent(args.net)
        net = net_from_payload(saved["net"], source=path, game=args.game).eval()
        what = f"the net of `{args.net}`"
    else:
        net = PolicyValueNet(for_game(args.game, trunk="resnet", blocks=4, channels=32)).eval()
        what = "a freshly initialised ResNet 4x32"
    devices = [resolve_device(d) for d in args.device]    # a missing GPU is refused before any measuring
    runs = [(G, c, p, d) for d in args.device for G in args.games for c in args.cache for p in args.precision]
    rows = [measure(args.game, {}, net, G, args.simulations, args.seconds, cache=c, precision=p, device=d)
            for G, c, p, d in tqdm(runs, desc="self-play throughput", unit="run")]
    gpus = sorted({torch.cuda.get_device_name(d) for d in devices if d.type == "cuda"})
    cmd = "python benchmarks/selfplay_throughput.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = [f"# Self-play throughput: {args.game}", "",
             f"Made by `{cmd}` on this machine ({os.cpu_count()} CPU cores, torch threads {torch.get_num_threads()}"
             f"{''.join(', GPU ' + g for g in gpus)}).",
             f"Net: {what} ({net.num_parameters()} parameters), {args.simulations} simulations per move, "
             f"one leaf per tree per batch; the CPU {'has' if cpu_has_bf16() else 'has no'} native bf16.", "",
             "| device | concurrent games G | evaluation cache | precision | self-play moves/s | "
             "evaluated positions/s | answered from the cache | mean batch | time outside the evaluator |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['device']} | {r['G']} | {r['cache'] or 'off'} | {r['precision']} | "
              f"{r['moves_per_s']:.1f} | {r['positions_per_s']:.0f} | "
              f"{100 * r['hit_share']:.1f}% | {r['batch']:.0f} | {100 * r['outside_share']:.1f}% |" for r in rows]
    lines += ["", "Evaluated positions: the leaves handed to the evaluator, those answered from the cache included. "
              "Outside the evaluator: the compiled search (selection, expansion, backup, leaf encoding), "
              "the Python glue of each batch and the move bookkeeping (the cache's lookups count as inside). "
              "Target <= 15%."]
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    name = "selfplay_throughput" + (f"_{args.label}" if args.label else "")
    with open(os.path.join(HERE, "results", name + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
