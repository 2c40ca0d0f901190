package conformance

import (
	"context"
	"strings"
	"testing"
)

// TestRunRestrictedMinorsUpgradesFromUntested: with --minors 1.34, the upgrade starts from
// a cluster of 1.33 made for it, since 1.33 is offered but not tested.
func TestRunRestrictedMinorsUpgradesFromUntested(t *testing.T) {
	p := newProvider(t, environmentConfig(t, `["1.33", "1.34", "1.35"]`))
	var created []string
	p.onCreate = func(n string) { created = append(created, n) }
	out := runKit(context.Background(), t, p.kit("1.34"))
	if !out.Passed() {
		t.Fatalf("run did not pass:\n%s", messages(out))
	}
	if got, want := strings.Join(created, ","), "conformance-t1-1-34,conformance-t1-upgrade"; got != want {
		t.Errorf("created %s, want %s", got, want)
	}
	if m := result(out, "upgrade-minor").Message; !strings.Contains(m, "upgraded from 1.33 to 1.34") {
		t.Errorf("upgrade-minor message = %q", m)
	}
	if got := result(out, "delete-cleanup").Message; !strings.Contains(got, "deleted and gone after 0s: conformance-t1-1-34, conformance-t1-upgrade") {
		t.Errorf("delete-cleanup message = %q", got)
	}
}

func TestRunOneMinorSkipsUpgrade(t *testing.T) {
	p := newProvider(t, environmentConfig(t, `["1.34"]`))
	out := runKit(context.Background(), t, p.kit())
	if r := result(out, "upgrade-minor"); r.Verdict != Skipped || !strings.Contains(r.Message, "no tested minor has its predecessor offered") {
		t.Errorf("upgrade-minor = %+v, want skipped", r)
	}
	if !out.Passed() {
		t.Errorf("a skipped check failed the run:\n%s", messages(out))
	}
}
