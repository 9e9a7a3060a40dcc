// Shapes the dashboard's browser modules share: the page data the server embeds (mirrors of
// src/dashboard/form-fields.ts and resources.ts) and the API answers they read.

export type Child = Node | string | number | null | undefined | false | Child[];

export interface FieldOption {
  value: string;
  label: string;
}

export interface OptionsSource {
  path: string;
  key: string;
  value: string;
  label: string;
}

export interface FormField {
  name: string;
  label: string;
  kind:
    | 'text'
    | 'url'
    | 'password'
    | 'textarea'
    | 'number'
    | 'checkbox'
    | 'select'
    | 'multiselect'
    | 'datetime'
    | 'color'
    | 'json';
  required: boolean;
  nullable: boolean;
  help?: string;
  options?: FieldOption[];
  optionsFrom?: OptionsSource;
}

export interface FormSpec {
  path: string;
  fields: FormField[];
}

export interface Column {
  name: string;
  label: string;
  kind?: 'link' | 'code' | 'bool';
}

export interface ResourceView {
  key: string;
  title: string;
  singular: string;
  intro: string;
  list: { path: string; key: string };
  columns: Column[];
  create?: FormSpec;
  update?: FormSpec;
  remove?: { path: string };
  members?: { label: string; path: string; key: string; columns: Column[] };
}

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
}

export interface QrConfig {
  id?: number;
  types: string[];
  formats: string[];
  encryptions: string[];
  size: { min: number; max: number; default: number };
  minContrast: number;
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
}

export interface LinkDetails extends LinkItem {
  expiry: string | null;
  password: boolean;
}

export interface Statistics {
  clicks: number;
  uniqueClicks: number;
  topCountries: Record<string, string>;
  topReferrers: Record<string, string>;
  topBrowsers: Record<string, string>;
  topOs: Record<string, string>;
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
