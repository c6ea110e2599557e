// libjwt's functions that dagu calls (builtin auth's tokens, src/auth/
// token_signer.cc), forwarded to the library loaded at first use
// (lazy_library.h). Each has the signature of <jwt.h>.
#include <jwt.h>

#include "dynlib/lazy_symbol.h"

DAGU_LAZY_FN(kJwt, int, jwt_new, (jwt_t * *jwt), (jwt))
DAGU_LAZY_FN(kJwt, int, jwt_decode, (jwt_t * *jwt, const char* token, const unsigned char* key, int key_len),
             (jwt, token, key, key_len))
DAGU_LAZY_FN(kJwt, void, jwt_free, (jwt_t * jwt), (jwt))
DAGU_LAZY_FN(kJwt, const char*, jwt_get_grant, (jwt_t * jwt, const char* grant), (jwt, grant))
DAGU_LAZY_FN(kJwt, long, jwt_get_grant_int, (jwt_t * jwt, const char* grant), (jwt, grant))
DAGU_LAZY_FN(kJwt, int, jwt_add_grant, (jwt_t * jwt, const char* grant, const char* val), (jwt, grant, val))
DAGU_LAZY_FN(kJwt, int, jwt_add_grant_int, (jwt_t * jwt, const char* grant, long val), (jwt, grant, val))
DAGU_LAZY_FN(kJwt, char*, jwt_encode_str, (jwt_t * jwt), (jwt))
DAGU_LAZY_FN(kJwt, int, jwt_set_alg, (jwt_t * jwt, jwt_alg_t alg, const unsigned char* key, int len),
             (jwt, alg, key, len))
DAGU_LAZY_FN(kJwt, jwt_alg_t, jwt_get_alg, (jwt_t * jwt), (jwt))
