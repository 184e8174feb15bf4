package server

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the "proto" codec
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

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

// lenientCodec is the proto codec, except for cuzk.v1 requests that fail
// to decode (see above).
type lenientCodec struct {
	encoding.CodecV2
	failed sync.Map // request message → its decode error
}

func newLenientCodec() *lenientCodec {
	return &lenientCodec{CodecV2: encoding.GetCodecV2("proto")}
}

func (c *lenientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	m, ok := v.(proto.Message)
	if !ok || m.ProtoReflect().Descriptor().ParentFile().Package() != "cuzk.v1" {
		return err
	}
	proto.Reset(m)
	c.failed.Store(v, err)
	return nil
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
			var malformed error
			resp, err := handle(srv, ctx, func(v any) error {
				if err := dec(v); err != nil {
					return err
				}
				if err := codec.decodeErr(v); err != nil {
					reason := strings.TrimPrefix(err.Error(), "proto:")
					malformed = status.Errorf(codes.InvalidArgument, "malformed %s request: %s", name, strings.TrimSpace(reason))
					return malformed
				}
				return nil
			}, icpt)
			if malformed != nil {
				m.rpcs.WithLabelValues(full, codes.InvalidArgument.String()).Inc()
				log.Info("rejected request", "method", full, "reason", status.Convert(malformed).Message())
			}
			return resp, err
		}
		methods[i] = md
	}
	desc.Methods = methods
	return &desc
}
