import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import { UAParser } from 'ua-parser-js';
import { resolveCountry } from '../../visits/visit-capture';
import { gempixelDeviceOf, preferredLanguage, type Device } from './rule-values';
import type { RuleDevice } from './rules.schemas';

/** What a User-Agent says, in the terms rules use. */
export interface Agent {
  devices: ReadonlySet<RuleDevice>;
  /** Lower-cased, as ua-parser-js names them (`ios`, `windows`, `mac os`, `android`). */
  os: string;
  /** Lower-cased, as ua-parser-js names them (`chrome`, `mobile safari`, `firefox`). */
  browser: string;
  /** GemPixel's one device name for `devicetarget`. */
  gempixel: Device | null;
}

function parseAgent(userAgent: string): Agent {
  const { device, os, browser } = new UAParser(userAgent).getResult();
  const devices = new Set<RuleDevice>();
  const osName = (os.name ?? '').toLowerCase();
  if (device.model === 'iPhone' || (osName === 'ios' && device.model !== 'iPad'))
    devices.add('iphone');
  if (device.model === 'iPad') devices.add('ipad');
  if (osName === 'android') devices.add('android');
  if (device.type === 'mobile') devices.add('mobile');
  if (device.type === 'tablet') devices.add('tablet');
  if (device.type === undefined && userAgent) devices.add('desktop');
  return {
    devices,
    os: osName,
    browser: (browser.name ?? '').toLowerCase(),
    gempixel: gempixelDeviceOf(device.model, osName),
  };
}

/**
 * Parsing a User-Agent costs tens of microseconds and a link's visitors send few distinct ones,
 * so parsed agents are kept; the key is capped so that a hostile header cannot fill memory.
 */
const agents = new LRUCache<string, Agent>({ max: 2_000 });

export function agentOf(userAgent: string): Agent {
  const key = userAgent.slice(0, 512);
  let agent = agents.get(key);
  if (!agent) agents.set(key, (agent = parseAgent(key)));
  return agent;
}

/** Reading Accept-Language asks Intl for each tag (about 15 µs): answers are kept the same way. */
const languages = new LRUCache<string, string | { none: true }>({ max: 2_000 });
const NO_LANGUAGE = { none: true } as const;

export function languageOf(acceptLanguage: string | undefined): string | null {
  if (!acceptLanguage) return null;
  const key = acceptLanguage.slice(0, 512);
  let language = languages.get(key);
  if (language === undefined)
    languages.set(key, (language = preferredLanguage(key) ?? NO_LANGUAGE));
  return typeof language === 'string' ? language : null;
}

/** What one request offers the rules, read from the request only when a rule asks. */
export interface VisitorSource {
  /** The client address as `trust proxy` defines it. */
  ip: string;
  userAgent: string;
  acceptLanguage: string | undefined;
  referer: string | undefined;
  /** The raw query string, without `?`. */
  query: string;
  /** The trusted proxy's country header, when COUNTRY_HEADER is set. */
  countryHeader: string | undefined;
}

/** A visitor, its facts derived once each and only when a rule needs them. */
export class VisitorFacts {
  private countryValue: string | undefined;
  private languageValue: string | null | undefined;
  private agentValue: Agent | undefined;
  private addressValue: ipaddr.IPv4 | ipaddr.IPv6 | null | undefined;
  private queryValue: URLSearchParams | undefined;
  private referrerValue: string | null | undefined;

  constructor(
    private readonly source: VisitorSource,
    readonly now: number,
  ) {}

  /** English country name, as the visits record it. */
  get country(): string {
    return (this.countryValue ??= resolveCountry(this.source.ip, this.source.countryHeader));
  }

  get language(): string | null {
    if (this.languageValue === undefined)
      this.languageValue = languageOf(this.source.acceptLanguage);
    return this.languageValue;
  }

  get agent(): Agent {
    return (this.agentValue ??= agentOf(this.source.userAgent));
  }

  /** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is its IPv4 address. */
  get address(): ipaddr.IPv4 | ipaddr.IPv6 | null {
    if (this.addressValue === undefined) {
      try {
        this.addressValue = ipaddr.process(this.source.ip);
      } catch {
        this.addressValue = null;
      }
    }
    return this.addressValue;
  }

  get query(): URLSearchParams {
    return (this.queryValue ??= new URLSearchParams(this.source.query));
  }

  get referrerHost(): string | null {
    if (this.referrerValue === undefined) {
      let host: string | null = null;
      try {
        if (this.source.referer) host = new URL(this.source.referer).hostname.toLowerCase();
      } catch {
        host = null;
      }
      this.referrerValue = host;
    }
    return this.referrerValue;
  }
}

function header(req: Pick<IncomingMessage, 'headers'>, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The facts of a request as the app sees it (`ip` after `trust proxy`), at `now`. */
export function factsOf(
  req: Pick<IncomingMessage, 'headers'> & { ip?: string | undefined; url: string },
  countryHeaderName: string | undefined,
  now: number,
): VisitorFacts {
  const mark = req.url.indexOf('?');
  return new VisitorFacts(
    {
      ip: req.ip ?? '',
      userAgent: header(req, 'user-agent') ?? '',
      acceptLanguage: header(req, 'accept-language'),
      referer: header(req, 'referer'),
      query: mark === -1 ? '' : req.url.slice(mark + 1),
      countryHeader: countryHeaderName ? header(req, countryHeaderName) || undefined : undefined,
    },
    now,
  );
}
