"""Names and limits that several layers share: the files of a run folder, the compiled cores' int range."""

INT32_MAX = 2**31 - 1  # counts, node indices and visit counts are 32-bit in the compiled cores

# the files of a run folder (training/run_folder.py's rule, the trainers, the experiment harness)
CHECKPOINT = "checkpoint.pt"  # what resume=True continues from
AGENT = "agent.pt"  # the latest net as a playable agent: load_agent(path), zerogym arena --agents path
CONFIG = "config.json"  # the run's config, as JSON
PLOT = "training.png"  # the history's curves, redrawn at every checkpoint
TENSORBOARD = "tb"  # TensorBoard's event files
EXPERIMENT = "experiment.json"  # a comparison's record of its runs
