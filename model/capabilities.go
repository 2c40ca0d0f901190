package model

import (
	"fmt"
	"sort"
	"strings"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Level says how a backend treats a portable field.
type Level string

// Levels of support, from best to worst (docs/capabilities.md says what each means).
const (
	Honoured Level = "honoured"
	Emulated Level = "emulated"
	Warned   Level = "warned"
	Refused  Level = "refused"
)

// Field names a portable field, or a rule of the API, in the capability table.
type Field string

// The portable fields and rules, in the order of the capability table.
const (
	FieldEnvironment        Field = "environment"
	FieldPurpose            Field = "purpose"
	FieldVersionMinor       Field = "kubernetes.version minor"
	FieldVersionPatch       Field = "kubernetes.version patch"
	FieldUpgradeRules       Field = "upgrade rules (no downgrade, +1 minor)"
	FieldHighAvailability   Field = "controlPlane.highAvailability"
	FieldPoolName           Field = "nodePools[].name"
	FieldPoolMachineType    Field = "nodePools[].machineType"
	FieldPoolCount          Field = "nodePools[].count"
	FieldPoolAutoscaling    Field = "nodePools[].autoscaling"
	FieldPoolZones          Field = "nodePools[].zones"
	FieldPoolLabels         Field = "nodePools[].labels"
	FieldPoolTaints         Field = "nodePools[].taints"
	FieldPoolRootDisk       Field = "nodePools[].rootDiskGiB"
	FieldPoolRollout        Field = "nodePools[].maxSurge, maxUnavailable"
	FieldNodeCIDR           Field = "network.nodeCIDR"
	FieldPodServiceCIDR     Field = "network.podCIDR, serviceCIDR"
	FieldCNI                Field = "network.cni"
	FieldMaintenanceWindow  Field = "maintenance.window"
	FieldAutoUpdatePatch    Field = "maintenance.autoUpdate.kubernetesPatch"
	FieldAutoUpdateImage    Field = "maintenance.autoUpdate.machineImage"
	FieldHibernation        Field = "hibernation.enabled, schedules"
	FieldDeletionProtection Field = "deletionProtection"
	FieldAccessOIDC         Field = "access.oidc"
	FieldAccessSourceRanges Field = "access.allowedSourceRanges"
	FieldAddons             Field = "addons.enable, disable"
)

// Fields lists every portable field and rule in table order; backends declare each but
// commonCapabilities.
var Fields = []Field{
	FieldEnvironment, FieldPurpose, FieldVersionMinor, FieldVersionPatch, FieldUpgradeRules,
	FieldHighAvailability, FieldPoolName, FieldPoolMachineType, FieldPoolCount, FieldPoolAutoscaling,
	FieldPoolZones, FieldPoolLabels, FieldPoolTaints, FieldPoolRootDisk, FieldPoolRollout,
	FieldNodeCIDR, FieldPodServiceCIDR, FieldCNI, FieldMaintenanceWindow, FieldAutoUpdatePatch,
	FieldAutoUpdateImage, FieldHibernation, FieldDeletionProtection, FieldAccessOIDC, FieldAccessSourceRanges, FieldAddons,
}

// StatusField names a part of the normalised status in the capability table.
type StatusField string

// The parts of the status, in table order.
const (
	StatusPhase              StatusField = "phase"
	StatusVersion            StatusField = "kubernetes.version"
	StatusAPIServerURL       StatusField = "apiServerURL"
	StatusControlPlane       StatusField = "controlPlane"
	StatusNodePools          StatusField = "nodePools[]"
	StatusBackendReason      StatusField = "BackendReady reason"
	StatusConnectionDetails  StatusField = "connection details"
	StatusKubeconfigReady    StatusField = "KubeconfigReady"
	StatusEnvironmentCurrent StatusField = "EnvironmentUpToDate"
)

// StatusFields lists the parts of the status in table order; every backend declares each.
var StatusFields = []StatusField{
	StatusPhase, StatusVersion, StatusAPIServerURL, StatusControlPlane, StatusNodePools,
	StatusBackendReason, StatusConnectionDetails, StatusKubeconfigReady, StatusEnvironmentCurrent,
}

// Capability is what a backend does with one portable field.
type Capability struct {
	Level Level
	// Note says how; for Warned it is also the warning a cluster that sets the field gets.
	Note string
	// Change is what changing the field does to a running cluster (PreviewEdit).
	Change ChangeEffect
}

// Capabilities are a backend's declaration of what it honours and reports: the single
// source of docs/capabilities.md and of the warnings for fields it never honours.
type Capabilities struct {
	// Title names the backend and its native API, such as "Gardener (Shoot)".
	Title  string
	Fields map[Field]Capability
	// Status declares where each part of the normalised status comes from.
	Status map[StatusField]string
	// Composes names the composed resources of a cluster.
	Composes string
	// Removes names those it removes as a normal operation (checkNothingDropped).
	Removes string
	// Proven says what real systems accept its output in the end-to-end tests, and what
	// is simulated.
	Proven string
}

// commonCapabilities are the fields the model layer treats the same for every backend.
var commonCapabilities = map[Field]Capability{
	FieldEnvironment: {Honoured, "selects the EnvironmentConfig; immutable",
		ChangeEffect{EffectRefused, "spec.environment is immutable: another environment is another cluster"}},
	FieldUpgradeRules: {Refused, "otherwise, at the API server and against the running version; " +
		"returning from a refused minor to the running one is allowed",
		ChangeEffect{EffectRefused, "a downgrade, or more than one minor at a time, is refused against the running version"}},
	FieldAddons: {Honoured, "the environment's catalog (`data.addons`), applied by Flux with the cluster's kubeconfig once it is Ready",
		ChangeEffect{EffectInPlace, "an enabled add-on is installed; a disabled one is removed from the cluster (Flux prunes what it applied)"}},
}

// Capability returns what the backend does with a field, common ones included.
func (c Capabilities) Capability(f Field) (Capability, bool) {
	if x, ok := commonCapabilities[f]; ok {
		return x, true
	}
	x, ok := c.Fields[f]
	return x, ok
}

// Check reports fields a backend forgot to declare, or declared twice with the model.
func (c Capabilities) Check() error {
	var missing, extra []string
	for _, f := range Fields {
		_, common := commonCapabilities[f]
		_, declared := c.Fields[f]
		switch {
		case common && declared:
			extra = append(extra, string(f))
		case !common && !declared:
			missing = append(missing, string(f))
		}
	}
	for _, f := range StatusFields {
		if c.Status[f] == "" {
			missing = append(missing, "status "+string(f))
		}
	}
	if c.Title == "" || c.Composes == "" || c.Removes == "" {
		missing = append(missing, "title/composes/removes")
	}
	if len(missing)+len(extra) > 0 {
		return fmt.Errorf("capabilities: undeclared %v; declared by the model already %v", missing, extra)
	}
	return c.checkChanges()
}

// Warnings are the Warned fields the cluster sets. Those that depend on the environment or
// on a value come from the backend's rendering.
func (c Capabilities) Warnings(spec *kaasv1alpha1.ClusterSpec) []Unsupported {
	var out []Unsupported
	for _, f := range Fields {
		x, ok := c.Capability(f)
		if !ok || x.Level != Warned {
			continue
		}
		for _, path := range setPaths(spec, f) {
			out = append(out, Unsupported{Field: path, Reason: x.Note})
		}
	}
	return out
}

// setPaths are the paths at which a cluster sets a field, per pool for pool fields.
func setPaths(spec *kaasv1alpha1.ClusterSpec, f Field) []string {
	pools := func(set func(p *kaasv1alpha1.NodePool) bool, leaf string) []string {
		var out []string
		for i := range spec.NodePools {
			if set(&spec.NodePools[i]) {
				out = append(out, fmt.Sprintf("spec.nodePools[%s].%s", spec.NodePools[i].Name, leaf))
			}
		}
		return out
	}
	switch f {
	case FieldMaintenanceWindow:
		if spec.Maintenance != nil && spec.Maintenance.Window != nil {
			return []string{"spec.maintenance.window"}
		}
	case FieldHibernation:
		if h := spec.Hibernation; h != nil && ((h.Enabled != nil && *h.Enabled) || len(h.Schedules) > 0) {
			return []string{"spec.hibernation"}
		}
	case FieldNodeCIDR:
		if spec.Network != nil && spec.Network.NodeCIDR != "" {
			return []string{"spec.network.nodeCIDR"}
		}
	case FieldPoolLabels:
		return pools(func(p *kaasv1alpha1.NodePool) bool { return len(p.Labels) > 0 }, "labels")
	case FieldPoolTaints:
		return pools(func(p *kaasv1alpha1.NodePool) bool { return len(p.Taints) > 0 }, "taints")
	case FieldPoolRollout:
		return pools(func(p *kaasv1alpha1.NodePool) bool { return p.MaxSurge != nil || p.MaxUnavailable != nil }, "maxSurge")
	}
	return nil
}

// sortUnsupported orders warnings by field, so that events do not depend on where a
// backend found them.
func sortUnsupported(u []Unsupported) {
	sort.SliceStable(u, func(i, j int) bool { return u[i].Field < u[j].Field })
}

// CapabilityTable writes the capability tables of docs/capabilities.md.
func CapabilityTable(backends []Backend) string {
	var b strings.Builder
	header := func(first string) {
		b.WriteString("| " + first + " |")
		for _, be := range backends {
			b.WriteString(" " + be.Capabilities().Title + " |")
		}
		b.WriteString("\n|---|")
		for range backends {
			b.WriteString("---|")
		}
		b.WriteString("\n")
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	fieldTable := func(text func(Capability) (string, string)) {
		header("portable field")
		for _, f := range Fields {
			b.WriteString("| `" + string(f) + "` |")
			for _, be := range backends {
				c, _ := be.Capabilities().Capability(f)
				value, note := text(c)
				if note != "" {
					value += ": " + note
				}
				b.WriteString(" " + cell(value) + " |")
			}
			b.WriteString("\n")
		}
	}
	fieldTable(func(c Capability) (string, string) { return string(c.Level), c.Note })
	b.WriteString("\n## Effect of a change\n\n" +
		"What editing a field of a running cluster does on each backend (`kubectl scs diff` and the " +
		"Terraform provider's plan say it per edit): _in place_ replaces no node, _rolls nodes_ " +
		"replaces the pool's nodes one by one, _control plane rolls_ updates the control plane " +
		"first, _refused_ is refused with the field named, _not honoured_ is accepted without effect.\n\n")
	fieldTable(func(c Capability) (string, string) { return string(c.Change.Effect), c.Change.Note })
	b.WriteString("\n## What a backend composes, and what it may remove\n\n")
	header("")
	for _, row := range []struct {
		name string
		get  func(Capabilities) string
	}{
		{"composed resources", func(c Capabilities) string { return c.Composes }},
		{"removed as a normal operation", func(c Capabilities) string { return c.Removes }},
	} {
		b.WriteString("| " + row.name + " |")
		for _, be := range backends {
			b.WriteString(" " + cell(row.get(be.Capabilities())) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Status, per backend\n\n")
	header("status field")
	for _, f := range StatusFields {
		b.WriteString("| `" + string(f) + "` |")
		for _, be := range backends {
			b.WriteString(" " + cell(be.Capabilities().Status[f]) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}
