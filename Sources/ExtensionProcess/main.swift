#if canImport(Glibc)
import Glibc
#endif
import ProcessKit

exit(ExtensionShell.main(arguments: Array(CommandLine.arguments.dropFirst())))
