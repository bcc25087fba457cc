"""Ray on demand: imported only when the ray backend is used, started locally or joined."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from zerogym._install import install_command

INSTALL_HINT = f'{install_command("ray")} (or pip install "ray>=2.9")'


def require_ray() -> ModuleType:
    """The ray module, or ImportError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ImportError(f"--backend ray needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


def start(address: str | None = None, num_cpus: float | None = None) -> ModuleType:
    """Join the Ray instance this process already runs in, else ray.init(address): None starts a local
    instance on this machine (num_cpus: how many CPUs it offers; None = all), "auto" joins the
    cluster started with `ray start --head`, "ray://host:10001" a remote one."""
    ray = require_ray()
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"address": address, "include_dashboard": False, "log_to_driver": False}
        if address is None and num_cpus is not None:
            kwargs["num_cpus"] = num_cpus
        ray.init(**kwargs)
    return ray


def worker_threads(num_cpus: float) -> int:
    """torch threads for an actor that declares num_cpus CPUs: as many as it owns, at least 1."""
    return max(1, int(num_cpus))


def actor_class(cls: type, num_cpus: float, num_gpus: float = 0.0) -> Any:
    """`cls` as a Ray actor class declaring its resources. Compute actors declare at least a share of a
    CPU (an actor with num_cpus=0 could be packed onto a node without any CPU to spare) and, with
    max_restarts=0, a dead one stays dead: the driver starts its replacement and resubmits its tasks."""
    ray = require_ray()
    if not num_cpus > 0:
        raise ValueError(f"a worker must declare some CPU (num_cpus > 0), got {num_cpus!r}")
    return ray.remote(num_cpus=num_cpus, num_gpus=num_gpus, max_restarts=0)(cls)


def node_id() -> str:
    """The Ray node this process runs on (for placement checks)."""
    return require_ray().get_runtime_context().get_node_id()


class RayBackend:
    """The Ray side of a policy-gradient trainer whose games are played on Ray actors, put before the
    trainer class in its bases: the trainer's own arguments plus ray_config (a RayConfig, its dict, or
    None for the defaults), coerced into self.ray_cfg, with Ray imported (self.ray) before the trainer
    is built. Subclasses may set up their own state before the trainer is built and add keywords for it
    (_prepare), and check the built trainer (_check_workers)."""

    def __init__(
        self,
        config: Any,
        out_dir: str,
        resume: bool = False,
        log_dir: Any = None,
        ray_config: Any = None,
    ) -> None:
        from zerogym_agents.scale.config import RayConfig

        self.ray_cfg = RayConfig.coerce(ray_config)
        self.ray = require_ray()
        super().__init__(config, out_dir, resume=resume, log_dir=log_dir, **self._prepare())  # type: ignore[call-arg]
        self._check_workers()

    def _prepare(self) -> dict[str, Any]:
        return {}

    def _check_workers(self) -> None:
        pass
