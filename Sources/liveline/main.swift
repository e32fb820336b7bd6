import LivelineCLI

#if canImport(Glibc)
import Glibc
#endif

exit(LivelineCommandLine.run(Array(CommandLine.arguments.dropFirst())))
