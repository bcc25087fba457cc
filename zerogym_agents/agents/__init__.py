"""Every agent that plays with `act(env) -> int`, and how agents are saved, loaded and named.

base.py (Agent, RandomAgent), greedy.py, minimax.py, search.py (UCTAgent, AlphaZeroAgent), policy.py
(PolicyAgent), solver.py (SolverAgent), gnugo.py (GNU Go over GTP, through gtp_client.py), saved.py
(save_agent, load_agent), specs.py (agent specs such as "uct:1000" or "pretrained:go_9x9").
"""
