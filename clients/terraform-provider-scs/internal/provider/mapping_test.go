package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Helpers that build attribute values the way the framework reads them from a plan.

func str(s string) types.String { return types.StringValue(s) }

func strList(s ...string) types.List {
	v := make([]attr.Value, 0, len(s))
	for _, x := range s {
		v = append(v, types.StringValue(x))
	}
	l, _ := types.ListValue(types.StringType, v)
	return l
}

// object builds an object of field f (a kObject or an element of a kObjectList) from the
// attributes given; the others are null.
func object(f field, attrs map[string]attr.Value) types.Object {
	all := map[string]attr.Value{}
	for _, c := range f.Fields {
		all[c.Name] = c.null()
		if v, ok := attrs[c.Name]; ok {
			all[c.Name] = v
		}
	}
	o, d := types.ObjectValue(attrTypes(f.Fields), all)
	if d.HasError() {
		panic(diagErr(d))
	}
	return o
}

func objects(f field, elems ...types.Object) types.List {
	v := make([]attr.Value, 0, len(elems))
	for _, e := range elems {
		v = append(v, e)
	}
	l, d := types.ListValue(f.objectType(), v)
	if d.HasError() {
		panic(diagErr(d))
	}
	return l
}

func mustField(t *testing.T, path ...string) field {
	t.Helper()
	fields := specFields
	var f field
	for _, n := range path {
		found := false
		for _, c := range fields {
			if c.Name == n {
				f, fields, found = c, c.Fields, true
				break
			}
		}
		if !found {
			t.Fatalf("no field %v", path)
		}
	}
	return f
}

// values are the top-level attribute values: those given, the others null.
func values(given map[string]attr.Value) map[string]attr.Value {
	out := map[string]attr.Value{}
	for _, f := range specFields {
		out[f.Name] = f.null()
		if v, ok := given[f.Name]; ok {
			out[f.Name] = v
		}
	}
	return out
}

// TestSpecMapping: attribute values become the spec the provider applies, and the spec
// read back becomes the same attribute values.
func TestSpecMapping(t *testing.T) {
	pools := mustField(t, "node_pools")
	taints := mustField(t, "node_pools", "taints")
	for _, tc := range []struct {
		name  string
		attrs map[string]attr.Value
		want  map[string]any
	}{
		{
			name: "minimal",
			attrs: map[string]attr.Value{
				"kubernetes": object(mustField(t, "kubernetes"), map[string]attr.Value{"version": str("1.34")}),
				"node_pools": objects(pools, object(pools, map[string]attr.Value{
					"name": str("default"), "machine_type": str("SCS-4V-8"),
					"autoscaling": object(mustField(t, "node_pools", "autoscaling"), map[string]attr.Value{
						"min": types.Int64Value(1), "max": types.Int64Value(3)}),
				})),
				"purpose": str("development"),
			},
			want: map[string]any{
				"purpose":    "development",
				"kubernetes": map[string]any{"version": "1.34"},
				"nodePools": []any{map[string]any{
					"name": "default", "machineType": "SCS-4V-8",
					"autoscaling": map[string]any{"min": int64(1), "max": int64(3)},
				}},
			},
		},
		{
			name: "every field",
			attrs: map[string]attr.Value{
				"environment": str("gardener-regionone"),
				"purpose":     str("production"),
				"kubernetes":  object(mustField(t, "kubernetes"), map[string]attr.Value{"version": str("1.34.2")}),
				"control_plane": object(mustField(t, "control_plane"), map[string]attr.Value{
					"high_availability": types.BoolValue(true)}),
				"node_pools": objects(pools,
					object(pools, map[string]attr.Value{
						"name": str("a"), "machine_type": str("SCS-2V-4"), "count": types.Int64Value(2),
						"zones":  strList("az1", "az2"),
						"labels": types.MapValueMust(types.StringType, map[string]attr.Value{"team": str("one")}),
						"taints": objects(taints,
							object(taints, map[string]attr.Value{"key": str("dedicated"), "value": str("db"), "effect": str("NoSchedule")}),
							object(taints, map[string]attr.Value{"key": str("spot"), "effect": str("NoExecute")})),
						"root_disk_gib": types.Int64Value(50), "max_surge": str("1"), "max_unavailable": str("25%"),
					}),
					object(pools, map[string]attr.Value{"name": str("b"), "machine_type": str("SCS-8V-32"), "count": types.Int64Value(0)})),
				"network": object(mustField(t, "network"), map[string]attr.Value{
					"pod_cidr": str("100.64.0.0/12"), "service_cidr": str("100.80.0.0/13"),
					"node_cidr": str("10.250.0.0/16"), "cni": str("cilium")}),
				"maintenance": object(mustField(t, "maintenance"), map[string]attr.Value{
					"window": object(mustField(t, "maintenance", "window"), map[string]attr.Value{
						"begin": str("220000+0000"), "end": str("230000+0000")}),
					"auto_update": object(mustField(t, "maintenance", "auto_update"), map[string]attr.Value{
						"kubernetes_patch": types.BoolValue(true), "machine_image": types.BoolValue(false)}),
				}),
				"hibernation": object(mustField(t, "hibernation"), map[string]attr.Value{
					"enabled": types.BoolValue(false),
					"schedules": objects(mustField(t, "hibernation", "schedules"),
						object(mustField(t, "hibernation", "schedules"), map[string]attr.Value{
							"start": str("0 20 * * 1-5"), "end": str("0 7 * * 1-5"), "location": str("Europe/Berlin")})),
				}),
				"deletion_protection": types.BoolValue(true),
				"write_connection_secret_to_ref": object(mustField(t, "write_connection_secret_to_ref"), map[string]attr.Value{
					"name": str("dev-kubeconfig")}),
			},
			want: map[string]any{
				"environment":  "gardener-regionone",
				"purpose":      "production",
				"kubernetes":   map[string]any{"version": "1.34.2"},
				"controlPlane": map[string]any{"highAvailability": true},
				"nodePools": []any{
					map[string]any{
						"name": "a", "machineType": "SCS-2V-4", "count": int64(2),
						"zones":  []any{"az1", "az2"},
						"labels": map[string]any{"team": "one"},
						"taints": []any{
							map[string]any{"key": "dedicated", "value": "db", "effect": "NoSchedule"},
							map[string]any{"key": "spot", "effect": "NoExecute"},
						},
						"rootDiskGiB": int64(50), "maxSurge": int64(1), "maxUnavailable": "25%",
					},
					map[string]any{"name": "b", "machineType": "SCS-8V-32", "count": int64(0)},
				},
				"network": map[string]any{"podCIDR": "100.64.0.0/12", "serviceCIDR": "100.80.0.0/13", "nodeCIDR": "10.250.0.0/16", "cni": "cilium"},
				"maintenance": map[string]any{
					"window":     map[string]any{"begin": "220000+0000", "end": "230000+0000"},
					"autoUpdate": map[string]any{"kubernetesPatch": true, "machineImage": false},
				},
				"hibernation": map[string]any{
					"enabled":   false,
					"schedules": []any{map[string]any{"start": "0 20 * * 1-5", "end": "0 7 * * 1-5", "location": "Europe/Berlin"}},
				},
				"deletionProtection":         true,
				"writeConnectionSecretToRef": map[string]any{"name": "dev-kubeconfig"},
			},
		},
		{
			// Empty collections and objects are applied as written, so that they read back
			// the same (the API's Go types would drop them).
			name: "empty collections kept",
			attrs: map[string]attr.Value{
				"kubernetes": object(mustField(t, "kubernetes"), map[string]attr.Value{"version": str("1.34")}),
				"node_pools": objects(pools, object(pools, map[string]attr.Value{
					"name": str("default"), "machine_type": str("SCS-4V-8"), "count": types.Int64Value(1),
					"zones": strList(), "labels": types.MapValueMust(types.StringType, map[string]attr.Value{}),
					"taints": objects(taints),
				})),
				"control_plane": object(mustField(t, "control_plane"), nil),
			},
			want: map[string]any{
				"kubernetes":   map[string]any{"version": "1.34"},
				"controlPlane": map[string]any{},
				"nodePools": []any{map[string]any{
					"name": "default", "machineType": "SCS-4V-8", "count": int64(1),
					"zones": []any{}, "labels": map[string]any{}, "taints": []any{},
				}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := values(tc.attrs)
			got, err := specToJSON(in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			// The API's own types accept every field name (writeConnectionSecretToRef is
			// the namespaced XRD's, not ClusterSpec's).
			decodeStrict(t, got)

			back, err := specFromJSON(jsonRoundTrip(t, got))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(in, back); diff != "" {
				t.Errorf("attributes read back (-applied +read):\n%s", diff)
			}
		})
	}
}

// jsonRoundTrip gives the spec as a client reads it back: numbers as int64, as the
// unstructured decoder makes them.
func jsonRoundTrip(t *testing.T, spec map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var out map[string]any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return numbersToInt64(out).(map[string]any)
}

func numbersToInt64(v any) any {
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			f, _ := x.Float64()
			return f
		}
		return i
	case map[string]any:
		for k, e := range x {
			x[k] = numbersToInt64(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbersToInt64(e)
		}
	}
	return v
}

func decodeStrict(t *testing.T, spec map[string]any) {
	t.Helper()
	c := map[string]any{}
	for k, v := range spec {
		if k != "writeConnectionSecretToRef" {
			c[k] = v
		}
	}
	data, _ := json.Marshal(c)
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var s kaasv1alpha1.ClusterSpec
	if err := d.Decode(&s); err != nil {
		t.Errorf("the API's ClusterSpec does not take the spec: %v", err)
	}
}

// TestSpecToJSONUnknownAndInvalid: a value not known yet (planning) is errUnknown, so the
// plan-time dry run is skipped; a null element is an error.
func TestSpecToJSONUnknownAndInvalid(t *testing.T) {
	pools := mustField(t, "node_pools")
	for _, tc := range []struct {
		name        string
		attrs       map[string]attr.Value
		wantUnknown bool
		wantErr     string
	}{
		{
			name:        "unknown version",
			attrs:       map[string]attr.Value{"kubernetes": object(mustField(t, "kubernetes"), map[string]attr.Value{"version": types.StringUnknown()})},
			wantUnknown: true,
		},
		{
			name:        "unknown pool list",
			attrs:       map[string]attr.Value{"node_pools": types.ListUnknown(pools.objectType())},
			wantUnknown: true,
		},
		{
			name: "unknown zone",
			attrs: map[string]attr.Value{"node_pools": objects(pools, object(pools, map[string]attr.Value{
				"name": str("a"), "machine_type": str("x"),
				"zones": types.ListValueMust(types.StringType, []attr.Value{types.StringUnknown()})}))},
			wantUnknown: true,
		},
		{
			name: "null zone",
			attrs: map[string]attr.Value{"node_pools": objects(pools, object(pools, map[string]attr.Value{
				"name": str("a"), "machine_type": str("x"),
				"zones": types.ListValueMust(types.StringType, []attr.Value{types.StringNull()})}))},
			wantErr: "node_pools[0].zones[0]: an element must be a string, not null",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := specToJSON(values(tc.attrs))
			if got := errors.Is(err, errUnknown); got != tc.wantUnknown {
				t.Errorf("errUnknown = %v, want %v (err %v)", got, tc.wantUnknown, err)
			}
			if tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestSpecFromJSON covers what other writers may leave in an object: Crossplane's own
// fields (ignored), integers for IntOrString, and a wrong type (an error naming the field).
func TestSpecFromJSON(t *testing.T) {
	pools := mustField(t, "node_pools")
	got, err := specFromJSON(map[string]any{
		"kubernetes":   map[string]any{"version": "1.34"},
		"nodePools":    []any{map[string]any{"name": "a", "machineType": "x", "maxSurge": int64(2), "count": float64(3)}},
		"resourceRef":  map[string]any{"name": "a-x7k2p"},
		"crossplane":   map[string]any{"compositionRef": map[string]any{"name": "c"}},
		"someNewField": "from a newer API",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := values(map[string]attr.Value{
		"kubernetes": object(mustField(t, "kubernetes"), map[string]attr.Value{"version": str("1.34")}),
		"node_pools": objects(pools, object(pools, map[string]attr.Value{
			"name": str("a"), "machine_type": str("x"), "max_surge": str("2"), "count": types.Int64Value(3)})),
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	_, err = specFromJSON(map[string]any{"nodePools": []any{map[string]any{"name": "a", "count": "three"}}})
	if err == nil || err.Error() != "spec.nodePools[0].count: unexpected string in the object" {
		t.Errorf("err = %v", err)
	}
}

// TestKeepEmpty: an empty list, map or object in the state that the API server left out
// stays empty rather than turning null (which would read as a change on every plan);
// anything else takes the value read.
func TestKeepEmpty(t *testing.T) {
	pools := mustField(t, "node_pools")
	zonesField := mustField(t, "node_pools", "zones")
	cp := mustField(t, "control_plane")
	pool := func(zones attr.Value) types.List {
		return objects(pools, object(pools, map[string]attr.Value{"name": str("a"), "machine_type": str("x"), "zones": zones}))
	}
	for _, tc := range []struct {
		name             string
		f                field
		prior, now, want attr.Value
	}{
		{"empty list kept", zonesField, strList(), types.ListNull(types.StringType), strList()},
		{"non-empty list not kept", zonesField, strList("az1"), types.ListNull(types.StringType), types.ListNull(types.StringType)},
		{"value read wins", zonesField, strList(), strList("az1"), strList("az1")},
		{"null prior", zonesField, types.ListNull(types.StringType), strList("az1"), strList("az1")},
		{"nested in a pool", pools, pool(strList()), pool(types.ListNull(types.StringType)), pool(strList())},
		{"empty object kept", cp, object(cp, nil), cp.null(), object(cp, nil)},
		{"object with a value not kept", cp, object(cp, map[string]attr.Value{"high_availability": types.BoolValue(true)}), cp.null(), cp.null()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.f.keepEmpty(tc.prior, tc.now)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestIntOrString(t *testing.T) {
	for in, want := range map[string]any{"1": int64(1), "0": int64(0), "25%": "25%", "01": "01", "": "", "-1": int64(-1)} {
		if got := intOrString(in); got != want {
			t.Errorf("intOrString(%q) = %#v, want %#v", in, got, want)
		}
	}
}
