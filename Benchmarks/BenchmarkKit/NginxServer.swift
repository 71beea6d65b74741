import Foundation
import TestSupport

/// Debian's nginx, the HTTP workload's anchor: started by the benchmark
/// with a config it writes into `directory`, in the foreground
/// (`daemon off`), with `workers` worker processes, serving the card files
/// under `directory/cards` at the gateway's own URL
/// (`/appclip?id=ID` → `cards/ID.vcf`, `text/vcard`, 404 for a missing
/// file) on two loopback ports: plain HTTP, and TLS 1.2/1.3 with the
/// workload's certificate. `open_file_cache` (errors too: the unknown ids)
/// and `access_log off`, as the issue asks; `sendfile` (without
/// `tcp_nopush`, which Debian's sample config adds: with it, about 1% of
/// keep-alive answers here waited 40 ms for a delayed ACK); and keep-alive
/// without nginx's default cap of 1,000 requests a connection, since the
/// gateway has none. Its pid file, error log and temporary paths are all
/// in `directory`.
///
/// nginx runs under a small /bin/sh that stops it (SIGTERM) when the
/// benchmark's process is gone, however it went: no stray server.
final class NginxServer {
    static let executable = "/usr/sbin/nginx"

    let plainPort: UInt16
    let tlsPort: UInt16
    /// `open_file_cache max`: every card file and unknown id when the
    /// descriptor limit allows, else what it allows (`cacheSize`).
    let cacheEntries: Int
    private let directory: String
    /// The /bin/sh that runs nginx, a child of this process.
    private let shell: pid_t
    /// The master process.
    let pid: pid_t

    static let startDeadline = Duration.seconds(30)

    /// - Parameters:
    ///   - directory: holds `cards/` (written by the caller) and receives
    ///     the config, pid file, logs and temporary folders.
    ///   - command: how to start a program pinned to the server's cores
    ///     (`CPUPinning.command`).
    ///   - files: the card files; `open_file_cache` keeps a descriptor
    ///     open for each, so each worker may open that many and more.
    init(directory: String, workers: Int, files: Int, certificate: String, key: String, command: ([String]) -> [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw BenchError.process("\(Self.executable) is missing; install Debian's nginx (Scripts/bench installs it)")
        }
        self.directory = directory
        let ports = try LoopbackSocket.freePorts(2)
        plainPort = ports[0]
        tlsPort = ports[1]
        let config = (directory as NSString).appendingPathComponent("nginx.conf")
        try FileManager.default.createDirectory(atPath: (directory as NSString).appendingPathComponent("temp"), withIntermediateDirectories: true)
        let (descriptors, cacheEntries) = Self.cacheSize(files: files)
        self.cacheEntries = cacheEntries
        try Self.config(
            directory: directory, workers: workers, descriptors: descriptors, cacheEntries: cacheEntries,
            plain: plainPort, tls: tlsPort, certificate: certificate, key: key)
            .write(toFile: config, atomically: true, encoding: .utf8)
        try ProcessRunner.check(Self.executable, ["-t", "-q", "-p", directory, "-c", config])
        // $1: the benchmark's pid; the rest: nginx's command line. The
        // shell reaps nginx when it ends; a watcher beside it stops nginx
        // when the benchmark is gone.
        let script = """
            parent=$1; shift
            "$@" & nginx=$!
            ( while kill -0 "$parent" 2>/dev/null; do sleep 1; done; kill -TERM $nginx 2>/dev/null ) & watcher=$!
            wait $nginx
            kill -KILL $watcher 2>/dev/null
            """
        let arguments = ["/bin/sh", "-c", script, "sharelog-nginx", String(getpid())]
            + command([Self.executable, "-p", directory, "-c", config, "-g", "daemon off;"])
        shell = try Self.spawn(arguments, output: (directory as NSString).appendingPathComponent("nginx.out"))
        let pidFile = (directory as NSString).appendingPathComponent("nginx.pid")
        let deadline = Deadline("nginx writes its pid and listens", timeout: Self.startDeadline)
        var master: pid_t?
        while master == nil || !Self.accepts(plainPort) || !Self.accepts(tlsPort) {
            if master == nil, let text = try? String(contentsOfFile: pidFile, encoding: .utf8) {
                master = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if deadline.hasPassed || !Self.isRunning(shell) {
                let log = ["nginx.out", "error.log"].compactMap {
                    try? String(contentsOfFile: (directory as NSString).appendingPathComponent($0), encoding: .utf8)
                }.joined(separator: " ")
                if let master { kill(master, SIGKILL) }
                Self.reap(shell)
                throw BenchError.process("nginx did not start within \(Self.startDeadline): \(log.suffix(600))")
            }
            usleep(20_000)
        }
        pid = master!
    }

    deinit { stop() }

    /// The master and its workers: the processes whose CPU time is nginx's.
    var processes: [pid_t] { [pid] + ProcessTree.children(of: pid) }

    /// Stops nginx (SIGTERM to its master: a fast shutdown) and waits for
    /// it and its shell, at most 30 s; then kills what is left.
    func stop() {
        guard Self.isRunning(shell) else { return }
        kill(pid, SIGTERM)
        if (try? Deadline.block(until: "nginx stops", timeout: .seconds(30), every: .milliseconds(20)) { !Self.isRunning(self.shell) }) == nil {
            for process in processes { kill(process, SIGKILL) }
            Self.reap(shell)
        }
    }

    /// Starts `arguments` with standard input from /dev/null, output and
    /// error into `output`, and every signal unblocked and at its default.
    /// Not TestSupport's `Subprocess`: a process spawned from a Dispatch
    /// thread inherits its mask, where every signal is blocked, and a
    /// shell that cannot take SIGCHLD never returns from `wait`.
    private static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard rc == 0 else { throw BenchError.process("starting nginx: \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Whether `pid`, a child, still runs; reaps it once it has ended.
    private static func isRunning(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        let waited = waitpid(pid, &status, WNOHANG)
        return waited == 0 || (waited < 0 && errno == EINTR)
    }

    /// Kills `pid`, a child, and reaps it.
    private static func reap(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    private static func accepts(_ port: UInt16) -> Bool {
        guard let socket = try? LoopbackSocket.connect(port: port, timeout: .seconds(1)) else { return false }
        close(socket)
        return true
    }

    /// A worker's descriptor limit (`worker_rlimit_nofile`) and
    /// `open_file_cache max` for `files` ids. The cache keeps a descriptor
    /// open for each file it holds: ideally it holds every id (files and
    /// misses), so no request opens a file once it is warm, but a worker
    /// cannot raise its limit past the hard one (that needs
    /// CAP_SYS_RESOURCE), so the cache gets what the hard limit leaves
    /// after room for 5,000 connections.
    static func cacheSize(files: Int) -> (descriptors: Int, cacheEntries: Int) {
        var limit = rlimit()
        let hard = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(min(limit.rlim_max, 1 << 20)) : 8192
        let descriptors = min(files + 8192, hard)
        return (descriptors, min(files + 1000, descriptors - 5000))
    }

    static func config(
        directory: String, workers: Int, descriptors: Int, cacheEntries: Int, plain: UInt16, tls: UInt16, certificate: String, key: String
    ) -> String {
        let temp = (directory as NSString).appendingPathComponent("temp")
        return """
            # Written by sharelog-bench (Benchmarks/BenchmarkKit/NginxServer.swift).
            \(geteuid() == 0 ? "user root;" : "")
            worker_processes \(workers);
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            worker_rlimit_nofile \(descriptors);
            events { worker_connections 4096; }
            http {
                access_log off;
                sendfile on;
                keepalive_timeout 75s;
                keepalive_requests 1000000000;
                open_file_cache max=\(cacheEntries) inactive=300s;
                open_file_cache_valid 300s;
                open_file_cache_min_uses 1;
                open_file_cache_errors on;
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                types { }
                default_type text/vcard;
                ssl_protocols TLSv1.2 TLSv1.3;
                ssl_certificate \(certificate);
                ssl_certificate_key \(key);
                server {
                    listen 127.0.0.1:\(plain) backlog=1024;
                    listen 127.0.0.1:\(tls) ssl backlog=1024;
                    root \(directory)/cards;
                    location = /appclip { try_files /$arg_id.vcf =404; }
                    location / { return 404; }
                }
            }

            """
    }
}

/// Processes by their parent, from /proc.
enum ProcessTree {
    /// The pids whose parent is `pid`.
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { parent(of: $0) == pid }.sorted()
    }

    /// The parent of `pid` (field 4 of /proc/PID/stat); nil once it is gone.
    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// User and system CPU seconds of `pids`, summed (the whole process:
    /// every thread's).
    static func cpuSeconds(_ pids: [pid_t]) -> Double {
        pids.compactMap { ProcStatus.cpuSeconds(of: $0) }.reduce(0, +)
    }

    /// RssAnon of `pids`, summed, KiB.
    static func rssAnonKiB(_ pids: [pid_t]) -> Int {
        pids.compactMap { ProcStatus.rssAnonKiB(of: $0) }.reduce(0, +)
    }
}
