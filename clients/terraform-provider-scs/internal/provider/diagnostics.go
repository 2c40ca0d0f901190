package provider

// Refusals as Terraform diagnostics: the API server's (CEL rules, schema), the composition
// function's (condition Rendered=False), the deletion protection policy's. Each names the
// attribute it is about where the refusal names a field, so that tofu points at the line.

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// diagErr turns diagnostics with errors into an error.
func diagErr(d diag.Diagnostics) error {
	if !d.HasError() {
		return nil
	}
	var msgs []string
	for _, e := range d.Errors() {
		msgs = append(msgs, e.Summary()+": "+e.Detail())
	}
	return errors.New(strings.Join(msgs, "; "))
}

// fieldRef matches a field path of the spec in a message: spec.nodePools[0].machineType,
// spec.nodePools[default].zones, spec.kubernetes.version.
var fieldRef = regexp.MustCompile(`\.?spec((?:\.[A-Za-z][A-Za-z0-9]*|\[[^\]\s]*\])+)`)

// attributePath maps a field path of the spec (with or without the leading "spec", as the
// API server and the function write them) to the attribute path, as far as the attributes
// go. pools are the node pool names in order, to resolve spec.nodePools[<name>]. ok is false
// when not even the first field is an attribute.
func attributePath(fieldPath string, pools []string) (p path.Path, ok bool) {
	fieldPath = strings.TrimPrefix(strings.TrimPrefix(fieldPath, "."), "spec")
	fields := specFields
	var cur *field
	for _, tok := range splitFieldPath(fieldPath) {
		switch {
		case strings.HasPrefix(tok, "["):
			key := strings.TrimSuffix(strings.TrimPrefix(tok, "["), "]")
			if cur == nil {
				return p, ok
			}
			switch cur.Kind {
			case kObjectList, kStringList:
				i, err := strconv.Atoi(key)
				if err != nil && cur.Name == "node_pools" {
					// The function names pools by name: spec.nodePools[default].
					i, err = indexOf(pools, key), nil
				}
				if err != nil || i < 0 {
					return p, ok
				}
				p = p.AtListIndex(i)
			case kStringMap:
				p = p.AtMapKey(strings.Trim(key, `"`))
				return p, ok
			default:
				return p, ok
			}
		default:
			var next *field
			for i := range fields {
				if fields[i].JSON == tok {
					next = &fields[i]
					break
				}
			}
			if next == nil {
				return p, ok
			}
			if !ok {
				p, ok = path.Root(next.Name), true
			} else {
				p = p.AtName(next.Name)
			}
			cur, fields = next, next.Fields
		}
	}
	return p, ok
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// splitFieldPath splits ".nodePools[0].machineType" into nodePools, [0], machineType.
func splitFieldPath(s string) []string {
	var out []string
	for len(s) > 0 {
		switch s[0] {
		case '.':
			s = s[1:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return append(out, s+"]")
			}
			out = append(out, s[:end+1])
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			out = append(out, s[:end])
			s = s[end:]
		}
	}
	return out
}

// configPath is the part of an attribute path that OpenTofu and Terraform can point at in
// the configuration: an attribute of the resource block, and an element of a list written
// as [...], but nothing inside an object value (kubernetes = { version = ... }): given a
// deeper path they point at the resource block instead. The detail names the whole path.
func configPath(p path.Path) path.Path {
	n := 1
	if steps := p.Steps(); len(steps) > 1 {
		if _, ok := steps[1].(path.PathStepElementKeyInt); ok {
			n = 2
		}
	}
	for len(p.Steps()) > n {
		p = p.ParentPath()
	}
	return p
}

// attributeName renders an attribute path as written in a configuration:
// node_pools[0].machine_type.
func attributeName(p path.Path) string { return p.String() }

// apiErrorDiagnostics turns an error of the API server into diagnostics: one per cause of
// an Invalid error, at the attribute of its field; otherwise one with the server's words.
// what says what was attempted ("applying SCSCluster team1/dev").
func apiErrorDiagnostics(err error, what string, pools []string) diag.Diagnostics {
	var diags diag.Diagnostics
	var se apierrors.APIStatus
	if errors.As(err, &se) && apierrors.IsInvalid(err) {
		st := se.Status()
		if st.Details != nil && len(st.Details.Causes) > 0 {
			for _, c := range st.Details.Causes {
				summary := "The Kubernetes API server refused the change"
				detail := fmt.Sprintf("%s: %s: %s", what, c.Field, c.Message)
				if p, ok := attributePath(c.Field, pools); ok {
					detail = fmt.Sprintf("%s: attribute %s (%s): %s", what, attributeName(p), c.Field, c.Message)
					diags.AddAttributeError(configPath(p), summary, detail)
					continue
				}
				diags.AddError(summary, detail)
			}
			return diags
		}
	}
	switch {
	case apierrors.IsForbidden(err):
		diags.AddError("Forbidden by the Kubernetes API server", fmt.Sprintf("%s: %v", what, err))
	default:
		diags.AddError("Kubernetes API request failed", fmt.Sprintf("%s: %v", what, err))
	}
	return diags
}

// refusalDiagnostics explains a Rendered=False condition: the composition function refused
// the spec with a reason (InvalidSpec, ReplacementRefused, EnvironmentUnavailable, ...) and
// changed nothing. The diagnostic is at the attribute of the first field the message names.
func refusalDiagnostics(rendered model.ObservedCondition, what string, pools []string) diag.Diagnostics {
	var diags diag.Diagnostics
	summary := "The SCS cluster API refused the spec: " + rendered.Reason
	var attrs []string
	var first path.Path
	found := false
	for _, m := range fieldRef.FindAllStringSubmatch(rendered.Message, -1) {
		p, ok := attributePath(m[1], pools)
		if !ok {
			continue
		}
		name := attributeName(p)
		if indexOf(attrs, name) < 0 {
			attrs = append(attrs, name)
		}
		if !found {
			first, found = p, true
		}
	}
	detail := fmt.Sprintf("%s: condition Rendered is False with reason %s: %s\n\nNothing was changed in the backend; the cluster keeps running as it was.",
		what, rendered.Reason, rendered.Message)
	if len(attrs) > 0 {
		detail = fmt.Sprintf("%s: condition Rendered is False with reason %s; attribute %s: %s\n\nNothing was changed in the backend; the cluster keeps running as it was.",
			what, rendered.Reason, strings.Join(attrs, ", "), rendered.Message)
	}
	if found {
		diags.AddAttributeError(configPath(first), summary, detail)
	} else {
		diags.AddError(summary, detail)
	}
	return diags
}

// deletionDiagnostics explains a refused deletion: the deletion protection policy's message
// says what to do; the provider does not work around it.
func deletionDiagnostics(err error, what string) diag.Diagnostics {
	var diags diag.Diagnostics
	if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) {
		msg := err.Error()
		var se apierrors.APIStatus
		if errors.As(err, &se) && se.Status().Message != "" {
			msg = se.Status().Message
		}
		diags.AddError("Deletion refused", fmt.Sprintf(
			"%s: %s\n\nTo delete it, set deletion_protection = false, apply, then destroy.", what, msg))
		return diags
	}
	diags.AddError("Kubernetes API request failed", fmt.Sprintf("%s: %v", what, err))
	return diags
}
