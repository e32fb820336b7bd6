import LivelineCLI

#if canImport(Glibc)
import Glibc
#endif

exit(Liveline.run(Array(CommandLine.arguments.dropFirst())))
