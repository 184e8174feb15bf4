package server

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the "proto" codec
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/cuzk-project/cuzk/memory"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// A request that does not decode (bad wire format, invalid UTF-8 in a
// string field) is the client's fault, so the daemon answers it with
// InvalidArgument. gRPC itself would answer Internal, blaming the daemon,
// and would do so before any interceptor sees the call. Two pieces fix
// that: lenientCodec lets a cuzk.v1 request that fails to decode through
// as an empty message and keeps the error, and the method handlers that
// malformedAsInvalid wraps around the service turn the kept error into
// InvalidArgument, counted and logged like any other rejected request.
// The codec also refuses, before decoding, a request whose vanilla_proofs
// would cost far more memory to decode than the message's size.

// lenientCodec is the proto codec, except for cuzk.v1 requests that fail
// to decode (see above).
type lenientCodec struct {
	encoding.CodecV2
	failed sync.Map // request message → its decode error
	// requests, when set, is charged for the bytes of each request
	// being received and decoded (requestMemory).
	requests *requestMemory
	// received holds, for a request message being received, the
	// reservation receive made for it.
	received sync.Map // request message → *memory.Reservation
}

func newLenientCodec(requests *requestMemory) *lenientCodec {
	return &lenientCodec{CodecV2: encoding.GetCodecV2("proto"), requests: requests}
}

func (c *lenientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok || m.ProtoReflect().Descriptor().ParentFile().Package() != "cuzk.v1" {
		return c.CodecV2.Unmarshal(data, v)
	}
	if res, ok := c.received.LoadAndDelete(v); ok {
		res := res.(*memory.Reservation)
		c.requests.fit(res, data.Len())
		defer res.Close()
	} else {
		release, err := c.requests.charge(data.Len())
		if err != nil {
			proto.Reset(m)
			c.failed.Store(v, err)
			return nil
		}
		defer release()
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	err := checkVanillaCount(m, b)
	if err == nil {
		err = proto.Unmarshal(b, m) // copies what it keeps out of b
	}
	if err != nil {
		proto.Reset(m)
		c.failed.Store(v, err)
	}
	return nil
}

// maxVanillaProofs bounds vanilla_proofs. Curio sends one per sector of a
// WindowPoSt partition (at most 2349) or one per SnapDeals partition (16).
const maxVanillaProofs = 1 << 16

// checkVanillaCount refuses a SubmitProofRequest (alone or in a
// ProveRequest) with more than maxVanillaProofs vanilla_proofs before it
// is decoded: decoding costs ~48 bytes of memory per entry, so a 256 MiB
// message of 1-byte entries would take ~12 GiB.
func checkVanillaCount(m proto.Message, b []byte) error {
	if len(b) <= 3*maxVanillaProofs { // an entry takes at least 3 bytes
		return nil
	}
	var n int
	switch m.(type) {
	case *cuzkv1.SubmitProofRequest:
		n = countField(b, 11)
	case *cuzkv1.ProveRequest:
		n = countField(b, 1, 11)
	default:
		return nil
	}
	if n > maxVanillaProofs {
		return fmt.Errorf("vanilla_proofs has %d entries (max %d)", n, maxVanillaProofs)
	}
	return nil
}

// countField counts the occurrences of the field at path (field numbers,
// outermost first; all but the last are message fields) in the wire
// bytes b, without decoding them. Malformed bytes end the count; the
// decoder reports them.
func countField(b []byte, path ...protowire.Number) int {
	n := 0
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return n
		}
		b = b[l:]
		l = protowire.ConsumeFieldValue(num, typ, b)
		if l < 0 {
			return n
		}
		if num == path[0] {
			if len(path) == 1 {
				n++
			} else if typ == protowire.BytesType {
				inner, _ := protowire.ConsumeBytes(b)
				n += countField(inner, path[1:]...)
			}
		}
		b = b[l:]
	}
	return n
}

// decodeErr returns and forgets the decode error kept for v.
func (c *lenientCodec) decodeErr(v any) error {
	if err, ok := c.failed.LoadAndDelete(v); ok {
		return err.(error)
	}
	return nil
}

// malformedAsInvalid returns a copy of the ProvingEngine service
// description whose handlers answer a request that did not decode with
// InvalidArgument and the reason.
func malformedAsInvalid(codec *lenientCodec, m *Metrics, log *slog.Logger) *grpc.ServiceDesc {
	desc := cuzkv1.ProvingEngine_ServiceDesc
	methods := make([]grpc.MethodDesc, len(desc.Methods))
	for i, md := range desc.Methods {
		handle, name := md.Handler, md.MethodName
		full := "/" + desc.ServiceName + "/" + name
		md.Handler = func(srv any, ctx context.Context, dec func(any) error, icpt grpc.UnaryServerInterceptor) (any, error) {
			// A request refused before the interceptors run (too large
			// for gRPC's limit, no room in the request memory, not
			// decodable) is counted and logged here.
			var refused error
			resp, err := handle(srv, ctx, func(v any) error {
				if receiveMethods[name] {
					res, err := codec.requests.receive(ctx)
					if err != nil {
						refused = err
						return err
					}
					if res != nil {
						codec.received.Store(v, res)
						// The codec takes it; when gRPC fails before
						// (a message over the limit), it is given back here.
						defer func() {
							if res, ok := codec.received.LoadAndDelete(v); ok {
								res.(*memory.Reservation).Close()
							}
						}()
					}
				}
				if err := dec(v); err != nil {
					refused = err
					return err
				}
				if err := codec.decodeErr(v); err != nil {
					if _, ok := status.FromError(err); ok {
						refused = err
						return err
					}
					reason := strings.TrimPrefix(err.Error(), "proto:")
					refused = status.Errorf(codes.InvalidArgument, "malformed %s request: %s", name, strings.TrimSpace(reason))
					return refused
				}
				return nil
			}, icpt)
			if refused != nil {
				code := status.Code(refused)
				m.rpcs.WithLabelValues(full, code.String()).Inc()
				log.Info("rejected request", "method", full, "code", code.String(), "reason", status.Convert(refused).Message())
			}
			return resp, err
		}
		methods[i] = md
	}
	desc.Methods = methods
	return &desc
}
