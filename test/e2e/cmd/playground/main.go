// Command playground starts and stops the local control plane (see package
// controlplane) for humans: `make demo` and `make down`.
//
//	playground up   [flags]   start everything, print kubeconfigs and a how-to, exit
//	playground down [flags]   stop what the run directory says was started
//	playground status [flags] show what runs
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// list is a repeatable flag that also splits on commas, so make variables
// can pass several paths in one word.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }
func (l *list) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "up":
		err = up(os.Args[2:])
	case "down":
		err = down(os.Args[2:])
	case "status":
		err = status(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: playground up|down|status [flags]   (playground <cmd> -h for flags)")
	os.Exit(2)
}

func defaultRunDir() string {
	if root, err := controlplane.FindRepoRoot("."); err == nil {
		return filepath.Join(root, "_output", "playground")
	}
	return filepath.Join(os.TempDir(), "scs-kaas-playground")
}

func up(args []string) error {
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	var o controlplane.Options
	var manifests, projects, gardenCRDs, fnArgs list
	fs.StringVar(&o.RunDir, "run-dir", defaultRunDir(), "run directory (PKI, data, logs, PID files); an earlier run in it is stopped first")
	fs.StringVar(&o.FunctionBinary, "function-binary", "", "composition function binary to run (empty: register only)")
	fs.StringVar(&o.FunctionName, "function-name", controlplane.DefaultFunctionName, "Function name the Compositions reference")
	fs.StringVar(&o.FunctionCertsDirFlag, "function-certs-dir-flag", "", "also pass the function's TLS directory as this flag (it always gets TLS_SERVER_CERTS_DIR)")
	fs.Var(&fnArgs, "function-arg", "extra function argument (repeatable)")
	fs.Var(&manifests, "manifest", "file or directory applied into the Crossplane cluster (repeatable, comma-separated)")
	fs.Var(&projects, "project", "Gardener project: creates namespace garden-<project> (repeatable, comma-separated)")
	fs.Var(&gardenCRDs, "garden-crd", "extra CRD file or directory for the garden cluster (repeatable)")
	fs.StringVar(&o.ShootCRD, "shoot-crd", "", "Shoot CRD (default: hack/shootcrd/crds/core.gardener.cloud_shoots.yaml)")
	fs.StringVar(&o.ProviderConfigName, "provider-config", "garden", "name of the provider-kubernetes (Cluster)ProviderConfig for the garden")
	fs.DurationVar(&o.PollInterval, "poll-interval", 10*time.Second, "Crossplane and provider poll interval")
	timeout := fs.Duration("timeout", 45*time.Minute, "give up after this long (includes building missing tools)")
	_ = fs.Parse(args)
	o.Manifests, o.GardenProjects, o.GardenCRDs, o.FunctionExtraArgs = manifests, projects, gardenCRDs, fnArgs
	o.Detach = true
	o.Logf = func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, *timeout)
	defer cancelTimeout()
	env, err := controlplane.Start(ctx, o)
	if err != nil {
		return err
	}
	s := env.State()
	run := env.RunDir
	fmt.Printf(`
The local control plane is up (run dir %[1]s).

  Crossplane cluster:  export KUBECONFIG=%[2]s
  Garden cluster:      %[3]s --kubeconfig %[4]s get shoots,configmaps -A
  kubectl:             %[3]s
  Function:            %[5]s at %[6]s (mTLS; certificates in %[7]s)
  ProviderConfig:      %[8]s (kubernetes.crossplane.io) and ClusterProviderConfig %[8]s (kubernetes.m.crossplane.io)
  Logs:                %[9]s/<process>.log

Try:
  %[3]s get xrd,composition,function
  %[3]s apply -f examples/claims/...          # then watch: %[3]s get managed,composite -A
  %[3]s --kubeconfig %[4]s -n garden-<project> get shoots -o yaml

No Gardener controller runs: write a Shoot's status yourself. Gardener's schema
requires uid (the Shoot's), technicalID, hibernated and gardener in a status, e.g.
  %[3]s --kubeconfig %[4]s -n garden-<project> patch shoot NAME --subresource=status --type=merge -p \
    '{"status":{"uid":"<metadata.uid>","technicalID":"shoot--p--n","hibernated":false,
      "gardener":{"id":"local","name":"local","version":"v1.149.3"},
      "lastOperation":{"type":"Create","state":"Succeeded","progress":100,"description":"done",
                       "lastUpdateTime":"2026-01-01T00:00:00Z"}}}'

Stop everything:  playground down --run-dir %[1]s
`, run, s.CrossplaneKubeconfig, s.Kubectl, s.GardenKubeconfig, s.FunctionName, s.FunctionAddress, s.FunctionTLSDir, s.ProviderConfigName, s.LogDir)
	return nil
}

func down(args []string) error {
	fs := flag.NewFlagSet("down", flag.ExitOnError)
	runDir := fs.String("run-dir", defaultRunDir(), "run directory of the playground to stop")
	_ = fs.Parse(args)
	if err := controlplane.StopRun(*runDir); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "stopped everything recorded in %s\n", *runDir)
	return nil
}

func status(args []string) error {
	fs := flag.NewFlagSet("status", flag.ExitOnError)
	runDir := fs.String("run-dir", defaultRunDir(), "run directory of the playground")
	_ = fs.Parse(args)
	procs, err := controlplane.RunProcesses(*runDir)
	if err != nil {
		return err
	}
	if len(procs) == 0 {
		fmt.Printf("nothing recorded in %s\n", *runDir)
		return nil
	}
	for _, p := range procs {
		state := "stopped"
		if p.Running {
			state = "running"
		}
		fmt.Printf("%-32s pid %-8d %s\n", p.Name, p.PID, state)
	}
	if data, err := os.ReadFile(filepath.Join(*runDir, "state.json")); err == nil {
		var s controlplane.State
		if json.Unmarshal(data, &s) == nil {
			fmt.Printf("\nexport KUBECONFIG=%s   # Crossplane cluster\n%s --kubeconfig %s ...   # garden\n", s.CrossplaneKubeconfig, s.Kubectl, s.GardenKubeconfig)
		}
	}
	return nil
}
