// Live updates for the clinician console (api/console/console-live.ts; docs/care.md, Console).
// Served as a file: the console's CSP allows scripts from this origin only, never inline.
// The page's #live element names its event stream, the page to fetch and the version it shows.
// On a newer version the page is fetched again and its <main> swapped in, keeping what the
// clinician typed and where the cursor was. Without this script, <noscript> refreshes the page.
(function () {
  'use strict';
  var marker = document.getElementById('live');
  if (!marker || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var pageUrl = marker.getAttribute('data-page');
  var shown = marker.getAttribute('data-version');
  var latest = shown;
  var busy = false;

  function note(text) {
    var p = document.getElementById('live-note');
    if (!p) {
      p = document.createElement('p');
      p.id = 'live-note';
      p.className = 'error-message';
      p.setAttribute('role', 'status');
      document.querySelector('main').prepend(p);
    }
    p.textContent = text;
  }

  // A form control's identity across renders: its form's action and its name.
  function keyOf(el) {
    var form = el.form ? el.form.getAttribute('action') : '';
    return form + '#' + (el.name || el.id || '');
  }
  function editable(root) {
    return root.querySelectorAll('textarea, input:not([type=hidden]):not([type=submit]), select');
  }

  function swap(doc) {
    var main = document.querySelector('main');
    var fresh = doc.querySelector('main');
    // Never move scripts or <noscript> across: this script is already running, and a
    // <noscript> meta refresh parsed with scripting off would reload the page once inserted.
    fresh.querySelectorAll('script, noscript').forEach(function (n) { n.remove(); });
    var typed = new Map();
    editable(main).forEach(function (el) { if (el.value !== el.defaultValue) typed.set(keyOf(el), el.value); });
    var active = document.activeElement && main.contains(document.activeElement) ? document.activeElement : null;
    var focus = active ? { key: keyOf(active), start: active.selectionStart, end: active.selectionEnd } : null;
    var scroll = window.scrollY;
    main.replaceChildren.apply(main, Array.prototype.slice.call(document.adoptNode(fresh).childNodes));
    editable(main).forEach(function (el) {
      var k = keyOf(el);
      if (typed.has(k)) el.value = typed.get(k);
      if (focus && k === focus.key) {
        el.focus({ preventScroll: true });
        try { if (focus.start !== null) el.setSelectionRange(focus.start, focus.end); } catch (e) { /* not a text field */ }
      }
    });
    if (doc.title) document.title = doc.title;
    window.scrollTo(0, scroll);
  }

  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      // Bounded: a page that changes on every fetch is not worth a loop.
      for (var i = 0; i < 3 && latest !== shown; i++) {
        var res = await fetch(pageUrl, { credentials: 'same-origin', headers: { accept: 'text/html' } });
        // Signed out (a redirect to sign-in) or no longer yours: the page itself says so.
        if (res.redirected || !res.ok) { window.location.assign(pageUrl); return; }
        var doc = new DOMParser().parseFromString(await res.text(), 'text/html');
        var next = doc.getElementById('live');
        if (!doc.querySelector('main') || !next) { window.location.assign(pageUrl); return; }
        shown = next.getAttribute('data-version');
        swap(doc);
        document.documentElement.setAttribute('data-live-version', shown);
      }
    } catch (e) {
      note('Live updates could not fetch the page. Reload the page to see the newest messages.');
    } finally {
      busy = false;
    }
  }

  var events = new EventSource(marker.getAttribute('data-events'));
  events.addEventListener('version', function (e) {
    latest = e.data;
    if (latest !== shown) void refresh();
  });
  events.addEventListener('open', function () {
    document.documentElement.setAttribute('data-live', 'open');
    var p = document.getElementById('live-note');
    if (p) p.remove();
  });
  function stop() {
    events.close();
    window.location.assign(pageUrl);
  }
  events.addEventListener('gone', stop);
  events.addEventListener('signin', stop);
  events.addEventListener('error', function () {
    // CLOSED: the server refused the stream (signed out, not yours); otherwise the browser retries.
    if (events.readyState === EventSource.CLOSED) note('Live updates stopped. Reload the page to see the newest messages.');
    else document.documentElement.setAttribute('data-live', 'reconnecting');
  });
})();
