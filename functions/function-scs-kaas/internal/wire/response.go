package wire

import (
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The fields of a RunFunctionResponse and of the messages in it, coded by their Go types as
// State and Resource are: protobuf-go's reflection, which the few small messages beside the
// Structs needed, was a tenth of encoding a response, and much more where its code and
// tables had left the CPU's caches between calls, as they do in the served function.
// TestHandCodedFields fails when function-sdk-go gives one of them a field these numbers do
// not know; a response with anything else (unknown fields, schema requirements) goes to
// protobuf-go whole.
const (
	responseMeta         protowire.Number = 1
	responseDesired      protowire.Number = 2
	responseResults      protowire.Number = 3
	responseContext      protowire.Number = 4
	responseRequirements protowire.Number = 5
	responseConditions   protowire.Number = 6
	responseOutput       protowire.Number = 7

	metaTag protowire.Number = 1
	metaTTL protowire.Number = 2

	durationSeconds protowire.Number = 1
	durationNanos   protowire.Number = 2

	resultSeverity protowire.Number = 1
	resultMessage  protowire.Number = 2
	resultReason   protowire.Number = 3
	resultTarget   protowire.Number = 4

	conditionType    protowire.Number = 1
	conditionStatus  protowire.Number = 2
	conditionReason  protowire.Number = 3
	conditionMessage protowire.Number = 4
	conditionTarget  protowire.Number = 5

	requirementsExtraResources protowire.Number = 1
	requirementsResources      protowire.Number = 2

	selectorAPIVersion  protowire.Number = 1
	selectorKind        protowire.Number = 2
	selectorMatchName   protowire.Number = 3
	selectorMatchLabels protowire.Number = 4
	selectorNamespace   protowire.Number = 5

	matchLabelsLabels protowire.Number = 1
)

// appendResponse appends rsp, with the rendered resources and the composite resource's
// status, unless nil, in its desired state.
func appendResponse(b []byte, rsp *fnv1.RunFunctionResponse, rendered map[string]Rendered, status []byte) ([]byte, error) {
	if rsp == nil || unknown(rsp) {
		return nil, errUnusual
	}
	var (
		start int
		err   error
	)
	if m := rsp.GetMeta(); m != nil {
		b, start = beginNested(b, responseMeta)
		if b, err = appendMeta(b, m); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	if rsp.Desired != nil || len(rendered) > 0 || status != nil {
		b, start = beginNested(b, responseDesired)
		if b, err = appendState(b, rsp.GetDesired(), rendered, status); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	for _, r := range rsp.GetResults() {
		b, start = beginNested(b, responseResults)
		if b, err = appendResult(b, r); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	if rsp.Context != nil {
		b, start = beginNested(b, responseContext)
		if b, err = appendStruct(b, rsp.GetContext()); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	if r := rsp.GetRequirements(); r != nil {
		b, start = beginNested(b, responseRequirements)
		if b, err = appendRequirements(b, r); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	for _, c := range rsp.GetConditions() {
		b, start = beginNested(b, responseConditions)
		if b, err = appendCondition(b, c); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	if rsp.Output != nil {
		b, start = beginNested(b, responseOutput)
		if b, err = appendStruct(b, rsp.GetOutput()); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	return b, nil
}

func appendMeta(b []byte, m *fnv1.ResponseMeta) ([]byte, error) {
	if unknown(m) {
		return nil, errUnusual
	}
	b, err := appendStringField(b, metaTag, m.GetTag(), false)
	if err != nil {
		return nil, err
	}
	if m.Ttl != nil {
		var start int
		b, start = beginNested(b, metaTTL)
		if b, err = appendDuration(b, m.GetTtl()); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	return b, nil
}

func appendDuration(b []byte, d *durationpb.Duration) ([]byte, error) {
	if unknown(d) {
		return nil, errUnusual
	}
	if s := d.GetSeconds(); s != 0 {
		b = protowire.AppendTag(b, durationSeconds, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(s)) //nolint:gosec // an int64 is its two's complement varint
	}
	return appendEnum(b, durationNanos, d.GetNanos(), false), nil
}

func appendResult(b []byte, r *fnv1.Result) ([]byte, error) {
	if r == nil || unknown(r) {
		return nil, errUnusual
	}
	b = appendEnum(b, resultSeverity, int32(r.GetSeverity()), false)
	b, err := appendStringField(b, resultMessage, r.GetMessage(), false)
	if err != nil {
		return nil, err
	}
	if r.Reason != nil {
		if b, err = appendStringField(b, resultReason, r.GetReason(), true); err != nil {
			return nil, err
		}
	}
	if r.Target != nil {
		b = appendEnum(b, resultTarget, int32(r.GetTarget()), true)
	}
	return b, nil
}

func appendCondition(b []byte, c *fnv1.Condition) ([]byte, error) {
	if c == nil || unknown(c) {
		return nil, errUnusual
	}
	b, err := appendStringField(b, conditionType, c.GetType(), false)
	if err != nil {
		return nil, err
	}
	b = appendEnum(b, conditionStatus, int32(c.GetStatus()), false)
	if b, err = appendStringField(b, conditionReason, c.GetReason(), false); err != nil {
		return nil, err
	}
	if c.Message != nil {
		if b, err = appendStringField(b, conditionMessage, c.GetMessage(), true); err != nil {
			return nil, err
		}
	}
	if c.Target != nil {
		b = appendEnum(b, conditionTarget, int32(c.GetTarget()), true)
	}
	return b, nil
}

func appendRequirements(b []byte, r *fnv1.Requirements) ([]byte, error) {
	if unknown(r) || len(r.GetSchemas()) > 0 {
		return nil, errUnusual
	}
	b, err := appendSelectors(b, requirementsExtraResources, r.GetExtraResources()) //nolint:staticcheck // deprecated, still encoded
	if err != nil {
		return nil, err
	}
	return appendSelectors(b, requirementsResources, r.GetResources())
}

// appendSelectors appends the entries of a map of ResourceSelectors.
func appendSelectors(b []byte, num protowire.Number, selectors map[string]*fnv1.ResourceSelector) ([]byte, error) {
	var (
		entry, value int
		err          error
	)
	for name, s := range selectors {
		if b, entry, value, err = beginEntry(b, num, name); err != nil {
			return nil, err
		}
		if b, err = appendSelector(b, s); err != nil {
			return nil, err
		}
		b = endEntry(b, entry, value)
	}
	return b, nil
}

func appendSelector(b []byte, s *fnv1.ResourceSelector) ([]byte, error) {
	if s == nil || unknown(s) {
		return nil, errUnusual
	}
	b, err := appendStringField(b, selectorAPIVersion, s.GetApiVersion(), false)
	if err != nil {
		return nil, err
	}
	if b, err = appendStringField(b, selectorKind, s.GetKind(), false); err != nil {
		return nil, err
	}
	switch m := s.GetMatch().(type) {
	case nil:
	case *fnv1.ResourceSelector_MatchName:
		if b, err = appendStringField(b, selectorMatchName, m.MatchName, true); err != nil {
			return nil, err
		}
	case *fnv1.ResourceSelector_MatchLabels:
		if m.MatchLabels == nil || unknown(m.MatchLabels) {
			return nil, errUnusual
		}
		var start int
		b, start = beginNested(b, selectorMatchLabels)
		for k, v := range m.MatchLabels.GetLabels() {
			if !utf8.ValidString(v) {
				return nil, errUnusual
			}
			if b, err = appendScalarEntry(b, matchLabelsLabels, k, v); err != nil {
				return nil, err
			}
		}
		b = endNested(b, start)
	default:
		return nil, errUnusual
	}
	if s.Namespace != nil {
		if b, err = appendStringField(b, selectorNamespace, s.GetNamespace(), true); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendStringField appends a string field: one with presence (set) even where it is empty,
// as protobuf does. A string that is not valid UTF-8, which protobuf-go refuses, is
// errUnusual.
func appendStringField(b []byte, num protowire.Number, s string, set bool) ([]byte, error) {
	if s == "" && !set {
		return b, nil
	}
	if !utf8.ValidString(s) {
		return nil, errUnusual
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s), nil
}

// appendEnum appends an enum or int32 field: one with presence (set) even where it is zero.
func appendEnum(b []byte, num protowire.Number, v int32, set bool) []byte {
	if v == 0 && !set {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(int64(v))) //nolint:gosec // a sign-extended varint, as protobuf writes it
}
