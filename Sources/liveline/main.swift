import LivelineCLI
import LivelineDemo

#if canImport(Glibc)
import Glibc
#endif

exit(LivelineCommandLine.builtIn.run(Array(CommandLine.arguments.dropFirst())))
