// Shapes the dashboard's browser modules share: the page data the server embeds (its types come
// from src/, so the two sides cannot drift) and the API answers they read.

export type {
  Column,
  FieldOption,
  FormField,
  FormSpec,
  OptionsSource,
  ResourceView,
  RowColumn,
  RuleKeySpec,
  CellError,
} from '../src/dashboard/view-types';
export type { Statistics } from '../src/visits/visits.types';
export type {
  AccountChoice,
  AuditPageData,
  KeysPageData,
  MemberRole,
  TeamPageData,
} from '../src/dashboard/team-view-types';
import type { FormSpec, ResourceView } from '../src/dashboard/view-types';
import type { Statistics } from '../src/visits/visits.types';

export type Child = Node | string | number | null | undefined | false | Child[];

export interface ResourcePage {
  resource: ResourceView;
  dns?: { host: string; targets: string[] };
}

export interface LinkForms {
  id?: number;
  create: FormSpec;
  update: FormSpec;
}

export interface QrRecord {
  id?: number;
  name?: string;
  type?: string;
  data?: unknown;
  foreground?: string;
  background?: string;
  logo?: string | null;
  size?: number;
  format?: string;
  style?: QrStyle | null;
}

export interface QrCorner {
  shape?: string;
  color?: string;
}

/** A QR code's `style`, as the API takes and stores it. */
export interface QrStyle {
  dots?: string;
  corners?: { frame?: QrCorner; ball?: QrCorner };
  gradient?: { type: string; colors: string[]; rotation?: number };
  frame?: { type: string; text?: string; color?: string; textColor?: string };
  margin?: number;
  errorCorrection?: string;
  logoSize?: number;
}

/** The choices of the style's controls. */
export interface QrStyleConfig {
  dots: string[];
  corners: string[];
  gradients: string[];
  frames: string[];
  errorCorrections: string[];
  margin: { min: number; max: number; default: number };
  frameText: number;
  /** Share of the code's width. */
  logoSize: { min: number; max: number; default: number };
}

/** `GET /api/qr/:id/print`'s data. */
export interface PrintCheck {
  distance: number;
  rule: string;
  modules: number;
  moduleMm: number;
  symbolMm: number;
  width: number;
  height: number;
  contrast: number;
  quietZone: { modules: number; mm: number };
  errorCorrection: { level: string; logoCodewords: number; correctable: number; headroom: number };
  warnings: string[];
}

export interface QrConfig {
  id?: number;
  types: string[];
  formats: string[];
  encryptions: string[];
  size: { min: number; max: number; default: number };
  minContrast: number;
  style: QrStyleConfig;
  record?: QrRecord;
}

/** A record of any list, as the API presents it. */
export type Item = { id: number } & Record<string, unknown>;

/** Any answer of the API (`error` is 0, or "0" on lists). */
export interface Answer {
  error: number | string;
  message?: string;
  field?: string;
  id?: number;
}

export interface PageInfo {
  result: number;
  perpage: number;
  currentpage: number;
  nextpage: number;
  maxpage: number;
}

export interface ListAnswer<T> extends Answer {
  data: PageInfo & Record<string, T[]>;
}

export interface LinkItem {
  id: number;
  alias: string;
  shorturl: string;
  longurl: string;
  title: string;
  clicks: number;
  date: string;
  /** In the dashboard's list: a monitored link's health, null when not monitored. */
  health?: LinkHealth | null;
}

export interface LinkHealth {
  status: 'unknown' | 'healthy' | 'broken';
  checked: string | null;
  since: string | null;
  lastError: string | null;
}

export interface LinkDetails extends LinkItem {
  expiry: string | null;
  password: boolean;
  maxclicks: number | null;
  variants: Array<{ url: string; weight: number; clicks: number }>;
  monitor: boolean;
  fallback: string | null;
  health: LinkHealth;
}

export interface DetailsAnswer<T> extends Answer {
  details: T;
  data: Statistics;
}

export interface SeriesPoint {
  t: string;
  clicks: number;
}

export interface SeriesAnswer extends Answer {
  data: { interval: string; tz: string; series: SeriesPoint[] };
}

export interface QrItem {
  id: number;
  link: string;
  scans: number;
  name: string;
  date: string;
}

export interface QrDetails extends QrItem {
  status: 'pending' | 'ready' | 'failed';
  reason: string | null;
}

/** One input of a hand-built form, for placing the API's errors. */
export interface FormRow {
  field: { name: string };
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  error: HTMLElement;
  wrapper: HTMLElement;
}

/** The Import page's data (src/dashboard/dashboard.routes.ts). */
export interface ImportPage {
  sources: string[];
  defaults: Record<string, string>;
}

/** `GET /api/import/:id`'s `data`. */
export interface ImportReport {
  id: number;
  source: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  errors: Array<{ item: string; message: string }>;
  /** Webhooks created, each with a new secret: shown in the first answer once finished, then null. */
  webhooks: Array<{ item: string; id: number; url: string; secret: string | null }>;
  started: string | null;
  finished: string | null;
}

/** `GET /api/keys`'s items. */
export interface KeyItem {
  id: number;
  name: string;
  prefix: string | null;
  scopes: string[];
  created: string;
  lastused: string | null;
  expires: string | null;
  previous: { prefix: string | null; until: string } | null;
}

/** `GET /api/team`'s members and accounts (`userid`: the member, or the account's owner). */
export interface MemberItem {
  id: number;
  userid: number;
  username: string | null;
  role: string;
  created: string;
}

/** `GET /api/audit`'s entries. */
export interface AuditItem {
  id: string;
  date: string;
  account: number;
  user: number;
  key: number | null;
  via: 'key' | 'session';
  method: string;
  route: string;
  type: string;
  record: number | null;
  changes: Record<string, unknown>;
  ip: string | null;
}
