#ifndef SHARELOG_CNATS_SHIM_H
#define SHARELOG_CNATS_SHIM_H
// The official NATS C client from Debian's libnats-dev: the relay's
// connection to a JetStream cluster. ShareLog speaks no NATS protocol itself.
#include <nats/nats.h>
#endif
