import { jsonData, markup, SafeHtml } from '../shared/http/html';
import { cleanOrigin } from '../shared/http/web-url';
import type {
  LinkMeta,
  OverlayContent,
  PagePixel,
  SplashContent,
} from '../links/link-behaviour.service';
import { pixelLoads, pixelSources } from './visitor-pixels';
import { sha256Source, VISITOR_SCRIPT, VISITOR_SCRIPT_HASH } from './visitor-script';

/** A rendered visitor page and the Content-Security-Policy that allows exactly what it loads. */
export interface VisitorPage {
  body: string;
  policy: string;
}

/** How long a pixel page waits for its pixels before sending the visitor on regardless. */
export const PIXEL_WAIT_MS = 1500;

const BASE_STYLE =
  'body{font-family:system-ui,sans-serif;margin:0;color:#1f2937}main{max-width:40rem;margin:3rem auto;padding:0 1rem}a{color:#0b57d0}.cta{display:inline-block;padding:.6rem 1.2rem;border-radius:.4rem;background:#0b57d0;color:#fff;text-decoration:none}.msg{white-space:pre-line}img.hero{max-width:100%;height:auto}';
const FRAME_STYLE =
  'html,body{height:100%;overflow:hidden}.bar{display:flex;gap:1rem;align-items:center;justify-content:space-between;height:2.5rem;padding:0 1rem;background:#f3f4f6;border-bottom:1px solid #d1d5db;font-size:.9rem}.bar strong{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}iframe{display:block;border:0;width:100%;height:calc(100% - 2.5rem - 1px)}.overlay{position:fixed;max-width:22rem;padding:1rem;border-radius:.5rem;box-shadow:0 4px 16px rgba(0,0,0,.3)}.overlay a,.overlay button{display:inline-block;margin-top:.5rem;padding:.4rem .9rem;border:0;border-radius:.3rem;background:rgba(255,255,255,.9);color:#111;text-decoration:none;font:inherit;cursor:pointer}.overlay label{display:block;margin-top:.4rem}.overlay input,.overlay textarea{width:100%;box-sizing:border-box}';

const POSITIONS: Record<string, string> = {
  'bottom-right': 'right:1rem;bottom:1rem',
  'bottom-left': 'left:1rem;bottom:1rem',
  'top-right': 'right:1rem;top:3.5rem',
  'top-left': 'left:1rem;top:3.5rem',
};

/** Only a clean origin becomes a CSP source: a host such as `x;script-src` would add a directive. */
const originOf = cleanOrigin;

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

interface Policy {
  style: string;
  pixels?: readonly PagePixel[];
  script?: boolean;
  images?: string[];
  frame?: string | null;
  form?: boolean;
}

function policyOf(p: Policy): string {
  const { scripts, beacons } = pixelSources(p.pixels ?? []);
  const images = [...new Set((p.images ?? []).map(originOf).filter((o): o is string => !!o))];
  const parts = [
    "default-src 'none'",
    `style-src ${sha256Source(p.style)}`,
    `img-src 'self' data: ${[...beacons, ...images].join(' ')}`.trim(),
    "base-uri 'none'",
    "frame-ancestors 'none'",
    p.form ? "form-action 'self'" : "form-action 'none'",
  ];
  if (p.script) parts.push(`script-src ${[VISITOR_SCRIPT_HASH, ...scripts].join(' ')}`);
  if (p.script) parts.push(`connect-src ${["'self'", ...beacons].join(' ')}`);
  if (p.frame) parts.push(`frame-src ${p.frame}`);
  return parts.join('; ');
}

interface Shell {
  title: string;
  style: string;
  head?: SafeHtml;
  body: SafeHtml;
  data?: unknown;
}

const SCRIPT = new SafeHtml(VISITOR_SCRIPT);

function shell(s: Shell): string {
  const script =
    s.data === undefined
      ? ''
      : markup`<script type="application/json" id="linkqr-data">${jsonData(s.data)}</script><script>${SCRIPT}</script>`;
  return markup`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${s.title}</title>${s.head ?? ''}<style>${new SafeHtml(s.style)}</style></head><body>${s.body}${script}</body></html>`
    .value;
}

const refresh = (seconds: number, url: string) =>
  markup`<noscript><meta http-equiv="refresh" content="${`${seconds};url=${url}`}"></noscript>`;

/** Fires the pixels, then sends the visitor to `destination`. */
export function pixelPage(destination: string, pixels: readonly PagePixel[]): VisitorPage {
  const body = shell({
    title: 'Redirecting…',
    style: BASE_STYLE,
    head: refresh(0, destination),
    body: markup`<main><p>Taking you to <a href="${destination}">${hostOf(destination)}</a>…</p></main>`,
    data: {
      mode: 'redirect',
      target: destination,
      wait: PIXEL_WAIT_MS,
      pixels: pixelLoads(pixels),
    },
  });
  return { body, policy: policyOf({ style: BASE_STYLE, pixels, script: true }) };
}

const DEFAULT_COUNTER = 5;

function splashContent(destination: string, splash: SplashContent | null): SafeHtml {
  if (!splash)
    return markup`<h1>You are being redirected</h1><p>Next stop: <strong>${hostOf(destination)}</strong></p>`;
  const title = splash.title ? markup`<h1>${splash.title}</h1>` : '';
  const image = splash.image ? markup`<p><img class="hero" src="${splash.image}" alt=""></p>` : '';
  const message = splash.message ? markup`<p class="msg">${splash.message}</p>` : '';
  const cta = splash.link
    ? markup`<p><a class="cta" href="${splash.link}" rel="noopener">${splash.button || 'Learn more'}</a></p>`
    : '';
  return markup`${title}${image}${message}${cta}`;
}

/** A splash page (the owner's, or the plain default) that counts down, then sends the visitor on. */
export function splashPage(
  destination: string,
  splash: SplashContent | null,
  pixels: readonly PagePixel[],
): VisitorPage {
  const counter = splash?.counter ?? DEFAULT_COUNTER;
  const body = shell({
    title: splash?.title || 'Redirecting…',
    style: BASE_STYLE,
    head: refresh(counter, destination),
    body: markup`<main>${splashContent(destination, splash)}<p>Redirecting in <span id="linkqr-count">${counter}</span> s. <a id="linkqr-skip" href="${destination}">Skip</a></p></main>`,
    data: { mode: 'splash', target: destination, counter, pixels: pixelLoads(pixels) },
  });
  return {
    body,
    policy: policyOf({
      style: BASE_STYLE,
      pixels,
      script: true,
      images: splash?.image ? [splash.image] : [],
    }),
  };
}

/** The overlay's own CSS: its colours and position (validated `#RRGGBB` and a known position). */
function overlayStyle(overlay: OverlayContent): string {
  const colour = /^#[0-9a-fA-F]{6}$/;
  const color = colour.test(overlay.color) ? overlay.color : '#ffffff';
  const background = colour.test(overlay.background) ? overlay.background : '#1f2937';
  const position = POSITIONS[overlay.position] ?? POSITIONS['bottom-right'];
  return `.overlay{color:${color};background:${background};${position}}`;
}

export interface ContactForm {
  action: string;
  token: string;
}

function overlayBox(overlay: OverlayContent, contact: ContactForm | null): SafeHtml {
  const message = overlay.message ? markup`<p class="msg">${overlay.message}</p>` : '';
  if (overlay.type === 'contact' && contact) {
    return markup`<aside class="overlay" role="dialog" aria-label="Contact"><form id="linkqr-contact" method="post" action="${contact.action}">${message}<input type="hidden" name="token" value="${contact.token}"><label>Name <input name="name" maxlength="100" required></label><label>Email <input type="email" name="email" maxlength="254" required></label><label>Message <textarea name="message" maxlength="2000" rows="3" required></textarea></label><button type="submit">${overlay.button || 'Send'}</button><p id="linkqr-contact-status" role="status"></p></form></aside>`;
  }
  const cta = overlay.link
    ? markup`<a href="${overlay.link}" target="_top" rel="noopener">${overlay.button || 'Learn more'}</a>`
    : '';
  return markup`<aside class="overlay" role="dialog" aria-label="Message">${message}${cta}</aside>`;
}

export interface FrameOptions {
  destination: string;
  title: string;
  pixels: readonly PagePixel[];
  /** The origin this page is served on: the target is never given script access to it. */
  selfOrigin: string;
  overlay?: OverlayContent | null;
  contact?: ContactForm | null;
}

/**
 * The target in a full-page sandboxed iframe under a slim bar, optionally with a CTA overlay on
 * top. A target on this service's own origin is framed without `allow-same-origin`, so it can
 * never script this page.
 */
export function framePage(o: FrameOptions): VisitorPage {
  const target = originOf(o.destination);
  const sandbox = [
    'allow-scripts',
    'allow-forms',
    'allow-popups',
    'allow-popups-to-escape-sandbox',
    ...(target && target !== o.selfOrigin ? ['allow-same-origin'] : []),
  ].join(' ');
  const style = BASE_STYLE + FRAME_STYLE + (o.overlay ? overlayStyle(o.overlay) : '');
  const label = o.title || hostOf(o.destination);
  const overlay = o.overlay ? overlayBox(o.overlay, o.contact ?? null) : '';
  const body = shell({
    title: label,
    style,
    body: markup`<div class="bar"><strong>${label}</strong><a href="${o.destination}" target="_top" rel="noopener">Open ${hostOf(o.destination)} directly</a></div><iframe src="${o.destination}" sandbox="${sandbox}" referrerpolicy="no-referrer" title="${label}"></iframe>${overlay}`,
    data: { mode: 'stay', pixels: pixelLoads(o.pixels) },
  });
  return {
    body,
    policy: policyOf({
      style,
      pixels: o.pixels,
      script: true,
      frame: target,
      form: o.overlay?.type === 'contact',
    }),
  };
}

/** What link-preview crawlers get: Open Graph and Twitter card tags, no script, no redirect. */
export function previewPage(meta: LinkMeta, shortUrl: string): VisitorPage {
  const title = meta.title || shortUrl;
  const description = meta.description
    ? markup`<meta name="description" content="${meta.description}"><meta property="og:description" content="${meta.description}"><meta name="twitter:description" content="${meta.description}">`
    : '';
  const image = meta.image
    ? markup`<meta property="og:image" content="${meta.image}"><meta name="twitter:image" content="${meta.image}">`
    : '';
  const card = meta.image ? 'summary_large_image' : 'summary';
  const head = markup`<meta property="og:type" content="website"><meta property="og:url" content="${shortUrl}"><meta property="og:title" content="${title}">${description}${image}<meta name="twitter:card" content="${card}"><meta name="twitter:title" content="${title}">`;
  const body = shell({
    title,
    style: BASE_STYLE,
    head,
    body: markup`<main><h1>${title}</h1>${meta.description ? markup`<p>${meta.description}</p>` : ''}</main>`,
  });
  return { body, policy: policyOf({ style: BASE_STYLE, images: meta.image ? [meta.image] : [] }) };
}

/** The answer to a contact form sent without script. */
export function contactAnswerPage(message: string, destination: string | null): VisitorPage {
  const next = destination ? markup`<p><a href="${destination}">Continue</a></p>` : '';
  const body = shell({
    title: message,
    style: BASE_STYLE,
    body: markup`<main><p role="status">${message}</p>${next}</main>`,
  });
  return { body, policy: policyOf({ style: BASE_STYLE }) };
}
