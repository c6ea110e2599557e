// libssl's functions that dagu calls (the TLS of http::Server), forwarded to
// the library loaded at first use (lazy_library.h). Each has the signature
// of <openssl/ssl.h>. SSL_CTX_set_min_proto_version and SSL_CTX_set_mode are
// macros over SSL_CTX_ctrl.
#include <openssl/ssl.h>

#include "dynlib/lazy_symbol.h"

DAGU_LAZY_FN(kSsl, const SSL_METHOD*, TLS_server_method, (void), ())
DAGU_LAZY_FN(kSsl, SSL_CTX*, SSL_CTX_new, (const SSL_METHOD* method), (method))
DAGU_LAZY_FN(kSsl, void, SSL_CTX_free, (SSL_CTX * ctx), (ctx))
DAGU_LAZY_FN(kSsl, long, SSL_CTX_ctrl, (SSL_CTX * ctx, int cmd, long larg, void* parg), (ctx, cmd, larg, parg))
DAGU_LAZY_FN(kSsl, uint64_t, SSL_CTX_set_options, (SSL_CTX * ctx, uint64_t op), (ctx, op))
DAGU_LAZY_FN(kSsl, int, SSL_CTX_use_certificate_chain_file, (SSL_CTX * ctx, const char* file), (ctx, file))
DAGU_LAZY_FN(kSsl, int, SSL_CTX_use_PrivateKey_file, (SSL_CTX * ctx, const char* file, int type), (ctx, file, type))
DAGU_LAZY_FN(kSsl, int, SSL_CTX_check_private_key, (const SSL_CTX* ctx), (ctx))
DAGU_LAZY_FN(kSsl, SSL*, SSL_new, (SSL_CTX * ctx), (ctx))
DAGU_LAZY_FN(kSsl, void, SSL_free, (SSL * ssl), (ssl))
DAGU_LAZY_FN(kSsl, void, SSL_set_bio, (SSL * ssl, BIO* rbio, BIO* wbio), (ssl, rbio, wbio))
DAGU_LAZY_FN(kSsl, BIO*, SSL_get_rbio, (const SSL* ssl), (ssl))
DAGU_LAZY_FN(kSsl, BIO*, SSL_get_wbio, (const SSL* ssl), (ssl))
DAGU_LAZY_FN(kSsl, void, SSL_set_accept_state, (SSL * ssl), (ssl))
DAGU_LAZY_FN(kSsl, int, SSL_read, (SSL * ssl, void* buf, int num), (ssl, buf, num))
DAGU_LAZY_FN(kSsl, int, SSL_write, (SSL * ssl, const void* buf, int num), (ssl, buf, num))
DAGU_LAZY_FN(kSsl, int, SSL_get_error, (const SSL* ssl, int ret), (ssl, ret))
