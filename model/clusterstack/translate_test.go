package clusterstack

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// renderOf, observeOf and invalidOf run the backend as the model does and return one part
// of its translation; a refusal is an error for the first two.
func renderOf(req *model.Request) (*model.Rendering, error) {
	t, err := New().Translate(req)
	switch {
	case err != nil:
		return nil, err
	case len(t.Invalid) > 0:
		return nil, t.Invalid.ToAggregate()
	}
	return t.Rendering, nil
}

func observeOf(req *model.Request) (*model.Observation, error) {
	t, err := New().Translate(req)
	switch {
	case err != nil:
		return nil, err
	case len(t.Invalid) > 0:
		return nil, t.Invalid.ToAggregate()
	}
	return t.Observation, nil
}

func invalidOf(req *model.Request) field.ErrorList {
	t, err := New().Translate(req)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return t.Invalid
}
