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
