package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolsFromEnv returns the tools make test built. Run alone (go test ./...), the tests skip
// and say how to run them; under make test (SCS_KAAS_REQUIRE_TOOLS=1) a missing tool fails.
func toolsFromEnv(t *testing.T) Tools {
	t.Helper()
	tools := Tools{
		CLI:      os.Getenv("SCS_KAAS_CROSSPLANE_CLI"),
		Core:     os.Getenv("SCS_KAAS_CROSSPLANE_CORE"),
		Function: os.Getenv("SCS_KAAS_FUNCTION"),
	}
	if s := os.Getenv("SCS_KAAS_SCHEMAS"); s != "" {
		tools.Schemas = strings.Split(s, ",")
	}
	if s := os.Getenv("SCS_KAAS_UNVALIDATED"); s != "" {
		tools.Unvalidated = strings.Split(s, ",")
	}
	if tools.CLI == "" || tools.Core == "" || tools.Function == "" || len(tools.Schemas) == 0 {
		msg := "SKIPPED: render tests need the crossplane CLI, Crossplane core, the function binary and the schemas; run them with make test-render (make test runs them too)"
		if os.Getenv("SCS_KAAS_REQUIRE_TOOLS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return tools
}

func startRenderer(t *testing.T) (*Renderer, []Scenario) {
	t.Helper()
	tools := toolsFromEnv(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	scenarios, err := Scenarios(root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), root, t.TempDir(), tools)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r, scenarios
}

func scenario(t *testing.T, all []Scenario, name string) Scenario {
	t.Helper()
	for _, s := range all {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no scenario %q", name)
	return Scenario{}
}

func composite(t *testing.T, r *Rendered) (status map[string]any, conditions map[string]map[string]any) {
	t.Helper()
	for _, o := range r.Objects {
		if o["kind"] != "XSCSCluster" {
			continue
		}
		status, _ = o["status"].(map[string]any)
		conditions = map[string]map[string]any{}
		cs, _ := status["conditions"].([]any)
		for _, c := range cs {
			c := c.(map[string]any)
			conditions[c["type"].(string)] = c
		}
		return status, conditions
	}
	t.Fatal("the output has no XSCSCluster")
	return nil, nil
}

// TestRenderValidatesEveryExample renders every example through the CLI and checks every
// object, and the Shoots inside the Objects, against the upstream schemas.
func TestRenderValidatesEveryExample(t *testing.T) {
	r, scenarios := startRenderer(t)
	for _, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) {
			rendered, err := r.Render(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			var skipped *SkippedError
			if out, err := r.Validate(context.Background(), s.Name, rendered); errors.As(err, &skipped) {
				t.Logf("SKIPPED in part: %v", skipped)
			} else if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

func TestRenderReadyShoot(t *testing.T) {
	r, scenarios := startRenderer(t)
	rendered, err := r.Render(context.Background(), scenario(t, scenarios, "gardener/ready"))
	if err != nil {
		t.Fatal(err)
	}
	status, conds := composite(t, rendered)
	if conds["Ready"]["status"] != "True" {
		t.Errorf("Ready = %v, want True", conds["Ready"])
	}
	if status["phase"] != "Ready" {
		t.Errorf("phase = %v, want Ready", status["phase"])
	}
	if status["apiServerURL"] != "https://api.shop-6bru6k.team1.gardener.example.com" {
		t.Errorf("apiServerURL = %v", status["apiServerURL"])
	}
}

func TestRenderQuotaExceeded(t *testing.T) {
	r, scenarios := startRenderer(t)
	rendered, err := r.Render(context.Background(), scenario(t, scenarios, "gardener/quota-exceeded"))
	if err != nil {
		t.Fatal(err)
	}
	_, conds := composite(t, rendered)
	c := conds["BackendReady"]
	if c["status"] != "False" || c["reason"] != "ERR_INFRA_QUOTA_EXCEEDED" {
		t.Errorf("BackendReady = %v, want False with reason ERR_INFRA_QUOTA_EXCEEDED", c)
	}
	if conds["Ready"]["status"] != "False" {
		t.Errorf("Ready = %v, want False", conds["Ready"])
	}
}

// TestRenderWithoutEnvironmentFails: with no EnvironmentConfig the CLI exits non-zero,
// names the missing environment, and renders no composed resource.
func TestRenderWithoutEnvironmentFails(t *testing.T) {
	r, scenarios := startRenderer(t)
	s := scenario(t, scenarios, "gardener")
	s.Environments = ""
	rendered, err := r.Render(context.Background(), s)
	if err == nil {
		t.Fatalf("render succeeded without an EnvironmentConfig and returned %d objects", len(rendered.Objects))
	}
	var re *RenderError
	if !errors.As(err, &re) {
		t.Fatalf("want a RenderError, got %v", err)
	}
	if !strings.Contains(re.Output, `environment "gardener-regionone" is not offered to namespace team1`) {
		t.Errorf("the output should name the missing environment:\n%s", re.Output)
	}
	if strings.Contains(re.Output, "kind: Object") || strings.Contains(re.Output, "kind: Shoot") {
		t.Errorf("a composed resource was rendered:\n%s", re.Output)
	}
}

// TestRenderClusterStackReady: an available Cluster and the kubeconfig Secret Cluster API
// wrote make the XR Ready, with the endpoint in its status.
func TestRenderClusterStackReady(t *testing.T) {
	r, scenarios := startRenderer(t)
	rendered, err := r.Render(context.Background(), scenario(t, scenarios, "clusterstack/ready"))
	if err != nil {
		t.Fatal(err)
	}
	status, conds := composite(t, rendered)
	if conds["Ready"]["status"] != "True" || status["phase"] != "Ready" || status["apiServerURL"] != "https://203.0.113.10:6443" {
		t.Errorf("want a Ready XR with its API server, got phase %v, Ready %v, apiServerURL %v", status["phase"], conds["Ready"], status["apiServerURL"])
	}
	var cluster map[string]any
	for _, o := range rendered.Objects {
		if o["kind"] == "Cluster" {
			cluster = o
		}
	}
	if cluster == nil {
		t.Fatal("no Cluster rendered")
	}
	topology := cluster["spec"].(map[string]any)["topology"].(map[string]any)
	// The example environment updates patches: the newest ready 1.34 release.
	if topology["version"] != "v1.34.7" || topology["classRef"].(map[string]any)["name"] != "openstack-scs2-1-34-v3" {
		t.Errorf("topology = %v", topology)
	}
}
