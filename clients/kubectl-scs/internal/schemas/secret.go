package schemas

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// secretChecker checks a Secret as kube-apiserver does on create: strict decoding of v1,
// its metadata, its keys and its size. kube-apiserver's ValidateSecret is not importable
// (k8s.io/kubernetes is no library); these are its rules for the Opaque Secrets the
// function composes, with apimachinery's validation. Problems name keys, never values.
type secretChecker struct{}

func (secretChecker) describe() string {
	return "core/v1 Secret, built in: strict decoding, metadata, keys, size"
}

func (secretChecker) check(obj *unstructured.Unstructured) field.ErrorList {
	secret := &corev1.Secret{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, secret, true); err != nil {
		// The converter's messages name fields and types, not the values.
		return field.ErrorList{field.Invalid(field.NewPath(""), obj.GetKind(), fmt.Sprintf("not a v1 Secret: %v", err))}
	}
	errs := apimachineryvalidation.ValidateObjectMeta(&secret.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	size := checkKeys(&errs, "data", secret.Data)
	size += checkKeys(&errs, "stringData", secret.StringData)
	if size > corev1.MaxSecretSize {
		errs = append(errs, field.Forbidden(field.NewPath("data"), fmt.Sprintf("the Secret holds %d bytes, more than the %d the API server stores", size, corev1.MaxSecretSize)))
	}
	return errs
}

// checkKeys checks the keys of a Secret's data or stringData and returns the size of
// their values.
func checkKeys[V []byte | string](errs *field.ErrorList, path string, m map[string]V) int {
	size := 0
	for k, v := range m {
		for _, msg := range validation.IsConfigMapKey(k) {
			*errs = append(*errs, field.Invalid(field.NewPath(path).Key(k), k, msg))
		}
		size += len(v)
	}
	return size
}
