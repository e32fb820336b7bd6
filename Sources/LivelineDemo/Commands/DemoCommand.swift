import Foundation
import Liveline
import LivelineCLI
import LivelineServer

/// `liveline demo`: the whole product in one command, with no setup (docs/operations.md, "The demo").
enum DemoCommand: CLICommand {
    static let name = "demo"
    static let summary = "play the three features with simulated iPhones (no setup)"
    static func help(_ context: CLIContext) -> String {
        """
        Usage: liveline demo [--port N] [--data DIR] [--speed X] [--for SECONDS]

        Runs a server on the embedded defaults (SQLite, the in-process APNs sandbox, the demo
        feed of tram line 5), a household of two — Dennis and Jaqueline — with three simulated
        iPhones (his on iOS 18, hers on iOS 18 and 17.2), and plays three stories on a loop, all
        at once:

          shopping  Dennis puts things on the week's list and goes shopping; his card starts on
                    his phone, hers by push-to-start; he checks items off from the Dynamic
                    Island while she adds one from home; he leaves and every card ends.
          dinner    Dennis asks Jaqueline what to cook tonight; she taps the invitation, both
                    answer, the kitchen thinks, she picks, both confirm: the decided dish ends
                    every card and its ingredients go onto the shopping list.
          tram      both take the next tram of the demo feed; the server follows the rides
                    (the feed's recorded real time replayed where the trip fits it) until they
                    arrive, at --speed times real time.

        It prints the dashboard's address under /dashboard/, narrates every step and every card
        change on standard error (standard output carries the server's warnings as JSON lines),
        and stops after --for seconds, or on Ctrl-C (SIGINT) or SIGTERM. Then it checks every
        phone: each card must show the server's current revision and state of its context (an
        ended context: an ended card). Exit 0 when all do, 1 naming those that do not.

        Options:
          --port N         HTTP port on 127.0.0.1; 0 picks a free one           [8080]
          --data DIR       keep the demo's data here (a later demo on it goes on); without it
                           a throw-away folder is used and deleted on exit
          --speed X        demo time per real time, a number above 0, at most 100: the tram
                           and every date the server and the phones keep (stale, dismissal,
                           8-hour end) run X times as fast; the stories take their steps in
                           real seconds, so they read the same at any speed              [10]
          --for SECONDS    stop by itself after this many seconds (a whole number, ≥ 1)

        The demo reads no LIVELINE_* settings. It starts its clock now, or — when no tram runs
        soon (at night) — 3 minutes before the next one, and says so.
        """
    }

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let options = try DemoOptions.parse(arguments)
        let signals = ShutdownSignal()
        let demo: Demo
        do {
            demo = try Demo(options, context: context)
        } catch let error as CLIError {
            context.printError("liveline demo: \(error.message)")
            return 1
        }
        demo.play()
        if let duration = options.duration {
            let signalled = signals.wait(timeout: TimeInterval(duration))
            context.printError(signalled ? "liveline demo: stopping (signal)" : "liveline demo: stopping (\(duration) s are up)")
        } else {
            signals.wait()
            context.printError("liveline demo: stopping (signal)")
        }
        return demo.finish()
    }

    /// The dashboard's address as a one-time sign-in link (good once, within an hour; it holds no
    /// key, and the admin key is never printed).
    static func dashboardLink(_ app: Application) -> String { app.dashboardSignInLink() }
}
