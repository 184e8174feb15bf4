// Package auth owns the daemon's API tokens: lotus-style JWTs (HS256)
// whose payload {"Allow": [...]} lists permissions, the shared secret
// they are signed with, and the CUZK_API_INFO=TOKEN:ADDR convention that
// hands a client both a token and an address.
//
// The permissions are lotus's names, ordered read < write < admin: a
// token that allows a permission allows every weaker one. Which RPC needs
// which permission is the server's business, not this package's; auth
// knows nothing of gRPC, listeners or the engine.
package auth
