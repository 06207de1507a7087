#if canImport(Glibc)
import Glibc
#endif
import ProcessKit

exit(AppShell.main(arguments: Array(CommandLine.arguments.dropFirst())))
