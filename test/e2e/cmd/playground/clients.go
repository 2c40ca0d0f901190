package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// readState reads what a running playground recorded in its run directory.
func readState(runDir string) (controlplane.State, error) {
	var s controlplane.State
	data, err := os.ReadFile(filepath.Join(runDir, "state.json"))
	if err != nil {
		return s, fmt.Errorf("no playground in %s (make demo starts one): %w", runDir, err)
	}
	return s, json.Unmarshal(data, &s)
}

// clients are API clients for one of the playground's clusters.
type clients struct {
	kube kubernetes.Interface
	dyn  dynamic.Interface
}

// playgroundClients are clients for the Crossplane and the garden cluster of a running
// playground.
func playgroundClients(s controlplane.State) (cp, garden *clients, err error) {
	if cp, err = clientsFor(s.CrossplaneKubeconfig); err != nil {
		return nil, nil, err
	}
	if garden, err = clientsFor(s.GardenKubeconfig); err != nil {
		return nil, nil, err
	}
	return cp, garden, nil
}

func clientsFor(kubeconfig string) (*clients, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &clients{kube: kube, dyn: dyn}, nil
}

// kubectl runs the pinned kubectl against kubeconfig and prints what it prints, indented,
// under the command line a user would type (with KUBECONFIG set for the Crossplane cluster).
func kubectl(s controlplane.State, kubeconfig string, args ...string) {
	shown := "kubectl " + strings.Join(args, " ")
	if kubeconfig != s.CrossplaneKubeconfig {
		shown = "kubectl --kubeconfig " + kubeconfig + " " + strings.Join(args, " ")
	}
	fmt.Printf("$ %s\n", shown)
	cmd := exec.Command(s.Kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		fmt.Printf("  %s\n", line)
	}
	if err != nil {
		fmt.Printf("  (kubectl: %v)\n", err)
	}
	fmt.Println()
}
