package auth

import (
	"errors"
	"fmt"

	"github.com/golang-jwt/jwt/v5"
)

// Payload is a token's claims as lotus writes them: {"Allow": [...]}.
// The registered claims are optional; an "exp" in the past makes the
// token invalid.
type Payload struct {
	Allow []Permission `json:"Allow"`
	jwt.RegisteredClaims
}

// ErrBadToken is returned for a token that does not verify: malformed,
// signed with another secret or another algorithm, or expired.
var ErrBadToken = errors.New("auth: invalid token")

// NewToken signs a token that allows p and every weaker permission.
func NewToken(s Secret, p Permission) (string, error) {
	allow := UpTo(p)
	if allow == nil {
		return "", fmt.Errorf("auth: unknown permission %q", p)
	}
	return Sign(s, Payload{Allow: allow})
}

// Sign signs a payload with HS256.
func Sign(s Secret, pl Payload) (string, error) {
	if len(s) == 0 {
		return "", errors.New("auth: empty secret")
	}
	t, err := jwt.NewWithClaims(jwt.SigningMethodHS256, pl).SignedString([]byte(s))
	if err != nil {
		return "", fmt.Errorf("auth: signing token: %w", err)
	}
	return t, nil
}

// Verify checks a token's HS256 signature under s and returns the
// permissions it lists. Any other algorithm, "none" included, is
// refused.
func Verify(s Secret, token string) ([]Permission, error) {
	var pl Payload
	_, err := jwt.ParseWithClaims(token, &pl, func(*jwt.Token) (any, error) { return []byte(s), nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadToken, err)
	}
	return pl.Allow, nil
}
