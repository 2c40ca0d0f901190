package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// fieldManager names this package in managedFields.
const fieldManager = "scs-kaas-controlplane"

// ReadManifests reads YAML or JSON documents from files and directories
// (*.yaml, *.yml, *.json, not recursive, in name order), skipping empty ones.
func ReadManifests(paths ...string) ([]*unstructured.Unstructured, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range entries {
			ext := filepath.Ext(e.Name())
			if !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
				names = append(names, filepath.Join(p, e.Name()))
			}
		}
		sort.Strings(names)
		files = append(files, names...)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		docs, err := decodeDocuments(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		objs = append(objs, docs...)
	}
	return objs, nil
}

func decodeDocuments(data []byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "List" {
			items, err := u.ToList()
			if err != nil {
				return nil, err
			}
			for i := range items.Items {
				objs = append(objs, &items.Items[i])
			}
			continue
		}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, fmt.Errorf("document without apiVersion or kind: %v", m)
		}
		objs = append(objs, u)
	}
}

// Apply server-side-applies every object from paths into c. Kinds whose CRD
// was created moments ago (by an earlier document or a controller) are
// retried until discovery knows them.
func (c *Cluster) Apply(ctx context.Context, paths ...string) error {
	objs, err := ReadManifests(paths...)
	if err != nil {
		return err
	}
	return c.ApplyObjects(ctx, objs...)
}

// ApplyObjects server-side-applies objs in order, forcing ownership of the
// fields they set.
func (c *Cluster) ApplyObjects(ctx context.Context, objs ...*unstructured.Unstructured) error {
	for _, o := range objs {
		what := fmt.Sprintf("apply %s %s", o.GetKind(), o.GetName())
		err := waitFor(ctx, 60*time.Second, what, nil, func(ctx context.Context) (bool, error) {
			err := c.applyOne(ctx, o)
			if meta.IsNoMatchError(err) {
				c.Mapper.Reset() // a CRD may have become established since
				return false, err
			}
			return err == nil, backoffOnly(err)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// backoffOnly keeps transient errors retryable and makes the API server's
// verdict on the object itself (invalid, bad request, forbidden) final, so a
// broken manifest fails at once with the server's message.
func backoffOnly(err error) error {
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsForbidden(err) {
		return Permanent(err)
	}
	return err
}

func (c *Cluster) resourceFor(o *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := o.GroupVersionKind()
	m, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := o.GetNamespace()
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
		return c.Dynamic.Resource(m.Resource).Namespace(ns), nil
	}
	return c.Dynamic.Resource(m.Resource), nil
}

func (c *Cluster) applyOne(ctx context.Context, o *unstructured.Unstructured) error {
	ri, err := c.resourceFor(o)
	if err != nil {
		return err
	}
	data, err := o.MarshalJSON()
	if err != nil {
		return err
	}
	force := true
	_, err = ri.Patch(ctx, o.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: fieldManager, Force: &force})
	return err
}

// Get fetches an object by apiVersion, kind, namespace (empty for
// cluster-scoped kinds) and name.
func (c *Cluster) Get(ctx context.Context, apiVersion, kind, namespace, name string) (*unstructured.Unstructured, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	m, err := c.Mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if meta.IsNoMatchError(err) {
		c.Mapper.Reset()
		m, err = c.Mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	}
	if err != nil {
		return nil, err
	}
	if namespace == "" {
		return c.Dynamic.Resource(m.Resource).Get(ctx, name, metav1.GetOptions{})
	}
	return c.Dynamic.Resource(m.Resource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

// conditionTrue reports whether obj has status condition typ with status True.
func conditionTrue(obj *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

// ConditionTrue is conditionTrue for tests.
func ConditionTrue(obj *unstructured.Unstructured, typ string) bool { return conditionTrue(obj, typ) }

// conditionSummary renders the conditions of obj for timeout messages.
func conditionSummary(obj *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var parts []string
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok {
			parts = append(parts, fmt.Sprintf("%v=%v (%v: %v)", m["type"], m["status"], m["reason"], m["message"]))
		}
	}
	return strings.Join(parts, "; ")
}
