package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKubeconfigConnectionDetails(t *testing.T) {
	const two = `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://a.example:6443", certificate-authority-data: QS1DQQ==}
- name: b
  cluster: {server: "https://b.example:6443", certificate-authority-data: Qi1DQQ==}
contexts:
- name: ctx-b
  context: {cluster: b, user: u}
current-context: ctx-b
users:
- name: u
  user: {token: not-a-real-token}
`
	cases := map[string]struct {
		in      string
		want    map[string][]byte
		wantErr bool
	}{
		"CurrentContextsCluster": {in: two, want: map[string][]byte{
			"kubeconfig": []byte(two), "endpoint": []byte("https://b.example:6443"), "ca.crt": []byte("B-CA"),
		}},
		"OneClusterWithoutContext": {
			in:   "clusters:\n- name: only\n  cluster: {server: https://only.example}\n",
			want: map[string][]byte{"kubeconfig": []byte("clusters:\n- name: only\n  cluster: {server: https://only.example}\n"), "endpoint": []byte("https://only.example")},
		},
		"NotYAML":     {in: "token: [not-closed", wantErr: true},
		"CANotBase64": {in: "clusters:\n- name: x\n  cluster: {certificate-authority-data: '%%'}\n", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Twice: the second answer comes from what the first parse remembered, and a
			// caller changing the first answer must not change it.
			got, err := KubeconfigConnectionDetails([]byte(tc.in))
			if err == nil {
				for _, v := range got {
					clear(v)
				}
			}
			got, err = KubeconfigConnectionDetails([]byte(tc.in))
			if tc.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				if strings.Contains(err.Error(), "not-closed") || strings.Contains(err.Error(), "%%") {
					t.Errorf("the error quotes the kubeconfig: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}
