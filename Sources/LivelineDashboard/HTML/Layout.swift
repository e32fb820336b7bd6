import Foundation
import LivelineHTTP

/// A page's content: its title, its main part (what live updates replace) and where its live
/// updates come from.
struct PageContent {
    var title: String
    var main: HTML
    /// The `/dashboard/events?…` address of the page's stream; nil for a page that does not move.
    var events: String?
    var status = 200
}

/// The frame of every page: the document, the navigation, the sign-out form.
enum Layout {
    /// Security headers of every dashboard answer: nothing from elsewhere runs, nothing frames it,
    /// nothing is cached, the address (a one-time link) is not sent on.
    static func headers(contentType: String = "text/html; charset=utf-8") -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add("Content-Type", contentType)
        headers.add("Cache-Control", "no-store")
        headers.add(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; "
                + "frame-ancestors 'none'; base-uri 'none'")
        headers.add("X-Content-Type-Options", "nosniff")
        headers.add("X-Frame-Options", "DENY")
        headers.add("Referrer-Policy", "no-referrer")
        return headers
    }

    /// The document's start: its language, title, stylesheet and (for signed-in pages) the script.
    static func head(title: String, script: Bool) -> HTML {
        let scriptTag: HTML = script ? "\n<script src=\"/dashboard/static/dashboard.js\" defer></script>" : ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · Liveline</title>
            <link rel="stylesheet" href="/dashboard/static/dashboard.css">\(scriptTag)
            </head>
            """
    }

    /// A whole page for a signed-in person.
    static func page(_ content: PageContent, current: String, navigation: [(path: String, title: String)], csrf: String) -> HTML {
        let links = HTML.join(
            navigation.map { item in
                item.path == current
                    ? "<li><a href=\(Markup.quoted(item.path)) aria-current=\"page\">\(item.title)</a></li>"
                    : "<li><a href=\(Markup.quoted(item.path))>\(item.title)</a></li>"
            })
        let live: HTML =
            content.events.map { "<main id=\"live\" data-events=\(Markup.quoted($0))>" } ?? "<main id=\"live\">"
        let status: HTML =
            content.events == nil
            ? "" : "<p id=\"live-status\" role=\"status\" aria-live=\"polite\">Live updates need JavaScript; reload to see changes.</p>"
        return """
            \(head(title: content.title, script: true))
            <body>
            <a class="skip" href="#live">Skip to the content</a>
            <header class="top">
            <a class="brand" href="/dashboard">Liveline</a>
            <nav aria-label="Dashboard"><ul>\(links)</ul></nav>
            <form method="post" action="/dashboard/sign-out"><input type="hidden" name="csrf" value=\(Markup.quoted(csrf))><button class="secondary" type="submit">Sign out</button></form>
            \(status)
            </header>
            \(live)
            \(content.main)
            </main>
            </body>
            </html>
            """
    }

    /// The sign-in page (the one page shown without a session); with `once`, the button of a
    /// one-time link instead of the key's field.
    static func signIn(token: String, message: String?, once: String?) -> HTML {
        let note: HTML = message.map { "<p class=\"message error\" role=\"alert\">\($0)</p>" } ?? ""
        let fields: HTML =
            if let once {
                """
                <input type="hidden" name="once" value=\(Markup.quoted(once))>
                <p>This one-time link signs you in once, within an hour of being made.</p>
                <button type="submit">Sign in with this link</button>
                """
            } else {
                """
                <label for="key">Admin key</label>
                <input type="password" id="key" name="key" autocomplete="current-password" required size="40">
                <p class="note">The server's admin key (<code>LIVELINE_ADMIN_KEY</code>, or the one <code>liveline serve</code> printed on its first start and kept in the data folder's <code>admin-key</code>).</p>
                <button type="submit">Sign in</button>
                """
            }
        return """
            \(head(title: "Sign in", script: false))
            <body>
            <main class="signin" id="live">
            <h1>Liveline dashboard</h1>
            <section class="panel">
            <h2>Sign in</h2>
            \(note)
            <form method="post" action="/dashboard/sign-in">
            <input type="hidden" name="csrf" value=\(Markup.quoted(token))>
            \(fields)
            </form>
            </section>
            </main>
            </body>
            </html>
            """
    }
}
