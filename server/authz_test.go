package server

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/auth"
)

func TestBearerToken(t *testing.T) {
	cases := []struct {
		header string
		tok    string
		ok     bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer  abc ", "abc", true},
		{"BEARER abc", "abc", true},
		{"Basic abc", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"abc", "", false},
	}
	for _, c := range cases {
		tok, err := bearerToken(metadata.MD{"authorization": {c.header}})
		if (err == nil) != c.ok || tok != c.tok {
			t.Errorf("%q: %q %v", c.header, tok, err)
		}
	}
	if _, err := bearerToken(metadata.MD{}); err == nil {
		t.Error("no header accepted")
	}
}

func TestMethodPermission(t *testing.T) {
	for method, want := range map[string]auth.Permission{
		"/cuzk.v1.ProvingEngine/GetStatus":                          auth.Read,
		"/cuzk.v1.ProvingEngine/Prove":                              auth.Write,
		"/cuzk.v1.ProvingEngine/EvictSRS":                           auth.Admin,
		"/cuzk.v1.ProvingEngine/NewMethod":                          auth.Admin, // unlisted: the strongest
		"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo": auth.Read,
		"/grpc.health.v1.Health/Check":                              auth.Read,
		"/grpc.health.v1.Health/Watch":                              auth.Read,
	} {
		if got := MethodPermission(method); got != want {
			t.Errorf("%s: %s, want %s", method, got, want)
		}
	}
	if l := methodLabel("/evil/" + string(make([]byte, 100))); l != "other" {
		t.Errorf("unknown method labelled %q", l)
	}
}

// Whatever a client puts in its authorization header, authorize answers
// with a status and never panics.
func FuzzAuthorize(f *testing.F) {
	secret, _ := auth.NewSecret()
	tok, _ := auth.NewToken(secret, auth.Write)
	f.Add("Bearer " + tok)
	f.Add("Bearer a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, h string) {
		err := authorize(secret, "/cuzk.v1.ProvingEngine/Prove", metadata.MD{"authorization": {h}})
		if c := status.Code(err); c != codes.OK && c != codes.Unauthenticated && c != codes.PermissionDenied {
			t.Fatalf("%q: %v", h, err)
		}
	})
}
