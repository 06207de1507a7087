import SiteSettings

#if canImport(Glibc)
import Glibc
#endif

// The process shell arrives with the process runtime; until then this executable only proves
// that it builds and links the shared model without Foundation.
let message = "extensionprocess: the process shell is not implemented yet (schema version \(SettingsDocument.currentSchemaVersion))\n"
_ = message.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
exit(70)
