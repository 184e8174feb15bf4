package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
)

// APIInfoEnv is the environment variable that gives clients a token and
// the daemon's address, after lotus's FULLNODE_API_INFO.
const APIInfoEnv = "CUZK_API_INFO"

// ParseAPIInfo reads "TOKEN:ADDR" or a bare "ADDR". ADDR is what the
// daemon's --listen takes (unix:///path, host:port) or a lotus multiaddr
// /ip4|ip6|dns/HOST/tcp/PORT[/http]. The token is told from an address by
// its JWT header, so "host:port" alone is an address.
func ParseAPIInfo(s string) (token, addr string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", errors.New("auth: empty " + APIInfoEnv)
	}
	if i := strings.IndexByte(s, ':'); i > 0 && looksLikeJWT(s[:i]) {
		token, s = s[:i], s[i+1:]
	}
	if s == "" {
		return "", "", fmt.Errorf("auth: %s has a token but no address", APIInfoEnv)
	}
	if strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") {
		if a, ok := multiaddrHostPort(s); ok {
			s = a
		}
	}
	return token, s, nil
}

// looksLikeJWT reports whether s is three dot-separated segments whose
// first decodes to a JSON object with an "alg".
func looksLikeJWT(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return false
	}
	var h struct {
		Alg string `json:"alg"`
	}
	return json.Unmarshal(b, &h) == nil && h.Alg != ""
}

// multiaddrHostPort turns /ip4/1.2.3.4/tcp/2345[/http] into 1.2.3.4:2345.
func multiaddrHostPort(s string) (string, bool) {
	p := strings.Split(strings.Trim(s, "/"), "/")
	if len(p) < 4 || p[2] != "tcp" {
		return "", false
	}
	switch p[0] {
	case "ip4", "ip6", "dns", "dns4", "dns6":
	default:
		return "", false
	}
	return net.JoinHostPort(p[1], p[3]), true
}
