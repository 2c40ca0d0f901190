package all

import (
	"fmt"
	"strings"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// CapabilitiesDoc is docs/capabilities.md, which TestCapabilitiesDoc checks.
func CapabilitiesDoc() string {
	return `# What each backend does with each portable field

<!-- Generated from the backends' capability declarations (model/<backend>/capabilities.go)
by make generate; TestCapabilitiesDoc in model/all fails when this file is stale. -->

**honoured**: mapped onto the backend's own field. **emulated**: the backend has no such
field; the effect is built from others. **warned**: the field is set but the backend cannot
honour it; the function renders anyway, emits a Warning event and sets the claim's
` + "`SpecSupported`" + ` condition to False naming the field (for a field the backend never honours the
note is the warning). **refused**: the function stops with a Fatal result and changes nothing.

` + model.CapabilityTable(Backends()) + `
Crossplane deletes every composed resource the function no longer returns. After rendering,
the model layer checks that every composed resource of the backend that exists is returned
again; otherwise the function refuses (reason ` + "`DeletionRefused`" + `, naming each resource) and
changes nothing. An Object whose provider has not reported its remote object yet (no
` + "`status.atProvider.manifest`" + `) exists: it is returned exactly as it was last applied until its
state is known, with ` + "`BackendReady`" + ` Unknown (` + "`NotObservedYet`" + `). The zones of an existing pool
never change on any backend: removing a zone would delete its nodes. See
[reliability.md](reliability.md).

## What an environment edit does to existing clusters

Every environment setting that reaches a cluster's native objects is declared by its
backend. A cluster keeps the value each had when it was created (` + "`status.backend.pinned`" + `):
an edit applies to new clusters, and ` + "`EnvironmentUpToDate`" + ` names every value that differs,
until the cluster's owner adopts them (annotation ` + "`kaas.scs.community/adopt-environment`" + `,
` + "`kubectl scs upgrade --environment`" + `), with the effect below. A value that would move or
replace the cluster is never adopted. A setting that **follows** reaches every cluster at once,
for the reason given. See [environments.md](environments.md#when-the-environment-changes).

` + settingsTables() + `
## What each backend is proven against

` + proven() + `
The end-to-end tests are listed in [e2e.md](e2e.md).
`
}

// StandardDoc rewrites the generated conformance section of the standard's text.
func StandardDoc(text string) (string, error) {
	const begin, end = "<!-- BEGIN GENERATED conformance: model/all TestStandardDoc -->", "<!-- END GENERATED conformance -->"
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("the standard's text lacks the markers %q and %q", begin, end)
	}
	return text[:i+len(begin)] + "\n" + model.StandardTable(Backends()) + text[j:], nil
}

// settingsTables lists each backend's settings.
func settingsTables() string {
	var b strings.Builder
	for _, backend := range Backends() {
		fmt.Fprintf(&b, "### %s\n\n| setting | existing clusters | effect of a new value | why |\n|---|---|---|---|\n", backend.Capabilities().Title)
		for _, s := range model.SettingsOf(backend) {
			kept, why := "keep theirs", s.Change.Note
			if s.Follows {
				kept, why = "follow at once", s.Reason+"; "+s.Change.Note
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.Path, kept, s.Change.Effect, why)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// proven lists each backend's Proven declaration.
func proven() string {
	var b strings.Builder
	for _, backend := range Backends() {
		c := backend.Capabilities()
		fmt.Fprintf(&b, "- **%s**: %s\n", c.Title, c.Proven)
	}
	return b.String()
}
