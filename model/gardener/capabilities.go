package gardener

import "github.com/SovereignCloudStack/scs-kaas/model"

// Capabilities declare what the Gardener backend does with each portable field.
func (Backend) Capabilities() model.Capabilities {
	return model.Capabilities{
		Title: "Gardener (Shoot)",
		Fields: map[model.Field]model.Capability{
			model.FieldPurpose: {Level: model.Honoured, Note: "`spec.purpose`; drives the HA and protection defaults",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`spec.purpose`; the HA and protection defaults stay as they were at creation"}},
			model.FieldVersionMinor: {Level: model.Honoured, Note: "`spec.kubernetes.version`; the running patch is kept",
				Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane, Note: "Gardener updates the control plane, then rolls the nodes of every pool to the new minor"}},
			model.FieldVersionPatch: {Level: model.Honoured, Note: "patch auto-update turned off",
				Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane, Note: "the control plane's components are updated; the kubelets are updated in place"}},
			model.FieldHighAvailability: {Level: model.Honoured, Note: "`failureTolerance` `zone` (>= 3 zones) or `node`; turning it off is refused (Gardener cannot)",
				Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane, Note: "the control plane is spread over nodes or zones; turning it off is refused (Gardener cannot)"}},
			model.FieldPoolName: {Level: model.Honoured, Note: "worker name (<= 15 characters)",
				Change: model.ChangeEffect{Effect: model.EffectRollsNodes, Note: "a renamed pool is a new worker: its nodes are created, the old worker's deleted"}},
			model.FieldPoolMachineType: {Level: model.Honoured, Note: "`machine.type`, checked against the catalog",
				Change: model.ChangeEffect{Effect: model.EffectRollsNodes, Note: "`machine.type` changes the worker's hash: every node of the pool is replaced"}},
			model.FieldPoolCount: {Level: model.Honoured, Note: "`minimum = maximum = count`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`minimum`, `maximum`: nodes are added or removed"}},
			model.FieldPoolAutoscaling: {Level: model.Honoured, Note: "`minimum`, `maximum`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`minimum`, `maximum`"}},
			model.FieldPoolZones: {Level: model.Honoured, Note: "`zones`; kept from the pool's creation, changes refused",
				Change: model.ChangeEffect{Effect: model.EffectRefused, Note: "the zones of an existing pool are kept; a change is refused"}},
			model.FieldPoolLabels: {Level: model.Honoured, Note: "`labels`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`labels` reach the nodes without replacing them"}},
			model.FieldPoolTaints: {Level: model.Honoured, Note: "`taints`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`taints` reach the nodes without replacing them"}},
			model.FieldPoolRootDisk: {Level: model.Honoured, Note: "`volume.size`",
				Change: model.ChangeEffect{Effect: model.EffectRollsNodes, Note: "`volume.size` changes the worker's hash: every node of the pool is replaced"}},
			model.FieldPoolRollout: {Level: model.Honoured, Note: "`maxSurge`, `maxUnavailable`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`maxSurge`, `maxUnavailable` apply to the next rollout"}},
			model.FieldNodeCIDR: {Level: model.Honoured, Note: "`networking.nodes` and `InfrastructureConfig.networks.workers`; required; immutable",
				Change: model.ChangeEffect{Effect: model.EffectRefused, Note: "`networking.nodes` is immutable"}},
			model.FieldPodServiceCIDR: {Level: model.Honoured, Note: "`networking.pods`, `services`; immutable",
				Change: model.ChangeEffect{Effect: model.EffectRefused, Note: "`networking.pods`, `services` are immutable"}},
			model.FieldCNI: {Level: model.Honoured, Note: "`networking.type` (calico, cilium); immutable",
				Change: model.ChangeEffect{Effect: model.EffectRefused, Note: "`networking.type` is immutable"}},
			model.FieldMaintenanceWindow: {Level: model.Honoured, Note: "`maintenance.timeWindow`; the function's own upgrade of an expired minor starts in it too (without a window: Gardener assigns the Shoot one, the function's upgrade takes one derived from the cluster's identity at night)",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`maintenance.timeWindow`"}},
			model.FieldAutoUpdatePatch: {Level: model.Honoured, Note: "`autoUpdate.kubernetesVersion`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`autoUpdate.kubernetesVersion`"}},
			model.FieldAutoUpdateImage: {Level: model.Honoured, Note: "`autoUpdate.machineImageVersion`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "`autoUpdate.machineImageVersion`"}},
			model.FieldHibernation: {Level: model.Honoured, Note: "`hibernation`",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "hibernating removes the nodes and scales the control plane down; waking creates new nodes"}},
			model.FieldAccessOIDC: {Level: model.Honoured, Note: "structured authentication: an `AuthenticationConfiguration` in the ConfigMap `<shoot>-authn` of the project namespace, referenced by `spec.kubernetes.kubeAPIServer.structuredAuthentication`; the issuer's CA inline",
				Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane, Note: "Gardener rolls the kube-apiserver with the new authentication configuration"}},
			model.FieldAccessSourceRanges: {Level: model.Honoured, Note: "the ACL extension (`spec.extensions[type=acl]`, rule `ALLOW` `remote_ip`) where the landscape runs it (`data.apiServerAccess.restrictSourceRanges`); refused otherwise",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "the ACL extension updates the ingress filter of the API server"}},
			model.FieldDeletionProtection: {Level: model.Honoured, Note: "no deletion confirmation annotation, Object `deletionPolicy: Orphan`, and the admission policy",
				Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "the deletion confirmation and the Object's deletion policy"}},
		},
		Status: map[model.StatusField]string{
			model.StatusPhase:              "from `lastOperation`, health conditions, `observedGeneration`, `hibernated`",
			model.StatusVersion:            "the Shoot's resolved version",
			model.StatusAPIServerURL:       "`advertisedAddresses[external]`",
			model.StatusControlPlane:       "HA",
			model.StatusNodePools:          "workers: machine type, zones, min, max",
			model.StatusBackendReason:      "Gardener's error codes (`ERR_INFRA_QUOTA_EXCEEDED`, ...) or the failing health condition",
			model.StatusConnectionDetails:  "`kubeconfig`, `endpoint`, `ca.crt` from provider-gardener-kubeconfig's AdminKubeconfig",
			model.StatusKubeconfigReady:    "`Delivered`, `Pending`, `Expired`, `RenewalFailing` from the AdminKubeconfig's conditions",
			model.StatusEnvironmentCurrent: "False while the cluster keeps a default, catalog value or machine image the environment changed since",
		},
		Composes: "the Shoot (or the Object around it), the AdminKubeconfig once the Shoot advertises its API server",
		Removes:  "none: a pool removed from the spec is a worker removed from the Shoot, in place",
		Proven: "Rendered Shoots pass Gardener's own API validation (test/gardener) and, end to end, the real " +
			"gardener-apiserver (v1.149.3, every default admission plugin) of a local garden, reached through " +
			"provider-kubernetes: its defaulting (the CloudProfile's patch of a minor, machine image, architecture; " +
			"the function keeps what Gardener chose), its admission against the CloudProfile, Project and " +
			"CredentialsBinding (a refusal reaches the claim in Gardener's words), its deletion confirmation (a " +
			"protected Shoot cannot be deleted in the garden either), and its shoots/adminkubeconfig subresource, " +
			"from which provider-gardener-kubeconfig obtains and renews the claims' kubeconfigs. Simulated: " +
			"gardenlet (the Shoot's status, advertised addresses and CAs are written as gardenlet writes them), " +
			"the scheduler and seeds, and the clusters themselves.",
	}
}
