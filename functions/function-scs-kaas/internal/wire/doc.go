// Package wire is the function's gRPC codec: protobuf, as gRPC's own codec writes and reads
// it, except that RunFunction requests are decoded and responses encoded by hand. Their
// google.protobuf.Struct values (the composite and composed resources) are most of their
// bytes.
//
// Why: protobuf-go reaches a Struct's map<string, Value> through reflection, a map entry and
// an interface at a time; for the request of a ready five-pool cluster that was a third of
// the function's CPU time per call, more than the translation itself. The code here walks
// the same bytes with protowire and fills the same Go types (structpb, and the SDK's
// messages around them), so the function and its tests see exactly the messages protobuf-go
// would give them. Every other message goes to protobuf-go.
//
// The served function goes one step further (Request, Response): the observed composite and
// composed resources and the required resources of a request, which the function reads as
// maps, are decoded straight into the maps structpb's AsMap would return; the composed
// resources it renders as maps are encoded straight from them, and the composite's typed
// status straight from the typed object (AppendTyped), rather than through Structs made
// only to be converted.
//
// Anything unusual (an unknown field inside a Struct, a field given twice, invalid UTF-8, deep
// nesting, a truncated message) is not interpreted here: the whole message goes to
// protobuf-go instead, which decides and words the error. Fields of the SDK's messages that
// the code does not know go to protobuf-go as they are. Tests compare both codecs on every
// message the function's tests know and on fuzzed bytes.
package wire
