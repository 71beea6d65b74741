internal import CNATS

extension ConsumerInfo {
    /// Copies what the relay needs out of libnats's `jsConsumerInfo`.
    init(_ info: jsConsumerInfo) {
        let config = info.Config?.pointee
        filterSubject = config?.FilterSubject.map { String(cString: $0) } ?? ""
        acknowledgesAll = config?.AckPolicy == js_AckAll
        deliveredStreamSequence = info.Delivered.Stream
    }
}
