#!/bin/sh
# Regenerates the Go bindings of the cuzk.v1 API. Generated files are never
# edited by hand. Needs protoc (Debian: protobuf-compiler) and:
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#   go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
set -eu
cd "$(dirname "$0")"
PATH="$(go env GOPATH)/bin:$PATH"
protoc -I . \
	--go_out=. --go_opt=paths=source_relative \
	--go-grpc_out=. --go-grpc_opt=paths=source_relative \
	cuzk/v1/proving.proto
