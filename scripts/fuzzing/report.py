"""Findings and counts: the Recorder that saves findings' inputs, merging workers' reports, the summary."""

import datetime
import hashlib
import json
import math
import os
import re
import shlex
from collections import Counter, defaultdict

from .common import ROOT
from .configs import games, games_option


def signature(target, kind, message):
    """What findings of one kind have in common: numbers and quoted values stripped from the message."""
    text = re.sub(r"0x[0-9a-f]+|-?\d+(\.\d+)?(e[-+]?\d+)?", "N", message)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)[:160]
    return f"{target}: {kind}: {text}"


def json_safe(obj):
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, bytes):
        return obj.decode("latin-1") if len(obj) < 200 else f"<{len(obj)} bytes>"
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)
    if isinstance(obj, int) and not -(2**53) <= obj <= 2**53:
        return str(obj)
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return repr(obj)


class Recorder:
    """Counts and findings of one worker (or of the in-process run)."""

    def __init__(self, findings_dir, seed, examples):
        self.findings_dir, self.seed, self.examples = findings_dir, seed, examples
        self.counts = defaultdict(Counter)  # target -> game -> inputs
        self.seconds = Counter()  # target -> seconds spent on inputs
        self.findings = {}  # signature -> {"count", "target", "kind", "message", "examples"}

    def add(self, target, kind, message, detail, index=None, inp=None, tgt=None):
        sig = signature(target, kind, message)
        f = self.findings.setdefault(
            sig, {"count": 0, "target": target, "kind": kind, "message": message[:500], "examples": []}
        )
        f["count"] += 1
        if len(f["examples"]) < self.examples and self.findings_dir:
            folder = os.path.join(self.findings_dir, target, hashlib.sha1(sig.encode()).hexdigest()[:12], str(index))
            os.makedirs(folder, exist_ok=True)
            info = {
                "target": target,
                "seed": self.seed,
                "index": index,
                "kind": kind,
                "message": message,
                "signature": sig,
                "games": games_option(),
                "replay": f"python scripts/fuzz.py --replay {shlex.quote(folder)}",
            }
            if inp is not None and tgt is not None:
                try:
                    info["input"] = json_safe(tgt.save(inp, folder))
                except Exception as err:  # saving must not stop the run
                    info["input"] = f"could not save the input: {type(err).__name__}: {err}"
            with open(os.path.join(folder, "info.json"), "w") as fh:
                json.dump(info, fh, indent=2)
            with open(os.path.join(folder, "report.txt"), "w", errors="replace") as fh:
                fh.write(detail)
            f["examples"].append(folder)


def merge(reports, crash_rec, names):
    """(inputs per target and game, seconds per target, findings) of worker reports and the crashes."""
    counts = {t: Counter() for t in names}
    seconds = Counter()
    findings = {}

    def add_findings(fs):
        for sig, g in fs.items():
            h = findings.setdefault(sig, dict(g, count=0, examples=[]))
            h["count"] += g["count"]
            h["examples"] = h["examples"] + list(g["examples"])

    for run in reports:
        for t, msg in run.items():
            counts[t] += Counter(msg["counts"])
            seconds[t] += msg["seconds"]
            add_findings(msg["findings"])
    for t, c in crash_rec.counts.items():
        counts[t] += c
    add_findings(crash_rec.findings)
    return counts, seconds, findings


def write_summary(path, opts, names, counts, seconds, findings, elapsed, sanitizers, command, weights):
    total = sum(sum(c.values()) for c in counts.values())
    nfind = sum(f["count"] for f in findings.values())
    plain = "not active (a plain build; scripts/sanitize.sh runs this under ASan + UBSan)"
    lines = [
        "# Fuzzing zerogym's inputs",
        "",
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; "
        f"elapsed {elapsed / 60:.1f} min on {opts.jobs or 1} "
        f"{'worker process' if opts.jobs == 1 else 'worker processes' if opts.jobs else 'process (in-process)'}; "
        f"seed {opts.seed}  ",
        f"Sanitizers: {sanitizers or plain}  ",
        "Mutation: seeded random (every input rebuilt from seed, target and index); time shares "
        + ", ".join(f"{t} {weights[t]:g}" for t in names),
        "",
        f"**{total:,} inputs, {nfind:,} findings ({len(findings)} kinds).**",
        "",
        "| target | inputs | CPU seconds | inputs/s | findings |",
        "|---|---:|---:|---:|---:|",
    ]
    for t in names:
        n = sum(counts[t].values())
        s = seconds[t]
        nf = sum(f["count"] for f in findings.values() if f["target"] == t)
        lines.append(f"| {t} | {n:,} | {s:.0f} | {n / s if s else 0:,.0f} | {nf:,} |")
    fuzzed = games()
    lines += ["", "Inputs per game:", "", "| target | " + " | ".join(fuzzed) + " |", "|---|" + "---:|" * len(fuzzed)]
    for t in names:
        lines.append(f"| {t} | " + " | ".join(f"{counts[t].get(g, 0):,}" for g in fuzzed) + " |")
    lines += ["", "## Findings", ""]
    if not findings:
        lines.append("None.")
    else:
        lines += ["| target | kind | what | count | example |", "|---|---|---|---:|---|"]
        for _sig, f in sorted(findings.items(), key=lambda kv: (kv[1]["target"], -kv[1]["count"])):
            example = f["examples"][0] if f["examples"] else ""
            if example and not os.path.relpath(example, ROOT).startswith(".."):
                example = os.path.relpath(example, ROOT)
            what = f["message"].replace("|", "\\|").replace("\n", " ")[:200]
            lines.append(f"| {f['target']} | {f['kind']} | {what} | {f['count']:,} | {example} |")
        lines += [
            "",
            "Each example folder holds the input, info.json and report.txt (traceback or crash "
            "report); `python scripts/fuzz.py --replay FOLDER` runs it again.",
        ]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
