"""The report of benchmarks/az_vs_pg.py: benchmarks/results/az_vs_pg.md and one plot per game, written
from the saved state only (the runs' records, the references, the round robins); the numbers come from
the experiment harness (zerogym_agents.experiment), the words from the numbers."""

import argparse
import json
import os

import numpy as np

from zerogym_agents.experiment import read_json, pooled_elo
from zerogym_agents.experiment.evaluation import fmt_elo, total, wdl

# what the policy-gradient agents should reach: wins against each reference in the final round robin
TARGETS = {"connect_four": (("random", 0.95), ("greedy", 0.70)), "go_5x5": (("random", 0.95), ("greedy", 0.70))}


def relpath(path):
    p = os.path.relpath(os.path.abspath(path), os.getcwd())
    return path if p.startswith("..") else p


def game_data(o, key):
    """Everything saved for one game: runs (by algo), references, round robin, and the joint Elo fit."""
    runs = o.comparison(key)
    saved = runs.saved()
    rr = saved["round_robin"]
    rr_elo = pooled_elo(rr["result"]["matches"], names=rr["result"]["names"]) if rr else None
    return {
        "key": key,
        "runs": saved["runs"],
        "refs": saved["references"],
        "rr": rr,
        "elo": runs.elo(saved),
        "rr_elo": rr_elo,
    }


def plot_game(o, g, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    elo = g["elo"]
    fig, ax = plt.subplots(figsize=(9.5, 4.5))
    colours = {"alphazero": "C0", "reinforce": "C1", "reinforce_baseline": "C2", "ppo": "C3"}
    for algo, prog in g["runs"].items():
        pts = [(ev["seconds"] / 60, elo.rating(ev["name"]), *elo.interval(ev["name"])) for ev in prog["evals"]]
        x, y, lo, hi = np.array(pts).T
        label = algo + (f" (PUCT {o.args.simulations})" if algo == "alphazero" else " (greedy policy)")
        ax.plot(x, y, marker="o", color=colours[algo], label=label)
        ax.fill_between(x, lo, hi, color=colours[algo], alpha=0.15)
        if prog.get("puct") and prog["puct"]["name"] in elo.names:
            n = prog["puct"]["name"]
            r, (l_, h_) = elo.rating(n), elo.interval(n)
            ax.errorbar(
                [x[-1]],
                [r],
                yerr=[[r - l_], [h_ - r]],
                fmt="s",
                mfc="none",
                color=colours[algo],
                capsize=3,
                label=f"{algo} final net in PUCT {o.args.simulations}",
            )
    for ref in o.references:
        if ref in elo.names:
            ax.axhline(elo.rating(ref), color="grey", lw=0.7, ls="--")
            ax.text(
                0.0,
                elo.rating(ref),
                f" {ref}",
                va="bottom",
                fontsize=7,
                color="grey",
                transform=ax.get_yaxis_transform(),
            )
    ax.set_xlabel("training wall time (minutes; evaluation excluded)")
    ax.set_ylabel("Elo (random = 0, 95% interval)")
    ax.set_title(
        f"{g['key']}: AlphaZero vs policy gradient"
        + (" (steps mode: not equal compute)" if o.step_mode else " at equal training time")
    )
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def final_name(g, algo):
    """The rating name of an algorithm's final agent: its round-robin name, else its last evaluation point."""
    if g["rr"] and algo in g["rr"]["result"]["names"]:
        return algo
    prog = g["runs"].get(algo)
    return prog["evals"][-1]["name"] if prog and prog.get("done") else None


def rr_match(g, a, b):
    """(W-D-L of a against b, games) from the round robin, or None."""
    if not g["rr"]:
        return None
    for m in g["rr"]["result"]["matches"]:
        t = total(m)
        if (m["agent_a"], m["agent_b"]) == (a, b):
            return t
        if (m["agent_a"], m["agent_b"]) == (b, a):
            return {"wins": t["losses"], "draws": t["draws"], "losses": t["wins"]}
    return None


def overlap(elo, a, b):
    la, ha = elo.interval(a)
    lb, hb = elo.interval(b)
    return not (la > hb or lb > ha)


def reading(o, data):
    """The written reading, generated from the numbers only."""
    lines = []
    if o.step_mode:
        lines += [
            "*This is a `--steps` run (a fixed number of training steps per evaluation, for tests): the "
            "algorithms did not get equal compute, so nothing below is a statement about equal compute.*",
            "",
        ]
    # 1. strongest
    lines += [
        ("**Strongest (steps mode)**" if o.step_mode else "**Strongest at equal training time**")
        + " (final agents, Elo over all games of the game):",
        "",
    ]
    if not data:
        lines.append("- No run has been evaluated yet.")
    firsts = {}
    for key, g in data.items():
        finals = [(a, final_name(g, a)) for a in o.all_algos if final_name(g, a)]
        if not finals:
            lines.append(f"- {key}: no finished run yet.")
            continue
        if len(finals) == 1:
            a, n = finals[0]
            lines.append(f"- {key}: only {a} has finished ({fmt_elo(g['elo'], n)}); no comparison yet.")
            continue
        elo = g["elo"]
        ranked = sorted(finals, key=lambda x: -elo.rating(x[1]))
        (a1, n1), (a2, n2) = ranked[0], ranked[1]
        firsts[key] = a1
        clear = not overlap(elo, n1, n2)
        order = ", ".join(f"{a} {fmt_elo(elo, n)}" for a, n in ranked)
        h2h = rr_match(g, a1, a2)
        h2h_text = f"; head to head in the round robin {a1} scored {wdl(h2h)} against {a2}" if h2h else ""
        verdict = (
            f"{a1} is strongest, ahead of {a2} beyond the 95% intervals"
            if clear
            else f"{a1} has the highest rating, but its 95% interval overlaps {a2}'s, so the first place is "
            f"not established"
        )
        lines.append(f"- {key}: {verdict}{h2h_text}. Ranking: {order}.")
    if firsts:
        tops = sorted(set(firsts.values()))
        if len(tops) == 1 and len(firsts) == len(o.all_games):
            lines.append(f"- {tops[0]} has the highest final rating on every game.")
        else:
            lines.append("- Highest final rating: " + ", ".join(f"{k}: {a}" for k, a in firsts.items()) + ".")
    lines.append("")
    # 2. ZetaGo hypothesis
    lines += [
        "**Does the value baseline help?** ZetaGo (Painter & Johnston, 'Mastering the game of Go from "
        "scratch') left the value baseline out of REINFORCE and names it as likely crucial for stable, fast "
        "convergence; hypothesis: reinforce_baseline beats reinforce on every game. Final agents:",
        "",
    ]
    above, compared, significant = [], [], []
    if not data:
        lines.append("- Not measured yet.")
    for key, g in data.items():
        nb, nr = final_name(g, "reinforce_baseline"), final_name(g, "reinforce")
        if not (nb and nr):
            lines.append(f"- {key}: not both finished; not measured.")
            continue
        elo = g["elo"]
        diff = elo.rating(nb) - elo.rating(nr)
        compared.append(key)
        h2h = rr_match(g, "reinforce_baseline", "reinforce")
        sig = not overlap(elo, nb, nr)
        if diff > 0:
            above.append(key)
            if sig:
                significant.append(key)
        lines.append(
            f"- {key}: reinforce_baseline {fmt_elo(elo, nb)} vs reinforce {fmt_elo(elo, nr)}: "
            f"{'higher' if diff > 0 else 'not higher'} by {diff:+.0f} Elo, "
            f"{'intervals separate' if sig else 'intervals overlap'}"
            + (f"; head to head {wdl(h2h)} (baseline's W-D-L)" if h2h else "")
            + "."
        )
    if compared:
        if len(above) == len(compared) == len(o.all_games):
            s = "reinforce_baseline is rated above reinforce on every game" + (
                " and the difference is beyond the 95% intervals on every game: supported."
                if len(significant) == len(compared)
                else f", but the intervals overlap on {len(compared) - len(significant)} of {len(compared)} games, "
                "so the evidence is not conclusive there."
            )
        elif len(above) == len(compared):
            s = (
                "reinforce_baseline is rated above reinforce on "
                + ("the one game" if len(compared) == 1 else f"all {len(compared)} games")
                + f" measured so far (of {len(o.all_games)}); not yet shown for every game."
            )
        else:
            s = (
                f"reinforce_baseline is rated above reinforce on {len(above)} of {len(compared)} games measured "
                f"({', '.join(above) or 'none'}): not on every game."
            )
        lines.append(f"- Verdict: {s}")
    lines.append("")
    # 3. targets
    lines += [
        "**Targets for the policy-gradient agents** on Connect Four and Go 5x5: win at least 95% of the "
        "games against Random and at least 70% against Greedy (final round robin; wins / games, a draw "
        "is not a win):",
        "",
    ]
    verdicts = []
    for key, targets in TARGETS.items():
        g = data.get(key)
        for algo in ("reinforce", "reinforce_baseline", "ppo"):
            for ref, need in targets:
                t = rr_match(g, algo, ref) if g else None
                if t is None:
                    lines.append(f"- {key} / {algo} vs {ref}: not measured, target >= {need:.0%}: **not measured**")
                    verdicts.append(None)
                    continue
                n = t["wins"] + t["draws"] + t["losses"]
                rate = t["wins"] / n
                ok = rate >= need - 1e-12
                verdicts.append(ok)
                lines.append(
                    f"- {key} / {algo} vs {ref}: {t['wins']} of {n} games won ({100 * rate:.1f}%), "
                    f"target >= {need:.0%}: **{'met' if ok else 'missed'}**"
                    + ("" if ok else best_during_training(g["runs"].get(algo), ref))
                )
    if all(v is True for v in verdicts):
        lines.append("- Overall: every policy-gradient variant meets both targets on both games: **met**.")
    elif any(v is False for v in verdicts):
        lines.append(
            f"- Overall: **missed** ({sum(v is False for v in verdicts)} of {len(verdicts)} targets "
            f"missed{', some not measured' if any(v is None for v in verdicts) else ''})."
        )
    else:
        lines.append(
            f"- Overall: **not measured** yet ({sum(v is None for v in verdicts)} of {len(verdicts)} "
            "targets without games)."
        )
    lines.append("")
    # 4. search at play time
    rows = []
    for key, g in data.items():
        for algo in ("reinforce", "reinforce_baseline", "ppo"):
            prog = g["runs"].get(algo)
            if prog and prog.get("puct") and final_name(g, algo) and prog["puct"]["name"] in g["elo"].names:
                greedy, puct = final_name(g, algo), prog["puct"]["name"]
                d = g["elo"].rating(puct) - g["elo"].rating(greedy)
                rows.append(
                    f"{key} {algo}: {d:+.0f} Elo ({fmt_elo(g['elo'], greedy)} greedy, "
                    f"{fmt_elo(g['elo'], puct)} in PUCT)"
                )
    if rows:
        lines += [
            f"**Search at play time**: the same policy-gradient nets inside PUCT({o.args.simulations}) "
            "instead of their greedy move: " + "; ".join(rows) + ". Plain REINFORCE trains no value head, "
            "so its search runs on an untrained value.",
            "",
        ]
    return lines


def best_during_training(prog, ref):
    """'; best during training: ...' for a missed target, from the run's evaluation points."""
    best = None
    for ev in (prog or {}).get("evals", []):
        for m in ev["matches"]:
            if m["agent_b"] == ref:
                t = m["total"]
                n = t["wins"] + t["draws"] + t["losses"]
                if n and (best is None or t["wins"] / n > best[0]):
                    best = (t["wins"] / n, t["wins"], n, ev["name"])
    if best is None:
        return ""
    return f" (best evaluation during training: {best[1]} of {best[2]} won, at {best[3].split('@')[-1]})"


def learning_rate_sentence(o, data):
    """Each algorithm's learning rate, start to end of its cosine schedule, as its run's config says."""
    rates = {}
    for _key, g in data.items():
        for algo, run in g["runs"].items():
            cfg = run["fingerprint"]["config"]
            optimizer = "Adam" if cfg.get("optimizer") == "adam" else "SGD"
            rates.setdefault(f"{optimizer} {cfg['lr']:g} to {cfg.get('lr_final', cfg['lr']):g}", []).append(algo)
    return "; ".join(f"{', '.join(dict.fromkeys(algos))}: {rate}" for rate, algos in rates.items())


def discount_sentence(o, data):
    """The policy-gradient runs' discount per learner move, per game, as their configs say."""
    parts = []
    for key, g in data.items():
        gammas = {}
        for algo, run in g["runs"].items():
            if algo != "alphazero":
                gammas.setdefault(f"{run['fingerprint']['config']['gamma']:g}", []).append(algo)
        parts += [f"{key} {gamma} ({', '.join(algos)})" for gamma, algos in gammas.items()]
    return "; ".join(parts)


def parameter_sentence(o, data):
    parts = []
    for key, g in data.items():
        counts = {}
        for algo in g["runs"]:
            card = read_json(os.path.splitext(o.agent_path(key, algo))[0] + ".json")
            if card and "parameters" in card:
                counts[algo] = card["parameters"]
        if not counts:
            continue
        if len(set(counts.values())) == 1:
            parts.append(f"{key} {next(iter(counts.values()))} for each of {', '.join(counts)}")
        else:
            parts.append(f"{key} " + ", ".join(f"{a} {n}" for a, n in counts.items()))
    return "; ".join(parts) or "no finished run yet"


def budget_table(o, g):
    lines = [
        "| algorithm | plays with | parameters | training min | training CPU min | checkpoints s | "
        "evaluation min | parallel | training progress |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for algo, prog in g["runs"].items():
        c = prog.get("counters", {})
        params = "-"
        card_path = os.path.splitext(o.agent_path(g["key"], algo))[0] + ".json"
        card = read_json(card_path)
        if card:
            params = str(card.get("parameters", "-"))
        ev_min = (
            sum(e["eval_seconds"] for e in prog["evals"]) + (prog["puct"]["eval_seconds"] if prog.get("puct") else 0)
        ) / 60
        if algo == "alphazero":
            play = f"PUCT, {o.args.simulations} simulations"
            progress = (
                f"{c.get('search_steps', prog['steps'])} search steps, {c.get('self_play_games', '-')} "
                f"self-play games, {c.get('sgd_steps', '-')} SGD steps"
            )
        else:
            play = "greedy policy (no search)"
            progress = (
                f"{c.get('updates', prog['steps'])} updates, {c.get('episodes', '-')} games, "
                f"{c.get('learner_moves', '-')} learner moves"
            )
        est = f" (of which {prog['estimated_seconds'] / 60:.1f} estimated)" if prog.get("estimated_seconds") else ""
        status = "" if prog.get("done") else " (unfinished)"
        lines.append(
            f"| {algo}{status} | {play} | {params} | {prog['seconds'] / 60:.1f}{est} | "
            f"{prog.get('cpu_seconds', 0) / 60:.1f} | {prog['checkpoint_seconds']:.0f} | {ev_min:.1f} | "
            f"{', '.join(map(str, prog.get('parallel', []))) or '-'} | {progress} |"
        )
    return lines


def curve_table(o, g):
    algos = list(g["runs"])
    elo = g["elo"]
    head = "training " + ("steps" if o.step_mode else "minutes")
    lines = [f"| {head} | " + " | ".join(algos) + " |", "|---|" + "---:|" * len(algos)]
    for k in range(len(o.targets)):
        cells = []
        for a in algos:
            evs = [e for e in g["runs"][a]["evals"] if e["index"] == k]
            cells.append(fmt_elo(elo, evs[0]["name"]) if evs else "-")
        label = str(o.targets[k]) if o.step_mode else f"{o.targets[k] / 60:g}"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    cells = []
    for a in algos:
        prog = g["runs"][a]
        if a == "alphazero":
            cells.append("(searches already)")
        else:
            cells.append(fmt_elo(elo, prog["puct"]["name"]) if prog.get("puct") else "-")
    lines.append(f"| final net in PUCT({o.args.simulations}) | " + " | ".join(cells) + " |")
    lines.append("| training minutes used | " + " | ".join(f"{g['runs'][a]['seconds'] / 60:.1f}" for a in algos) + " |")
    return lines


def elo_table(o, g):
    elo, rr_elo = g["elo"], g["rr_elo"]
    names = list(g["rr"]["result"]["names"]) if g["rr"] else []
    for algo in o.all_algos:
        prog = g["runs"].get(algo)
        if prog and prog.get("puct"):
            names.append(prog["puct"]["name"])
    names = [n for n in names if n in elo.names]
    names.sort(key=lambda n: -elo.rating(n))
    lines = ["| agent | Elo, all games [95%] | games | Elo, round robin only [95%] |", "|---|---:|---:|---:|"]
    for n in names:
        i = elo.names.index(n)
        lines.append(f"| {n} | {fmt_elo(elo, n)} | {int(elo.games[i])} | {fmt_elo(rr_elo, n)} |")
    return lines


def openings_sentence(o, data):
    """How the games of every match begin (random openings per game, or none)."""
    n = {key: o.opening_moves(key) for key in data}
    if not any(n.values()):
        return (
            "Every game starts from the initial position. The agents play deterministically, so two of "
            "them may replay the same games: see the *distinct games* column of the round robin."
        )
    return (
        "**Openings.** In every match (evaluations, references, round robin) games 2j and 2j+1 start "
        "from the same random opening, colours swapped (arena `--opening-moves`; "
        + ", ".join(f"{key} {k} moves" for key, k in n.items())
        + "): the agents play deterministically, and without it two of them would replay the same two "
        "games over and over. The *distinct games* column of the round robin counts the different games."
    )


def arena_command(o, key, g):
    game, kwargs, _ = o.all_games[key]
    names = g["rr"]["result"]["names"]
    specs = [relpath(o.agent_path(key, n)) if n in o.all_algos else n for n in names]
    kw = (" --kwargs " + " ".join(f"{k}={v}" for k, v in kwargs.items())) if kwargs else ""
    fp = g["rr"]["fingerprint"]
    openings = f" --opening-moves {fp['opening_moves']}" if fp.get("opening_moves") else ""
    return (
        f"zerogym arena --game {game}{kw} --agents {' '.join(specs)} --games {fp['games_per_pair']}{openings} "
        f"--seed {fp['seed']}{' --anchor random' if 'random' in names else ''} "
        f"--out runs/az_vs_pg_recheck/{key}"
    )


class ReportView:
    """The settings as the saved runs record them (so --report-only needs no other options); everything
    else (folders, command) from the command line."""

    def __init__(self, o, data):
        self._o = o
        fp = next((p["fingerprint"] for g in data.values() for p in g["runs"].values()), None)
        budget = fp["budget"] if fp else o.budget()
        ev = fp["evaluation"] if fp else o.evaluation()
        self.step_mode = budget["mode"] == "steps"
        self.references = list(ev["references"])
        self.targets = o.budget_of(budget, ev["eval_at_start"]).targets()
        self.args = argparse.Namespace(**vars(o.args))
        self.args.eval_games, self.args.simulations = ev["eval_games"], ev["simulations"]
        self.args.eval_at_start, self.args.seed = ev["eval_at_start"], ev["seed"]
        self.saved_openings = ev.get("opening_moves", {})  # runs made before openings: none
        if self.step_mode:
            self.args.steps = budget["steps_per_eval"]
        else:
            self.args.minutes, self.args.eval_every_minutes = budget["minutes"], budget["eval_every_minutes"]
        self.args.final_games = next(
            (g["rr"]["fingerprint"]["games_per_pair"] for g in data.values() if g["rr"]), o.args.final_games
        )

    def opening_moves(self, key):
        return self.saved_openings.get(key, 0)

    def __getattr__(self, name):
        return getattr(self._o, name)


def write_report(o):
    """benchmarks/results/az_vs_pg.md and one plot per game, from the saved state only."""
    from zerogym_agents.arena.match import RoundRobinResult
    from zerogym_agents.arena.report import pairwise_markdown

    os.makedirs(o.results_dir, exist_ok=True)
    data = {key: game_data(o, key) for key in o.all_games}
    data = {k: g for k, g in data.items() if g["runs"]}
    o = ReportView(o, data)
    a = o.args
    lines = [
        "# AlphaZero vs policy gradient at equal compute",
        "",
        "Each algorithm trains from scratch, from the same seed, for the same wall-clock training budget "
        + (
            f"({a.minutes:g} minutes per run, one torch thread each; evaluation and checkpoint time are not "
            f"counted but measured separately)"
            if not o.step_mode
            else f"(here: {a.steps} training steps per evaluation, a test-sized run)"
        )
        + ". Every "
        + (f"{a.eval_every_minutes:g} minutes of training" if not o.step_mode else f"{a.steps} steps")
        + (" and before training" if a.eval_at_start else "")
        + f", the current agent plays {a.eval_games} games (colours alternated) against each of "
        + ", ".join(f"`{r}`" for r in o.references)
        + ".",
        "",
        openings_sentence(o, data),
        "",
        f"- **How they play.** AlphaZero plays with its PUCT search at **{a.simulations} simulations per "
        "move**. The policy-gradient agents (REINFORCE as in ZetaGo, REINFORCE with a learned value "
        "baseline, MaskablePPO; all against a pool of their past selves) play **their net's greedy move, "
        f"with no search**. So that the training method can be told apart from search at play time, the "
        f"final policy-gradient nets are also measured inside the same PUCT search ({a.simulations} "
        "simulations; row *final net in PUCT* and agents `<algo>+puct"
        f"{a.simulations}`).",
        "- **Elo.** Maximum-likelihood Bradley-Terry (fit_elo) over every game of a game: the references "
        "among themselves, every evaluation point, the PUCT measurements and the final round robin; "
        "Random = 0, 95% intervals. Each evaluation point is its own player.",
        f"- **Final round robin.** The final agents and the references, {a.final_games} games per pair, "
        "colours alternated (round_robin).",
        "- **Nets.** Every algorithm trains the same network: the AlphaZero preset's of "
        "benchmarks/az_strength.py (trunk, blocks, channels; `--net` overrides it for all). Parameters: "
        + parameter_sentence(o, data)
        + ".",
        "- **Learning rate.** Each run's falls on a cosine from its first to its last value over the "
        "training budget: " + learning_rate_sentence(o, data) + ".",
        "- **Discount.** A policy-gradient return is the game's result discounted by gamma per later "
        "learner move (AlphaZero's value targets are undiscounted): " + discount_sentence(o, data) + ".",
        "- **Compute.** Each training process uses one torch thread. The budget is wall-clock time; the "
        "*training CPU min* column shows the CPU time each training process actually got, so that other "
        "load on the machine during a run can be seen. Runs made with `--parallel 2` trained two at a time "
        "on the two cores (column *parallel*).",
        "",
    ]
    lines += ["## Reading", "", *reading(o, data)]
    for key, g in data.items():
        game, kwargs, _ = o.all_games[key]
        lines += [f"## {key}", ""]
        lines += ["Budget and what was trained:", "", *budget_table(o, g), ""]
        lines += [
            f"Elo over training (random = 0, [95% interval]); AlphaZero with PUCT({a.simulations}), "
            "policy-gradient agents greedy, no search:",
            "",
            *curve_table(o, g),
            "",
        ]
        png = f"az_vs_pg_{key}.png"
        plot_game(o, g, os.path.join(o.results_dir, png))
        lines += [f"![{key}]({png})", ""]
        if g["rr"]:
            result = RoundRobinResult.from_dict(g["rr"]["result"])
            lines += [
                f"Final round robin ({g['rr']['fingerprint']['games_per_pair']} games per pair; W-D-L from "
                "A's view, split by who moved first):",
                "",
                pairwise_markdown(result).rstrip(),
                "",
            ]
            lines += ["Elo table (final agents, the PG nets in PUCT search, references):", "", *elo_table(o, g), ""]
            lines += [
                "Re-check the round robin from the saved agents, without training (same seeds: same games):",
                "",
                "```",
                arena_command(o, key, g),
                "```",
                "",
            ]
        else:
            lines += ["Final round robin: not played yet (it waits for every selected run of this game).", ""]
    lines += [
        "## Configs",
        "",
        "As each run recorded them (AlphaZeroConfig for alphazero, PGConfig for the others).",
        "",
    ]
    for key, g in data.items():
        for algo, prog in g["runs"].items():
            lines += [
                f"<details><summary>{key} / {algo}</summary>",
                "",
                "```json",
                json.dumps(prog["fingerprint"]["config"], indent=1, sort_keys=True),
                "```",
                "",
                "</details>",
                "",
            ]
    commands = []
    for g in data.values():
        for prog in g["runs"].values():
            for c in prog.get("commands", []):
                if c not in commands:
                    commands.append(c)
    lines += [
        "## Commands",
        "",
        "The runs were made by:",
        "",
        "```",
        *commands,
        "```",
        "",
        "This report was written by:",
        "",
        "```",
        o.command(),
        "```",
        "",
    ]
    path = os.path.join(o.results_dir, "az_vs_pg.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path
