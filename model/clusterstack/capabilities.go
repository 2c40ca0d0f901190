package clusterstack

import "github.com/SovereignCloudStack/scs-kaas/model"

// Capabilities declare what the Cluster Stacks backend does with each portable field.
func (Backend) Capabilities() model.Capabilities {
	return model.Capabilities{
		Title: "Cluster API + SCS Cluster Stacks",
		Fields: map[model.Field]model.Capability{
			model.FieldPurpose: {Level: model.Emulated, Note: "drives the HA and protection defaults only",
				Change: model.ChangeEffect{Effect: model.EffectNotHonoured, Note: "drives defaults only, and those stay as they were at creation"}},
			model.FieldVersionMinor: {Level: model.Honoured, Note: "ClusterClass and exact `topology.version` from the newest ready ClusterStackRelease of the minor; refused with the release list when none",
				Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane, Note: "the topology controller rolls the KubeadmControlPlane's machines first, then every MachineDeployment's"}},
			model.FieldVersionPatch: {Level: model.Honoured, Note: "the release whose `kubernetesVersion` is that patch",
				Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane, Note: "another release: the control plane's machines, then every pool's nodes are replaced"}},
			model.FieldHighAvailability: {Level: model.Honoured, Note: "`controlPlane.replicas` 3 or 1, spread with the `controlPlaneAvailabilityZones` variable; both ways",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "the KubeadmControlPlane scales to 3 or 1 machines; none is replaced"}},
			model.FieldPoolName: {Level: model.Honoured, Note: "MachineDeployments `<pool>-<zone>`, label `kaas.scs.community/node-pool`",
				Change: model.ChangeEffect{Effect: model.EffectRollsNodes, Note: "a renamed pool is new MachineDeployments: its nodes are created, the old ones' deleted"}},
			model.FieldPoolMachineType: {Level: model.Honoured, Note: "`workerFlavor` variable override (warned without a variable name)",
				Change: model.ChangeEffect{Effect: model.EffectRollsNodes, Note: "a new `workerFlavor`: the MachineDeployments replace every machine of the pool"}},
			model.FieldPoolCount: {Level: model.Honoured, Note: "`replicas`, divided over the zones",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`replicas`: machines are added or removed"}},
			model.FieldPoolAutoscaling: {Level: model.Honoured, Note: "autoscaler min/max annotations per zone, no `replicas`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "the autoscaler's min/max annotations"}},
			model.FieldPoolZones: {Level: model.Honoured, Note: "one MachineDeployment per zone (`failureDomain`); kept, changes refused",
				Change: model.ChangeEffect{Effect: model.EffectRefused, Note: "the zones of an existing pool are kept; a change is refused"}},
			model.FieldPoolLabels: {Level: model.Honoured, Note: "for `node-role.kubernetes.io/`, `node-restriction.kubernetes.io/`, `node.cluster.x-k8s.io/`; other labels emulated under `node.cluster.x-k8s.io/<name>` and warned (of two that land on one key, the label there or else the first by name keeps it)",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "Cluster API propagates MachineDeployment labels to machines and nodes without a rollout"}},
			model.FieldPoolTaints: {Level: model.Honoured, Note: "with `taintPropagation` (feature gate `MachineTaintPropagation`); warned otherwise",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "propagated in place with `taintPropagation`; not honoured without the feature gate"}},
			model.FieldPoolRootDisk: {Level: model.Honoured, Note: "`workerRootDisk` variable override (warned without a variable name)",
				Change: model.ChangeEffect{Effect: model.EffectRollsNodes, Note: "a new `workerRootDisk`: every machine of the pool is replaced"}},
			model.FieldPoolRollout: {Level: model.Honoured, Note: "rollout strategy",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "the rollout strategy applies to the next rollout"}},
			model.FieldNodeCIDR: {Level: model.Honoured, Note: "`nodeCIDR` variable (warned without a variable name)",
				Change: model.ChangeEffect{Effect: model.EffectNotHonoured, Note: "the `nodeCIDR` variable changes, but the OpenStack provider keeps the subnet it created"}},
			model.FieldPodServiceCIDR: {Level: model.Honoured, Note: "`clusterNetwork`; immutable",
				Change: model.ChangeEffect{Effect: model.EffectRefused, Note: "`clusterNetwork` is immutable"}},
			model.FieldCNI: {Level: model.Honoured, Note: "Cilium only: other choices warned",
				Change: model.ChangeEffect{Effect: model.EffectNotHonoured, Note: "the stack runs Cilium whatever is chosen"}},
			model.FieldMaintenanceWindow: {Level: model.Honoured, Note: "the function starts the updates the cluster makes on its own (a newer release of the minor, the upgrade of an expired minor) inside the window only, and never cuts a started one off; the team's own edits apply at once; without a window, one derived from the cluster's identity at night",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "moves the planned update to the new window: it starts at once when the new window is open now; otherwise nothing rolls"}},
			model.FieldAutoUpdatePatch: {Level: model.Honoured, Note: "moves to the newest ready release of the minor in the next window, after the wave of its purpose (`data.maintenance.waves`)",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "turned on, a newer ready release of the minor is applied in the next window (which rolls the cluster)"}},
			model.FieldAutoUpdateImage: {Level: model.Emulated, Note: "images come with the stack release",
				Change: model.ChangeEffect{Effect: model.EffectNotHonoured, Note: "images come with the stack release"}},
			model.FieldHibernation: {Level: model.Warned, Note: "Cluster API cannot hibernate a cluster; it keeps running",
				Change: model.ChangeEffect{Effect: model.EffectNotHonoured, Note: "Cluster API cannot hibernate a cluster"}},
			model.FieldAccessOIDC: {Level: model.Honoured, Note: "the topology variable `oidcConfig` (`data.clusterStack.variableNames.oidcConfig`), kube-apiserver's `--oidc-*` flags through the KubeadmControlPlane; a CA that is not publicly trusted is refused (the variable takes none), as is an environment without the variable. The scs2 release the e2e pins cannot apply its own patch (no `apiServer.extraArgs` in its control plane template: Cluster API reports `TopologyReconciled` False), so its environments leave the variable unmapped",
				Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane, Note: "the KubeadmControlPlane rolls the control plane machines with the new flags"}},
			model.FieldAccessSourceRanges: {Level: model.Honoured, Note: "the topology variable `apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs` (`variableNames.apiServerAllowedCIDRs`), with `apiServerLoadBalancer: octavia-amphora` only; refused otherwise",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "Cluster API's OpenStack provider updates the load balancer's allowed CIDRs"}},
			model.FieldDeletionProtection: {Level: model.Honoured, Note: "the admission policy; remote: Object `deletionPolicy: Orphan`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "the admission policy (remote: the Object's deletion policy)"}},
		},
		Status: map[model.StatusField]string{
			model.StatusPhase:              "from `Available` (or v1beta1 `Ready`), `RollingOut`, `phase`, `observedGeneration`, control plane initialised",
			model.StatusVersion:            "the oldest control plane version reported, else `topology.version`",
			model.StatusAPIServerURL:       "`controlPlaneEndpoint`",
			model.StatusControlPlane:       "HA, replicas, ready replicas",
			model.StatusNodePools:          "per pool over its MachineDeployments: machine type, zones, min, max",
			model.StatusBackendReason:      "the `Available` condition's reason and message",
			model.StatusConnectionDetails:  "`kubeconfig`, `endpoint`, `ca.crt` from Secret `<cluster>-kubeconfig`",
			model.StatusKubeconfigReady:    "`Delivered` (until when, from the client certificate or token), `Pending`, `Expired`; a warning in the last week",
			model.StatusEnvironmentCurrent: "False while the cluster keeps a default or catalog value the environment changed since",
		},
		Composes: "the Cluster (or the Object around it); remote: the ClusterStackReleases' collection and the kubeconfig's observe-only Object",
		Removes:  "none: a pool removed from the spec is a MachineDeployment removed from the topology, in place",
		Proven: "End to end against real Cluster API v1.14.2 (the core manager with the topology controller, the kubeadm " +
			"control plane and bootstrap managers, their conversion and admission webhooks) and the SCS scs2 ClusterClass " +
			"rendered from its chart: Cluster API's webhook checks every variable against the ClusterClass's schemas (a " +
			"refusal is shown on the composite); the topology controller makes the KubeadmControlPlane, one " +
			"MachineDeployment per pool and zone with its failure domain, replicas or autoscaler bounds, labels and taints, " +
			"and OpenStack machine templates with the pool's flavor and root disk; a scale and a +1 minor upgrade change " +
			"them in place, control plane first; deletion runs Cluster API's finalizers; the kubeconfig is the one the " +
			"KubeadmControlPlane writes; a remote management cluster works the same through provider-kubernetes. " +
			"Simulated: the Cluster Stack operator (the ClusterStackReleases' status), the OpenStack provider (the " +
			"OpenStackCluster's endpoint and readiness) and what needs machines and nodes (the Cluster's final Available status).",
	}
}
