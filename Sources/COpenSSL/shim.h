#ifndef SHARELOG_COPENSSL_SHIM_H
#define SHARELOG_COPENSSL_SHIM_H
// OpenSSL 3 from Debian's libssl-dev: TLS 1.3 for sync over TCP, and the
// HMAC, HKDF and random bytes of the handshake. ShareLog writes no cryptography.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#endif
