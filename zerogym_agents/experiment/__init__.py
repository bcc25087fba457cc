"""The experiment harness: "algorithm A against algorithm B at equal compute", resumable.

- protocol.py: TrainingRun, what the harness needs of a trainer (AlphaZeroTrainer, the
  policy-gradient trainers); algorithms.py: the registry of algorithms by name.
- budget.py: Budget (minutes of training or steps, evaluation points) and BudgetLoop, the loop that
  spends it on one run with exact resume.
- evaluation.py: matches against fixed references and the pooled Elo (zerogym_agents.arena).
- comparison.py: Comparison, several runs on one game: train (runs with stages, runs from a given net),
  evaluate, zero-shot evaluations, references, round robin, Elo.
- transfer.py: the board-size transfer experiment, a Comparison (run_transfer).
- processes.py: runs in child processes (run_children, die_with_parent).
- records.py, seeds.py: JSON records written atomically, the folder lock, derived seeds.

See docs/experiments.md.
"""

from zerogym_agents.experiment.algorithms import ALGORITHMS, Algorithm, algorithm, register
from zerogym_agents.experiment.budget import NO_STEP_CAP, Budget, BudgetLoop, ResumeError
from zerogym_agents.experiment.comparison import Comparison, Stage
from zerogym_agents.experiment.evaluation import (
    evaluate,
    fmt_elo,
    play_references,
    pooled_elo,
    reference_agent,
    seeded_match,
)
from zerogym_agents.experiment.processes import die_with_parent, run_children, start_command, start_function
from zerogym_agents.core.constants import CHECKPOINT
from zerogym_agents.experiment.protocol import TrainingRun
from zerogym_agents.experiment.records import (
    FolderInUse,
    SettingsChanged,
    check_same_settings,
    folder_lock,
    read_json,
    write_json,
)
from zerogym_agents.experiment.seeds import seed_int

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "algorithm",
    "register",
    "NO_STEP_CAP",
    "Budget",
    "BudgetLoop",
    "ResumeError",
    "Comparison",
    "Stage",
    "evaluate",
    "fmt_elo",
    "play_references",
    "pooled_elo",
    "reference_agent",
    "seeded_match",
    "die_with_parent",
    "run_children",
    "start_command",
    "start_function",
    "CHECKPOINT",
    "TrainingRun",
    "FolderInUse",
    "SettingsChanged",
    "check_same_settings",
    "folder_lock",
    "read_json",
    "write_json",
    "seed_int",
]
