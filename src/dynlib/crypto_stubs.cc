// libcrypto's functions that dagu calls (the memory BIOs and error queue of
// http::Server's TLS), forwarded to the library loaded at first use
// (lazy_library.h). Each has the signature of <openssl/bio.h> or
// <openssl/err.h>.
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "dynlib/lazy_symbol.h"

DAGU_LAZY_FN(kCrypto, const BIO_METHOD*, BIO_s_mem, (void), ())
DAGU_LAZY_FN(kCrypto, BIO*, BIO_new, (const BIO_METHOD* type), (type))
DAGU_LAZY_FN(kCrypto, int, BIO_read, (BIO * b, void* data, int dlen), (b, data, dlen))
DAGU_LAZY_FN(kCrypto, int, BIO_write, (BIO * b, const void* data, int dlen), (b, data, dlen))
DAGU_LAZY_FN(kCrypto, unsigned long, ERR_get_error, (void), ())
DAGU_LAZY_FN(kCrypto, void, ERR_error_string_n, (unsigned long e, char* buf, size_t len), (e, buf, len))
DAGU_LAZY_FN(kCrypto, void, ERR_clear_error, (void), ())

// OIDC's ID tokens (src/web/oidc_auth.cc): an RSA public key from a JWK's
// n and e, and an RS256 signature check. <openssl/bn.h>, <openssl/evp.h>,
// <openssl/param_build.h>, <openssl/params.h>.
DAGU_LAZY_FN(kCrypto, BIGNUM*, BN_bin2bn, (const unsigned char* s, int len, BIGNUM* ret), (s, len, ret))
DAGU_LAZY_FN(kCrypto, void, BN_free, (BIGNUM * a), (a))
DAGU_LAZY_FN(kCrypto, OSSL_PARAM_BLD*, OSSL_PARAM_BLD_new, (void), ())
DAGU_LAZY_FN(kCrypto, int, OSSL_PARAM_BLD_push_BN, (OSSL_PARAM_BLD * bld, const char* key, const BIGNUM* bn),
             (bld, key, bn))
DAGU_LAZY_FN(kCrypto, OSSL_PARAM*, OSSL_PARAM_BLD_to_param, (OSSL_PARAM_BLD * bld), (bld))
DAGU_LAZY_FN(kCrypto, void, OSSL_PARAM_BLD_free, (OSSL_PARAM_BLD * bld), (bld))
DAGU_LAZY_FN(kCrypto, void, OSSL_PARAM_free, (OSSL_PARAM * p), (p))
DAGU_LAZY_FN(kCrypto, EVP_PKEY_CTX*, EVP_PKEY_CTX_new_from_name,
             (OSSL_LIB_CTX * libctx, const char* name, const char* propquery), (libctx, name, propquery))
DAGU_LAZY_FN(kCrypto, int, EVP_PKEY_fromdata_init, (EVP_PKEY_CTX * ctx), (ctx))
DAGU_LAZY_FN(kCrypto, int, EVP_PKEY_fromdata, (EVP_PKEY_CTX * ctx, EVP_PKEY** ppkey, int selection, OSSL_PARAM params[]),
             (ctx, ppkey, selection, params))
DAGU_LAZY_FN(kCrypto, void, EVP_PKEY_CTX_free, (EVP_PKEY_CTX * ctx), (ctx))
DAGU_LAZY_FN(kCrypto, void, EVP_PKEY_free, (EVP_PKEY * pkey), (pkey))
DAGU_LAZY_FN(kCrypto, EVP_MD_CTX*, EVP_MD_CTX_new, (void), ())
DAGU_LAZY_FN(kCrypto, void, EVP_MD_CTX_free, (EVP_MD_CTX * ctx), (ctx))
DAGU_LAZY_FN(kCrypto, const EVP_MD*, EVP_sha256, (void), ())
DAGU_LAZY_FN(kCrypto, int, EVP_DigestVerifyInit,
             (EVP_MD_CTX * ctx, EVP_PKEY_CTX** pctx, const EVP_MD* type, ENGINE* e, EVP_PKEY* pkey),
             (ctx, pctx, type, e, pkey))
DAGU_LAZY_FN(kCrypto, int, EVP_DigestVerify,
             (EVP_MD_CTX * ctx, const unsigned char* sigret, size_t siglen, const unsigned char* tbs, size_t tbslen),
             (ctx, sigret, siglen, tbs, tbslen))
