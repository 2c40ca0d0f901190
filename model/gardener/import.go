package gardener

import (
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Import is not written yet.
func (Backend) Import([]*unstructured.Unstructured, *model.Environment) (*model.Imported, error) {
	return nil, errors.New("import is not supported yet")
}
