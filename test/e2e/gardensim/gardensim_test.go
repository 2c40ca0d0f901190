package gardensim

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

func TestStatus(t *testing.T) {
	shoot := &unstructured.Unstructured{}
	shoot.SetNamespace("garden-team1")
	shoot.SetName("dev-abcde")
	shoot.SetUID(types.UID("uid-1"))
	shoot.SetGeneration(3)
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

	for _, tc := range []struct {
		state     State
		opState   string
		errorCode string
		url       string
	}{
		{Healthy, "Succeeded", "", "https://api.dev-abcde.team1.scs-kaas.local"},
		{Progressing, "Processing", "", ""},
		{QuotaExceeded, "Error", QuotaErrorCode, ""},
	} {
		t.Run(string(tc.state), func(t *testing.T) {
			st, err := Status(shoot, tc.state, now)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: map[string]any{"status": st}}
			// Gardener's schema requires these in every status.
			for _, f := range []string{"uid", "technicalID", "hibernated", "gardener"} {
				if _, ok := st[f]; !ok {
					t.Errorf("status lacks %s", f)
				}
			}
			if got, _, _ := unstructured.NestedString(u.Object, "status", "technicalID"); got != "shoot--team1--dev-abcde" {
				t.Errorf("technicalID = %q", got)
			}
			if got, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration"); got != 3 {
				t.Errorf("observedGeneration = %d, want 3", got)
			}
			if got, _, _ := unstructured.NestedString(u.Object, "status", "lastOperation", "state"); got != tc.opState {
				t.Errorf("lastOperation.state = %q, want %q", got, tc.opState)
			}
			errs, _, _ := unstructured.NestedSlice(u.Object, "status", "lastErrors")
			if (tc.errorCode == "") != (len(errs) == 0) {
				t.Errorf("lastErrors = %v, want code %q", errs, tc.errorCode)
			}
			addrs, _, _ := unstructured.NestedSlice(u.Object, "status", "advertisedAddresses")
			var url string
			if len(addrs) > 0 {
				url, _ = addrs[0].(map[string]any)["url"].(string)
			}
			if url != tc.url {
				t.Errorf("external address = %q, want %q", url, tc.url)
			}
		})
	}
	if _, err := Status(shoot, "asleep", now); err == nil {
		t.Error("unknown state accepted")
	}
}

func TestParseState(t *testing.T) {
	for _, s := range States() {
		if _, err := ParseState(s); err != nil {
			t.Errorf("ParseState(%q): %v", s, err)
		}
	}
	if _, err := ParseState("ready"); err == nil {
		t.Error(`ParseState("ready") succeeded`)
	}
}
