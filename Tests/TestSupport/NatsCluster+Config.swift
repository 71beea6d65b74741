import Foundation

extension NatsCluster {
    /// Server `index`'s nats-server config: its name, client and monitoring
    /// listeners on 127.0.0.1, its log file, JetStream with its store under
    /// its own directory, and the cluster listener with routes to every
    /// other server's cluster port (none for a single server: JetStream
    /// refuses a cluster without routes); then `security`'s TLS and
    /// authorization blocks, or `operatorMode`'s operator and resolver.
    func config(_ index: Int) -> String {
        let own = ports[index]
        let routes = ports.indices.filter { $0 != index }.map { "    \"nats-route://127.0.0.1:\(ports[$0].cluster)\"" }
        let cluster = size == 1 ? "" : """
            cluster {
              name: \(quoted(name))
              listen: "127.0.0.1:\(own.cluster)"
              routes: [
            \(routes.joined(separator: "\n"))
              ]
            }

            """
        return """
            server_name: \(quoted(serverNames[index]))
            listen: "127.0.0.1:\(own.client)"
            http: "127.0.0.1:\(own.monitor)"
            log_file: \(quoted(logPath(index)))
            jetstream {
              store_dir: \(quoted((serverDirectory(index) as NSString).appendingPathComponent("js")))
              max_memory_store: 64MB
              max_file_store: 1GB
            }

            """ + cluster + securityConfig + operatorConfig
    }

    /// The `tls` and `authorization` blocks `security` asks for; empty without it.
    private var securityConfig: String {
        guard let security else { return "" }
        return """
            tls {
              cert_file: \(quoted(security.authority.serverCertificate))
              key_file: \(quoted(security.authority.serverKey))
              ca_file: \(quoted(security.authority.caCertificate))
              verify: true
              timeout: 5
            }
            authorization {
              user: \(quoted(security.user))
              password: \(quoted(security.password))
            }

            """
    }

    /// The trusted operator's JWT, its system account, and a memory resolver
    /// preloaded with the JWT of every account `operatorMode` names; empty
    /// without it. nats-server 2.9 starts JetStream in operator mode only
    /// with a system account.
    private var operatorConfig: String {
        guard let operatorMode else { return "" }
        let preload = operatorMode.preloadedAccounts.map { "  \(quoted($0.key.publicKey)): \(quoted($0.jwt))" }
        return """
            operator: \(quoted(operatorMode.trustedOperator.jwt))
            system_account: \(quoted(operatorMode.trustedOperator.systemAccount.key.publicKey))
            resolver: MEMORY
            resolver_preload: {
            \(preload.joined(separator: "\n"))
            }

            """
    }

    /// `text` as a double-quoted config string, its backslashes and quotes escaped.
    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
