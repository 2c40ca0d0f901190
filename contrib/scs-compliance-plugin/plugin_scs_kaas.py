"""Provision test clusters for the SCS compliance suite through the SCS cluster API.

A plugin for the SCS standards repository's KaaS test plugins (Tests/kaas/plugin): it
creates an SCSCluster (a claim or a Crossplane v2 namespaced composite; the manifest is the
same), waits until it is Ready, writes its kubeconfig to kubeconfig.yaml in the working
directory, and deletes it again. One plugin for every provider that offers the API, whatever
it runs behind it (Gardener, Cluster API with SCS Cluster Stacks, Magnum).

Configuration (the `config` of an entry in ~/.config/scs/clusters.yaml, see
clusters.yaml.example):

    kubeconfig: path of a kubeconfig for the provider's API (relative to ~/.config/scs)
    context: its context to use (optional)
    namespace: the namespace the clusters are created in
    environment: the provider's environment (optional: the namespace's default)
    kubernetesVersion: the minor, such as "1.34"
    machineType: the nodes' machine type (default SCS-4V-8)
    nodes: the number of nodes (default 1)
    zones: the nodes' zones (optional: the environment's)
    timeoutSeconds: how long to wait for Ready (default 3600)
    labels: labels put on the SCSCluster (optional), so that a provider can tell the suite's
        clusters from its customers'
    name: the cluster's name (the plugin runner sets it to the cluster id)

Needs python3 with the kubernetes and yaml packages (Debian: python3-kubernetes,
python3-yaml); the suite's runner also needs click and jinja2.
"""

import base64
import logging
import os
import time

import kubernetes
from kubernetes.client import ApiClient, ApiException, CoreV1Api, CustomObjectsApi
import yaml

try:  # inside the SCS standards repository
    from interface import KubernetesClusterPlugin
except ImportError:  # standalone
    KubernetesClusterPlugin = object

logger = logging.getLogger(__name__)

GROUP, VERSION, PLURAL = "kaas.scs.community", "v1alpha1", "scsclusters"
FIELD_MANAGER = "scs-compliance-plugin"


class PluginSCSKaaS(KubernetesClusterPlugin):
    """Provisions a cluster through the SCS cluster API (kind SCSCluster)."""

    def __init__(self, config, basepath=".", cwd="."):
        self.config = config
        self.cwd = cwd
        self.name = config["name"]
        self.namespace = config["namespace"]
        self.timeout = int(config.get("timeoutSeconds", 3600))
        kubeconfig = os.path.join(basepath, os.path.expanduser(config["kubeconfig"]))
        self.client_config = kubernetes.client.Configuration()
        kubernetes.config.load_kube_config(
            config_file=kubeconfig, context=config.get("context"), client_configuration=self.client_config,
        )

    def manifest(self):
        """The SCSCluster to create: a small development cluster with one pool."""
        pool = {
            "name": "default",
            "machineType": self.config.get("machineType", "SCS-4V-8"),
            "count": int(self.config.get("nodes", 1)),
        }
        if self.config.get("zones"):
            pool["zones"] = list(self.config["zones"])
        spec = {
            "purpose": "evaluation",
            "kubernetes": {"version": str(self.config["kubernetesVersion"])},
            "nodePools": [pool],
            "writeConnectionSecretToRef": {"name": self.secret_name()},
        }
        if self.config.get("environment"):
            spec["environment"] = self.config["environment"]
        metadata = {"name": self.name, "namespace": self.namespace}
        if self.config.get("labels"):
            metadata["labels"] = {str(k): str(v) for k, v in self.config["labels"].items()}
        return {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "SCSCluster",
            "metadata": metadata,
            "spec": spec,
        }

    def secret_name(self):
        return f"{self.name}-kubeconfig"

    def create_cluster(self):
        """Creates the cluster (or takes the one of this name), waits until it is Ready and
        writes its kubeconfig to kubeconfig.yaml in the working directory."""
        with ApiClient(self.client_config) as api:
            objects = CustomObjectsApi(api)
            try:
                objects.create_namespaced_custom_object(
                    GROUP, VERSION, self.namespace, PLURAL, self.manifest(), field_manager=FIELD_MANAGER,
                )
                logger.info("created SCSCluster %s/%s", self.namespace, self.name)
            except ApiException as e:
                if e.status != 409:
                    raise
                # An earlier, interrupted run created it: take it.
                logger.info("SCSCluster %s/%s exists already; waiting for it", self.namespace, self.name)
            self.wait_ready(objects)
            kubeconfig = self.read_kubeconfig(CoreV1Api(api))
        path = os.path.join(self.cwd, "kubeconfig.yaml")
        with open(path, "wb") as fileobj:
            fileobj.write(kubeconfig)
        os.chmod(path, 0o600)
        logger.info("wrote %s", path)

    def wait_ready(self, objects):
        """Waits until the cluster's Ready condition is True, saying why it is not meanwhile;
        gives up early when the API refuses the cluster (Stalled)."""
        deadline = time.monotonic() + self.timeout
        last = None
        while True:
            obj = objects.get_namespaced_custom_object(GROUP, VERSION, self.namespace, PLURAL, self.name)
            conditions = {c["type"]: c for c in obj.get("status", {}).get("conditions", [])}
            if conditions.get("Ready", {}).get("status") == "True":
                logger.info("SCSCluster %s is Ready", self.name)
                return
            stalled = conditions.get("Stalled", {})
            if stalled.get("status") == "True":
                raise RuntimeError(f"SCSCluster {self.name} is refused: {stalled.get('reason')}: {stalled.get('message')}")
            backend = conditions.get("BackendReady", {})
            now = (obj.get("status", {}).get("phase"), backend.get("reason"), backend.get("message"))
            if now != last:
                logger.info("SCSCluster %s: phase %s, backend %s: %s", self.name, *now)
                last = now
            if time.monotonic() > deadline:
                raise TimeoutError(f"SCSCluster {self.name} not Ready after {self.timeout} s: phase {now[0]}, {now[1]}: {now[2]}")
            time.sleep(5)

    def read_kubeconfig(self, core):
        secret = core.read_namespaced_secret(self.secret_name(), self.namespace)
        return base64.standard_b64decode(secret.data["kubeconfig"])

    def delete_cluster(self):
        """Deletes the cluster and waits until it is gone; a cluster with deletion protection
        on is refused by the provider, and that is reported, not worked around."""
        with ApiClient(self.client_config) as api:
            objects = CustomObjectsApi(api)
            try:
                objects.delete_namespaced_custom_object(GROUP, VERSION, self.namespace, PLURAL, self.name)
            except ApiException as e:
                if e.status == 404:
                    logger.info("SCSCluster %s is gone already", self.name)
                    return
                raise
            deadline = time.monotonic() + self.timeout
            while True:
                try:
                    objects.get_namespaced_custom_object(GROUP, VERSION, self.namespace, PLURAL, self.name)
                except ApiException as e:
                    if e.status == 404:
                        logger.info("SCSCluster %s deleted", self.name)
                        return
                    raise
                if time.monotonic() > deadline:
                    raise TimeoutError(f"SCSCluster {self.name} still there after {self.timeout} s")
                time.sleep(5)
