import ShareHTTP
import ShareLog
import ShareMetrics
import ShareSync

/// The `--metrics tcp:HOST:PORT|unix:PATH` option of the long-running
/// commands (`serve`, `http`, `relay`): where to serve `/metrics`,
/// `/healthz` and `/readyz` (docs/OPERATIONS.md "Metrics"). Off unless
/// given.
struct MetricsOptions {
    let endpoint: Endpoint?

    static let options: [OptionSpec] = [
        .value("metrics", "tcp:HOST:PORT|unix:PATH", "serve Prometheus metrics at /metrics, and /healthz and /readyz, there (off by default)")
    ]

    init(_ arguments: inout Arguments) throws {
        guard let text = try arguments.option("metrics") else {
            endpoint = nil
            return
        }
        let endpoint: Endpoint
        do { endpoint = try Endpoint(parsing: text) } catch { throw CLIError.invalidInput("--metrics: \(error)") }
        switch endpoint {
        case .tcp, .unix: self.endpoint = endpoint
        default: throw CLIError.invalidInput("--metrics: metrics are served on tcp:HOST:PORT or unix:PATH, not \(endpoint)")
        }
    }

    /// The store's and maintenance's metrics, served at `endpoint`; nil
    /// when `--metrics` was not given. The endpoint answers `/readyz` with
    /// 503 until the command calls `set(.ready)`. Stop it last, after the
    /// server it describes.
    func start(_ store: ShareStore) throws -> MetricsService? {
        guard let endpoint else { return nil }
        let service = try MetricsService(store, at: endpoint)
        logEvent(
            "metrics.serving", "metrics: serving /metrics, /healthz and /readyz on \(service.server.endpoint)", .info,
            [("endpoint", LogValue("\(service.server.endpoint)"))])
        return service
    }
}

/// A running `--metrics` endpoint and the families every long-running
/// command shares; each command adds its own to `registry`.
final class MetricsService: Sendable {
    let registry = MetricsRegistry()
    let maintenance: MaintenanceMetrics
    let endpoint: MetricsEndpoint
    let server: HTTPServer

    /// Serves `store`'s metrics at `address`, on one thread.
    init(_ store: ShareStore, at address: Endpoint) throws {
        let storeMetrics = StoreMetrics(store: store, registry: registry)
        maintenance = MaintenanceMetrics(registry: registry)
        endpoint = MetricsEndpoint(registry: registry, health: { storeMetrics.canRead() })
        var configuration = HTTPServerConfiguration(endpoint: address)
        configuration.threads = 1
        configuration.maxConnections = 64
        do {
            server = try HTTPServer(serving: endpoint, configuration: configuration, log: { ProcessLog.record($0) })
        } catch {
            throw CLIError.failure("--metrics \(address): \(error)")
        }
    }

    /// Stops serving. Idempotent.
    func stop() { server.stop(grace: .seconds(1)) }
}
