package model

import (
	"fmt"
	"slices"
)

// Effect is what a change of a portable field does to a running cluster on a backend.
type Effect string

// Effects of a change, from the mildest to the one that does not happen.
const (
	// EffectInPlace: the backend changes the cluster without replacing a node.
	EffectInPlace Effect = "in place"
	// EffectRollsNodes: the backend replaces the pool's nodes one by one (within its
	// maxSurge and maxUnavailable).
	EffectRollsNodes Effect = "rolls nodes"
	// EffectRollsControlPlane: the control plane is updated first, and with it the nodes
	// where the note says so.
	EffectRollsControlPlane Effect = "control plane rolls"
	// EffectRefused: the change is refused; the note says why.
	EffectRefused Effect = "refused"
	// EffectNotHonoured: accepted without effect (the field is warned, or only drives
	// defaults fixed at creation).
	EffectNotHonoured Effect = "not honoured"
)

// EffectUnknown is what a preview says of a field no capability row covers, rather than
// guess. No backend declares it.
const EffectUnknown Effect = "effect unknown"

// Effects lists every effect a backend may declare, in table order.
var Effects = []Effect{EffectInPlace, EffectRollsNodes, EffectRollsControlPlane, EffectRefused, EffectNotHonoured}

// ChangeEffect is a backend's declaration of what a change of one portable field does.
type ChangeEffect struct {
	Effect Effect
	// Note says how, or why not: the native field that changes, the controller that acts.
	Note string
}

// checkChanges reports fields whose change effect is undeclared or not one of Effects.
func (c Capabilities) checkChanges() error {
	var missing []string
	for _, f := range Fields {
		if x, _ := c.Capability(f); !slices.Contains(Effects, x.Change.Effect) {
			missing = append(missing, fmt.Sprintf("%s (%q)", f, x.Change.Effect))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("capabilities: no known effect of a change declared for %v", missing)
	}
	return nil
}
