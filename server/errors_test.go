package server

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/srs"
)

func TestToStatusCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{engine.ErrInvalidRequest, codes.InvalidArgument},
		{engine.ErrUnknownCircuit, codes.InvalidArgument},
		{srs.ErrUnknownCircuit, codes.InvalidArgument},
		{srs.ErrInUse, codes.FailedPrecondition},
		{engine.ErrNoMemory, codes.ResourceExhausted},
		{engine.ErrNotFound, codes.NotFound},
		{engine.ErrClosed, codes.Unavailable},
		{engine.ErrCancelled, codes.Canceled},
		{context.DeadlineExceeded, codes.DeadlineExceeded},
		{errors.New("boom"), codes.Internal},
	} {
		wrapped := fmt.Errorf("preload x: %w", tc.err)
		got := status.Code(toStatus(wrapped))
		if got != tc.want {
			t.Errorf("%v: code %v, want %v", tc.err, got, tc.want)
		}
	}
}
