// libssh's functions that dagu calls (the ssh executor), forwarded to the
// library loaded at first use (lazy_library.h). Each has the signature of
// <libssh/libssh.h>.
#include <libssh/libssh.h>

#include "dynlib/lazy_symbol.h"

DAGU_LAZY_FN(kSsh, ssh_session, ssh_new, (void), ())
DAGU_LAZY_FN(kSsh, void, ssh_free, (ssh_session session), (session))
DAGU_LAZY_FN(kSsh, int, ssh_options_set, (ssh_session session, enum ssh_options_e type, const void* value),
             (session, type, value))
DAGU_LAZY_FN(kSsh, int, ssh_connect, (ssh_session session), (session))
DAGU_LAZY_FN(kSsh, void, ssh_disconnect, (ssh_session session), (session))
DAGU_LAZY_FN(kSsh, int, ssh_is_connected, (ssh_session session), (session))
DAGU_LAZY_FN(kSsh, const char*, ssh_get_error, (void* error), (error))
DAGU_LAZY_FN(kSsh, enum ssh_known_hosts_e, ssh_session_is_known_server, (ssh_session session), (session))
DAGU_LAZY_FN(kSsh, int, ssh_pki_import_privkey_file,
             (const char* filename, const char* passphrase, ssh_auth_callback auth_fn, void* auth_data,
              ssh_key* pkey),
             (filename, passphrase, auth_fn, auth_data, pkey))
DAGU_LAZY_FN(kSsh, void, ssh_key_free, (ssh_key key), (key))
DAGU_LAZY_FN(kSsh, int, ssh_userauth_publickey, (ssh_session session, const char* username, const ssh_key privkey),
             (session, username, privkey))
DAGU_LAZY_FN(kSsh, int, ssh_userauth_password, (ssh_session session, const char* username, const char* password),
             (session, username, password))
DAGU_LAZY_FN(kSsh, ssh_channel, ssh_channel_new, (ssh_session session), (session))
DAGU_LAZY_FN(kSsh, void, ssh_channel_free, (ssh_channel channel), (channel))
DAGU_LAZY_FN(kSsh, int, ssh_channel_open_session, (ssh_channel channel), (channel))
DAGU_LAZY_FN(kSsh, int, ssh_channel_request_exec, (ssh_channel channel, const char* cmd), (channel, cmd))
DAGU_LAZY_FN(kSsh, int, ssh_channel_write, (ssh_channel channel, const void* data, uint32_t len),
             (channel, data, len))
DAGU_LAZY_FN(kSsh, int, ssh_channel_read_timeout,
             (ssh_channel channel, void* dest, uint32_t count, int is_stderr, int timeout_ms),
             (channel, dest, count, is_stderr, timeout_ms))
DAGU_LAZY_FN(kSsh, int, ssh_channel_send_eof, (ssh_channel channel), (channel))
DAGU_LAZY_FN(kSsh, int, ssh_channel_is_eof, (ssh_channel channel), (channel))
DAGU_LAZY_FN(kSsh, int, ssh_channel_is_open, (ssh_channel channel), (channel))
DAGU_LAZY_FN(kSsh, int, ssh_channel_get_exit_status, (ssh_channel channel), (channel))
DAGU_LAZY_FN(kSsh, int, ssh_channel_close, (ssh_channel channel), (channel))
