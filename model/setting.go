package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// A Setting is a setting of the environment contract that reaches a cluster's native
// objects, declared by its backend by its path in the EnvironmentConfig. Reconcile keeps
// for every cluster the value each had when the cluster was created (keepSettings), so
// that an edit of the environment applies to new clusters only. The settings that decide
// where a cluster's resources live (the region, the garden or management cluster, a
// ProviderConfig, a namespace) are the first reason: another value would point a cluster's
// resources elsewhere, where provider-kubernetes or provider-openstack would create a
// second cluster and abandon or delete the first.
type Setting struct {
	// Path is the setting's path in the EnvironmentConfig, such as
	// data.magnum.providerConfigName. An element of a list is selected by one of its
	// fields, [field=value]; the value {minor} stands for the Kubernetes minor of the
	// cluster's spec, as in data.magnum.templates[kubernetesVersion={minor}].
	Path string
}

// minorPlaceholder stands, in a Setting's path, for the minor of the cluster's spec.
const minorPlaceholder = "{minor}"

// regionSetting is the setting every backend has.
var regionSetting = Setting{Path: "data.region"}

// settingsOf are the backend's settings and the region, by path.
func settingsOf(b Backend) []Setting {
	out := append([]Setting{regionSetting}, b.Settings()...)
	slices.SortFunc(out, func(a, b Setting) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// at is the setting's path for a cluster whose spec asks for minor.
func (s Setting) at(minor string) string {
	return strings.ReplaceAll(s.Path, minorPlaceholder, minor)
}

// Get reads the setting at path from env: a string as it is, any other value as JSON, and
// "" when it is unset.
func getSetting(env *Environment, path string) (string, error) {
	v, err := settingField(env, path, false)
	if err != nil || !v.IsValid() || v.IsZero() || ((v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.Len() == 0) {
		return "", err
	}
	if v.Kind() == reflect.String {
		return v.String(), nil
	}
	raw, err := json.Marshal(v.Interface())
	return string(raw), err
}

// setSetting writes value, as getSetting reads it, to path in env, which is the caller's
// own: "" unsets it (and removes a selected list element).
func setSetting(env *Environment, path, value string) error {
	if value == "" {
		if list, i, ok := selectedElement(env, path); ok {
			list.Set(reflect.AppendSlice(list.Slice(0, i), list.Slice(i+1, list.Len())))
			return nil
		}
	}
	v, err := settingField(env, path, value != "")
	if err != nil || !v.IsValid() {
		return err
	}
	switch {
	case value == "":
		v.Set(reflect.Zero(v.Type()))
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

// selectedElement finds the list element a path ending in [field=value] selects.
func selectedElement(env *Environment, path string) (reflect.Value, int, bool) {
	i := strings.LastIndex(path, "[")
	if i < 0 || !strings.HasSuffix(path, "]") {
		return reflect.Value{}, 0, false
	}
	list, err := settingField(env, path[:i], false)
	if err != nil || !list.IsValid() {
		return reflect.Value{}, 0, false
	}
	field, want, _ := strings.Cut(path[i+1:len(path)-1], "=")
	for j := range list.Len() {
		if f, ok := jsonField(list.Index(j), field, false); ok && f.String() == want {
			return list, j, true
		}
	}
	return reflect.Value{}, 0, false
}

// settingField walks env along a path and returns the addressable value at its end. An
// unset pointer or a missing list element on the way ends the walk with no value, or,
// with create, is made.
func settingField(env *Environment, path string, create bool) (reflect.Value, error) {
	rest, ok := strings.CutPrefix(path, "data.")
	if !ok {
		return reflect.Value{}, fmt.Errorf("setting %s is not under data", path)
	}
	v := reflect.ValueOf(&env.Environment).Elem()
	for _, part := range splitPath(rest) {
		name, selector, _ := strings.Cut(part, "[")
		f, ok := jsonField(v, name, create)
		switch {
		case !ok && v.Kind() == reflect.Pointer && v.IsNil():
			return reflect.Value{}, nil // unset on the way
		case !ok:
			return reflect.Value{}, fmt.Errorf("setting %s: the environment contract has no field %s", path, name)
		}
		v = f
		if selector == "" {
			continue
		}
		if v.Kind() != reflect.Slice {
			return reflect.Value{}, fmt.Errorf("setting %s: %s is not a list", path, name)
		}
		field, want, _ := strings.Cut(strings.TrimSuffix(selector, "]"), "=")
		j := -1
		for k := range v.Len() {
			if f, ok := jsonField(v.Index(k), field, false); ok && f.String() == want {
				j = k
			}
		}
		if j < 0 {
			if !create {
				return reflect.Value{}, nil
			}
			e := reflect.New(v.Type().Elem()).Elem()
			f, ok := jsonField(e, field, true)
			if !ok {
				return reflect.Value{}, fmt.Errorf("setting %s: the elements of %s have no field %s", path, name, field)
			}
			f.SetString(want)
			v.Set(reflect.Append(v, e))
			j = v.Len() - 1
		}
		v = v.Index(j)
	}
	return v, nil
}

// jsonField is the field of struct v, or of the struct it points to, named name in JSON.
// Through a nil pointer there is none, unless create makes the struct.
func jsonField(v reflect.Value, name string, create bool) (reflect.Value, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			if !create || !v.CanSet() {
				return reflect.Value{}, false
			}
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	for i := range v.NumField() {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// splitPath splits a path at its dots, but not at those of a [field=value] selector.
func splitPath(path string) []string {
	var out []string
	start, depth := 0, 0
	for i, r := range path {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == '.' && depth == 0:
			out = append(out, path[start:i])
			start = i + 1
		}
	}
	return append(out, path[start:])
}
