#ifndef SHARELOG_CBASELINE_H
#define SHARELOG_CBASELINE_H

/*
 * The C baselines of sharelog-bench: the same logical work as ShareLog's
 * engine, done twice without Swift.
 *
 * - cb_lmdb_*: raw liblmdb with ShareLog's store format 2, exactly as
 *   docs/FORMAT.md gives it: the same databases, keys, values and rules,
 *   and ShareLog's transaction boundaries. A store it writes opens and
 *   verifies in ShareLog. This is the physical limit of the design.
 * - cb_sqlite_*: SQLite as a user would write the same store: WAL,
 *   synchronous=FULL, a shares table keyed by record name with an index on
 *   expires_at, an events table, prepared statements.
 * - cb_redis_*: a redis-server this process starts, as a team would keep
 *   short-lived shares in it: SET key card PX ttl, GET, and Redis's own
 *   active expiry, through hiredis. There is no log of events.
 *
 * Every function that does measured work reports its own elapsed wall time
 * (CLOCK_MONOTONIC) in *elapsed_ns, around the work only. Functions return
 * 0 on success; on failure they return non-zero and cb_*_error() says why.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A run of `count` cards drawn from a pool of `distinct` cards laid end to
 * end (pool card j is bytes[offsets[j] ..< offsets[j + 1]]): card k of the
 * run is pool card (first + k) % distinct. */
typedef struct {
    const uint8_t *bytes;
    const size_t *offsets; /* distinct + 1 entries */
    size_t distinct;
    size_t first;
    size_t count;
} cb_cards;

/* What a run of fetches found. bytes counts the vCard bytes copied out. */
typedef struct {
    uint64_t live;
    uint64_t expired;
    uint64_t missing;
    uint64_t bytes;
} cb_fetch_tally;

/* What a replay (rebuild and compare, as ShareLog's verify) found. */
typedef struct {
    uint64_t events;
    uint64_t entries_compared;
    uint64_t mismatches;
    uint64_t corrupt_events;
    uint64_t sequence_gaps;
} cb_replay_report;

/* Called after each folded chunk with the number of events folded so far. */
typedef void (*cb_progress_fn)(void *context, uint64_t events);

/* ---- raw LMDB with ShareLog's store format 2 --------------------------- */

typedef struct cb_lmdb cb_lmdb;

/* Opens (creating and initialising if needed) the store in `directory`.
 * durable != 0: every commit is synced (ShareLog's Durability.full);
 * 0: MDB_NOSYNC, for filling stores before a measurement.
 * Returns NULL on failure with the reason in error[error_size]. */
cb_lmdb *cb_lmdb_open(const char *directory, int durable, char *error, size_t error_size);
/* Closes the store; NULL is allowed. */
void cb_lmdb_close(cb_lmdb *store);
/* The reason for the last failure of a call on `store`. */
const char *cb_lmdb_error(const cb_lmdb *store);

/* Creates one share per card, stamped created_ms and expiring at
 * created_ms + ttl_ms, as ShareStore.create does: per share, its
 * shareCreated appended to the log (MDB_APPEND), its eventIndex entry, a
 * 50-byte share state pointing at that log position, and its expiry entry
 * (position, expiresAt). Each transaction holds
 * `batch` shares (1 = one per commit), and `threads` threads share the
 * cards round-robin, each committing its own transactions (raw LMDB has no
 * group commit; its write lock serialises them). Record names (16 random
 * bytes each, UUID v4) are written to names_out[16 * k] for card k. */
int cb_lmdb_create(cb_lmdb *store, const cb_cards *cards, size_t batch, int threads,
                   int64_t created_ms, int64_t ttl_ms, uint8_t *names_out, uint64_t *elapsed_ns);

/* Fetches each of `count` record names (16 bytes each) at now_ms as
 * ShareStore.fetch does: one read transaction per fetch, the share state
 * decoded, and for a share that may be live, its expiry entry looked up
 * and the log entry at its creation's position decoded (CRC-32 checked)
 * and its vCard copied out.
 * `threads` threads split the names. */
int cb_lmdb_fetch(cb_lmdb *store, const uint8_t *names, size_t count, int threads, int64_t now_ms,
                  cb_fetch_tally *tally, uint64_t *elapsed_ns);

/* Expires every share due at now_ms as ShareStore.sweep does: batches of
 * `batch` shares, one durable transaction each, walking the expiry index
 * from its start with a cursor. Per share: a shareExpired(ttl) at its
 * expiresAt, under the TTL end's id (the record name as origin, counter
 * 0), in the log and eventIndex, its creation's log entry checked
 * and queued in pendingRedactions, its expiry entry deleted; `shares` is
 * not touched. */
int cb_lmdb_sweep(cb_lmdb *store, int64_t now_ms, size_t batch, uint64_t *expired, uint64_t *elapsed_ns);

/* Rebuilds the derived databases from the log in a scratch store at
 * `scratch_directory` (MDB_NOSYNC, removed afterwards), `chunk` events per
 * scratch transaction, in one read snapshot, then compares every derived
 * database and counter with the stored one: what ShareStore.verify does. */
int cb_lmdb_replay(cb_lmdb *store, const char *scratch_directory, size_t chunk,
                   cb_progress_fn progress, void *context, cb_replay_report *report, uint64_t *elapsed_ns);

/* The clip's cold path in one call: open the store in `directory`, fetch
 * `name` at now_ms, close. Returns 0 live, 1 expired, 2 not found, and a
 * negative value on failure (the reason in error[error_size]). */
int cb_lmdb_cold_fetch(const char *directory, const uint8_t name[16], int64_t now_ms,
                       char *error, size_t error_size);

/* The id of the last committed write transaction (mdb_env_info): the
 * number of durable commits since the store was made. */
int64_t cb_lmdb_commits(cb_lmdb *store);

/* liblmdb's version string. */
const char *cb_lmdb_version(void);

/* ---- SQLite as a user would write it ------------------------------------ */

typedef struct cb_sqlite cb_sqlite;

/* Opens (creating if needed) `directory`/shares.sqlite in WAL mode.
 * durable != 0: synchronous=FULL; 0: synchronous=OFF, for filling stores.
 * Returns NULL on failure with the reason in error[error_size]. */
cb_sqlite *cb_sqlite_open(const char *directory, int durable, char *error, size_t error_size);
/* Closes the store (checkpointing the WAL); NULL is allowed. */
void cb_sqlite_close(cb_sqlite *store);
/* The reason for the last failure of a call on `store`. */
const char *cb_sqlite_error(const cb_sqlite *store);

/* As cb_lmdb_create: per share, an events row and a shares row; `batch`
 * shares per BEGIN IMMEDIATE ... COMMIT; `threads` threads, each with its
 * own connection and prepared statements. */
int cb_sqlite_create(cb_sqlite *store, const cb_cards *cards, size_t batch, int threads,
                     int64_t created_ms, int64_t ttl_ms, uint8_t *names_out, uint64_t *elapsed_ns);

/* As cb_lmdb_fetch: one prepared SELECT per name by primary key. */
int cb_sqlite_fetch(cb_sqlite *store, const uint8_t *names, size_t count, int threads, int64_t now_ms,
                    cb_fetch_tally *tally, uint64_t *elapsed_ns);

/* The chunked delete: per transaction, the first `batch` due shares by the
 * expires_at index; for each, an expiry event is logged and its row deleted. */
int cb_sqlite_sweep(cb_sqlite *store, int64_t now_ms, size_t batch, uint64_t *expired, uint64_t *elapsed_ns);

/* Rebuilds the shares table from the events table into a scratch database
 * in `scratch_directory` (no journal, no sync; removed afterwards), `chunk`
 * events per transaction, then compares it row by row with the stored one. */
int cb_sqlite_replay(cb_sqlite *store, const char *scratch_directory, size_t chunk,
                     cb_progress_fn progress, void *context, cb_replay_report *report, uint64_t *elapsed_ns);

/* As cb_lmdb_cold_fetch, on `directory`/shares.sqlite. */
int cb_sqlite_cold_fetch(const char *directory, const uint8_t name[16], int64_t now_ms,
                         char *error, size_t error_size);

/* SQLite's version string. */
const char *cb_sqlite_version(void);

/* ---- Redis, a server started by the benchmark ----------------------------- */

typedef struct cb_redis cb_redis;

/* Starts `server` (the path of redis-server) with its data (the AOF) in
 * `directory`, created if needed, listening only on a Unix socket in a new
 * temporary folder under /tmp (--port 0), with appendonly yes, no RDB
 * snapshots and no automatic AOF rewrite. durable != 0: appendfsync always
 * (a reply only after its write is fsynced); 0: appendfsync no, for filling.
 * Waits until the server answers PING, for at most `deadline_ns`.
 *
 * The server runs under a small /bin/sh in its own process group that holds
 * the read end of a pipe whose write end only this process has: when this
 * process closes it (cb_redis_stop) or dies, however it dies, the shell
 * stops the server with SIGTERM and removes the socket's folder. Its output
 * goes to `directory`/redis.log. Returns NULL on failure with the reason in
 * error[error_size]. */
cb_redis *cb_redis_start(const char *server, const char *directory, int durable, uint64_t deadline_ns,
                         char *error, size_t error_size);
/* As cb_redis_start, and the server also listens on 127.0.0.1 (--bind
 * 127.0.0.1) at a TCP port that was free as it started (cb_redis_port):
 * the master of a replica, which connects to its master over TCP only.
 * When another process takes the port first, the server fails to bind it
 * and a new port is tried, three times in all. */
cb_redis *cb_redis_start_loopback(const char *server, const char *directory, int durable, uint64_t deadline_ns,
                                  char *error, size_t error_size);
/* The TCP port of 127.0.0.1 the server listens on; 0 when it listens on
 * its Unix socket only (cb_redis_start). */
int cb_redis_port(const cb_redis *store);
/* Stops the server and waits for it (at most 60 s, then SIGKILL to its
 * process group); NULL is allowed. */
void cb_redis_stop(cb_redis *store);
/* The reason for the last failure of a call on `store`. */
const char *cb_redis_error(const cb_redis *store);

/* fsyncs the AOF's files and the store's directory, appendfsync unchanged. */
int cb_redis_sync_files(cb_redis *store);

/* cb_redis_sync_files, then sets appendfsync always: what a filled store
 * does before a durable measurement. */
int cb_redis_make_durable(cb_redis *store);

/* As cb_lmdb_create, one share per key: SET name card PX ttl_ms, the key the
 * 16 raw bytes of a new random record name. batch == 1: one command at a
 * time, each waiting for its reply; batch > 1: `batch` commands pipelined,
 * then their replies. `threads` threads share the cards round-robin, each
 * on its own connection. Redis stamps its own clock: no creation time. */
int cb_redis_create(cb_redis *store, const cb_cards *cards, size_t batch, int threads, int64_t ttl_ms,
                    uint8_t *names_out, uint64_t *elapsed_ns);

/* GET of each of `count` names, `threads` threads each on its own
 * connection (opened before the clock starts). The reply holds the card,
 * copied out of the server: a live share. A nil reply is a missing share;
 * Redis never answers "expired", its expired keys are gone. */
int cb_redis_fetch(cb_redis *store, const uint8_t *names, size_t count, int threads,
                   cb_fetch_tally *tally, uint64_t *elapsed_ns);

/* The clip fetch anchor: GET of each of `count` names, `threads` threads
 * each taking a contiguous share of them, every GET timed on its own:
 * latencies_ns[i] is the time of name i's fetch. connection_per_fetch 0:
 * one connection per thread, opened before the clock starts, each fetch a
 * GET and its reply. connection_per_fetch 1: each fetch connects to the
 * Unix socket, GETs and closes, as a clip process that starts does, all
 * timed. *tally counts the replies as cb_redis_fetch does (live, missing,
 * card bytes), so that a run with broken fetches cannot pass for a fast
 * one; *elapsed_ns covers all threads, from their start to the last one's
 * end. */
int cb_redis_fetch_latencies(cb_redis *store, const uint8_t *names, size_t count, int threads, int connection_per_fetch,
                             uint64_t *latencies_ns, cb_fetch_tally *tally, uint64_t *elapsed_ns);

/* DBSIZE: the number of keys the server holds; -1 on failure. Not timed. */
int64_t cb_redis_key_count(cb_redis *store);

/* GET name, not timed: 1 with the value copied to out[capacity] and its
 * size in *size, 0 when there is no such key, -1 on failure (a value
 * larger than `capacity` too: *size then holds its size). */
int cb_redis_get(cb_redis *store, const uint8_t name[16], uint8_t *out, size_t capacity, size_t *size);

/* The expiry measurement. First syncs the keys held (cb_redis_sync_files).
 * Then writes one key per card (new random names) with
 * SET name card PX ttl in pipelined batches of `batch`, each batch's ttl
 * computed as it is sent so that every key falls due at one moment,
 * `delay_ms` after the first batch is sent (CLOCK_REALTIME, Redis's clock);
 * then cb_redis_make_durable. Fails if that is not over before the moment.
 * From the moment on, polls DBSIZE every millisecond until the new keys are
 * gone or `deadline_ns` has passed; the keys the store held before must all
 * remain. *removed: new keys gone; *elapsed_ns: from the moment to the poll
 * that saw the last of them gone, or to the deadline; *written: bytes the
 * AOF grew by meanwhile. */
int cb_redis_expire(cb_redis *store, const cb_cards *cards, size_t batch, int64_t delay_ms, uint64_t deadline_ns,
                    uint64_t *removed, uint64_t *elapsed_ns, uint64_t *written);

/* The memory the server's data takes, in bytes: used_memory of INFO
 * memory less mem_clients_normal, the connections' buffers (a pipelined
 * fill leaves its commands' bytes in a query buffer for a while); -1 on
 * failure. */
int64_t cb_redis_memory(cb_redis *store);

/* The sizes of the AOF's files added up, in bytes; -1 on failure. Redis only
 * appends to them (no rewrite runs), so growth is bytes written. */
int64_t cb_redis_aof_bytes(cb_redis *store);

/* The version of the hiredis library this process uses, e.g. "0.14.1". */
const char *cb_hiredis_version(void);

/* ---- Redis replication, the anchor of sync -------------------------------- */

/* What a replica's full sync took. */
typedef struct {
    /* From REPLICAOF to the first poll that saw the replica hold every key. */
    uint64_t loaded_ns;
    /* From REPLICAOF to the first poll that saw the replica's data durable. */
    uint64_t persisted_ns;
    /* Replication bytes the replica received until it held every key
     * (total_net_repl_input_bytes of INFO stats): the RDB the master
     * streamed, which Redis compresses with LZF (rdbcompression yes). */
    uint64_t bytes;
    /* VmHWM of the replica's redis-server process, KiB, just after: the
     * peak of its resident memory since it started (empty); -1 if unknown. */
    int64_t replica_peak_rss_kib;
} cb_full_sync;

/* A new replica's full sync from `master` (started with
 * cb_redis_start_loopback, holding `expected_keys` keys and nothing more,
 * made durable) to `replica` (started empty with cb_redis_start, durable:
 * appendonly yes, appendfsync always).
 *
 * Before the clock: sets repl-diskless-sync yes (Redis 7's default: the
 * master's forked child streams the RDB into the replica's connection,
 * no file on the master's disk) and repl-diskless-sync-delay 0 on the
 * master (the default waits 5 s for more replicas before starting);
 * checks that the replica holds no keys, is not a replica yet and runs no
 * AOF rewrite, and notes its aof_rewrites and total_net_repl_input_bytes.
 * The replica's repl-diskless-load stays at its default, disabled: it
 * writes the RDB it receives to a file, then loads it.
 *
 * Timed from sending REPLICAOF 127.0.0.1 port to the replica, polling its
 * INFO replication, persistence and stats every 0.5 ms:
 * - loaded: master_link_status:up, master_sync_in_progress:0, loading:0,
 *   and then DBSIZE == expected_keys (any other count fails the call);
 * - persisted: the AOF rewrite that Redis starts when a full sync ends
 *   (it turns the AOF off to load and on again, which rewrites it from
 *   the loaded keys) has ended: aof_rewrites above the count noted before,
 *   aof_rewrite_in_progress:0, aof_rewrite_scheduled:0, and
 *   aof_last_bgrewrite_status:ok and aof_last_write_status:ok (else the
 *   call fails). Redis fsyncs the new base file and the manifest that
 *   names it before it renames them into place. The rewrite's end is seen
 *   in the server's cron (hz 10), so up to 100 ms after the child exits.
 * Fails when either is not reached within `deadline_ns` of REPLICAOF. On
 * failure, cb_redis_error(replica) says why, whichever server failed. */
int cb_redis_full_sync(cb_redis *master, cb_redis *replica, uint64_t expected_keys, uint64_t deadline_ns,
                       cb_full_sync *result);

/* Replication delay, one card at a time: for card k, a new random name
 * (names_out[16 * k]) and SET name card PX ttl_ms on the master, timed on
 * its own into commit_ns[k] (with appendfsync always the reply comes after
 * the master's fsync); then GET name on the replica's connection in a tight
 * loop, no pause, until it answers the card (another value fails the call):
 * delay_ns[k] runs from the master's reply to the replica's reply that held
 * the card. With appendfsync always on the replica, Redis writes and fsyncs
 * its AOF before it sends any reply, so a reply that holds the card means
 * the card is durable on the replica too. The replica's link to the master
 * must be up (after cb_redis_full_sync). Fails when a key is not seen
 * within `deadline_ns` of its SET's reply. On failure,
 * cb_redis_error(replica) says why. */
int cb_redis_replication_delays(cb_redis *master, cb_redis *replica, const cb_cards *cards, int64_t ttl_ms,
                                uint64_t deadline_ns, uint8_t *names_out, uint64_t *commit_ns, uint64_t *delay_ns);

/* ---- socket anchors: two processes on a Unix-domain socket --------------- */

/* Forks a child on the other end of a Unix-domain socket pair
 * (SOCK_STREAM), which reads until end of file, counting the bytes, and
 * then writes their count back. Writes `bytes` bytes in writes of 64 KiB,
 * then shuts its side down. *received: the count the child answered;
 * *elapsed_ns: from the first write to the answer's arrival. The fork and
 * the child's exit are outside the clock. Any one wait for the child lasts
 * at most 60 s. Returns 0, or -1 with the reason in error[error_size]. */
int cb_socket_copy(uint64_t bytes, uint64_t *received, uint64_t *elapsed_ns, char *error, size_t error_size);

/* Forks a child on the other end of a Unix-domain socket pair that echoes
 * every message of `message_bytes` bytes (8 to 4,096), and sends it
 * `rounds` messages one at a time, each numbered so that a stale echo
 * fails the call: round_ns[r] runs from round r's send to its whole echo
 * received. Any one wait for the child lasts at most 60 s. Returns 0, or
 * -1 with the reason in error[error_size]. */
int cb_socket_round_trips(size_t rounds, size_t message_bytes, uint64_t *round_ns, char *error, size_t error_size);

/* ---- process helpers ------------------------------------------------------ */

/* fsyncs every regular file in `directory`, then the directory itself.
 * Returns 0, or an errno value. */
int cb_fsync_directory(const char *directory);

/* Bytes this process has caused to be sent to storage (write_bytes of
 * /proc/self/io, all threads); -1 if unknown. Not wchar: ShareLog writes
 * through its map (MDB_WRITEMAP), which no write(2) call counts. The kernel
 * accounts whole page-cache folios, so scattered 4 KiB page writes count as
 * what writeback sends for their folios, which is more than 4 KiB each. */
int64_t cb_write_bytes(void);

/* RssAnon of this process from /proc/self/status, in KiB; -1 if unknown. */
int64_t cb_rss_anon_kib(void);

/* Runs argv[0] with `argv` (NULL-terminated) and waits for it: standard
 * output and error go to /dev/null. *elapsed_ns covers spawn to reaped exit;
 * *exit_status is the exit code, or 128 + signal. Returns 0, or an errno. */
int cb_spawn_and_wait(const char *const argv[], uint64_t *elapsed_ns, int *exit_status);

#ifdef __cplusplus
}
#endif

#endif
