#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/bio.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

/* Wrappers for OpenSSL macros, which Swift cannot import. */
static inline long copenssl_ctx_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline int copenssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) { return (int) SSL_CTX_set_min_proto_version(ctx, version); }
static inline int copenssl_set_tlsext_host_name(SSL *ssl, const char *name) { return (int) SSL_set_tlsext_host_name(ssl, name); }
static inline long copenssl_ctx_set_options(SSL_CTX *ctx, long options) { return (long) SSL_CTX_set_options(ctx, (uint64_t) options); }
static const uint64_t COPENSSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;

/* EVP_PKEY_fromdata selections (macros of macros). */
static const int COPENSSL_EVP_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY;
static const int COPENSSL_EVP_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR;

/* OSSL_PARAM names. An OSSL_PARAM (and OSSL_PARAM_BLD) keeps the name's pointer, not a copy, so it
   must outlive the parameters: these return OpenSSL's string literals, which live as long as the
   program; a Swift String passed as `const char *` would be a temporary copy. */
static inline const char *copenssl_pkey_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *copenssl_pkey_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *copenssl_pkey_param_priv_key(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }

/* HKDF-SHA256 (RFC 5869) with a KDF fetched once (EVP_KDF_fetch): an OSSL_PARAM array points at
   its values, which one C frame keeps alive more simply than nested Swift closures. An empty salt
   is left out (RFC 5869's "not provided": HashLen zero bytes), as is an empty info. */
static inline int copenssl_hkdf_sha256(EVP_KDF *kdf, const unsigned char *salt, size_t salt_length, const unsigned char *key,
                                       size_t key_length, const unsigned char *info, size_t info_length, unsigned char *out,
                                       size_t out_length) {
    EVP_KDF_CTX *context = EVP_KDF_CTX_new(kdf);
    if (context == NULL) return 0;
    OSSL_PARAM params[5];
    int count = 0;
    params[count++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *) "SHA256", 0);
    params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *) key, key_length);
    if (salt_length > 0) params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *) salt, salt_length);
    if (info_length > 0) params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *) info, info_length);
    params[count] = OSSL_PARAM_construct_end();
    int result = EVP_KDF_derive(context, out, out_length, params);
    EVP_KDF_CTX_free(context);
    return result;
}
