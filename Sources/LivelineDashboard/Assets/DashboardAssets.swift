/// The dashboard's stylesheet and script, shipped in the binary (no CDN, no build step). Pages
/// work without the script: it only keeps a page current over Server-Sent Events.
enum DashboardAssets {
    static let stylesheet = #"""
        :root { --ink: #1d1d1f; --muted: #4a4a50; --line: #d2d2d7; --paper: #ffffff; --wash: #f5f5f7;
          --accent: #0a58ca; --bad: #a4161a; --good: #1b6e3a; --warn-bg: #fff4d6; --card: #1c1c1e; --card-ink: #f5f5f7; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--wash); }
        a { color: var(--accent); }
        a:focus, button:focus, input:focus, select:focus, textarea:focus, summary:focus { outline: 3px solid #1d1d1f; outline-offset: 2px; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--paper); padding: 4px 8px; }
        header.top { display: flex; flex-wrap: wrap; align-items: center; gap: 12px 24px; padding: 10px 20px; background: var(--paper);
          border-bottom: 1px solid var(--line); }
        header.top .brand { font-weight: 700; font-size: 17px; color: var(--ink); text-decoration: none; }
        nav ul { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 0; padding: 0; list-style: none; }
        nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
        header.top form { margin-left: auto; }
        main { max-width: 1180px; margin: 0 auto; padding: 16px 20px 40px; }
        h1 { font-size: 24px; margin: 8px 0 12px; } h2 { font-size: 18px; margin: 24px 0 8px; } h3 { font-size: 15px; margin: 14px 0 6px; }
        section.panel { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; margin: 12px 0; }
        .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 12px; }
        table { border-collapse: collapse; width: 100%; font-size: 14px; }
        caption { text-align: left; color: var(--muted); padding: 2px 0 6px; }
        th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { background: var(--wash); } tbody th { background: none; }
        td.num, th.num { text-align: right; } .num { font-variant-numeric: tabular-nums; }
        .empty, .ago, .note { color: var(--muted); }
        .status-ok { color: var(--good); font-weight: 600; } .status-bad { color: var(--bad); font-weight: 600; }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
        dl.facts div { display: contents; } dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; font-weight: 600; }
        dl.facts div.warning dd { color: var(--bad); }
        dl.facts + table, details > table, details > dl.facts { margin-top: 10px; } details { margin-top: 8px; }
        .big { font-size: 28px; font-weight: 700; }
        .message { padding: 8px 12px; border-radius: 8px; background: var(--warn-bg); border: 1px solid #e0c36b; }
        .message.error { background: #fde8e8; border-color: #e2a3a3; }
        form.inline { display: inline; }
        button { font: inherit; padding: 6px 14px; border-radius: 8px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
        button.secondary { background: var(--paper); color: var(--accent); }
        button.danger { background: var(--bad); border-color: var(--bad); }
        label { display: block; font-weight: 600; margin: 10px 0 4px; }
        input[type=password], input[type=text], select, textarea { font: inherit; padding: 6px 8px; border: 1px solid #86868b; border-radius: 6px;
          background: var(--paper); color: var(--ink); }
        textarea { width: 100%; min-height: 220px; font-family: ui-monospace, Menlo, monospace; font-size: 13px; }
        pre { background: var(--wash); border: 1px solid var(--line); border-radius: 8px; padding: 10px; font-size: 13px;
          white-space: pre-wrap; overflow-wrap: anywhere; }
        code { font-family: ui-monospace, Menlo, monospace; font-size: 13px; }
        .signin { max-width: 420px; margin: 60px auto; }
        /* The card as the phone draws it. */
        .cards { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
        .lock { width: 360px; background: var(--card); color: var(--card-ink); border-radius: 22px; padding: 14px 16px; }
        .lock p { margin: 0 0 4px; white-space: pre-line; } .lock p:first-child { font-weight: 700; }
        .island { background: #000; color: var(--card-ink); }
        .island.compact { display: flex; justify-content: space-between; gap: 40px; min-width: 220px; border-radius: 999px; padding: 8px 18px; font-weight: 600; }
        .island.expanded { width: 360px; border-radius: 36px; padding: 16px 20px; white-space: pre-line; }
        figure { margin: 0; } figcaption { color: var(--muted); font-size: 13px; margin-bottom: 4px; }
        .chart svg { width: 100%; max-width: 640px; height: auto; }
        .axis { fill: #4a4a50; font-size: 13px; }
        .legend { display: flex; gap: 14px; font-size: 13px; color: var(--muted); list-style: none; padding: 0; }
        .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
        .fill-accepted { fill: #1b6e3a; } .fill-refused { fill: #a4161a; } .fill-noanswer { fill: #6e6e73; }
        .swatch.fill-accepted { background: #1b6e3a; } .swatch.fill-refused { background: #a4161a; } .swatch.fill-noanswer { background: #6e6e73; }
        #live-status { font-size: 13px; color: var(--muted); margin: 0; }
        """#

    static let script = #"""
        // Keeps the page current: the server sends the page's main part again whenever it changes.
        // What the person was doing survives an update: open <details> stay open, focus stays on
        // the same control.
        (function () {
          "use strict";
          var main = document.getElementById("live");
          var status = document.getElementById("live-status");
          if (!main || !window.EventSource) { return; }
          var url = main.getAttribute("data-events");
          if (!url) { return; }
          function say(text) { if (status && status.textContent !== text) { status.textContent = text; } }
          function place(element) {
            var path = [];
            while (element && element !== main) {
              var index = 0, sibling = element;
              while ((sibling = sibling.previousElementSibling)) { index += 1; }
              path.unshift(index);
              element = element.parentElement;
            }
            return element === main ? path : null;
          }
          function find(path) {
            var element = main;
            for (var i = 0; element && i < path.length; i += 1) { element = element.children[path[i]]; }
            return element;
          }
          var source = new EventSource(url);
          source.addEventListener("page", function (event) {
            var open = [];
            main.querySelectorAll("details[open]").forEach(function (details) { open.push(place(details)); });
            var focused = document.activeElement && main.contains(document.activeElement) ? place(document.activeElement) : null;
            main.innerHTML = event.data;
            open.forEach(function (path) { var details = path && find(path); if (details && details.tagName === "DETAILS") { details.open = true; } });
            if (focused) { var target = find(focused); if (target && target.focus) { target.focus(); } }
            main.setAttribute("data-updated", String(Date.now()));
          });
          source.addEventListener("open", function () { say("Live: this page updates by itself."); });
          source.addEventListener("error", function () { say("Live: reconnecting…"); });
        })();
        """#
}
