package clusterstack

import "github.com/SovereignCloudStack/scs-kaas/model"

// Capabilities declare what the Cluster Stacks backend does with each portable field.
func (Backend) Capabilities() model.Capabilities {
	return model.Capabilities{
		Title: "Cluster API + SCS Cluster Stacks",
		Fields: map[model.Field]model.Capability{
			model.FieldPurpose:            {Level: model.Emulated, Note: "drives the HA and protection defaults only"},
			model.FieldVersionMinor:       {Level: model.Honoured, Note: "ClusterClass and exact `topology.version` from the newest ready ClusterStackRelease of the minor; refused with the release list when none"},
			model.FieldVersionPatch:       {Level: model.Honoured, Note: "the release whose `kubernetesVersion` is that patch"},
			model.FieldHighAvailability:   {Level: model.Honoured, Note: "`controlPlane.replicas` 3 or 1, spread with the `controlPlaneAvailabilityZones` variable; both ways"},
			model.FieldPoolName:           {Level: model.Honoured, Note: "MachineDeployments `<pool>-<zone>`, label `kaas.scs.community/node-pool`"},
			model.FieldPoolMachineType:    {Level: model.Honoured, Note: "`workerFlavor` variable override (warned without a variable name)"},
			model.FieldPoolCount:          {Level: model.Honoured, Note: "`replicas`, divided over the zones"},
			model.FieldPoolAutoscaling:    {Level: model.Honoured, Note: "autoscaler min/max annotations per zone, no `replicas`"},
			model.FieldPoolZones:          {Level: model.Honoured, Note: "one MachineDeployment per zone (`failureDomain`); kept, changes refused"},
			model.FieldPoolLabels:         {Level: model.Honoured, Note: "for `node-role.kubernetes.io/`, `node-restriction.kubernetes.io/`, `node.cluster.x-k8s.io/`; other labels emulated under `node.cluster.x-k8s.io/<name>` and warned"},
			model.FieldPoolTaints:         {Level: model.Honoured, Note: "with `taintPropagation` (feature gate `MachineTaintPropagation`); warned otherwise"},
			model.FieldPoolRootDisk:       {Level: model.Honoured, Note: "`workerRootDisk` variable override (warned without a variable name)"},
			model.FieldPoolRollout:        {Level: model.Honoured, Note: "rollout strategy"},
			model.FieldNodeCIDR:           {Level: model.Honoured, Note: "`nodeCIDR` variable (warned without a variable name)"},
			model.FieldPodServiceCIDR:     {Level: model.Honoured, Note: "`clusterNetwork`; immutable"},
			model.FieldCNI:                {Level: model.Honoured, Note: "Cilium only: other choices warned"},
			model.FieldMaintenanceWindow:  {Level: model.Warned, Note: "Cluster API has no maintenance window; changes roll out when they are applied"},
			model.FieldAutoUpdatePatch:    {Level: model.Emulated, Note: "moves to the newest ready release of the minor when one appears (at once, no window)"},
			model.FieldAutoUpdateImage:    {Level: model.Emulated, Note: "images come with the stack release"},
			model.FieldHibernation:        {Level: model.Warned, Note: "Cluster API cannot hibernate a cluster; it keeps running"},
			model.FieldDeletionProtection: {Level: model.Honoured, Note: "the admission policy; remote: Object `deletionPolicy: Orphan`"},
		},
		Status: map[model.StatusField]string{
			model.StatusPhase:              "from `Available` (or v1beta1 `Ready`), `RollingOut`, `phase`, `observedGeneration`, control plane initialised",
			model.StatusVersion:            "the oldest control plane version reported, else `topology.version`",
			model.StatusAPIServerURL:       "`controlPlaneEndpoint`",
			model.StatusControlPlane:       "HA, replicas, ready replicas",
			model.StatusNodePools:          "per pool over its MachineDeployments: machine type, zones, min, max",
			model.StatusBackendReason:      "the `Available` condition's reason and message",
			model.StatusConnectionDetails:  "`kubeconfig`, `endpoint`, `ca.crt` from Secret `<cluster>-kubeconfig`",
			model.StatusKubeconfigReady:    "`Delivered`, `Pending`",
			model.StatusEnvironmentCurrent: "False while the cluster keeps a default or catalog value the environment changed since",
		},
		Composes: "the Cluster (or the Object around it); remote: the ClusterStackReleases' collection and the kubeconfig's observe-only Object",
		Removes:  "none: a pool removed from the spec is a MachineDeployment removed from the topology, in place",
	}
}
