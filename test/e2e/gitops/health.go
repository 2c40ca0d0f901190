// Package gitops evaluates SCS clusters the way GitOps tools do: Argo CD through the health
// check in package/gitops/health.lua, run by the Lua interpreter Argo CD embeds
// (gopher-lua), and Flux through kstatus. Unit tests run it on claims in every phase; the
// end-to-end tests on live claims.
package gitops

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// ScriptPath is the Argo CD health check, relative to the repository root.
const ScriptPath = "package/gitops/health.lua"

// ConfigMapPath is the argocd-cm patch that installs it, relative to the repository root.
const ConfigMapPath = "package/gitops/argocd-cm.yaml"

// Kinds are the kinds the health check is for, as Argo CD's resource.customizations keys
// name them (<group>_<kind>).
var Kinds = []string{"kaas.scs.community_SCSCluster", "kaas.scs.community_XSCSCluster"}

// Health is Argo CD's verdict on an object.
type Health struct {
	Status  string // Healthy, Progressing, Degraded, Suspended, Missing, Unknown
	Message string
}

// ArgoCDHealth runs script as Argo CD runs a resource health check: the object as the
// global obj, the result a table with status and message, only the safe standard libraries.
func ArgoCDHealth(script string, obj *unstructured.Unstructured) (Health, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		l.Push(l.NewFunction(lib.open))
		l.Push(lua.LString(lib.name))
		l.Call(1, 0)
	}
	l.SetGlobal("obj", toLua(l, obj.Object))
	if err := l.DoString(script); err != nil {
		return Health{}, err
	}
	ret, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return Health{}, fmt.Errorf("the health check returned %s, not a table", l.Get(-1).Type())
	}
	return Health{Status: lua.LVAsString(ret.RawGetString("status")), Message: lua.LVAsString(ret.RawGetString("message"))}, nil
}

// toLua converts a JSON-like value into Lua values the way Argo CD does: objects become
// tables with string keys, arrays tables indexed from 1.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := l.NewTable()
		for k, x := range v {
			t.RawSetString(k, toLua(l, x))
		}
		return t
	case []any:
		t := l.NewTable()
		for _, x := range v {
			t.Append(toLua(l, x))
		}
		return t
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case nil:
		return lua.LNil
	default:
		return lua.LString(fmt.Sprint(v))
	}
}

// Kstatus is Flux's verdict on an object: kstatus' Current, InProgress, Failed,
// Terminating or NotFound, and its message.
func Kstatus(obj *unstructured.Unstructured) (string, string, error) {
	res, err := status.Compute(obj)
	if err != nil {
		return "", "", err
	}
	return res.Status.String(), res.Message, nil
}
