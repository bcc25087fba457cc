"""Workers go to the worker nodes of a multi-node cluster whose head offers no CPU."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import json, sys, tempfile
    import ray
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    nodes = [cluster.add_node(num_cpus=1) for _ in range(2)]
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    from zerogym_agents.scale.alphazero import RayAlphaZeroTrainer
    cfg = dict(game="tictactoe", concurrent_games=2, simulations=2, min_buffer=16, batch_size=16, max_steps=2,
               checkpoint_every=2, pool_fraction=0.0, net={"trunk": "resnet", "blocks": 1, "channels": 8})
    with tempfile.TemporaryDirectory() as d:
        tr = RayAlphaZeroTrainer(cfg, d, log_dir=False, ray_config={"workers": 2, "steps_per_task": 1})
        tr.run(progress=False)
        info = tr.worker_info()
        tr.close()
    print(json.dumps({"head": cluster.head_node.node_id, "workers": [nodes[0].node_id, nodes[1].node_id],
                      "placed": [i["node"] for i in info]}))
    ray.shutdown()
    cluster.shutdown()
""")


def test_workers_are_placed_on_worker_nodes(ray_session):
    # a cluster of its own: in a child process, beside the tests' shared local instance
    env = {**os.environ, "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=180, env=env)
    if out.returncode != 0:
        pytest.fail(f"the cluster script failed:\n{out.stderr[-3000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["head"] not in got["placed"]
    assert sorted(got["placed"]) == sorted(got["workers"])  # one worker on each 1-CPU node
