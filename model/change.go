package model

import "fmt"

// Effect is what a change of a portable field does to a running cluster on a backend:
// whether it replaces nodes, rolls the control plane, is refused or has no effect there.
type Effect string

// Effects of a change, from the mildest to the one that does not happen.
const (
	// EffectInPlace: the backend changes the cluster without replacing a node.
	EffectInPlace Effect = "in place"
	// EffectRollsNodes: the backend replaces the nodes of the pool one by one (within its
	// maxSurge and maxUnavailable).
	EffectRollsNodes Effect = "rolls nodes"
	// EffectRollsControlPlane: the backend updates the control plane first, and with it
	// the nodes where the note says so.
	EffectRollsControlPlane Effect = "control plane rolls"
	// EffectRefused: the change is refused; the note says why.
	EffectRefused Effect = "refused"
	// EffectNotHonoured: the change is accepted but has no effect on this backend (the
	// field is warned or only drives defaults fixed at creation).
	EffectNotHonoured Effect = "not honoured"
)

// Effects lists every effect, in table order.
var Effects = []Effect{EffectInPlace, EffectRollsNodes, EffectRollsControlPlane, EffectRefused, EffectNotHonoured}

// ChangeEffect is a backend's declaration of what a change of one portable field does.
type ChangeEffect struct {
	Effect Effect
	// Note says how, or why not: the native field that changes, the controller that acts.
	Note string
}

// commonChanges are the effects the model itself decides for every backend.
var commonChanges = map[Field]ChangeEffect{
	FieldEnvironment:  {EffectRefused, "spec.environment is immutable: another environment is another cluster"},
	FieldUpgradeRules: {EffectRefused, "a downgrade, or more than one minor at a time, is refused against the running version"},
}

// ChangeEffect returns what a change of the field does on the backend, common ones included.
func (c Capabilities) ChangeEffect(f Field) (ChangeEffect, bool) {
	if x, ok := commonChanges[f]; ok {
		return x, true
	}
	x, ok := c.Changes[f]
	return x, ok
}

// checkChanges reports fields whose change effect a backend forgot to declare, declared
// with an effect that does not exist, or declared twice with the model.
func (c Capabilities) checkChanges() error {
	var missing, extra, unknown []string
	for _, f := range Fields {
		_, common := commonChanges[f]
		x, declared := c.Changes[f]
		switch {
		case common && declared:
			extra = append(extra, string(f))
		case !common && !declared:
			missing = append(missing, string(f))
		case declared && !validEffect(x.Effect):
			unknown = append(unknown, fmt.Sprintf("%s: %q", f, x.Effect))
		}
	}
	if len(missing)+len(extra)+len(unknown) > 0 {
		return fmt.Errorf("change effects: undeclared %v; declared by the model already %v; unknown effects %v", missing, extra, unknown)
	}
	return nil
}

func validEffect(e Effect) bool {
	for _, x := range Effects {
		if x == e {
			return true
		}
	}
	return false
}
