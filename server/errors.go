package server

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/srs"
)

// toStatus maps an error from validation or the engine onto a gRPC status
// whose message carries the reason.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var code codes.Code
	switch {
	case errors.Is(err, errBadRequest),
		errors.Is(err, engine.ErrInvalidRequest),
		errors.Is(err, engine.ErrUnknownCircuit): // srs.ErrUnknownCircuit too: one sentinel
		code = codes.InvalidArgument
	case errors.Is(err, srs.ErrInUse), errors.Is(err, engine.ErrParamsMissing), errors.Is(err, srs.ErrBadParams):
		code = codes.FailedPrecondition
	case errors.Is(err, engine.ErrNoMemory):
		code = codes.ResourceExhausted
	case errors.Is(err, engine.ErrNotFound):
		code = codes.NotFound
	case errors.Is(err, engine.ErrClosed), errors.Is(err, engine.ErrUnavailable):
		code = codes.Unavailable
	case errors.Is(err, engine.ErrCancelled), errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	default:
		code = codes.Internal
	}
	return status.Error(code, err.Error())
}
