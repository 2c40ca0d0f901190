// Package gardener is the Gardener backend: it renders an OpenStack Shoot
// (core.gardener.cloud/v1beta1) in the garden cluster, composed directly when gardenCluster
// is "local" and wrapped in a provider-kubernetes Object otherwise, and reads its status
// back. Gardener deletes a Shoot only with confirmation.gardener.cloud/deletion=true, which
// is set only while spec.deletionProtection is false (docs/deletion-protection.md).
package gardener

import (
	"cmp"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// ResourceShoot is the resource name of the Shoot (or of the Object that wraps it).
const ResourceShoot = "gardener-shoot"

// Backend renders Gardener Shoots.
type Backend struct{}

var _ model.Backend = Backend{}

// New returns the Gardener backend.
func New() Backend { return Backend{} }

// Type is gardener.
func (Backend) Type() kaasv1alpha1.BackendType { return kaasv1alpha1.BackendGardener }

// Requirements is empty: a Shoot needs nothing beyond the cluster and the environment.
func (Backend) Requirements(*model.Request) map[string]model.Selector { return nil }

// Translate renders the Shoot and its AdminKubeconfig, refusing what Gardener cannot change.
func (Backend) Translate(req *model.Request) (*model.Translation, error) {
	observed, err := observedShoot(req)
	if err != nil {
		return nil, model.Unreadable(err)
	}
	if errs := validate(req, observed); len(errs) > 0 {
		return &model.Translation{Invalid: errs}, nil
	}
	obs, err := observe(req, observed)
	if err != nil {
		return nil, model.Unreadable(err)
	}
	r, err := render(req, observed)
	if err != nil {
		return nil, err
	}
	return &model.Translation{Rendering: r, Observation: obs}, nil
}

// ValidateEnvironment checks data.gardener.
func (Backend) ValidateEnvironment(env *model.Environment) field.ErrorList {
	p := field.NewPath("data", "gardener")
	g := env.Gardener
	if g == nil {
		return field.ErrorList{field.Required(p, "an environment with backend gardener needs a gardener section")}
	}
	errs := model.RequireSettings(p,
		model.RequiredSetting{Name: "gardenCluster", Value: g.GardenCluster, What: `a provider-kubernetes ProviderConfig name for the garden cluster, or "local"`},
		model.RequiredSetting{Name: "project", Value: g.Project, What: "the Gardener project clusters are created in"},
		model.RequiredSetting{Name: "cloudProfile", Value: g.CloudProfile, What: "the CloudProfile name"},
		model.RequiredSetting{Name: "credentialsBindingName", Value: g.CredentialsBindingName, What: "the CredentialsBinding with the OpenStack credentials"},
		model.RequiredSetting{Name: "floatingPoolName", Value: g.FloatingPoolName, What: "the OpenStack external network for floating IPs"},
		model.RequiredSetting{Name: "loadBalancerProvider", Value: g.LoadBalancerProvider, What: "the Octavia provider, such as amphora or ovn"},
	)
	if ak := g.AdminKubeconfig; ak != nil && ak.RenewBefore != "" {
		if d, err := time.ParseDuration(ak.RenewBefore); err != nil || d <= 0 {
			errs = append(errs, field.Invalid(p.Child("adminKubeconfig", "renewBefore"), ak.RenewBefore, "must be a positive duration such as 8h or 30m"))
		}
	}
	if ak := g.AdminKubeconfig; ak != nil && ak.ExpirationSeconds != nil && *ak.ExpirationSeconds < 600 {
		errs = append(errs, field.Invalid(p.Child("adminKubeconfig", "expirationSeconds"), *ak.ExpirationSeconds, "Gardener issues admin kubeconfigs for 600 seconds at least"))
	}
	if k := g.CloudProfileKind; k != "" && k != "CloudProfile" && k != "NamespacedCloudProfile" {
		errs = append(errs, field.NotSupported(p.Child("cloudProfileKind"), k, []string{"CloudProfile", "NamespacedCloudProfile"}))
	}
	return errs
}

// Settings are the settings of data.gardener that reach a Shoot or its AdminKubeconfig.
func (Backend) Settings() []model.Setting {
	elsewhere := model.ChangeEffect{Effect: model.EffectRefused, Note: "another garden, project or namespace is another cluster"}
	lifetime := model.ChangeEffect{Effect: model.EffectInPlace, Note: "the next admin kubeconfig is issued with it"}
	profile := model.ChangeEffect{Effect: model.EffectRefused, Note: "Gardener moves a Shoot to no other CloudProfile (but a NamespacedCloudProfile of its own)"}
	return []model.Setting{
		{Path: "data.apiServerAccess.alwaysAllowedSourceRanges", Change: model.ChangeEffect{Effect: model.EffectInPlace,
			Note: "the ACL extension updates the ingress filter of the API server"}},
		{Path: "data.gardener.gardenCluster", Change: elsewhere},
		{Path: "data.gardener.project", Change: elsewhere},
		{Path: "data.gardener.namespace", Change: elsewhere},
		{Path: "data.gardener.adminKubeconfig.providerConfigName", Change: elsewhere},
		{Path: "data.gardener.cloudProfile", Change: profile},
		{Path: "data.gardener.cloudProfileKind", Change: profile},
		{Path: "data.gardener.credentialsBindingName", Follows: true, Reason: "a platform rotates credentials for every cluster: none may keep revoked ones",
			Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "Gardener reconciles the infrastructure with the new credentials"}},
		{Path: "data.gardener.floatingPoolName", Change: model.ChangeEffect{Effect: model.EffectRefused,
			Note: "the OpenStack extension does not move a Shoot's floating IPs to another network"}},
		{Path: "data.gardener.loadBalancerProvider", Change: model.ChangeEffect{Effect: model.EffectInPlace,
			Note: "every Service of type LoadBalancer gets a new load balancer, and with it a new address"}},
		{Path: "data.gardener.machineImage", Change: model.ChangeEffect{Effect: model.EffectInPlace,
			Note: "new node pools get the image; existing pools keep theirs, whose versions Gardener moves in the maintenance window"}},
		{Path: "data.gardener.adminKubeconfig.expirationSeconds", Follows: true, Reason: "how long credentials live is the platform's policy for every cluster", Change: lifetime},
		{Path: "data.gardener.adminKubeconfig.renewBefore", Follows: true, Reason: "how long credentials live is the platform's policy for every cluster", Change: lifetime},
	}
}

// namespace is the garden namespace of the environment's project.
func namespace(g *model.Environment) string {
	return cmp.Or(g.Gardener.Namespace, "garden-"+g.Gardener.Project)
}

// NameLength is what Gardener leaves for the Shoot's name: its project and Shoot names
// together may have MaxProjectAndShootName characters.
func (Backend) NameLength(env *model.Environment) int {
	return MaxProjectAndShootName - len(env.Gardener.Project)
}
