// libjq's functions that dagu calls (the jq executor), forwarded to the
// library loaded at first use (lazy_library.h). Each has the signature of
// <jq.h> / <jv.h>.
extern "C" {
#include <jq.h>
}

#include "dynlib/lazy_symbol.h"

DAGU_LAZY_FN(kJq, jq_state*, jq_init, (void), ())
DAGU_LAZY_FN(kJq, void, jq_teardown, (jq_state * *jq), (jq))
DAGU_LAZY_FN(kJq, int, jq_compile, (jq_state * jq, const char* program), (jq, program))
DAGU_LAZY_FN(kJq, void, jq_set_error_cb, (jq_state * jq, jq_msg_cb cb, void* data), (jq, cb, data))
DAGU_LAZY_FN(kJq, void, jq_start, (jq_state * jq, jv value, int flags), (jq, value, flags))
DAGU_LAZY_FN(kJq, jv, jq_next, (jq_state * jq), (jq))
DAGU_LAZY_FN(kJq, jv, jv_copy, (jv v), (v))
DAGU_LAZY_FN(kJq, void, jv_free, (jv v), (v))
DAGU_LAZY_FN(kJq, jv_kind, jv_get_kind, (jv v), (v))
DAGU_LAZY_FN(kJq, jv, jv_parse_sized, (const char* string, int length), (string, length))
DAGU_LAZY_FN(kJq, jv, jv_invalid_get_msg, (jv v), (v))
DAGU_LAZY_FN(kJq, int, jv_invalid_has_msg, (jv v), (v))
DAGU_LAZY_FN(kJq, double, jv_number_value, (jv v), (v))
DAGU_LAZY_FN(kJq, const char*, jv_string_value, (jv v), (v))
DAGU_LAZY_FN(kJq, int, jv_string_length_bytes, (jv v), (v))
DAGU_LAZY_FN(kJq, jv, jv_array_get, (jv v, int index), (v, index))
DAGU_LAZY_FN(kJq, int, jv_array_length, (jv v), (v))
DAGU_LAZY_FN(kJq, int, jv_object_iter, (jv v), (v))
DAGU_LAZY_FN(kJq, int, jv_object_iter_next, (jv v, int iter), (v, iter))
DAGU_LAZY_FN(kJq, int, jv_object_iter_valid, (jv v, int iter), (v, iter))
DAGU_LAZY_FN(kJq, jv, jv_object_iter_key, (jv v, int iter), (v, iter))
DAGU_LAZY_FN(kJq, jv, jv_object_iter_value, (jv v, int iter), (v, iter))
