package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// node-zones-<minor>: every node of the cluster carries the zone label, with a zone the
// environment offers; skipped when the environment offers no zones.
const (
	nodeZonesID          = "node-zones"
	nodeZonesDescription = "the cluster's nodes carry the zone label, with zones the environment offers"
)

// nodeZonesInput is what node-zones needs.
type nodeZonesInput struct {
	// Kubeconfig reaches the cluster (kubeconfig-version-<minor>).
	Kubeconfig []byte
	// Offered are the zones the environment offers.
	Offered []string
}

// nodeZones is node-zones-<minor>.
func (r *run) nodeZones(ctx context.Context, minor string) bool {
	id := nodeZonesID + "-" + minor
	in := nodeZonesInput{Kubeconfig: r.kubeconfigs[minor], Offered: r.out.Offered.Zones}
	switch {
	case len(in.Offered) == 0:
		r.skip(id, nodeZonesDescription, "the environment offers no zones")
	case in.Kubeconfig == nil:
		r.skip(id, nodeZonesDescription, "no working kubeconfig ("+kubeconfigVersionID+"-"+minor+")")
	default:
		r.step(ctx, id, nodeZonesDescription, func(ctx context.Context) (string, bool, error) { return r.zones(ctx, in) })
	}
	return true
}

// zones checks the nodes' zone labels against the offered zones.
func (r *run) zones(ctx context.Context, in nodeZonesInput) (string, bool, error) {
	w, err := r.kit.Connect(in.Kubeconfig)
	if err != nil {
		return "", false, err
	}
	nodes, err := w.NodeZones(ctx)
	if err != nil {
		return "", false, fmt.Errorf("listing nodes: %v", err)
	}
	if len(nodes) == 0 {
		return "", false, errors.New("the cluster has no nodes")
	}
	var bad []string
	seen := map[string]bool{}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		z := nodes[n]
		switch {
		case z == "":
			bad = append(bad, n+" has no "+ZoneLabel)
		case !slices.Contains(in.Offered, z):
			bad = append(bad, fmt.Sprintf("%s is in zone %s, which the environment does not offer", n, z))
		default:
			seen[z] = true
		}
	}
	if len(bad) > 0 {
		return "", false, errors.New(strings.Join(bad, "; "))
	}
	zs := make([]string, 0, len(seen))
	for z := range seen {
		zs = append(zs, z)
	}
	sort.Strings(zs)
	if len(nodes) == 1 {
		return fmt.Sprintf("1 node, labelled %s, in zone %s", ZoneLabel, zs[0]), false, nil
	}
	return fmt.Sprintf("%d nodes, each labelled %s, in zones %s", len(nodes), ZoneLabel, strings.Join(zs, ", ")), false, nil
}
