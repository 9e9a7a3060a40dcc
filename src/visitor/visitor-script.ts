import { createHash } from 'node:crypto';

/**
 * The one script of every visitor page, static so that the pages' Content-Security-Policy can
 * allow it by hash instead of allowing inline script. It reads the page's JSON data block, sets up
 * each pixel's network queue the way the network's snippet does and loads its loader and beacon,
 * then (by `mode`): sends the visitor on once every pixel has loaded or after `wait` ms at the
 * latest (`redirect`), counts down a splash page (`splash`), or only submits a contact overlay's
 * form in place (`stay`).
 */
const SOURCE = `(function () {
  var w = window, d = document;
  var cfg = JSON.parse(d.getElementById('linkqr-data').textContent);
  function queue(name) {
    if (w[name]) return w[name];
    var f = function () { f.callMethod ? f.callMethod.apply(f, arguments) : f.queue.push(arguments); };
    f.push = f; f.loaded = true; f.version = '2.0'; f.queue = [];
    w[name] = f;
    return f;
  }
  function layer() { w.dataLayer = w.dataLayer || []; return w.dataLayer; }
  function gtag() { layer().push(arguments); }
  var setup = {
    gtm: function () { layer().push({ 'gtm.start': new Date().getTime(), event: 'gtm.js' }); },
    gtag: function (tag) { w.gtag = w.gtag || gtag; w.gtag('js', new Date()); w.gtag('config', tag); },
    fbq: function (tag) { var q = queue('fbq'); w._fbq = w._fbq || q; q('init', tag); q('track', 'PageView'); },
    linkedin: function (tag) {
      w._linkedin_partner_id = tag;
      w._linkedin_data_partner_ids = w._linkedin_data_partner_ids || [];
      w._linkedin_data_partner_ids.push(tag);
    },
    twq: function (tag) { var q = queue('twq'); q('config', tag); },
    qp: function (tag) { var q = queue('qp'); q('init', tag); q('track', 'ViewContent'); },
    pintrk: function (tag) { var q = queue('pintrk'); q('load', tag); q('page'); },
    uet: function () { w.uetq = w.uetq || []; },
    snaptr: function (tag) { var q = queue('snaptr'); q('init', tag); q('track', 'PAGE_VIEW'); },
    rdt: function (tag) { var q = queue('rdt'); q('init', tag); q('track', 'PageVisit'); },
    ttq: function () { w.TiktokAnalyticsObject = 'ttq'; var q = queue('ttq'); q('page'); },
    generic: function (tag, type) { layer().push({ event: 'linkqr_pixel', pixel: type, tag: tag }); }
  };
  var after = {
    uet: function (tag) {
      if (typeof w.UET !== 'function') return;
      var o = { ti: tag, q: w.uetq }; w.uetq = new w.UET(o); w.uetq.push('pageLoad');
    }
  };
  var pending = 0, left = false;
  function leave() {
    if (left || cfg.mode !== 'redirect') return;
    left = true;
    w.location.replace(cfg.target);
  }
  function settled() { pending -= 1; if (pending <= 0) leave(); }
  (cfg.pixels || []).forEach(function (p) {
    if (setup[p.setup]) setup[p.setup](p.tag, p.type);
    (p.scripts || []).forEach(function (src) {
      pending += 1;
      var s = d.createElement('script');
      s.async = true; s.src = src;
      s.onload = function () { if (after[p.setup]) after[p.setup](p.tag); settled(); };
      s.onerror = settled;
      d.head.appendChild(s);
    });
    (p.images || []).forEach(function (src) {
      pending += 1;
      var i = new Image(1, 1);
      i.onload = settled; i.onerror = settled;
      i.src = src;
    });
  });
  if (cfg.mode === 'redirect') {
    w.setTimeout(leave, cfg.wait);
    if (pending === 0) leave();
  }
  if (cfg.mode === 'splash') {
    var left_s = cfg.counter, out = d.getElementById('linkqr-count');
    var tick = function () {
      if (out) out.textContent = String(left_s);
      if (left_s <= 0) { w.location.replace(cfg.target); return; }
      left_s -= 1;
      w.setTimeout(tick, 1000);
    };
    tick();
  }
  var form = d.getElementById('linkqr-contact');
  if (form && w.fetch && w.URLSearchParams) {
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var status = d.getElementById('linkqr-contact-status');
      var body = new URLSearchParams(new FormData(form));
      w.fetch(form.action, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString()
      }).then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); })
        .then(function (r) {
          status.textContent = r.body.message;
          if (r.ok) form.reset();
        }, function () { status.textContent = 'Could not send your message, try again.'; });
    });
  }
})();`;

export const VISITOR_SCRIPT = SOURCE;

/** The CSP source that allows exactly this script. */
export const VISITOR_SCRIPT_HASH = `'sha256-${createHash('sha256').update(SOURCE).digest('base64')}'`;

export function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}
