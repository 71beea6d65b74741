import Foundation

extension NatsCluster {
    /// Server `index`'s nats-server config: its name, client and monitoring
    /// listeners on 127.0.0.1, its log file, JetStream with its store under
    /// its own directory, and the cluster listener with routes to every
    /// other server's cluster port (none for a single server: JetStream
    /// refuses a cluster without routes); then `security`'s TLS and
    /// authorization blocks.
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

            """ + cluster + securityConfig
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

    /// `text` as a double-quoted config string, its backslashes and quotes escaped.
    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
