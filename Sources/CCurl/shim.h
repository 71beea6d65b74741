#ifndef SHARELOG_CCURL_SHIM_H
#define SHARELOG_CCURL_SHIM_H
// libcurl from Debian's libcurl4-openssl-dev: the clip's HTTPS fetch of a
// link (docs/HTTP.md). Only what Swift cannot call lives here:
// curl_easy_setopt and curl_easy_getinfo are variadic.
#include <curl/curl.h>

static inline CURLcode sharelog_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode sharelog_curl_set_pointer(CURL *curl, CURLoption option, const void *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode sharelog_curl_set_write_function(CURL *curl, curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode sharelog_curl_set_header_function(CURL *curl, curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
}

static inline CURLcode sharelog_curl_response_code(CURL *curl, long *code) {
    return curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, code);
}

static inline CURLcode sharelog_curl_content_type(CURL *curl, const char **type) {
    return curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, type);
}

// CURL_GLOBAL_DEFAULT is a macro expression; call it once (CurlGlobal).
static inline CURLcode sharelog_curl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

// CURLOPT_SSLVERSION's value for TLS 1.2 or later (an enum constant).
static inline long sharelog_curl_tls_1_2_or_later(void) {
    return CURL_SSLVERSION_TLSv1_2;
}
#endif
