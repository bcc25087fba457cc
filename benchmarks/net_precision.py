"""The network's forward pass and SGD step in float32 and under bf16 autocast on the CPU, and how
far bf16's answers are from float32's.

    python benchmarks/net_precision.py [--nets pretrained:connect_four pretrained:go_9x9]
                                       [--batches 32 128 512] [--seconds 2] [--label LABEL]

For each saved agent's net: the time of one forward pass (torch.inference_mode, eval mode) at each
batch size of random 0/1 planes, and of one SGD step (loss, backward, optimizer step) at batch 256,
with precision="float32" and "bfloat16" (zerogym_agents.core.devices; make_evaluator's and
AlphaZeroConfig's precision), on one torch thread. bf16 pays off only on a CPU with native bf16
(AVX512-BF16 or AMX); the table says whether this one has it.

Writes benchmarks/results/net_precision.md and net_precision.png (net_precision_LABEL.* with --label).
"""

import argparse
import os
import sys
import time

import matplotlib
import numpy as np
import torch
from tqdm import tqdm

import zerogym

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from zerogym_agents.core.devices import autocast, cpu_has_bf16  # noqa: E402
from zerogym_agents.nets import loss, net_from_payload  # noqa: E402
from zerogym_agents.agents.saved import read_agent  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CPU = torch.device("cpu")
SGD_BATCH = 256


def load_net(spec):
    """The net of a saved agent and the board (H, W) it was trained on."""
    path, saved = read_agent(spec)
    card = saved["card"]
    state = zerogym.make_state(card["game"], **card.get("kwargs", {}))
    h, w = state.encode().shape[1:]
    return net_from_payload(saved["net"], source=path).eval(), (h, w)


def timed(fn, seconds):
    """Mean seconds per call of fn, over at least `seconds` (after 3 warm-up calls)."""
    for _ in range(3):
        fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    return (time.perf_counter() - t0) / n


def planes(net, board, batch, rng):
    return torch.from_numpy((rng.random((batch, net.config.in_planes) + board) < 0.3).astype(np.float32))


def forward_time(net, x, precision, seconds):
    def run():
        with torch.inference_mode(), autocast(CPU, precision):
            net(x)

    return timed(run, seconds)


def sgd_time(net, x, precision, seconds):
    """One SGD step on uniform policy targets over every action and random values."""
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=1e-4, momentum=0.9)
    a = net.num_actions(*x.shape[2:])
    policy = torch.full((len(x), a), 1.0 / a)
    value = torch.linspace(-1, 1, len(x))

    def step():
        total, _, _ = loss(net, x, policy, value, precision=precision)
        opt.zero_grad()
        total.backward()
        opt.step()

    try:
        return timed(step, seconds)
    finally:
        net.eval()


def gap(net, x):
    """Largest difference between bf16's and float32's value outputs (tanh of the value logit)."""
    with torch.inference_mode():
        exact = torch.tanh(net.forward_raw(x)[1])
        with autocast(CPU, "bfloat16"):
            rough = torch.tanh(net.forward_raw(x)[1].float())
    return float((exact - rough).abs().max())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nets", nargs="+", default=["pretrained:connect_four", "pretrained:go_9x9"])
    ap.add_argument("--batches", type=int, nargs="+", default=[32, 128, 512])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    ap.add_argument("--label", help="writes net_precision_LABEL.md and .png")
    args = ap.parse_args(argv)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    rows, runs = [], [(spec, b) for spec in args.nets for b in args.batches + ["sgd"]]
    nets = {spec: load_net(spec) for spec in args.nets}
    try:
        for spec, b in tqdm(runs, desc="net precision", unit="row"):
            net, board = nets[spec]
            x = planes(net, board, SGD_BATCH if b == "sgd" else b, rng)
            measure = sgd_time if b == "sgd" else forward_time
            ms = [1e3 * measure(net, x, p, args.seconds) for p in ("float32", "bfloat16")]
            rows.append(
                (
                    spec,
                    f"SGD step, batch {SGD_BATCH}" if b == "sgd" else f"forward, batch {b}",
                    *ms,
                    gap(net, x) if b != "sgd" else None,
                )
            )
    finally:
        torch.set_num_threads(threads)
    cmd = "python benchmarks/net_precision.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = [
        "# Network speed: float32 and bf16 autocast on the CPU",
        "",
        f"Made by `{cmd}` on this machine ({os.cpu_count()} CPU cores, one torch thread); the CPU "
        f"{'has' if cpu_has_bf16() else 'has no'} native bf16 (AVX512-BF16 or AMX).",
        "",
        "| net | what | float32 (ms) | bfloat16 (ms) | speed-up | largest value difference |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| `{spec}` | {what} | {f32:.2f} | {bf:.2f} | {f32 / bf:.2f}x | {'-' if g is None else f'{g:.3f}'} |"
        for spec, what, f32, bf, g in rows
    ]
    name = "net_precision" + (f"_{args.label}" if args.label else "")
    lines += [
        "",
        "Value difference: the largest |tanh(z_bf16) - tanh(z_float32)| over the batch's random positions "
        "(values lie in [-1, 1]).",
        "",
        f"![speed-up]({name}.png)",
        "",
    ]
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{name}.md"), "w") as f:
        f.write("\n".join(lines))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for spec in args.nets:
        mine = [r for r in rows if r[0] == spec and r[1].startswith("forward")]
        ax.plot([int(r[1].split()[-1]) for r in mine], [r[2] / r[3] for r in mine], marker="o", label=spec)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch size")
    ax.set_ylabel("forward speed-up, bf16 over float32")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"{name}.png"), dpi=100)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
