// libcrypto's functions that dagu calls (the memory BIOs and error queue of
// http::Server's TLS), forwarded to the library loaded at first use
// (lazy_library.h). Each has the signature of <openssl/bio.h> or
// <openssl/err.h>.
#include <openssl/bio.h>
#include <openssl/err.h>

#include "dynlib/lazy_symbol.h"

DAGU_LAZY_FN(kCrypto, const BIO_METHOD*, BIO_s_mem, (void), ())
DAGU_LAZY_FN(kCrypto, BIO*, BIO_new, (const BIO_METHOD* type), (type))
DAGU_LAZY_FN(kCrypto, int, BIO_read, (BIO * b, void* data, int dlen), (b, data, dlen))
DAGU_LAZY_FN(kCrypto, int, BIO_write, (BIO * b, const void* data, int dlen), (b, data, dlen))
DAGU_LAZY_FN(kCrypto, unsigned long, ERR_get_error, (void), ())
DAGU_LAZY_FN(kCrypto, void, ERR_error_string_n, (unsigned long e, char* buf, size_t len), (e, buf, len))
DAGU_LAZY_FN(kCrypto, void, ERR_clear_error, (void), ())
