import type { PixelType } from '../pixels/pixel-tags';
import type { PagePixel } from '../links/link-behaviour.service';
import { cleanOrigin, isWebUrl } from '../shared/http/web-url';

/** How a visitor page fires one pixel: the page script's setup routine and what it loads. */
export interface PixelLoad {
  type: PixelType;
  tag: string;
  /** Key of the setup routine in visitor-script.ts. */
  setup: string;
  scripts: string[];
  images: string[];
}

interface Network {
  setup: string;
  scripts: (tag: string) => string[];
  images: (tag: string) => string[];
  /** Origins the network's script sends its events to (connect-src and img-src). */
  beacons: string[];
}

const e = encodeURIComponent;
const GTAG = (tag: string) => [`https://www.googletagmanager.com/gtag/js?id=${e(tag)}`];
const GOOGLE_ANALYTICS = [
  'https://www.google-analytics.com',
  'https://region1.google-analytics.com',
];

/**
 * Each pixel type's network and its standard loader (the script its snippet inserts) and no-script
 * beacon (the image its snippet's `<noscript>` part requests). `retargetpixel` has no single
 * well-known snippet: it gets the generic beacon below.
 */
const NETWORKS: Partial<Record<PixelType, Network>> = {
  gtmpixel: {
    setup: 'gtm',
    scripts: (tag) => [`https://www.googletagmanager.com/gtm.js?id=${e(tag)}`],
    images: () => [],
    beacons: GOOGLE_ANALYTICS,
  },
  gapixel: { setup: 'gtag', scripts: GTAG, images: () => [], beacons: GOOGLE_ANALYTICS },
  adsnetworkpixel: {
    setup: 'gtag',
    scripts: GTAG,
    images: () => [],
    beacons: ['https://www.googleadservices.com', 'https://googleads.g.doubleclick.net'],
  },
  fbpixel: {
    setup: 'fbq',
    scripts: () => ['https://connect.facebook.net/en_US/fbevents.js'],
    images: (tag) => [`https://www.facebook.com/tr?id=${e(tag)}&ev=PageView&noscript=1`],
    beacons: ['https://www.facebook.com'],
  },
  professionalpixel: {
    setup: 'linkedin',
    scripts: () => ['https://snap.licdn.com/li.lms-analytics/insight.min.js'],
    images: (tag) => [`https://px.ads.linkedin.com/collect/?pid=${e(tag)}&fmt=gif`],
    beacons: ['https://px.ads.linkedin.com'],
  },
  microblogpixel: {
    setup: 'twq',
    scripts: () => ['https://static.ads-twitter.com/uwt.js'],
    images: (tag) => [`https://analytics.twitter.com/i/adsct?txn_id=${e(tag)}&p_id=Twitter`],
    beacons: ['https://analytics.twitter.com', 'https://t.co'],
  },
  qapixel: {
    setup: 'qp',
    scripts: () => ['https://a.quora.com/qevents.js'],
    images: (tag) => [`https://q.quora.com/_/ad/${e(tag)}/pixel?tag=ViewContent&noscript=1`],
    beacons: ['https://q.quora.com'],
  },
  pinboard: {
    setup: 'pintrk',
    scripts: () => ['https://s.pinimg.com/ct/core.js'],
    images: (tag) => [`https://ct.pinterest.com/v3/?event=init&tid=${e(tag)}&noscript=1`],
    beacons: ['https://ct.pinterest.com'],
  },
  searchengine: {
    setup: 'uet',
    scripts: () => ['https://bat.bing.com/bat.js'],
    images: (tag) => [`https://bat.bing.com/action/0?ti=${e(tag)}&Ver=2`],
    beacons: ['https://bat.bing.com'],
  },
  messenger: {
    setup: 'snaptr',
    scripts: () => ['https://sc-static.net/scevent.min.js'],
    images: () => [],
    beacons: ['https://tr.snapchat.com'],
  },
  forum: {
    setup: 'rdt',
    scripts: () => ['https://www.redditstatic.com/ads/pixel.js'],
    images: (tag) => [`https://alb.reddit.com/rp.gif?id=${e(tag)}&event=PageVisit`],
    beacons: ['https://alb.reddit.com'],
  },
  shortvideo: {
    setup: 'ttq',
    scripts: (tag) => [`https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=${e(tag)}&lib=ttq`],
    images: () => [],
    beacons: ['https://analytics.tiktok.com'],
  },
};

/**
 * The generic beacon: a tag that is an https URL is requested as a 1x1 image; any other tag is
 * only pushed to `window.dataLayer` as `{event: 'linkqr_pixel', pixel, tag}` for a tag manager on
 * the page to pick up, and sends nothing.
 */
function genericBeacon(tag: string): string[] {
  return tag.startsWith('https:') && isWebUrl(tag) ? [tag] : [];
}

export function pixelLoads(pixels: readonly PagePixel[]): PixelLoad[] {
  return pixels.map(({ type, tag }) => {
    const network = NETWORKS[type];
    if (!network) return { type, tag, setup: 'generic', scripts: [], images: genericBeacon(tag) };
    return {
      type,
      tag,
      setup: network.setup,
      scripts: network.scripts(tag),
      images: network.images(tag),
    };
  });
}

/** The CSP sources the pixels on a page need: their scripts' hosts and their beacons' hosts. */
export function pixelSources(pixels: readonly PagePixel[]): {
  scripts: string[];
  beacons: string[];
} {
  const scripts = new Set<string>();
  const beacons = new Set<string>();
  for (const load of pixelLoads(pixels)) {
    // A stored tag from before hosts were checked cannot add a CSP directive: unclean ones drop.
    for (const s of load.scripts) {
      const origin = cleanOrigin(s);
      if (origin) scripts.add(origin);
    }
    for (const s of load.images) {
      const origin = cleanOrigin(s);
      if (origin) beacons.add(origin);
    }
    NETWORKS[load.type]?.beacons.forEach((b) => beacons.add(b));
  }
  return { scripts: [...scripts], beacons: [...beacons] };
}
