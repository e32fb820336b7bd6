#ifndef CMICROHTTPD_H
#define CMICROHTTPD_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// `MHD_SIZE_UNKNOWN` is `UINT64_MAX`, a macro Swift does not import.
static const uint64_t CMHD_SIZE_UNKNOWN = MHD_SIZE_UNKNOWN;

/// Options for `cmhd_start`; `MHD_start_daemon` is variadic, so the shim builds the option array.
typedef struct {
    unsigned int flags;
    uint16_t port;
    /// IPv4 address to bind in dotted form, or NULL for every address.
    const char *bind_address;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int connection_timeout_seconds;
    size_t connection_memory_limit;
    /// Called with each request's raw target once its request line is read, before the headers
    /// (`MHD_OPTION_URI_LOG_CALLBACK`); what it returns is the request's `*con_cls`. NULL: none.
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection);
    void *uri_log_cls;
} cmhd_options;

/// Starts a daemon with the access handler and a request-completed callback.
struct MHD_Daemon *cmhd_start(const cmhd_options *options,
                              MHD_AccessHandlerCallback handler, void *handler_cls,
                              MHD_RequestCompletedCallback completed, void *completed_cls);

/// Bytes of the request line and header fields (`MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`);
/// 0 before the headers are read.
size_t cmhd_request_header_size(struct MHD_Connection *connection);

/// The status of the response queued on the connection (`MHD_CONNECTION_INFO_HTTP_STATUS`),
/// whether the application or libmicrohttpd itself queued it; 0 when none is.
unsigned int cmhd_response_status(struct MHD_Connection *connection);

/// The port the daemon is bound to (useful after binding port 0); 0 on failure.
uint16_t cmhd_bound_port(struct MHD_Daemon *daemon);

/// The connection's client address as text (IPv4 dotted or IPv6) into `buffer`; 0 when it is
/// known, -1 otherwise. `MHD_get_connection_info` is variadic, so Swift reaches it through here.
int cmhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size);

#endif
