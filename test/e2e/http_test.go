package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestHTTPAsDocumented runs docs/http.md: the files it shows, the set-up its first shell
// block does with kubectl (done here with the same objects), then every curl command of the
// page as written, with a ServiceAccount token, checking the status code each command's
// "# expect" comment names. Before the kubeconfig is fetched, the test plays Gardener so
// that the cluster is Ready.
func TestHTTPAsDocumented(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "http.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, commands := parseHTTPDoc(t, string(doc))
	if len(commands) < 7 {
		t.Fatalf("docs/http.md has %d curl commands; the test expects create, read, list, another namespace, change, kubeconfig, schema, delete", len(commands))
	}

	// The set-up: kubectl apply -f rbac.yaml, a token, the API server and its CA.
	rbac := filepath.Join(t.TempDir(), "rbac.yaml")
	if err := os.WriteFile(rbac, []byte(files["rbac.yaml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cp.Apply(ctx, rbac); err != nil {
		t.Fatalf("applying the documented RBAC: %v", err)
	}
	tr, err := cp.Client.CoreV1().ServiceAccounts(claimNamespace).CreateToken(ctx, "ci-bot",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubectl create token ci-bot: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cp.Config.CAData)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	vars := map[string]string{"TOKEN": tr.Status.Token, "APISERVER": cp.URL, "NS": claimNamespace}

	for _, c := range commands {
		t.Run(c.what(), func(t *testing.T) {
			if strings.Contains(c.url(vars), "/secrets/") {
				// The kubeconfig exists once the cluster is Ready: play Gardener. The change
				// just made may reach the Shoot after a first healthy status, which then
				// reports an old generation; Gardener reconciles every generation, and so
				// does the simulation.
				waitShoot(ctx, t, "web")
				simulateGardener(t, "web")
				waitClaim(ctx, t, deadline, "web", "Ready", hasCondition("Ready", "True", ""))
				waitKubeconfigSecret(ctx, t, "web-kubeconfig")
			}
			code, body := c.run(ctx, t, client, vars, files)
			if code != c.expect {
				t.Fatalf("%s answered %d, docs/http.md expects %d:\n%s", c.what(), code, c.expect, body)
			}
			if strings.Contains(c.url(vars), "/openapi/v3/") && !strings.Contains(body, "SCSCluster") {
				t.Errorf("the OpenAPI schema does not describe SCSCluster")
			}
		})
	}
	waitFor(ctx, t, faultDeadline, "claim web gone", gone(claims(), "web"))
}

// curlCommand is one curl command of the page, with the status code its comment expects.
type curlCommand struct {
	args   []string
	expect int
}

var (
	fileMarker = regexp.MustCompile("<!-- file: ([^ ]+) -->\\s*```[a-z]*\\n((?s:.*?))```")
	shBlock    = regexp.MustCompile("```sh\\n((?s:.*?))```")
	expectLine = regexp.MustCompile(`^# expect (\d{3})$`)
)

// parseHTTPDoc returns the page's named files and its curl commands in order.
func parseHTTPDoc(t *testing.T, doc string) (map[string]string, []curlCommand) {
	t.Helper()
	files := map[string]string{}
	for _, m := range fileMarker.FindAllStringSubmatch(doc, -1) {
		files[m[1]] = m[2]
	}
	var out []curlCommand
	for _, m := range shBlock.FindAllStringSubmatch(doc, -1) {
		block := strings.ReplaceAll(m[1], "\\\n", " ")
		lines := strings.Split(strings.TrimSpace(block), "\n")
		e := expectLine.FindStringSubmatch(lines[0])
		if e == nil {
			continue // set-up, done by the test itself
		}
		code, _ := strconv.Atoi(e[1])
		args, err := shellWords(strings.Join(lines[1:], " "))
		if err != nil || len(args) == 0 || args[0] != "curl" {
			t.Fatalf("docs/http.md: a block expecting %d is not one curl command: %q (%v)", code, lines[1:], err)
		}
		out = append(out, curlCommand{args: args[1:], expect: code})
	}
	return files, out
}

// shellWords splits a command line as a POSIX shell would for the quoting the page uses:
// single quotes literal, double quotes with $VAR kept for later expansion.
func shellWords(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

func expand(s string, vars map[string]string) string {
	return os.Expand(s, func(k string) string { return vars[k] })
}

func (c curlCommand) url(vars map[string]string) string {
	for i := 0; i < len(c.args); i++ {
		switch a := c.args[i]; {
		case a == "-X" || a == "-H" || a == "--data-binary" || a == "--cacert":
			i++
		case !strings.HasPrefix(a, "-"):
			return expand(a, vars)
		}
	}
	return ""
}

func (c curlCommand) method() string {
	for i := 0; i+1 < len(c.args); i++ {
		if c.args[i] == "-X" {
			return c.args[i+1]
		}
	}
	if c.data() != "" {
		return http.MethodPost
	}
	return http.MethodGet
}

func (c curlCommand) data() string {
	for i := 0; i+1 < len(c.args); i++ {
		if c.args[i] == "--data-binary" {
			return c.args[i+1]
		}
	}
	return ""
}

// what names the command in the test's output: method and path, without the host.
func (c curlCommand) what() string {
	return c.method() + " " + c.url(map[string]string{"NS": "$NS"})
}

// run sends the request the command describes, as curl would, with the CA given by
// --cacert (the control plane's), and returns the status code and body.
func (c curlCommand) run(ctx context.Context, t *testing.T, client *http.Client, vars, files map[string]string) (int, string) {
	t.Helper()
	var body io.Reader
	if d := c.data(); d != "" {
		if name, ok := strings.CutPrefix(d, "@"); ok {
			content, found := files[name]
			if !found {
				t.Fatalf("--data-binary @%s: docs/http.md shows no such file", name)
			}
			d = content
		}
		body = bytes.NewBufferString(d)
	}
	req, err := http.NewRequestWithContext(ctx, c.method(), c.url(vars), body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(c.args); i++ {
		if c.args[i] == "-H" {
			k, v, _ := strings.Cut(expand(c.args[i+1], vars), ":")
			req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.what(), err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// The kubeconfig Secret's data stays out of the test's output.
	if strings.Contains(req.URL.Path, "/secrets/") {
		b = []byte(fmt.Sprintf("(%d bytes, not shown: a Secret)", len(b)))
	}
	return resp.StatusCode, string(b)
}
