/// Whether a scan goes on.
public enum ScanControl: Sendable {
    case proceed
    case stop
}
