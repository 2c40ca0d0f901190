package v1alpha1

// Condition types this API sets on the composite resource and its claim, next to
// Crossplane's own Ready and Synced.
const (
	// ConditionRendered is True when the function translated the spec for the backend.
	// When False, nothing was changed: its reason (for example EnvironmentUnavailable,
	// InvalidSpec, ReplacementRefused) and message say why.
	ConditionRendered = "Rendered"

	// ConditionBackendReady mirrors the backend's own verdict on the cluster. When False, its
	// reason is the backend's own (for example a Gardener error code such as
	// ERR_INFRA_QUOTA_EXCEEDED) and its message the backend's words.
	ConditionBackendReady = "BackendReady"

	// ConditionSpecSupported is False when the backend cannot honour a portable field that
	// is set (for example hibernation on Magnum); the message names the fields.
	ConditionSpecSupported = "SpecSupported"

	// ConditionKubeconfigReady is True while the connection secret holds a kubeconfig that
	// works: delivered, not expired, and renewed in time where the backend renews it. When
	// False, its reason and message say what is missing.
	ConditionKubeconfigReady = "KubeconfigReady"

	// ConditionEnvironmentUpToDate is False when the environment now offers or defaults
	// something else than the cluster keeps from its creation (a zone, a machine type, a
	// network range): the cluster is left as it is, and the message names each field, the
	// value it keeps and the environment setting that changed.
	ConditionEnvironmentUpToDate = "EnvironmentUpToDate"

	// ConditionBackendSynced is True when the providers have applied the native objects as
	// rendered. When False, the backend's API refused them or cannot be reached, and the
	// message carries each provider's words: an admission plugin of gardener-apiserver, a
	// Cluster API webhook in a remote management cluster, an OpenStack error. The cluster
	// keeps running as it was; nothing of the refused change is in effect.
	ConditionBackendSynced = "BackendSynced"

	// ConditionStalled is True while the function refuses to render (Rendered False), or
	// while the backend has given up on the cluster (phase Failed): the cluster will not
	// progress until the spec, the environment or the platform changes.
	// It follows the kstatus convention, so that Flux and other kstatus readers report a
	// refused cluster as Failed rather than as in progress forever (docs/gitops.md).
	ConditionStalled = "Stalled"

	// ConditionVersionSupported says where the minor the cluster runs is in its life in
	// the environment's catalog, and whether an upgrade path is offered: False once the
	// minor is no longer offered or has expired; True, with a reason that warns, while it
	// is deprecated or expiring.
	ConditionVersionSupported = "VersionSupported"
)

// ConditionAddonsReady is True when every add-on the cluster should have is applied and
// healthy. When False, its reason is Flux's own and the message names the add-on. It does
// not make the cluster un-Ready: the cluster works without its add-ons.
const ConditionAddonsReady = "AddonsReady"

// Reasons of the AddonsReady condition besides Flux's own.
const (
	// ReasonAddonsApplied: every add-on is applied and healthy.
	ReasonAddonsApplied = "AddonsApplied"
	// ReasonNoAddons: the cluster has no add-ons.
	ReasonNoAddons = "NoAddons"
	// ReasonAddonsWaiting: add-ons are installed once the cluster is Ready and its kubeconfig
	// delivered.
	ReasonAddonsWaiting = "WaitingForCluster"
	// ReasonAddonsPending: Flux has not reported on an add-on yet.
	ReasonAddonsPending = "Pending"
	// ReasonNoKubeconfigSecret: there is no kubeconfig Secret Flux could use.
	ReasonNoKubeconfigSecret = "NoKubeconfigSecret"
	// ReasonAddonRetained (an event): an installed add-on left the catalog and stays.
	ReasonAddonRetained = "AddonRetained"
	// ReasonRegistrationImpossible (an event): the delivered kubeconfig cannot be handed to
	// Argo CD (it signs in with a program, or names no server or inline credentials), so the
	// cluster is not registered, or its registration stays as last applied.
	ReasonRegistrationImpossible = "RegistrationImpossible"
)

// Reasons of the BackendSynced condition.
const (
	// ReasonSynced: every native object is applied as rendered (BackendSynced True).
	ReasonSynced = "Synced"
	// ReasonApplyFailed: a provider could not apply a native object; the message says why.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonApplyPending: a native object has not been reported applied yet.
	ReasonApplyPending = "ApplyPending"
)

// Reasons of the Rendered condition when it is False: why the function refused to render,
// in one word. When Rendered is False nothing was changed; the message says the rest.
const (
	// ReasonRendered: the spec was translated for the backend (Rendered True).
	ReasonRendered = "Rendered"
	// ReasonEnvironmentUnavailable: the environment the cluster asks for, or is pinned to,
	// is missing, ambiguous, or not offered to the claim's namespace.
	ReasonEnvironmentUnavailable = "EnvironmentUnavailable"
	// ReasonInvalidEnvironment: the environment's EnvironmentConfig is invalid.
	ReasonInvalidEnvironment = "InvalidEnvironment"
	// ReasonInvalidSpec: the spec breaks the API's or the backend's rules.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonReplacementRefused: the change would replace the cluster.
	ReasonReplacementRefused = "ReplacementRefused"
	// ReasonDeletionRefused: the change would delete a composed resource that exists.
	ReasonDeletionRefused = "DeletionRefused"
	// ReasonObservedStateUnreadable: an observed native object cannot be read.
	ReasonObservedStateUnreadable = "ObservedStateUnreadable"
	// ReasonRenderFailed: rendering failed for another reason.
	ReasonRenderFailed = "RenderFailed"
	// ReasonInternalError: the function hit a bug; its log has the stack.
	ReasonInternalError = "InternalError"
	// ReasonTakeoverRefused: a native object of the cluster's name exists that this cluster
	// may not adopt: it belongs to another cluster or was not handed over.
	ReasonTakeoverRefused = "TakeoverRefused"
	// ReasonImportRefused: the cluster's native object exists but this API cannot manage it.
	ReasonImportRefused = "ImportRefused"
	// ReasonSecretExposed: a provider copies a Secret's data where others can read it.
	ReasonSecretExposed = "SecretExposed"
)

// Reasons of the BackendReady condition that every backend uses; otherwise the reason is
// the backend's own (a Gardener error code, Cluster API's reason).
const (
	// ReasonCreating: the native object does not exist yet.
	ReasonCreating = "Creating"
	// ReasonAdopting: the cluster's native objects are observed before they are managed: a
	// cluster applied again after its control plane was lost, or one being imported, is
	// read back before anything is written to its backend (docs/recovery.md).
	ReasonAdopting = "Adopting"
	// ReasonNotObservedYet: the native object exists, but its provider has not reported it.
	ReasonNotObservedYet = "NotObservedYet"
	// ReasonPending: the backend has not started on the native object yet.
	ReasonPending = "Pending"
	// ReasonReconciling: the backend has not acted on the latest change yet.
	ReasonReconciling = "Reconciling"
	// ReasonAvailable: the native cluster is available (BackendReady True on Cluster API
	// and Magnum).
	ReasonAvailable = "Available"
	// ReasonHealthy: the native cluster is reconciled and passes its health checks
	// (BackendReady True on Gardener).
	ReasonHealthy = "Healthy"
)

// Reasons of the KubeconfigReady condition.
const (
	// ReasonKubeconfigDelivered: the connection secret holds a working kubeconfig.
	ReasonKubeconfigDelivered = "Delivered"
	// ReasonKubeconfigPending: no kubeconfig has been delivered yet.
	ReasonKubeconfigPending = "Pending"
	// ReasonKubeconfigExpired: the delivered kubeconfig has expired.
	ReasonKubeconfigExpired = "Expired"
	// ReasonKubeconfigRenewalFailing: a new kubeconfig cannot be obtained.
	ReasonKubeconfigRenewalFailing = "RenewalFailing"
	// ReasonKubeconfigExpiring: a warning that the delivered kubeconfig expires within
	// KubeconfigExpiryWarning and the backend has not delivered a renewed one yet.
	ReasonKubeconfigExpiring = "KubeconfigExpiring"
	// ReasonKubeconfigExpiredWarning: the Warning event while KubeconfigReady is
	// False/Expired, a reason of its own so that events and metrics say what expired.
	ReasonKubeconfigExpiredWarning = "KubeconfigExpired"
	// ReasonKubeconfigStale: the backend's delivery is not observed right now (a provider
	// restarting, an Object not reported yet, a Secret not read); the connection secret
	// keeps the kubeconfig delivered earlier, which is not confirmed to work.
	ReasonKubeconfigStale = "Stale"
)

// Reasons of the EnvironmentUpToDate and SpecSupported conditions and of warnings.
const (
	// ReasonUpToDate: the cluster uses what its environment offers and defaults.
	ReasonUpToDate = "UpToDate"
	// ReasonEnvironmentChanged: the environment changed since; the cluster keeps its values.
	ReasonEnvironmentChanged = "EnvironmentChanged"
	// ReasonEnvironmentAdopted is the reason of the Normal event when a cluster takes its
	// environment's values on request (kaas.scs.community/adopt-environment).
	ReasonEnvironmentAdopted = "EnvironmentAdopted"
	// ReasonAdoptionRefused is the reason of the Warning event for the values such a
	// request cannot give the cluster without replacing it; it keeps them.
	ReasonAdoptionRefused = "AdoptionRefused"
	// ReasonAllFieldsHonoured: the backend honours every field that is set.
	ReasonAllFieldsHonoured = "AllFieldsHonoured"
	// ReasonUnsupportedFields: fields are set that the backend cannot honour.
	ReasonUnsupportedFields = "UnsupportedFields"
	// ReasonUnsupportedField is the reason of the Warning event for each such field.
	ReasonUnsupportedField = "UnsupportedField"
	// ReasonUnknownResourceKept is the reason of the Warning event for a composed resource
	// the function does not render but keeps, because it can hold a cluster or its
	// credentials.
	ReasonUnknownResourceKept = "UnknownResourceKept"
)

// Reasons of the VersionSupported condition; all but VersionOffered and VersionUnknown are
// also the reasons of the Warning events while they hold.
const (
	// ReasonVersionOffered: the environment offers the minor, neither deprecated nor
	// expiring; the message says whether the next minor is offered.
	ReasonVersionOffered = "VersionOffered"
	// ReasonVersionDeprecated: the environment marks the minor deprecated.
	ReasonVersionDeprecated = "VersionDeprecated"
	// ReasonVersionExpiring: the minor's expiration date is less than a month away.
	ReasonVersionExpiring = "VersionExpiring"
	// ReasonVersionExpired: the minor's expiration date has passed (False).
	ReasonVersionExpired = "VersionExpired"
	// ReasonVersionNotOffered: the environment's catalog no longer lists the minor (False).
	ReasonVersionNotOffered = "VersionNotOffered"
	// ReasonVersionUnknown: the version is not one the function can read (Unknown).
	ReasonVersionUnknown = "VersionUnknown"
)

// ConditionUpdatePlanned is True while the cluster plans an update of its own that waits
// for its maintenance window or its wave, the message saying what and when ("v1.34.7 ->
// v1.34.8 in the window 02:00-03:00 UTC, from ..."); False while nothing is planned or the
// update rolls (reason UpdateInProgress).
const ConditionUpdatePlanned = "UpdatePlanned"

// Reasons of the UpdatePlanned condition.
const (
	// ReasonOutsideWindow: the update waits for the cluster's next maintenance window.
	ReasonOutsideWindow = "OutsideWindow"
	// ReasonWaitingForWave: the update waits until the environment's wave for the cluster's
	// purpose lets it start (data.maintenance.waves).
	ReasonWaitingForWave = "WaitingForWave"
	// ReasonUpdateInProgress: an update the cluster started on its own is rolling.
	ReasonUpdateInProgress = "UpdateInProgress"
	// ReasonNothingPlanned: the cluster runs what it would update to.
	ReasonNothingPlanned = "NothingPlanned"
	// ReasonNoUpgradePath: the running minor expired and cannot be upgraded on its own
	// (no next minor offered, or the backend refuses it); it stays as it is.
	ReasonNoUpgradePath = "NoUpgradePath"
)

// Reasons of Normal events.
const (
	// ReasonUpgradeStarted: the spec asks for a newer minor than the cluster runs; the
	// backend is upgrading it.
	ReasonUpgradeStarted = "UpgradeStarted"
	// ReasonUpdatePlanned: the cluster plans an update of its own; said while it is planned.
	ReasonUpdatePlanned = "UpdatePlanned"
	// ReasonMaintenanceStarted: the cluster started an update of its own in its window; said
	// while it rolls.
	ReasonMaintenanceStarted = "MaintenanceStarted"
	// ReasonMaintenanceCompleted: an update the cluster started on its own has finished.
	ReasonMaintenanceCompleted = "MaintenanceCompleted"
)
