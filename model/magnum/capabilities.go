package magnum

import "github.com/SovereignCloudStack/scs-kaas/model"

// Capabilities declare what the Magnum backend does with each portable field.
func (Backend) Capabilities() model.Capabilities {
	return model.Capabilities{
		Title: "Magnum (provider-openstack)",
		Fields: map[model.Field]model.Capability{
			model.FieldPurpose:            {Level: model.Emulated, Note: "drives the HA and protection defaults only"},
			model.FieldVersionMinor:       {Level: model.Honoured, Note: "the environment's cluster template for the minor (`clusterTemplateId`); a change of minor changes the template in place (a Magnum upgrade of the control plane and the default node group); further node groups keep their version, since provider-openstack cannot upgrade a NodegroupV1: warned while the upgrade is applied"},
			model.FieldVersionPatch:       {Level: model.Honoured, Note: "when it is the template's `kubeTag`; refused otherwise"},
			model.FieldHighAvailability:   {Level: model.Honoured, Note: "`masterCount` 3 and `masterLbEnabled`, or 1; ForceNew: changes refused"},
			model.FieldPoolName:           {Level: model.Honoured, Note: "the first pool is the ClusterV1's default node group and cannot be renamed, removed or moved (refused); others: NodegroupV1 `<pool>-<zone>`"},
			model.FieldPoolMachineType:    {Level: model.Honoured, Note: "`flavor` / `flavorId`; ForceNew: changes refused"},
			model.FieldPoolCount:          {Level: model.Honoured, Note: "`nodeCount`, divided over the zones; resized in place"},
			model.FieldPoolAutoscaling:    {Level: model.Honoured, Note: "first pool `min_node_count`/`max_node_count` labels (ForceNew: changes refused), other pools `minNodeCount`/`maxNodeCount` (in place); `nodeCount` in `initProvider`; `auto_scaling_enabled` always on"},
			model.FieldPoolZones:          {Level: model.Honoured, Note: "one node group per zone, label `availability_zone`; kept, changes refused"},
			model.FieldPoolLabels:         {Level: model.Warned, Note: "Magnum node groups cannot label their nodes"},
			model.FieldPoolTaints:         {Level: model.Warned, Note: "Magnum node groups cannot taint their nodes"},
			model.FieldPoolRootDisk:       {Level: model.Honoured, Note: "`dockerVolumeSize`; ForceNew: changes refused"},
			model.FieldPoolRollout:        {Level: model.Warned, Note: "Magnum has no rolling update settings per node group"},
			model.FieldNodeCIDR:           {Level: model.Warned, Note: "Magnum takes the node network from the cluster template or data.magnum.fixedNetwork"},
			model.FieldPodServiceCIDR:     {Level: model.Honoured, Note: "labels `calico_ipv4pool` (calico templates; warned otherwise), `service_cluster_ip_range`; ForceNew"},
			model.FieldCNI:                {Level: model.Emulated, Note: "the template's `networkDriver`; another choice is warned"},
			model.FieldMaintenanceWindow:  {Level: model.Warned, Note: "Magnum has no maintenance window; changes roll out when they are applied"},
			model.FieldAutoUpdatePatch:    {Level: model.Emulated, Note: "the template fixes the patch; a platform moves patches by pointing the minor at a new template"},
			model.FieldAutoUpdateImage:    {Level: model.Emulated, Note: "the template fixes the image"},
			model.FieldHibernation:        {Level: model.Warned, Note: "Magnum cannot hibernate a cluster; it keeps running"},
			model.FieldDeletionProtection: {Level: model.Honoured, Note: "`deletionPolicy: Orphan` (namespaced kinds: no `Delete` management policy) and the admission policy"},
		},
		Changes: map[model.Field]model.ChangeEffect{
			model.FieldPurpose:            {Effect: model.EffectNotHonoured, Note: "drives defaults only, and those stay as they were at creation"},
			model.FieldVersionMinor:       {Effect: model.EffectRollsControlPlane, Note: "a new `clusterTemplateId`: Magnum upgrades the control plane and rolls the default node group; further node groups keep their version"},
			model.FieldVersionPatch:       {Effect: model.EffectRefused, Note: "the patch is the cluster template's `kube_tag`; another one is refused"},
			model.FieldHighAvailability:   {Effect: model.EffectRefused, Note: "`masterCount` is ForceNew"},
			model.FieldPoolName:           {Effect: model.EffectRollsNodes, Note: "a renamed further pool is new NodegroupV1s (the old ones' nodes are deleted); the first pool cannot be renamed (refused)"},
			model.FieldPoolMachineType:    {Effect: model.EffectRefused, Note: "`flavor` / `flavorId` are ForceNew"},
			model.FieldPoolCount:          {Effect: model.EffectInPlace, Note: "`nodeCount`: Magnum resizes the node group"},
			model.FieldPoolAutoscaling:    {Effect: model.EffectInPlace, Note: "further pools' `minNodeCount`/`maxNodeCount`; the first pool's labels are ForceNew (refused)"},
			model.FieldPoolZones:          {Effect: model.EffectRefused, Note: "the zones of an existing pool are kept; a change is refused"},
			model.FieldPoolLabels:         {Effect: model.EffectNotHonoured, Note: "Magnum node groups cannot label their nodes"},
			model.FieldPoolTaints:         {Effect: model.EffectNotHonoured, Note: "Magnum node groups cannot taint their nodes"},
			model.FieldPoolRootDisk:       {Effect: model.EffectRefused, Note: "`dockerVolumeSize` is ForceNew"},
			model.FieldPoolRollout:        {Effect: model.EffectNotHonoured, Note: "Magnum has no rolling update settings per node group"},
			model.FieldNodeCIDR:           {Effect: model.EffectNotHonoured, Note: "the node network comes from the template or the environment"},
			model.FieldPodServiceCIDR:     {Effect: model.EffectRefused, Note: "the labels `calico_ipv4pool`, `service_cluster_ip_range` are ForceNew"},
			model.FieldCNI:                {Effect: model.EffectNotHonoured, Note: "the template's `networkDriver` decides"},
			model.FieldMaintenanceWindow:  {Effect: model.EffectNotHonoured, Note: "Magnum has no maintenance window"},
			model.FieldAutoUpdatePatch:    {Effect: model.EffectNotHonoured, Note: "the template fixes the patch"},
			model.FieldAutoUpdateImage:    {Effect: model.EffectNotHonoured, Note: "the template fixes the image"},
			model.FieldHibernation:        {Effect: model.EffectNotHonoured, Note: "Magnum cannot hibernate a cluster"},
			model.FieldDeletionProtection: {Effect: model.EffectInPlace, Note: "the managed resources' deletion policy and the admission policy"},
		},
		Status: map[model.StatusField]string{
			model.StatusPhase:              "from the managed resources' `Ready` (reason `Creating`, `Deleting`) and `Synced`",
			model.StatusVersion:            "`status.atProvider.coeVersion`, else the `kubeTag` of the applied template",
			model.StatusAPIServerURL:       "`status.atProvider.apiAddress`",
			model.StatusControlPlane:       "HA, replicas (`masterCount`)",
			model.StatusNodePools:          "per pool over its node groups: zones, min, max, current nodes; `pending` while the cluster id is unknown",
			model.StatusBackendReason:      "the failing `Synced` (provider-openstack's and Magnum's error) or `Ready` condition",
			model.StatusConnectionDetails:  "`kubeconfig` (connection detail `attribute.kubeconfig.raw_config`), `endpoint`, `ca.crt` where the kubeconfig has it",
			model.StatusKubeconfigReady:    "`Delivered`, `Pending`",
			model.StatusEnvironmentCurrent: "False while the cluster keeps a default or catalog value the environment changed since",
		},
		Composes: "the ClusterV1, one NodegroupV1 per further pool and zone",
		Removes:  "the NodegroupV1s of a pool removed from the spec (the first pool cannot be removed)",
		Proven: "Rendered managed resources pass provider-openstack's CRD schemas (make render, and the " +
			"end-to-end API server). Simulated: provider-openstack and Magnum (status and connection secret are " +
			"written as provider-openstack writes them).",
	}
}
