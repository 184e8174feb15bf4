package auth

import (
	"fmt"
	"strings"
)

// Permission is what a token allows. The values are lotus's names (lotus
// also has "sign", which cuzk has no use for and ignores in a token).
type Permission string

const (
	Read  Permission = "read"  // observe: status, metrics, results
	Write Permission = "write" // submit, prove and cancel jobs
	Admin Permission = "admin" // load and evict parameters
)

// Permissions are cuzk's permissions, weakest first.
var Permissions = []Permission{Read, Write, Admin}

// rank orders the permissions; 0 is an unknown one.
func (p Permission) rank() int {
	for i, q := range Permissions {
		if p == q {
			return i + 1
		}
	}
	return 0
}

// ParsePermission reads "read", "write" or "admin" (any case).
func ParsePermission(s string) (Permission, error) {
	p := Permission(strings.ToLower(strings.TrimSpace(s)))
	if p.rank() == 0 {
		return "", fmt.Errorf("permission %q is not one of read, write, admin", s)
	}
	return p, nil
}

// UpTo is the Allow list of a token of permission p: p and every weaker
// permission, as lotus writes it (an admin token lists them all).
func UpTo(p Permission) []Permission {
	r := p.rank()
	if r == 0 {
		return nil
	}
	return append([]Permission(nil), Permissions[:r]...)
}

// Allows reports whether a token whose payload lists allow may do what
// need guards: some listed permission is need or stronger. Unknown
// names in allow grant nothing.
func Allows(allow []Permission, need Permission) bool {
	r := need.rank()
	if r == 0 {
		return false
	}
	for _, a := range allow {
		if a.rank() >= r {
			return true
		}
	}
	return false
}
