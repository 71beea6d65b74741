#ifndef SHARELOG_CMICROHTTPD_SHIM_H
#define SHARELOG_CMICROHTTPD_SHIM_H
// GNU libmicrohttpd from Debian's libmicrohttpd-dev: the HTTP gateway's
// server (docs/HTTP.md). ShareLog parses no HTTP itself. Only what Swift
// cannot call lives here: MHD_start_daemon and MHD_get_connection_info are
// variadic, and the latter returns a union.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Where libmicrohttpd's messages go, formatted: Swift cannot take a va_list.
struct sharelog_mhd_logger {
    void (*callback)(void *cls, const char *message);
    void *cls;
};

static inline void sharelog_mhd_format_log(void *cls, const char *format, va_list arguments) {
    const struct sharelog_mhd_logger *logger = (const struct sharelog_mhd_logger *)cls;
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    logger->callback(logger->cls, message);
}

/// MHD_start_daemon with no accept policy, every option in `options` (an
/// array ended by MHD_OPTION_END, passed as MHD_OPTION_ARRAY), and its
/// messages sent to `logger`, which must outlive the daemon.
static inline struct MHD_Daemon *sharelog_mhd_start(unsigned int flags, MHD_AccessHandlerCallback handler,
                                                    void *handler_cls, struct MHD_OptionItem *options,
                                                    struct sharelog_mhd_logger *logger) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_EXTERNAL_LOGGER, sharelog_mhd_format_log, logger,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The connection's socket, or -1.
static inline int sharelog_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The size of the current request's header, in bytes.
static inline size_t sharelog_mhd_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/// The pointer the connection-notify callback stored for the connection.
static inline void *sharelog_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// The peer's address, or NULL.
static inline const struct sockaddr *sharelog_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
#endif
