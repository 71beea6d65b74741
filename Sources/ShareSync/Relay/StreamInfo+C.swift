internal import CNATS

extension StreamInfo {
    /// Copies what the relay needs out of libnats's `jsStreamInfo`.
    init(_ info: jsStreamInfo) {
        let config = info.Config?.pointee
        name = config?.Name.map { String(cString: $0) } ?? ""
        subjects = (0..<Int(config?.SubjectsLen ?? 0)).compactMap { index in
            config?.Subjects?[index].map { String(cString: $0) }
        }
        createdNanoseconds = info.Created
        maxAgeNanoseconds = config?.MaxAge ?? 0
        replicas = Int(config?.Replicas ?? 0)
        duplicateWindowNanoseconds = config?.Duplicates ?? 0
        messages = info.State.Msgs
        bytes = info.State.Bytes
        firstSequence = info.State.FirstSeq
        lastSequence = info.State.LastSeq
    }
}
