#!/usr/bin/env python3
"""Runs the plugin as the SCS standards repository's run_plugin.py does, for testing it here
without that repository: `run.py create|delete CLUSTER_ID [--config clusters.yaml]`."""

import argparse
import logging
import os

import yaml

from plugin_scs_kaas import PluginSCSKaaS


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["create", "delete"])
    parser.add_argument("cluster_id")
    parser.add_argument("--config", default=os.path.join(os.path.expanduser("~"), ".config", "scs", "clusters.yaml"))
    args = parser.parse_args()
    logging.basicConfig(format="%(levelname)s: %(message)s", level=logging.INFO)
    with open(args.config, "rb") as fileobj:
        cfg = yaml.safe_load(fileobj)
    spec = cfg["clusters"][args.cluster_id]
    config = dict(spec["config"])
    config.setdefault("name", args.cluster_id)
    cwd = os.path.abspath(args.cluster_id)
    os.makedirs(cwd, exist_ok=True)
    plugin = PluginSCSKaaS(config, basepath=os.path.dirname(os.path.abspath(args.config)), cwd=cwd)
    if args.action == "create":
        plugin.create_cluster()
    else:
        plugin.delete_cluster()


if __name__ == "__main__":
    main()
