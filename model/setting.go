package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// A Setting is a setting of the environment contract that reaches a cluster's native
// objects. Each cluster keeps the value it was created with (keepSettings): a setting that
// says where its resources live would otherwise move them, and a provider would create a
// second cluster and abandon the first (docs/environments.md#when-the-environment-changes).
type Setting struct {
	// Path is the setting's path, such as data.magnum.providerConfigName; its last part may
	// select a list element, where {minor} is the spec's minor:
	// data.magnum.templates[kubernetesVersion={minor}].
	Path string
	// Follows says that every cluster takes the environment's value at once, for Reason.
	Follows bool
	Reason  string
	// PatchUpdate, where set, says whether a new value of the setting is a newer patch of the
	// same minor and nothing else (Magnum's template of the minor: the same network driver, a
	// newer kubeTag), with the versions it moves from and to. A cluster with automatic patch
	// updates moves to such a value on its own, in its maintenance window (Maintenance); any
	// other new value it keeps, as every setting.
	PatchUpdate func(was, now string) (from, to string, ok bool)
	// Change is what another value does to a cluster, at once or when adopted;
	// EffectRefused (it would move or replace the cluster) keeps the value for life.
	Change ChangeEffect
}

// regionSetting is the setting every backend has.
var regionSetting = Setting{Path: "data.region", Change: ChangeEffect{EffectRefused, "a cluster in another region is another cluster"}}

// SettingsOf are the backend's settings and the region, by path.
func SettingsOf(b Backend) []Setting {
	out := append([]Setting{regionSetting}, b.Settings()...)
	slices.SortFunc(out, func(a, b Setting) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// at is the setting's path for a cluster whose spec asks for minor.
func (s Setting) at(minor string) string { return strings.ReplaceAll(s.Path, "{minor}", minor) }

// getSetting reads the setting at path: a string as it is, else JSON; "" when unset.
func getSetting(env *Environment, path string) (string, error) {
	v, _, err := settingField(env, path, false)
	switch {
	case err != nil || !v.IsValid() || v.IsZero() || ((v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.Len() == 0):
		return "", err
	case v.Kind() == reflect.String:
		return v.String(), nil
	}
	raw, err := json.Marshal(v.Interface())
	return string(raw), err
}

// setSetting writes a value as getSetting reads it into env, the caller's own: "" unsets
// it, or removes a selected list element.
func setSetting(env *Environment, path, value string) error {
	v, remove, err := settingField(env, path, value != "")
	switch {
	case err != nil || !v.IsValid():
		return err
	case value == "" && remove != nil:
		remove()
	case value == "":
		v.SetZero()
	case v.Kind() == reflect.String:
		v.SetString(value)
	default:
		p := reflect.New(v.Type())
		if err := json.Unmarshal([]byte(value), p.Interface()); err != nil {
			return fmt.Errorf("%s: %q is not a value of the setting: %w", path, value, err)
		}
		v.Set(p.Elem())
	}
	return nil
}

// settingField walks env along path by JSON names to the addressable value, with the
// function that removes a selected list element. An unset struct or element on the way
// ends the walk with no value, or is made with create.
func settingField(env *Environment, path string, create bool) (reflect.Value, func(), error) {
	rest, ok := strings.CutPrefix(path, "data.")
	if !ok {
		return reflect.Value{}, nil, fmt.Errorf("setting %s is not under data", path)
	}
	rest, selector, _ := strings.Cut(rest, "[")
	v := reflect.ValueOf(&env.Environment).Elem()
	for _, name := range strings.Split(rest, ".") {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			if !create {
				return reflect.Value{}, nil, nil
			}
			v.Set(reflect.New(v.Type().Elem()))
		}
		if v = jsonField(reflect.Indirect(v), name); !v.IsValid() {
			return v, nil, fmt.Errorf("setting %s: the environment contract has no field %s", path, name)
		}
	}
	if selector == "" {
		return v, nil, nil
	}
	field, want, _ := strings.Cut(strings.TrimSuffix(selector, "]"), "=")
	list := v
	if list.Kind() != reflect.Slice || !jsonField(reflect.New(list.Type().Elem()).Elem(), field).IsValid() {
		return reflect.Value{}, nil, fmt.Errorf("setting %s: the elements of %s have no field %s", path, rest, field)
	}
	for i := range list.Len() {
		if jsonField(list.Index(i), field).String() == want {
			return list.Index(i), func() { list.Set(reflect.AppendSlice(list.Slice(0, i), list.Slice(i+1, list.Len()))) }, nil
		}
	}
	if !create {
		return reflect.Value{}, nil, nil
	}
	e := reflect.New(list.Type().Elem()).Elem()
	jsonField(e, field).SetString(want)
	list.Set(reflect.Append(list, e))
	return list.Index(list.Len() - 1), nil, nil
}

// jsonField is the field of struct v named name in JSON, if any.
func jsonField(v reflect.Value, name string) reflect.Value {
	if v.Kind() != reflect.Struct {
		return reflect.Value{}
	}
	for i := range v.NumField() {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == name {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}
