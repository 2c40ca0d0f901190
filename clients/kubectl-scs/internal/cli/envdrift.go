package cli

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// driftItem is one value a cluster keeps although its environment moved on, as its
// EnvironmentUpToDate condition names it (the model's keepSettings and EnvironmentChanges
// write the sentences read here).
type driftItem struct {
	// Path is the setting's path in the EnvironmentConfig (data.gardener.loadBalancerProvider)
	// or the spec field the environment defaulted (spec.network.podCIDR).
	Path string
	// Keeps and Now are the value the cluster keeps and the one the environment names now;
	// empty where the sentence does not say (a truncated message).
	Keeps, Now string
	// Effect is what adopting the environment's value does ("in place"), where the
	// condition says.
	Effect string
	// ForGood says that adopting the environment's values does not take this one: the
	// backend cannot change it without replacing the cluster (Note says why), or it is the
	// network or the zones of a pool, which a cluster keeps for its life.
	ForGood bool
	Note    string
	// Gone says that the environment no longer offers what the cluster keeps (a machine
	// type, a zone); Now is then empty.
	Gone bool
	// Source is the environment's path a spec field was defaulted from.
	Source string
}

var (
	// "data.x: the cluster stays on A; the environment names B now, which applies to new
	// clusters (adopting it: in place)", or "(it cannot be adopted: NOTE)".
	driftSetting = regexp.MustCompile(`^(data\.\S+): the cluster stays on (.*); the environment names (.*) now, which applies to new clusters \((?:adopting it: (.*)|it cannot be adopted: (.*))\)$`)
	// "spec.network.podCIDR: keeps A from the cluster's creation; the environment now
	// defaults to B (data.defaults.network.podCIDR)", and a pool's zones and root disk.
	driftDefault = regexp.MustCompile(`^(spec\.\S+): (?:pool \S+ )?keeps (.*) from (?:the cluster's|its) creation; (?:the environment now defaults to|a new pool of its size would get) (.*) \((data\.[^)]*)\)$`)
	// "spec.nodePools[0].machineType: SCS-1V-2 is no longer offered (data.catalog.machineTypes); ..."
	driftGone = regexp.MustCompile(`^(spec\.\S+): (.*) (?:is|are) no longer offered \((data\.[^)]*)\)`)
	// itemStart is where the next item of the condition's list starts.
	itemStart = regexp.MustCompile(`; (?:data|spec)\.`)
)

// environmentDrift reads what a cluster keeps although its environment moved on from its
// EnvironmentUpToDate condition: nil when the condition is not False with reason
// EnvironmentChanged.
func environmentDrift(obj *unstructured.Unstructured) []driftItem {
	c := model.ConditionOf(obj, kaasv1alpha1.ConditionEnvironmentUpToDate)
	if c.Status != string(model.ConditionFalse) || c.Reason != kaasv1alpha1.ReasonEnvironmentChanged {
		return nil
	}
	return parseDrift(c.Message)
}

// parseDrift splits the condition's message into its items: "environment E changed since
// the cluster was created; the cluster is left as it is: ITEM; ITEM".
func parseDrift(msg string) []driftItem {
	if _, list, ok := strings.Cut(msg, "the cluster is left as it is: "); ok {
		msg = list
	}
	var items []string
	for {
		loc := itemStart.FindStringIndex(msg)
		if loc == nil {
			items = append(items, msg)
			break
		}
		items = append(items, msg[:loc[0]])
		msg = msg[loc[0]+2:]
	}
	var out []driftItem
	for _, it := range items {
		if m := driftSetting.FindStringSubmatch(it); m != nil {
			out = append(out, driftItem{Path: m[1], Keeps: m[2], Now: m[3], Effect: m[4], ForGood: m[4] == "", Note: m[5]})
			continue
		}
		if m := driftDefault.FindStringSubmatch(it); m != nil {
			// Adopting takes the maintenance and root disk defaults; the network and the
			// zones of a pool stay for the cluster's life.
			forGood := strings.HasPrefix(m[1], "spec.network.") || strings.HasSuffix(m[1], ".zones")
			out = append(out, driftItem{Path: m[1], Keeps: m[2], Now: m[3], ForGood: forGood, Source: m[4]})
			continue
		}
		if m := driftGone.FindStringSubmatch(it); m != nil {
			out = append(out, driftItem{Path: m[1], Keeps: m[2], Gone: true, Source: m[3]})
			continue
		}
		// A sentence of another kind, or cut short by the condition's length limit: its path.
		if path, _, ok := strings.Cut(it, ": "); ok && (strings.HasPrefix(path, "data.") || strings.HasPrefix(path, "spec.")) {
			out = append(out, driftItem{Path: path})
		}
	}
	return out
}

// String is the item as the fleet report shows it: "data.x (keeps A, environment names B)".
func (d driftItem) String() string {
	keeps := "keeps " + d.Keeps
	if d.ForGood {
		keeps += " for good"
	}
	switch {
	case d.Gone:
		return d.Path + " (" + d.Keeps + " no longer offered)"
	case d.Keeps == "" && d.Now == "":
		return d.Path
	case strings.HasPrefix(d.Path, "spec."):
		return d.Path + " (" + keeps + ", environment defaults to " + d.Now + ")"
	}
	return d.Path + " (" + keeps + ", environment names " + d.Now + ")"
}

// Summary is the item in the words of model.SettingEdit's summary, for what adopting the
// environment's values does: "in place: data.x A -> B", "kept for good: data.x A -> B (why)".
func (d driftItem) Summary() string {
	change := d.Path + " " + d.Keeps + " -> " + d.Now
	switch {
	case d.Gone:
		return "kept: " + d.Path + " " + d.Keeps + " (no longer offered by the environment, " + d.Source + ")"
	case d.Keeps == "" && d.Now == "":
		return "differs: " + d.Path
	case d.ForGood && d.Note != "":
		return model.SettingEdit{Path: d.Path, From: d.Keeps, To: d.Now, Kept: true, Effect: model.EffectRefused, Note: d.Note}.Summary()
	case d.ForGood:
		return "kept for good: " + change + " (" + d.Source + ")"
	case d.Effect != "":
		return d.Effect + ": " + change
	}
	return "adopted: " + change + " (" + d.Source + ")"
}
