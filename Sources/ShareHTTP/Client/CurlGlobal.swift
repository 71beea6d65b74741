internal import CCurl

/// libcurl's process-wide setup (`curl_global_init`), done once before the
/// first handle and never undone: the process may hold handles until it
/// exits.
enum CurlGlobal {
    /// `curl_global_init`'s `CURLcode`. Swift runs a global's initializer
    /// exactly once, under a lock, however many threads ask at once; so
    /// libcurl is set up once even when its own setup is not thread-safe.
    static let status: CURLcode.RawValue = sharelog_curl_global_init().rawValue

    /// Sets libcurl up on first use.
    /// - Throws: `GatewayClientError.setup` when `curl_global_init` failed.
    static func ensure() throws(GatewayClientError) {
        guard status == CURLE_OK.rawValue else {
            throw .setup("curl_global_init failed: \(String(cString: curl_easy_strerror(CURLcode(rawValue: status))))")
        }
    }
}
