#include "cmicrohttpd.h"
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

struct MHD_Daemon *cmhd_start(const cmhd_options *o,
                              MHD_AccessHandlerCallback handler, void *handler_cls,
                              MHD_RequestCompletedCallback completed, void *completed_cls) {
    struct MHD_OptionItem ops[10];
    int n = 0;
    struct sockaddr_in local;
    ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) completed, completed_cls };
    if (o->thread_pool_size > 1)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, (intptr_t) o->thread_pool_size, NULL };
    if (o->connection_limit > 0)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, (intptr_t) o->connection_limit, NULL };
    if (o->connection_timeout_seconds > 0)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t) o->connection_timeout_seconds, NULL };
    if (o->connection_memory_limit > 0)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t) o->connection_memory_limit, NULL };
    if (o->uri_log != NULL)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t) o->uri_log, o->uri_log_cls };
    if (o->bind_address != NULL) {
        memset(&local, 0, sizeof(local));
        local.sin_family = AF_INET;
        local.sin_port = htons(o->port);
        if (inet_pton(AF_INET, o->bind_address, &local.sin_addr) != 1) return NULL;
        /* Only read while MHD_start_daemon binds, so a local lives long enough. */
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &local };
    }
    ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(o->flags, o->port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
}

size_t cmhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

unsigned int cmhd_response_status(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
    return info == NULL ? 0 : info->http_status;
}

uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int cmhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return -1;
    const struct sockaddr *address = info->client_addr;
    const void *bytes;
    if (address->sa_family == AF_INET) {
        bytes = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        bytes = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, bytes, buffer, (socklen_t)size) == NULL ? -1 : 0;
}
