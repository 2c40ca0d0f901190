package provider

// The spec of an SCSCluster as Terraform attributes. One table (specFields) describes every
// field: its attribute name, its name in the Kubernetes object and its kind. The resource
// and data source schemas, the attribute types and the conversion in both directions are
// all derived from it, so a field is added in one place, and a unit test compares the table
// with the XRD (apis/xrd) so that none is forgotten.

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// kind is how a field is represented in Terraform and in the object.
type kind int

const (
	kString      kind = iota // string
	kIntOrString             // Kubernetes IntOrString: a string attribute, "1" or "25%"
	kBool                    // bool
	kInt                     // integer
	kStringList              // list of strings
	kStringMap               // map of strings
	kObject                  // nested object (fields)
	kObjectList              // list of nested objects (fields)
)

// field is one field of the spec.
type field struct {
	// Name is the Terraform attribute name.
	Name string
	// JSON is the field's name in the Kubernetes object.
	JSON string
	Kind kind
	// Required in the resource's configuration (in its parent object, if any).
	Required bool
	// Description is shown by `tofu providers schema` and in docs/terraform.md.
	Description string
	// Fields of a kObject or kObjectList.
	Fields []field
}

// specFields are the top-level spec fields, each a top-level attribute of the resource.
var specFields = []field{
	{Name: "environment", JSON: "environment", Kind: kString,
		Description: "The environment (EnvironmentConfig labelled kaas.scs.community/environment=<name>) that builds the cluster. Omitted: the default environment offered to the namespace. Immutable once set."},
	{Name: "purpose", JSON: "purpose", Kind: kString,
		Description: "evaluation, development (the default) or production. Production turns on a highly available control plane and deletion protection unless they are set."},
	{Name: "kubernetes", JSON: "kubernetes", Kind: kObject, Required: true,
		Description: "The Kubernetes version.",
		Fields: []field{
			{Name: "version", JSON: "version", Kind: kString, Required: true,
				Description: `A minor such as "1.34" (the backend applies patches) or a pinned patch such as "1.34.2". Upgrades go one minor at a time; downgrades are refused.`},
		}},
	{Name: "control_plane", JSON: "controlPlane", Kind: kObject,
		Description: "The control plane.",
		Fields: []field{
			{Name: "high_availability", JSON: "highAvailability", Kind: kBool,
				Description: "Three control plane nodes spread over zones. Defaults to true for purpose production. Some backends cannot turn it off again."},
		}},
	{Name: "node_pools", JSON: "nodePools", Kind: kObjectList, Required: true,
		Description: "The worker node pools, keyed by name (1 to 32). Renaming a pool replaces its nodes.",
		Fields: []field{
			{Name: "name", JSON: "name", Kind: kString, Required: true,
				Description: "Name of the pool: a DNS label of at most 15 characters."},
			{Name: "machine_type", JSON: "machineType", Kind: kString, Required: true,
				Description: "The flavor of the nodes, such as SCS-4V-8; one the environment offers."},
			{Name: "count", JSON: "count", Kind: kInt,
				Description: "A fixed number of nodes. Exclusive with autoscaling."},
			{Name: "autoscaling", JSON: "autoscaling", Kind: kObject,
				Description: "Lets the cluster autoscaler size the pool. Exclusive with count.",
				Fields: []field{
					{Name: "min", JSON: "min", Kind: kInt, Required: true, Description: "The smallest number of nodes."},
					{Name: "max", JSON: "max", Kind: kInt, Required: true, Description: "The largest number of nodes."},
				}},
			{Name: "zones", JSON: "zones", Kind: kStringList,
				Description: "Failure zones the nodes spread over. Omitted: as many of the environment's zones as the pool can have nodes, the first ones first, kept for the pool's life. Cannot change once the pool exists."},
			{Name: "labels", JSON: "labels", Kind: kStringMap,
				Description: "Labels put on every node of the pool."},
			{Name: "taints", JSON: "taints", Kind: kObjectList,
				Description: "Taints put on every node of the pool.",
				Fields: []field{
					{Name: "key", JSON: "key", Kind: kString, Required: true, Description: "Key of the taint."},
					{Name: "value", JSON: "value", Kind: kString, Description: "Value of the taint."},
					{Name: "effect", JSON: "effect", Kind: kString, Required: true, Description: "NoSchedule, PreferNoSchedule or NoExecute."},
				}},
			{Name: "root_disk_gib", JSON: "rootDiskGiB", Kind: kInt,
				Description: "Size of each node's root disk in GiB. Omitted: the machine type's or the environment's default."},
			{Name: "max_surge", JSON: "maxSurge", Kind: kIntOrString,
				Description: `How many nodes above the desired size a rolling update may create: a number ("1") or a percentage ("25%").`},
			{Name: "max_unavailable", JSON: "maxUnavailable", Kind: kIntOrString,
				Description: `How many nodes may be unavailable during a rolling update: a number ("0") or a percentage.`},
		}},
	{Name: "network", JSON: "network", Kind: kObject,
		Description: "Address ranges and network plugin. Omitted fields take the environment's defaults. Immutable once the cluster exists.",
		Fields: []field{
			{Name: "pod_cidr", JSON: "podCIDR", Kind: kString, Description: "Range of pod IPs, such as 100.64.0.0/12."},
			{Name: "service_cidr", JSON: "serviceCIDR", Kind: kString, Description: "Range of service IPs, such as 100.80.0.0/13."},
			{Name: "node_cidr", JSON: "nodeCIDR", Kind: kString, Description: "Range of node IPs, such as 10.250.0.0/16."},
			{Name: "cni", JSON: "cni", Kind: kString, Description: "calico or cilium. Omitted: the environment's default."},
		}},
	{Name: "maintenance", JSON: "maintenance", Kind: kObject,
		Description: "When the backend may update the cluster and what it updates on its own. Omitted fields take the environment's defaults.",
		Fields: []field{
			{Name: "window", JSON: "window", Kind: kObject,
				Description: "The daily maintenance window, 30 minutes to 6 hours.",
				Fields: []field{
					{Name: "begin", JSON: "begin", Kind: kString, Required: true, Description: "Begin, HHMMSS+ZZZZ, such as 220000+0000."},
					{Name: "end", JSON: "end", Kind: kString, Required: true, Description: "End, HHMMSS+ZZZZ, such as 230000+0000."},
				}},
			{Name: "auto_update", JSON: "autoUpdate", Kind: kObject,
				Description: "What the backend updates on its own in the window.",
				Fields: []field{
					{Name: "kubernetes_patch", JSON: "kubernetesPatch", Kind: kBool, Description: "Apply Kubernetes patch releases (ignored when the version pins a patch)."},
					{Name: "machine_image", JSON: "machineImage", Kind: kBool, Description: "Roll nodes onto new machine image versions."},
				}},
		}},
	{Name: "hibernation", JSON: "hibernation", Kind: kObject,
		Description: "Scales the cluster to zero nodes and stops its control plane, now or on a schedule, where the backend supports it.",
		Fields: []field{
			{Name: "enabled", JSON: "enabled", Kind: kBool, Description: "Hibernate now (true) or wake up (false)."},
			{Name: "schedules", JSON: "schedules", Kind: kObjectList,
				Description: "Hibernate and wake up at fixed times (at most 8).",
				Fields: []field{
					{Name: "start", JSON: "start", Kind: kString, Description: `Cron expression for going to sleep, such as "0 20 * * 1-5".`},
					{Name: "end", JSON: "end", Kind: kString, Description: `Cron expression for waking up, such as "0 7 * * 1-5".`},
					{Name: "location", JSON: "location", Kind: kString, Description: "IANA time zone of start and end. Omitted: UTC."},
				}},
		}},
	{Name: "deletion_protection", JSON: "deletionProtection", Kind: kBool,
		Description: "While true the API server refuses to delete the cluster (tofu destroy fails with its message). Defaults to true for purpose production."},
	{Name: "access", JSON: "access", Kind: kObject,
		Description: "Who may reach the API server (docs/access.md): people signing in through an OIDC issuer, and the networks allowed to connect. Omitted fields take the environment's. A change rolls the control plane on some backends and is refused on Magnum: the plan warns.",
		Fields: []field{
			{Name: "oidc", JSON: "oidc", Kind: kObject,
				Description: "The OIDC issuer people sign in through; the kubeconfig Secret then also holds oidc-kubeconfig, a kubelogin kubeconfig without any secret.",
				Fields: []field{
					{Name: "issuer_url", JSON: "issuerURL", Kind: kString, Required: true, Description: "The issuer, an https URL equal to the tokens' iss."},
					{Name: "client_id", JSON: "clientID", Kind: kString, Required: true, Description: "The audience the tokens are issued for, such as kubectl."},
					{Name: "username_claim", JSON: "usernameClaim", Kind: kString, Description: "The claim that names the user, such as email. Omitted: sub."},
					{Name: "username_prefix", JSON: "usernamePrefix", Kind: kString, Description: `Put before every user name. Needs username_claim. Omitted: "oidc:".`},
					{Name: "groups_claim", JSON: "groupsClaim", Kind: kString, Description: "The claim that lists the user's groups, such as groups. Omitted: no groups."},
					{Name: "groups_prefix", JSON: "groupsPrefix", Kind: kString, Description: `Put before every group name. Needs groups_claim. Omitted: "oidc:".`},
					{Name: "certificate_authority_ref", JSON: "certificateAuthorityRef", Kind: kObject,
						Description: "A ConfigMap in the cluster's namespace with the PEM CA of an issuer that is not publicly trusted.",
						Fields: []field{
							{Name: "name", JSON: "name", Kind: kString, Required: true, Description: "Name of the ConfigMap."},
							{Name: "key", JSON: "key", Kind: kString, Description: "Key in the ConfigMap. Omitted: ca.crt."},
						}},
				}},
			{Name: "allowed_source_ranges", JSON: "allowedSourceRanges", Kind: kStringList,
				Description: "The networks (canonical CIDRs) that may reach the API server. Omitted: the environment's, else any."},
		}},
	{Name: "addons", JSON: "addons", Kind: kObject,
		Description: "Chooses among the add-ons the environment's catalog offers (docs/addons.md); enforced ones are always installed.",
		Fields: []field{
			{Name: "enable", JSON: "enable", Kind: kStringList, Description: "Optional add-ons to install."},
			{Name: "disable", JSON: "disable", Kind: kStringList, Description: "Default add-ons not to install, or installed ones to remove."},
		}},
	{Name: "write_connection_secret_to_ref", JSON: "writeConnectionSecretToRef", Kind: kObject,
		Description: "The Secret in the cluster's namespace that receives kubeconfig, endpoint and ca.crt. The kubeconfig attribute is read from it.",
		Fields: []field{
			{Name: "name", JSON: "name", Kind: kString, Required: true, Description: "Name of the Secret."},
		}},
}

// specField returns the top-level field with attribute name n.
func specField(n string) (field, bool) {
	for _, f := range specFields {
		if f.Name == n {
			return f, true
		}
	}
	return field{}, false
}

// attrType is the Terraform type of a field.
func (f field) attrType() attr.Type {
	switch f.Kind {
	case kString, kIntOrString:
		return types.StringType
	case kBool:
		return types.BoolType
	case kInt:
		return types.Int64Type
	case kStringList:
		return types.ListType{ElemType: types.StringType}
	case kStringMap:
		return types.MapType{ElemType: types.StringType}
	case kObject:
		return f.objectType()
	case kObjectList:
		return types.ListType{ElemType: f.objectType()}
	}
	panic("unknown kind")
}

// objectType is the object type of a kObject or of the elements of a kObjectList.
func (f field) objectType() types.ObjectType {
	return types.ObjectType{AttrTypes: attrTypes(f.Fields)}
}

func attrTypes(fields []field) map[string]attr.Type {
	out := make(map[string]attr.Type, len(fields))
	for _, c := range fields {
		out[c.Name] = c.attrType()
	}
	return out
}
