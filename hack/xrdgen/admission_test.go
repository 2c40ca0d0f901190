package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/xcrd"
	xpv1 "github.com/crossplane/crossplane/apis/v2/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// admission validates claims the way the API server does for the claim CRD that Crossplane
// generates from the XRD: OpenAPI schema, list types and CEL rules, including transition
// rules against the old object.
type admission struct {
	schema     *apiextensions.JSONSchemaProps
	structural *schema.Structural
	validator  validation.SchemaValidator
	cel        *cel.Validator
}

// loadAdmission derives the CRD Crossplane generates for what users apply in a flavour (the
// claim of the legacy XRD, the namespaced composite of the v2 XRD) and returns its admission.
func loadAdmission(t *testing.T, f Flavour) (*admission, *extv1.CustomResourceDefinition) {
	t.Helper()
	raw, err := os.ReadFile("../../" + Files[f])
	if err != nil {
		t.Fatalf("cannot read the XRD: %v", err)
	}
	// A v2 XRD reads as a v1 one: the fields are the same, Namespaced is a v1 scope too.
	xrd := &xpv1.CompositeResourceDefinition{}
	if err := yaml.Unmarshal(raw, xrd); err != nil {
		t.Fatalf("cannot decode the XRD: %v", err)
	}
	var crd *extv1.CustomResourceDefinition
	if f == Legacy {
		crd, err = xcrd.ForCompositeResourceClaim(xrd)
	} else {
		crd, err = xcrd.ForCompositeResource(xrd)
	}
	if err != nil {
		t.Fatalf("cannot derive the CRD as Crossplane does: %v", err)
	}
	if crd.Spec.Names.Kind != "SCSCluster" {
		t.Fatalf("users apply %s in flavour %s, want SCSCluster", crd.Spec.Names.Kind, f)
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := extv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil); err != nil {
		t.Fatalf("cannot convert the schema: %v", err)
	}
	structural, err := schema.NewStructural(internal)
	if err != nil {
		t.Fatalf("the claim schema is not structural: %v", err)
	}
	v, _, err := validation.NewSchemaValidator(internal)
	if err != nil {
		t.Fatalf("cannot build the schema validator: %v", err)
	}
	return &admission{
		schema:     internal,
		structural: structural,
		validator:  v,
		cel:        cel.NewValidator(structural, true, celconfig.PerCallLimit),
	}, crd
}

func (a *admission) check(obj, old map[string]any) field.ErrorList {
	var errs field.ErrorList
	if old == nil {
		errs = append(errs, validation.ValidateCustomResource(nil, obj, a.validator)...)
	} else {
		errs = append(errs, validation.ValidateCustomResourceUpdate(nil, obj, old, a.validator)...)
	}
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, a.structural, obj)...)
	var oldObj any
	if old != nil {
		oldObj = old
	}
	celErrs, _ := a.cel.Validate(context.Background(), nil, a.structural, obj, oldObj, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// TestClaimCRDIsAccepted checks that the API server would accept the CRD Crossplane
// generates, including the estimated cost of every CEL rule.
func TestClaimCRDIsAccepted(t *testing.T) {
	for _, f := range []Flavour{Legacy, Namespaced} {
		t.Run(string(f), func(t *testing.T) { testCRDIsAccepted(t, f) })
	}
}

func testCRDIsAccepted(t *testing.T, f Flavour) {
	_, crd := loadAdmission(t, f)
	// What the API server fills in before it validates a new CRD.
	for i := range crd.OwnerReferences {
		crd.OwnerReferences[i].UID = "00000000-0000-0000-0000-000000000001"
	}
	crd.Status.StoredVersions = []string{crd.Spec.Versions[0].Name}
	internal := &apiextensions.CustomResourceDefinition{}
	if err := extv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		t.Fatalf("cannot convert the CRD: %v", err)
	}
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal); len(errs) > 0 {
		t.Fatalf("the API server would reject the claim CRD: %v", errs.ToAggregate())
	}
}

const validClaim = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata: {name: demo, namespace: team1}
spec:
  environment: gardener-regionone
  kubernetes: {version: "1.34"}
  network: {podCIDR: 100.64.0.0/12, serviceCIDR: 100.80.0.0/13, nodeCIDR: 10.250.0.0/16}
  maintenance: {window: {begin: "220000+0000", end: "230000+0000"}}
  hibernation: {schedules: [{start: "0 20 * * 1-5", end: "0 7 * * 1-5", location: Europe/Berlin}]}
  nodePools:
  - name: system
    machineType: SCS-4V-8
    count: 3
    taints: [{key: node.scs.community/system, value: "true", effect: NoSchedule}]
  - name: general
    machineType: SCS-8V-32
    autoscaling: {min: 1, max: 9}
    maxSurge: 25%
    maxUnavailable: 0
`

// edit returns the valid claim changed by f.
func edit(t *testing.T, f func(spec map[string]any)) map[string]any {
	t.Helper()
	// Decode as the API server does: whole numbers become int64, not float64.
	raw, err := yaml.YAMLToJSON([]byte(validClaim))
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	if f != nil {
		f(obj["spec"].(map[string]any))
	}
	return obj
}

func pool(spec map[string]any, i int) map[string]any {
	return spec["nodePools"].([]any)[i].(map[string]any)
}

func network(spec map[string]any) map[string]any { return spec["network"].(map[string]any) }

// TestClaimAdmission has a case for every validation rule of the XRD: each invalid claim is
// refused with a message that names the field.
func TestClaimAdmission(t *testing.T) {
	for _, f := range []Flavour{Legacy, Namespaced} {
		t.Run(string(f), func(t *testing.T) { testClaimAdmission(t, f) })
	}
}

func testClaimAdmission(t *testing.T, f Flavour) {
	a, _ := loadAdmission(t, f)
	cases := map[string]struct {
		old func(spec map[string]any)
		new func(spec map[string]any)
		// oldStatus is the status the stored claim had (the function writes it).
		oldStatus map[string]any
		want      []string // substrings of the errors; none means accepted
	}{
		"ValidClaim": {},
		"MinimalClaim": {new: func(s map[string]any) {
			for _, k := range []string{"environment", "network", "maintenance", "hibernation"} {
				delete(s, k)
			}
		}},
		"BadCIDR": {
			new:  func(s map[string]any) { network(s)["podCIDR"] = "100.64.0.0/33" },
			want: []string{"spec.network.podCIDR must be a CIDR in canonical form"},
		},
		"NonCanonicalCIDR": {
			new:  func(s map[string]any) { network(s)["nodeCIDR"] = "10.250.1.0/16" },
			want: []string{"spec.network.nodeCIDR must be a CIDR in canonical form"},
		},
		"PodAndServiceCIDROverlap": {
			new:  func(s map[string]any) { network(s)["serviceCIDR"] = "100.64.0.0/16" },
			want: []string{"spec.network.podCIDR and spec.network.serviceCIDR must not overlap"},
		},
		"PodAndNodeCIDROverlap": {
			new:  func(s map[string]any) { network(s)["nodeCIDR"] = "100.72.0.0/16" },
			want: []string{"spec.network.podCIDR and spec.network.nodeCIDR must not overlap"},
		},
		"ServiceAndNodeCIDROverlap": {
			new:  func(s map[string]any) { network(s)["nodeCIDR"] = "100.80.0.0/24" },
			want: []string{"spec.network.serviceCIDR and spec.network.nodeCIDR must not overlap"},
		},
		"MinGreaterThanMax": {
			new:  func(s map[string]any) { pool(s, 1)["autoscaling"] = map[string]any{"min": int64(5), "max": int64(2)} },
			want: []string{"spec.nodePools[1].autoscaling", "autoscaling.min must not be greater than autoscaling.max"},
		},
		"CountAndAutoscaling": {
			new:  func(s map[string]any) { pool(s, 0)["autoscaling"] = map[string]any{"min": int64(1), "max": int64(2)} },
			want: []string{"spec.nodePools[0]", "set exactly one of count (a fixed size) or autoscaling"},
		},
		"NeitherCountNorAutoscaling": {
			new:  func(s map[string]any) { delete(pool(s, 0), "count") },
			want: []string{"spec.nodePools[0]", "set exactly one of count (a fixed size) or autoscaling"},
		},
		"DuplicatePoolNames": {
			new:  func(s map[string]any) { pool(s, 1)["name"] = "system" },
			want: []string{"spec.nodePools[1]", "Duplicate value"},
		},
		"PoolNameNotADNSLabel": {
			new:  func(s map[string]any) { pool(s, 0)["name"] = "System_Pool" },
			want: []string{"spec.nodePools[0].name", "should match"},
		},
		"PoolNameTooLong": {
			new:  func(s map[string]any) { pool(s, 0)["name"] = "a-very-long-pool-name" },
			want: []string{"spec.nodePools[0].name", "may not be more than 15"},
		},
		"NoNodePools": {
			new:  func(s map[string]any) { s["nodePools"] = []any{} },
			want: []string{"spec.nodePools", "should have at least 1 items"},
		},
		"BadVersion": {
			new:  func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "v1.34"} },
			want: []string{"spec.kubernetes.version", "should match"},
		},
		"BadTaintEffect": {
			new:  func(s map[string]any) { pool(s, 0)["taints"].([]any)[0].(map[string]any)["effect"] = "NoWay" },
			want: []string{"spec.nodePools[0].taints[0].effect", `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`},
		},
		"BadPurpose": {
			new:  func(s map[string]any) { s["purpose"] = "fun" },
			want: []string{"spec.purpose", `supported values: "evaluation", "development", "production"`},
		},
		"BadMaintenanceWindow": {
			new: func(s map[string]any) {
				s["maintenance"] = map[string]any{"window": map[string]any{"begin": "22:00", "end": "230000+0000"}}
			},
			want: []string{"spec.maintenance.window.begin", "should match"},
		},
		"EmptyHibernationSchedule": {
			new: func(s map[string]any) {
				s["hibernation"] = map[string]any{"schedules": []any{map[string]any{"location": "UTC"}}}
			},
			want: []string{"spec.hibernation.schedules[0]", "a hibernation schedule needs start, end, or both"},
		},
		"BadEnvironmentName": {
			new:  func(s map[string]any) { s["environment"] = "Prod_1" },
			want: []string{"spec.environment", "should match"},
		},

		// Updates.
		"ScalePoolInPlace": {
			new: func(s map[string]any) { pool(s, 0)["count"] = int64(5) },
			old: func(map[string]any) {},
		},
		"UpgradeOneMinor": {
			new: func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.35"} },
			old: func(map[string]any) {},
		},
		"PinPatchOfSameMinor": {
			new: func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.34.3"} },
			old: func(map[string]any) {},
		},
		"PoolZonesSetLater": {
			new: func(s map[string]any) { pool(s, 0)["zones"] = []any{"az1", "az2"} },
			old: func(map[string]any) {},
		},
		"PoolZonesInAnotherOrder": {
			new: func(s map[string]any) { pool(s, 0)["zones"] = []any{"az2", "az1"} },
			old: func(s map[string]any) { pool(s, 0)["zones"] = []any{"az1", "az2"} },
		},
		"PoolZoneRemoved": {
			new:  func(s map[string]any) { pool(s, 0)["zones"] = []any{"az1"} },
			old:  func(s map[string]any) { pool(s, 0)["zones"] = []any{"az1", "az2"} },
			want: []string{"spec.nodePools[0].zones", "the zones of an existing node pool cannot change"},
		},
		// Left out, the zones are what the pool runs (the function checks it): the way back
		// from a zone edit the function refused.
		"PoolZonesLeftOut": {
			new: func(map[string]any) {},
			old: func(s map[string]any) { pool(s, 0)["zones"] = []any{"az1", "az2"} },
		},
		"NewPoolWithOtherZones": {
			new: func(s map[string]any) {
				pool(s, 0)["zones"] = []any{"az1", "az2"}
				s["nodePools"] = append(s["nodePools"].([]any), map[string]any{"name": "east", "machineType": "SCS-4V-8", "count": int64(1), "zones": []any{"az3"}})
			},
			old: func(s map[string]any) { pool(s, 0)["zones"] = []any{"az1", "az2"} },
		},
		"UpgradeTwoMinors": {
			new:  func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.36"} },
			old:  func(map[string]any) {},
			want: []string{"spec.kubernetes.version can move one minor at a time: 1.34 to 1.36 skips a minor"},
		},
		"DowngradeMinor": {
			new:  func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.33"} },
			old:  func(map[string]any) {},
			want: []string{"spec.kubernetes.version cannot be downgraded from 1.34 to 1.33"},
		},
		"DowngradeBelowRunningVersion": {
			new:       func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.33"} },
			old:       func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.35"} },
			oldStatus: map[string]any{"kubernetes": map[string]any{"version": "1.34.7"}},
			want:      []string{"spec.kubernetes.version cannot be downgraded from 1.35 to 1.33: the cluster runs 1.34.7"},
		},
		"DowngradeTheRunningMinor": {
			new:       func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.33"} },
			old:       func(map[string]any) {},
			oldStatus: map[string]any{"kubernetes": map[string]any{"version": "1.34.2"}},
			want:      []string{"spec.kubernetes.version cannot be downgraded from 1.34 to 1.33: the cluster runs 1.34.2"},
		},
		// A minor the backend refused (not offered yet) never ran: going back to the
		// running one must be possible, or the claim is stuck.
		"ReturnToTheRunningMinorAfterARefusedUpgrade": {
			new:       func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.34"} },
			old:       func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.35"} },
			oldStatus: map[string]any{"kubernetes": map[string]any{"version": "1.34.7"}},
		},
		"DowngradePatch": {
			new:  func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.34.1"} },
			old:  func(s map[string]any) { s["kubernetes"] = map[string]any{"version": "1.34.2"} },
			want: []string{"spec.kubernetes.version cannot be downgraded from 1.34.2 to 1.34.1"},
		},
		"ChangeEnvironment": {
			new:  func(s map[string]any) { s["environment"] = "other" },
			old:  func(map[string]any) {},
			want: []string{"spec.environment is immutable"},
		},
		"RemoveEnvironment": {
			new:  func(s map[string]any) { delete(s, "environment") },
			old:  func(map[string]any) {},
			want: []string{"spec.environment cannot be removed once set"},
		},
		"ChangeNetwork": {
			new:  func(s map[string]any) { network(s)["podCIDR"] = "100.96.0.0/12" },
			old:  func(map[string]any) {},
			want: []string{"spec.network is immutable"},
		},
		"RemoveNetwork": {
			new:  func(s map[string]any) { delete(s, "network") },
			old:  func(map[string]any) {},
			want: []string{"spec.network cannot be removed once set"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := edit(t, tc.new)
			var old map[string]any
			if tc.old != nil {
				old = edit(t, tc.old)
				if tc.oldStatus != nil {
					old["status"] = tc.oldStatus
				}
			}
			errs := a.check(obj, old)
			got := errs.ToAggregate()
			if len(tc.want) == 0 {
				if got != nil {
					t.Fatalf("the claim should be accepted, got: %v", got)
				}
				return
			}
			if got == nil {
				t.Fatalf("the claim should be refused with %q, but it was accepted", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("the error should contain %q, got: %v", w, got)
				}
			}
		})
	}
}
