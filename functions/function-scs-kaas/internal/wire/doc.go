// Package wire is the function's gRPC codec: protobuf, as gRPC's own codec writes and reads
// it, except that the google.protobuf.Struct values of a message (the composite and composed
// resources of RunFunction requests and responses, most of their bytes) are encoded and
// decoded by hand.
//
// Why: protobuf-go reaches a Struct's map<string, Value> through reflection, a map entry and
// an interface at a time; for the request of a ready five-pool cluster that was a third of
// the function's CPU time per call, more than the translation itself. The code here walks
// the same bytes with protowire and fills the same structpb types, so the function and its
// tests see exactly the messages protobuf-go would give them.
//
// Anything unusual (an unknown field inside a Struct, a field given twice, invalid UTF-8, deep
// nesting, a truncated message) is not interpreted here: the whole message goes to
// protobuf-go instead, which decides and words the error. Tests compare both on every message
// the function's tests know and on fuzzed bytes.
package wire
