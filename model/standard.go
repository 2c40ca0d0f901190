package model

import (
	"fmt"
	"slices"
	"strings"
)

// Keyword is an RFC 2119 requirement level of the SCS standard for this API (docs/standard).
type Keyword string

// The keywords the standard uses.
const (
	Must   Keyword = "MUST"
	Should Keyword = "SHOULD"
	May    Keyword = "MAY"
)

// Requirement is what the standard asks for one portable field: the levels that meet it.
// The standard's conformance table is generated from these, so text and code cannot drift.
type Requirement struct {
	Keyword Keyword
	Meets   []Level
	// Why ties the requirement to an SCS standard or to what users rely on.
	Why string
}

var (
	honourOrEmulate = []Level{Honoured, Emulated}
	honour          = []Level{Honoured}
	anyLevel        = []Level{Honoured, Emulated, Warned}
)

// StandardRequirements is the standard's requirement for every portable field and rule.
var StandardRequirements = map[Field]Requirement{
	FieldEnvironment:        {Must, honour, "the provider's offers are chosen by name"},
	FieldPurpose:            {Must, honourOrEmulate, "production turns on high availability and deletion protection"},
	FieldVersionMinor:       {Must, honour, "scs-0210: every offered minor can be requested"},
	FieldVersionPatch:       {Should, honourOrEmulate, "scs-0210: the patch a cluster runs is reported and can be pinned"},
	FieldUpgradeRules:       {Must, []Level{Refused}, "scs-0210: one minor at a time, no downgrade"},
	FieldHighAvailability:   {Must, honourOrEmulate, "scs-0214: the control plane spans hosts, and zones where there are"},
	FieldPoolName:           {Must, honour, "pools are addressed by name"},
	FieldPoolMachineType:    {Must, honour, "scs-0100 flavor names"},
	FieldPoolCount:          {Must, honour, "a fixed size"},
	FieldPoolAutoscaling:    {Must, honour, "bounds for the autoscaler instead of a size"},
	FieldPoolZones:          {Should, honourOrEmulate, "scs-0214: workers across failure zones"},
	FieldPoolLabels:         {Should, honourOrEmulate, "workloads select nodes by label"},
	FieldPoolTaints:         {Should, honourOrEmulate, "dedicated pools"},
	FieldPoolRootDisk:       {Should, honourOrEmulate, "disk size per pool"},
	FieldPoolRollout:        {May, anyLevel, "rollout speed is the backend's"},
	FieldNodeCIDR:           {Should, honourOrEmulate, "networks that do not collide with the consumer's"},
	FieldPodServiceCIDR:     {Should, honourOrEmulate, "networks that do not collide with the consumer's"},
	FieldCNI:                {May, anyLevel, "scs-0219: whatever the CNI, it supports NetworkPolicy"},
	FieldMaintenanceWindow:  {May, anyLevel, "when disruptive maintenance may happen"},
	FieldAutoUpdatePatch:    {Should, honourOrEmulate, "scs-0210: patches reach clusters within a month"},
	FieldAutoUpdateImage:    {May, anyLevel, "node image updates"},
	FieldHibernation:        {May, anyLevel, "saving cost where the backend can"},
	FieldDeletionProtection: {Must, honourOrEmulate, "a protected cluster is not deleted, and stays updatable"},
	FieldAccessOIDC:         {Should, honourOrEmulate, "scs-0217 (draft): people sign in with the organisation's identity provider, a second way beside the admin credentials"},
	FieldAccessSourceRanges: {Should, honourOrEmulate, "scs-0217 (draft): the API server's endpoint can be restricted to known networks"},
	FieldAddons:             {May, anyLevel, "the platform's add-ons on every cluster, the same on every backend"},
}

// Conformance levels: every MUST and SHOULD met, every MUST met, or not.
const (
	ConformanceFull = "full"
	ConformanceCore = "core"
	ConformanceNone = "none"
)

// Conformance is the level a backend's capabilities reach, and what keeps it from the next.
func Conformance(c Capabilities) (level string, short []Field) {
	var mustMissed, shouldMissed []Field
	for _, f := range Fields {
		if Meets(c, f) {
			continue
		}
		switch StandardRequirements[f].Keyword {
		case Must:
			mustMissed = append(mustMissed, f)
		case Should:
			shouldMissed = append(shouldMissed, f)
		}
	}
	switch {
	case len(mustMissed) > 0:
		return ConformanceNone, mustMissed
	case len(shouldMissed) > 0:
		return ConformanceCore, shouldMissed
	}
	return ConformanceFull, nil
}

// Meets says whether a backend's declared level for a field meets the standard.
func Meets(c Capabilities, f Field) bool {
	x, ok := c.Capability(f)
	return ok && slices.Contains(StandardRequirements[f].Meets, x.Level)
}

// StandardTable writes the standard's conformance tables as Markdown.
func StandardTable(backends []Backend) string {
	var b strings.Builder
	b.WriteString("| field or rule | requirement | met by |")
	for _, be := range backends {
		b.WriteString(" " + be.Capabilities().Title + " |")
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(backends)) + "\n")
	for _, f := range Fields {
		r := StandardRequirements[f]
		levels := make([]string, len(r.Meets))
		for i, l := range r.Meets {
			levels[i] = string(l)
		}
		fmt.Fprintf(&b, "| `%s` | **%s**: %s | %s |", f, r.Keyword, r.Why, strings.Join(levels, ", "))
		for _, be := range backends {
			x, _ := be.Capabilities().Capability(f)
			mark := "yes"
			if !Meets(be.Capabilities(), f) {
				mark = "no"
			}
			fmt.Fprintf(&b, " %s (%s) |", x.Level, mark)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n| implementation | conformance | short of the next level |\n|---|---|---|\n")
	for _, be := range backends {
		level, short := Conformance(be.Capabilities())
		names := make([]string, len(short))
		for i, f := range short {
			names[i] = "`" + string(f) + "`"
		}
		if len(names) == 0 {
			names = []string{"-"}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", be.Capabilities().Title, level, strings.Join(names, ", "))
	}
	return b.String()
}
