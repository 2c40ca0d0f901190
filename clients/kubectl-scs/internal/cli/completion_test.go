package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompletion drives cobra's hidden __complete command as the shell scripts do: one
// candidate a line, then the directive (:4, no file completion).
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
	}{
		{
			name:   "namespaces for -n, from the cluster",
			args:   []string{"__complete", "get", "-n", ""},
			stdout: "lab\nteam1\n:4\n",
		},
		{
			name:   "namespaces for --namespace, by prefix",
			args:   []string{"__complete", "describe", "--namespace", "t"},
			stdout: "team1\n:4\n",
		},
		{
			name:   "the namespace's clusters",
			args:   []string{"__complete", "describe", ""},
			stdout: "dev\nfresh\n:4\n",
		},
		{
			name:   "nothing after the one NAME describe takes",
			args:   []string{"__complete", "describe", "dev", ""},
			stdout: ":4\n",
		},
		{
			name:   "the pools of the named cluster",
			args:   []string{"__complete", "scale", "dev", ""},
			stdout: "default\ningress\n:4\n",
		},
		{
			name:   "the next minor for upgrade --to",
			args:   []string{"__complete", "upgrade", "dev", "--to", ""},
			stdout: "1.35\n:4\n",
		},
		{
			name:   "output formats",
			args:   []string{"__complete", "get", "-o", ""},
			stdout: "wide\nyaml\njson\nname\n:4\n",
		},
		{
			name:   "what wait waits for",
			args:   []string{"__complete", "wait", "dev", "--for", ""},
			stdout: "ready\ndelete\n:4\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourLegacy, object(t, readyClaim), object(t, newClaim), object(t, team1Namespace), object(t, labNamespace))
			stdout, _, code := h.run("", tc.args...)
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if code != ExitOK {
				t.Errorf("exit code %d, want 0", code)
			}
		})
	}
}

// TestCompletionScripts: completion writes cobra's script for each shell, for the binary's
// name (kubectl-scs), which kubectl's plugin completion calls.
func TestCompletionScripts(t *testing.T) {
	for shell, first := range map[string]string{
		"bash":       "# bash completion V2 for kubectl-scs",
		"zsh":        "#compdef kubectl-scs",
		"fish":       "# fish completion for kubectl-scs",
		"powershell": "# powershell completion for kubectl-scs",
	} {
		t.Run(shell, func(t *testing.T) {
			h := newHarness(t, flavourLegacy)
			stdout, stderr, code := h.run("", "completion", shell)
			if code != ExitOK || stderr != "" {
				t.Fatalf("exit code %d, stderr %q", code, stderr)
			}
			line, _, _ := strings.Cut(stdout, "\n")
			if got := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "-*- shell-script -*-")); got != first {
				t.Errorf("first line %q, want %q", got, first)
			}
			if n := len(h.dyn.Actions()); n != 0 {
				t.Errorf("completion %s sent %d requests to the API server, want none", shell, n)
			}
		})
	}
}
