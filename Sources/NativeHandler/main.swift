#if canImport(Glibc)
import Glibc
#endif
import ProcessKit

exit(NativeHandlerShell.main(arguments: Array(CommandLine.arguments.dropFirst())))
