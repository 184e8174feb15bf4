package server

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/cuzk-project/cuzk/auth"
)

// Who may call what on a TCP listener with a secret. The unix socket
// needs no token: its mode (SocketMode) is its access control.
//
//	read  GetStatus, GetMetrics, AwaitProof, server reflection, health
//	write SubmitProof, Prove, CancelProof
//	admin PreloadSRS, EvictSRS, and any method not listed here
//
// The gRPC health service wants a read token too: its Watch stream is
// held open by the server without end, so an open health service lets
// anyone who reaches the port hold connections and streams. A probe
// without a token asks the HTTP status listener's /healthz.
var methodPermission = map[string]auth.Permission{
	"/cuzk.v1.ProvingEngine/GetStatus":   auth.Read,
	"/cuzk.v1.ProvingEngine/GetMetrics":  auth.Read,
	"/cuzk.v1.ProvingEngine/AwaitProof":  auth.Read,
	"/cuzk.v1.ProvingEngine/SubmitProof": auth.Write,
	"/cuzk.v1.ProvingEngine/Prove":       auth.Write,
	"/cuzk.v1.ProvingEngine/CancelProof": auth.Write,
	"/cuzk.v1.ProvingEngine/PreloadSRS":  auth.Admin,
	"/cuzk.v1.ProvingEngine/EvictSRS":    auth.Admin,

	"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo":      auth.Read,
	"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": auth.Read,

	"/grpc.health.v1.Health/Check": auth.Read,
	"/grpc.health.v1.Health/Watch": auth.Read,
	"/grpc.health.v1.Health/List":  auth.Read,
}

// MethodPermission is the permission a full gRPC method name needs on an
// authenticated listener.
func MethodPermission(fullMethod string) auth.Permission {
	if p, ok := methodPermission[fullMethod]; ok {
		return p
	}
	return auth.Admin
}

// methodLabel is fullMethod when it is one of the daemon's, else "other":
// a metric label must not take whatever name a client sends.
func methodLabel(fullMethod string) string {
	if _, ok := methodPermission[fullMethod]; ok {
		return fullMethod
	}
	return "other"
}

var (
	errNoToken   = errors.New("no token: send \"authorization: Bearer <token>\" (cuzk auth create-token)")
	errTokenForm = errors.New("authorization metadata is not \"Bearer <token>\"")
)

// bearerToken takes the token from an "authorization: Bearer <token>"
// header (lotus's form).
func bearerToken(md metadata.MD) (string, error) {
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return "", errNoToken
	}
	v := strings.TrimSpace(vals[0])
	scheme, tok, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(tok) == "" {
		return "", errTokenForm
	}
	return strings.TrimSpace(tok), nil
}

// authorize checks md's token against what fullMethod needs:
// Unauthenticated without a valid token, PermissionDenied with one too
// weak.
func authorize(secret auth.Secret, fullMethod string, md metadata.MD) error {
	need := MethodPermission(fullMethod)
	tok, err := bearerToken(md)
	if err != nil {
		return status.Error(codes.Unauthenticated, err.Error())
	}
	allow, err := auth.Verify(secret, tok)
	if err != nil {
		return status.Error(codes.Unauthenticated, "token does not verify against this daemon's secret")
	}
	if !auth.Allows(allow, need) {
		return status.Errorf(codes.PermissionDenied, "%s needs a %s token; this one allows %v", fullMethod, need, allow)
	}
	return nil
}

// tapAuthorize authorizes each new stream from its headers, before gRPC
// reads the request message, so that a caller without a token cannot make
// the daemon receive and decode up to MaxMessageBytes. Refusals are
// counted in cuzk_rpc_requests_total like any other answer.
func tapAuthorize(secret auth.Secret, m *Metrics) func(ctx context.Context, info *tap.Info) (context.Context, error) {
	return func(ctx context.Context, info *tap.Info) (context.Context, error) {
		if err := authorize(secret, info.FullMethodName, info.Header); err != nil {
			m.rpcs.WithLabelValues(methodLabel(info.FullMethodName), status.Code(err).String()).Inc()
			return ctx, err
		}
		return ctx, nil
	}
}
