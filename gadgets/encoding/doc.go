// Package encoding is the PoRep encoding step as storage-proofs-core's
// gadgets/encode.rs has it: replica = key + data in the scalar field, where
// the key is the last layer's label. Encode allocates the sum and enforces
// (key + data) · ONE = replica; Decode allocates data = replica − key and
// enforces (data + key) · ONE = replica. EncodeNative and DecodeNative are
// the out-of-circuit twins.
package encoding
