package schemas

import (
	"fmt"
	"sync"

	"github.com/gardener/gardener/pkg/api/core/validation"
	"github.com/gardener/gardener/pkg/apis/core"
	"github.com/gardener/gardener/pkg/apis/core/install"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/gardener/gardener/pkg/apiserver/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// shootChecker checks a Shoot as gardener-apiserver does on create, with Gardener's own
// code: strict decoding of core.gardener.cloud/v1beta1, Gardener's defaulting, conversion
// to the internal API and ValidateShoot. A Shoot has no CRD: gardener-apiserver serves it.
type shootChecker struct{}

var gardenerScheme = sync.OnceValue(func() *runtime.Scheme {
	// gardener-apiserver registers its feature gates before validating; without them
	// the validation code panics.
	features.RegisterFeatureGates()
	s := runtime.NewScheme()
	install.Install(s)
	return s
})

func (shootChecker) describe() string {
	return fmt.Sprintf("Gardener %s's own validation, built in: strict decoding, defaulting, ValidateShoot "+
		"(where the Shoot names no machine image or version, one stands in for what admission takes from the CloudProfile)", gardenerVersion)
}

// The machine image that stands in where a Shoot names none: gardener-apiserver's
// admission fills it in from the CloudProfile (the default image, its newest version)
// before validation, and the Shoots a backend renders leave it to Gardener.
const (
	standInImageName    = "gardenlinux"
	standInImageVersion = "1877.3.0"
)

func (shootChecker) check(obj *unstructured.Unstructured) field.ErrorList {
	shoot := &gardencorev1beta1.Shoot{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, shoot, true); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(""), obj.GetKind(), fmt.Sprintf("not a core.gardener.cloud/v1beta1 Shoot: %v", err))}
	}
	for i := range shoot.Spec.Provider.Workers {
		m := &shoot.Spec.Provider.Workers[i].Machine
		if m.Image == nil {
			m.Image = &gardencorev1beta1.ShootMachineImage{Name: standInImageName}
		}
		if m.Image.Version == nil {
			v := standInImageVersion
			m.Image.Version = &v
		}
	}
	scheme := gardenerScheme()
	scheme.Default(shoot)
	internal := &core.Shoot{}
	if err := scheme.Convert(shoot, internal, nil); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath(""), fmt.Errorf("converting to Gardener's internal API: %w", err))}
	}
	return validation.ValidateShoot(internal)
}

// gardenerVersion is the version of github.com/gardener/gardener this module requires,
// whose validation code is built in; TestGardenerVersion checks it against go.mod.
const gardenerVersion = "v1.149.3"
