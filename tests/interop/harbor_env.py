"""Harbor's docker environment for machines without Docker Hub. Imported by Harbor (its own
virtual environment, `-e tests.interop.harbor_env:OfflineDockerEnvironment`), never by pytest.

Harbor 0.26 enforces a task's `network_mode = "no-network"` with an egress-control sidecar whose
images (alpine for a kernel probe, gogost/gost for the proxy) come from Docker Hub; where they
cannot be pulled it refuses the task. This subclass enforces the same policy with the compose
overlay Harbor itself ships (`docker-compose-no-network.yaml`: the main service gets
`network_mode: none`) and changes nothing else: build, agents, verifier and result files are
Harbor's. Where the sidecar works, it is Harbor's docker environment unchanged.
"""

from __future__ import annotations

from pathlib import Path

from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.docker import COMPOSE_NO_NETWORK_PATH
from harbor.environments.docker.docker import DockerEnvironment
from harbor.models.task.config import NetworkMode


class OfflineDockerEnvironment(DockerEnvironment):
    def _offline_no_network(self) -> bool:
        return not self._enable_egress_control and self.network_policy.network_mode == NetworkMode.NO_NETWORK

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        capabilities = super().capabilities
        if self._enable_egress_control:
            return capabilities
        # `network_mode: none` can deny all traffic, not switch it per phase or allow a list.
        return capabilities.model_copy(update={"disable_internet": True})

    @property
    def _docker_compose_paths(self) -> list[Path]:
        paths: list[Path] = super()._docker_compose_paths
        return [*paths, COMPOSE_NO_NETWORK_PATH] if self._offline_no_network() else paths
